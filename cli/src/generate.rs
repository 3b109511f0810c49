//! `agnostics-cli generate`: the man pages and shell completions, from the clap definition.
//!
//! Packagers (and `meson.build`) run `agnostics-cli generate man|bash|zsh|fish --out-dir DIR`.
//! The files are named the way each consumer looks them up:
//!
//! | what | files | installed to |
//! |---|---|---|
//! | `man` | `agnostics-cli.1` and one `agnostics-cli-<subcommand>[-<subcommand>].1` per visible subcommand | `$mandir/man1` |
//! | `bash` | `agnostics-cli` | `$datadir/bash-completion/completions` |
//! | `zsh` | `_agnostics-cli` | `$datadir/zsh/vendor-completions` |
//! | `fish` | `agnostics-cli.fish` | `$datadir/fish/vendor_completions.d` |
//!
//! The man pages and completions are English: clap's help text is not translated.

use std::io::Write;
use std::path::{Path, PathBuf};

use agnostics_core::exit_code::ExitCode;
use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{bold, italic, roman, Roff};
use clap_mangen::Man;

use crate::args::{Cli, GenerateArgs};
use crate::output::{emit, To};

/// The program name as installed.
const BIN: &str = "agnostics-cli";

/// Runs `generate`: writes the files for `args.what` into `args.out_dir` (created if missing)
/// and prints each path on stdout. Returns the exit status: 0, or 2 after printing the error.
pub fn main(args: &GenerateArgs) -> i32 {
    match generate(&args.what, &args.out_dir) {
        Ok(paths) => {
            for path in paths {
                emit(To::Stdout, format!("{}\n", path.display()));
            }
            ExitCode::Success.code()
        }
        Err(e) => {
            emit(
                To::Stderr,
                format!(
                    "agnostics-cli: cannot write {} into {}: {e}\n",
                    args.what,
                    args.out_dir.display()
                ),
            );
            ExitCode::NoVerdict.code()
        }
    }
}

/// Writes the man pages (`what == "man"`) or the completion script for the shell `what`
/// (`bash`, `zsh`, `fish`) into `out_dir` and returns the paths written.
///
/// Errors: creating the directory or writing a file; an unknown `what` is
/// [`std::io::ErrorKind::InvalidInput`] (clap already refuses it on the command line).
pub fn generate(what: &str, out_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out_dir)?;
    let cmd = Cli::command();
    match what {
        "man" => man_pages(cmd, out_dir),
        "bash" => completion(Shell::Bash, cmd, &out_dir.join(BIN)),
        "zsh" => completion(Shell::Zsh, cmd, &out_dir.join(format!("_{BIN}"))),
        "fish" => completion(Shell::Fish, cmd, &out_dir.join(format!("{BIN}.fish"))),
        other => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("unknown kind {other:?}: expected man, bash, zsh or fish"),
        )),
    }
}

fn completion(shell: Shell, mut cmd: clap::Command, path: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    clap_complete::generate(shell, &mut cmd, BIN, &mut file);
    file.flush()?;
    Ok(vec![path.to_path_buf()])
}

/// `agnostics-cli.1` (with exit status, environment, files and see-also sections) and a page
/// per visible subcommand (`agnostics-cli-run.1`, …) and per subcommand of those
/// (`agnostics-cli-history-show.1`, …); the hidden `generate` gets none.
fn man_pages(cmd: clap::Command, out_dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut written = Vec::new();

    let main_path = out_dir.join(format!("{BIN}.1"));
    let mut main_page = Vec::new();
    Man::new(cmd.clone())
        .manual("Agnostics")
        .render(&mut main_page)?;
    main_page.extend_from_slice(main_extra_sections().to_roff().as_bytes());
    std::fs::write(&main_path, main_page)?;
    written.push(main_path);

    // The subcommands' pages, and their own subcommands' (`history show` …), which the
    // pages above them name.
    let mut pages: Vec<(clap::Command, String)> = Vec::new();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        pages.push((sub.clone(), BIN.to_owned()));
        let parent = format!("{BIN}-{}", sub.get_name());
        for subsub in sub
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        {
            pages.push((subsub.clone(), parent.clone()));
        }
    }
    for (sub, parent) in pages {
        let man = Man::new(sub).manual("Agnostics");
        let path = out_dir.join(man.get_filename());
        let mut page = Vec::new();
        man.render(&mut page)?;
        let mut see_also = Roff::new();
        see_also
            .control("SH", ["SEE ALSO"])
            .text([bold(parent.as_str()), roman("(1)")]);
        page.extend_from_slice(see_also.to_roff().as_bytes());
        std::fs::write(&path, page)?;
        written.push(path);
    }
    Ok(written)
}

/// The sections of the main page that clap does not know about. No apostrophes in the text:
/// `to_roff` does not escape them.
fn main_extra_sections() -> Roff {
    let mut r = Roff::new();
    exit_status_section(&mut r);
    output_section(&mut r);
    environment_section(&mut r);
    files_section(&mut r);
    see_also_section(&mut r);
    r
}

/// EXIT STATUS: what each status of `run` means.
fn exit_status_section(r: &mut Roff) {
    r.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in [
        ("0", "PASS: the card meets the A1 targets."),
        ("1", "FAIL: a graded check is below its target."),
        (
            "2",
            "ERROR: the test could not run or measure (refused target, missing fio, I/O error).",
        ),
        ("130", "Cancelled with Ctrl-C; the test file was removed."),
        ("143", "Stopped by SIGTERM; the test file was removed."),
    ] {
        r.control("TP", [])
            .text([bold(code)])
            .text([roman(meaning)]);
    }
}

