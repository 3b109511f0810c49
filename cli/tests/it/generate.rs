//! `agnostics-cli generate man|bash|zsh|fish`: the files packagers install, named as meson
//! installs them (cli/meson.build lists the man pages; the lists must agree).

use agnostics_testkit::locale;
use agnostics_testkit::po;

use std::path::Path;
use std::process::Command;

fn generate(what: &str, out_dir: &Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_agnostics-cli"))
        .args(["generate", what, "--out-dir"])
        .arg(out_dir)
        .output()
        .expect("run agnostics-cli generate");
    assert!(
        out.status.success(),
        "generate {what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(out_dir)
        .expect("read output directory")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The quoted names in the `man_pages = [...]` list of cli/meson.build.
fn man_pages_meson_installs() -> Vec<String> {
    let meson = std::fs::read_to_string(po::source_root().join("cli/meson.build"))
        .expect("read cli/meson.build");
    let list = meson
        .split("man_pages = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("cli/meson.build has a man_pages list");
    let mut names: Vec<String> = list
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    names.sort();
    names
}

fn man_pages_are_exactly_the_ones_meson_installs() {
    let dir = locale::scratch_dir("generate-man-");
    let written = generate("man", dir.path());
    assert_eq!(written, man_pages_meson_installs());
    assert!(
        !written.iter().any(|n| n.contains("generate")),
        "the hidden generate subcommand got a man page"
    );
}

fn main_man_page_documents_exit_status_and_compat_lines() {
    let dir = locale::scratch_dir("generate-man-");
    generate("man", dir.path());
    let page = std::fs::read_to_string(dir.path().join("agnostics-cli.1")).expect("read page");
    assert!(
        page.starts_with(".ie") || page.contains("\n.TH agnostics-cli 1"),
        "{page}"
    );
    for section in [
        ".SH NAME",
        ".SH SYNOPSIS",
        ".SH OPTIONS",
        ".SH SUBCOMMANDS",
        ".SH \"EXIT STATUS\"",
        ".SH ENVIRONMENT",
        ".SH FILES",
        ".SH \"SEE ALSO\"",
    ] {
        assert!(page.contains(section), "no {section} in the man page");
    }
    assert!(page.contains("Sequential write speed 5251 KB/sec (target 10000) \\- FAIL"));
    assert!(page.contains("AGNOSTICS_LOCALEDIR"));
}

fn completions_are_named_for_each_shell() {
    for (shell, file, marker) in [
        ("bash", "agnostics-cli", "complete -F"),
        ("zsh", "_agnostics-cli", "#compdef agnostics-cli"),
        ("fish", "agnostics-cli.fish", "complete -c agnostics-cli"),
    ] {
        let dir = locale::scratch_dir("generate-completion-");
        assert_eq!(generate(shell, dir.path()), [file]);
        let script = std::fs::read_to_string(dir.path().join(file)).expect("read completion");
        assert!(script.contains(marker), "{shell}: no {marker:?}");
        for subcommand in ["run", "targets", "card", "scripts"] {
            assert!(script.contains(subcommand), "{shell}: no {subcommand}");
        }
        assert!(script.contains("target"), "{shell}: no --target option");
    }
}

fn bash_completion_is_valid_bash() {
    let dir = locale::scratch_dir("generate-completion-");
    generate("bash", dir.path());
    let status = Command::new("bash")
        .arg("-n")
        .arg(dir.path().join("agnostics-cli"))
        .status()
        .expect("run bash -n");
    assert!(status.success());
}

fn unknown_kind_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_agnostics-cli"))
        .args(["generate", "powershell"])
        .output()
        .expect("run agnostics-cli");
    assert_eq!(out.status.code(), Some(2));
}

agnostics_testkit::test_list!(
    man_pages_are_exactly_the_ones_meson_installs,
    main_man_page_documents_exit_status_and_compat_lines,
    completions_are_named_for_each_shell,
    bash_completion_is_valid_bash,
    unknown_kind_is_refused,
);