/// OUTPUT: upstream's result lines, always English, and what follows them.
fn output_section(r: &mut Roff) {
    r.control("SH", ["OUTPUT"]).text([roman(
        "Each run starts with the lines upstream agnostics prints, in English in every language \
         because scripts parse them, for example:",
    )]);
    r.control("RS", [])
        .control("nf", [])
        .text([roman(
            "Sequential write speed 5251 KB/sec (target 10000) - FAIL",
        )])
        .text([roman("Random write speed 612 IOPS (target 500) - PASS")])
        .text([roman("Random read speed 1200 IOPS (target 1500) - FAIL")])
        .control("fi", [])
        .control("RE", []);
    r.text([roman(
        "KB/sec in those lines means KiB/s (1024 bytes per second). The rest of the text, the \
         advice and the numbers in it follow the language and locale of the user; ",
    )])
    .text([bold("--json"), roman(" output never does.")]);
}

/// ENVIRONMENT: the locale variables and the catalogue directory.
fn environment_section(r: &mut Roff) {
    r.control("SH", ["ENVIRONMENT"]);
    r.control("TP", [])
        .text([
            bold("LANGUAGE"),
            roman(", "),
            bold("LC_ALL"),
            roman(", "),
            bold("LANG"),
        ])
        .text([roman(
            "Choose the language of the messages and the decimal separator of the numbers.",
        )]);
    r.control("TP", [])
        .text([bold("AGNOSTICS_LOCALEDIR")])
        .text([roman(
            "Read the message catalogues from this directory instead of the installed ones.",
        )]);
    r.control("TP", [])
        .text([bold("AGNOSTICS_HISTORY")])
        .text([roman(
            "The history file to record runs in and read them from, instead of the default.",
        )]);
    r.control("TP", [])
        .text([bold("AGNOSTICS_LOCK_DIR")])
        .text([roman(
            "The directory of the drives' lock files, by which two tests on one drive know \
             of each other, instead of /run/lock.",
        )]);
    r.control("TP", [])
        .text([bold("AGNOSTICS_RECOVERY_DIR")])
        .text([roman(
            "The directory of the recovery files of capacity --device, instead of the \
             default (see FILES). It must belong to the user running the check and be \
             writable by nobody else, or its files are refused.",
        )]);
    r.control("TP", [])
        .text([bold("XDG_STATE_HOME")])
        .text([roman(
            "Where the history file and, when not root, the recovery files live by default \
             (see FILES).",
        )]);
}

/// FILES: the default target, the built-in job file, the log.
fn files_section(r: &mut Roff) {
    r.control("SH", ["FILES"]);
    r.control("TP", []).text([italic("/var/tmp")]).text([roman(
        "The default directory to test in. The test writes one file of 256 MiB there \
             and removes it afterwards.",
    )]);
    r.control("TP", [])
        .text([italic("/usr/share/agnostics/sd_bench.fio")])
        .text([roman(
            "The standard test as a fio job file, the same as upstream agnostics uses.",
        )]);
    r.control("TP", []).text([italic("~/rpdiags.txt")]).text([
        roman("The log that "),
        bold("agnostics-cli scripts"),
        roman(" writes."),
    ]);
    r.control("TP", [])
        .text([italic("$XDG_STATE_HOME/agnostics/history.sqlite3")])
        .text([
            roman(
                "The history of runs (SQLite; ~/.local/state/agnostics/history.sqlite3 when \
                 XDG_STATE_HOME is not set). Every finished run is recorded unless ",
            ),
            bold("--no-history"),
            roman(" is given; serial numbers are never stored."),
        ]);
    r.control("TP", [])
        .text([italic("/run/lock/agnostics-MAJ_MIN.lock")])
        .text([roman(
            "One per disk: every test holds a shared lock on the file of each disk it uses \
             while it runs, so that a test that shares its drive with another one (either \
             program, any user) says so and is not graded. Left for the next test. \
             capacity --device, which opens the device for itself alone, notes a lock held \
             by another user and goes on; a lock path that is not a regular file is never \
             opened through and is named in a warning.",
        )]);
    r.control("TP", [])
        .text([italic("/var/lib/agnostics/capacity-recovery")])
        .text([
            roman(
                "The recovery files of capacity --device (root; otherwise \
                 $XDG_STATE_HOME/agnostics/capacity-recovery): the original sectors of an \
                 interrupted check, put back by the next check of the same card (known by \
                 its size, CID and content, in any reader). Files of a card that is not \
                 present are listed and left alone; ",
            ),
            bold("agnostics-cli capacity --forget-recovery"),
            roman(" lists and forgets them."),
        ]);
}

/// SEE ALSO: the subcommands' pages and fio.
fn see_also_section(r: &mut Roff) {
    r.control("SH", ["SEE ALSO"]).text([
        bold("agnostics-cli-run"),
        roman("(1), "),
        bold("agnostics-cli-targets"),
        roman("(1), "),
        bold("agnostics-cli-card"),
        roman("(1), "),
        bold("agnostics-cli-scripts"),
        roman("(1), "),
        bold("agnostics-cli-history"),
        roman("(1), "),
        bold("agnostics-cli-compare"),
        roman("(1), "),
        bold("fio"),
        roman("(1)"),
    ]);
}
