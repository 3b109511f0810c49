//! `agnostics-cli` speaks the user's language: under `LANG=C.UTF-8 LANGUAGE=de` (or `ja`) the
//! advice for a refused target and for a real failing run is the German (Japanese) text from
//! `po/`, upstream's compat lines and the `~/rpdiags.txt` log stay English, numbers for people
//! take the locale's decimal comma (`de_DE.UTF-8`) while the JSON never does, and without a
//! catalogue for the language everything stays English.
//!
//! The catalogues are compiled with `msgfmt` into a scratch directory and found through
//! `AGNOSTICS_LOCALEDIR`, except in one test: the binary as cargo built it finds the
//! catalogues core's build script compiled into the build tree. glibc ignores `LANGUAGE` in the "C" locale, but `C.UTF-8` is not "C"
//! (glibc 2.35 and later; Debian 12 has 2.36), so messages need no generated locale. The
//! decimal comma does: `de_DE.UTF-8` is built with `localedef` into a scratch `LOCPATH`.

use agnostics_testkit::locale;

use std::path::Path;
use std::process::{Command, Output};

const CHOOSE_FOLDER: &str =
    "Choose a folder that exists and that you can write to, such as your home folder.";

/// Runs the CLI with `args` in `language` under `LANG=C.UTF-8`, reading catalogues from
/// `catalogues`.
fn run_cli(args: &[&str], language: &str, catalogues: &Path) -> Output {
    cli_command(args, language, catalogues)
        .output()
        .expect("run agnostics-cli")
}

fn cli_command(args: &[&str], language: &str, catalogues: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agnostics-cli"));
    with_language(&mut cmd, args, language, catalogues);
    cmd
}

/// Adds `args` and the environment of a run in `language` to `cmd`.
fn with_language(cmd: &mut Command, args: &[&str], language: &str, catalogues: &Path) {
    cmd.args(args)
        .env(
            "AGNOSTICS_LOCK_DIR",
            agnostics_testkit::private_lock_dir(Path::new(env!("CARGO_TARGET_TMPDIR"))),
        )
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LC_NUMERIC")
        .env("LANG", "C.UTF-8")
        .env("LANGUAGE", language)
        .env("AGNOSTICS_LOCALEDIR", catalogues)
        .env("AGNOSTICS_LOG", catalogues.join("rpdiags.txt"))
        .env("AGNOSTICS_HISTORY", fresh_history(catalogues));
}

/// A history file in `dir` that no other run here has used (no earlier runs to compare with).
fn fresh_history(dir: &Path) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static MADE: AtomicUsize = AtomicUsize::new(0);
    dir.join(format!(
        "history-{}.sqlite3",
        MADE.fetch_add(1, Ordering::SeqCst)
    ))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("output is UTF-8")
}

/// A missing target directory in `language`: refused before a byte is written, exit 2, and
/// the advice (on stdout after the report, on stderr after the error) in that language.
fn missing_target_advice_is_translated(language: &str) {
    let scratch = locale::scratch_dir("cli-i18n-");
    let catalogues = locale::catalogue_dir(scratch.path());
    locale::compile_catalogues(&catalogues, &[language]);
    let missing = scratch.path().join("no-such-folder");

    let out = run_cli(
        &["--target", missing.to_str().expect("UTF-8 path")],
        language,
        &catalogues,
    );
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );

    let advice = locale::translation(language, CHOOSE_FOLDER);
    assert!(
        stdout.contains(&format!("• {advice}")),
        "no {language} advice on stdout:\n{stdout}"
    );
    assert!(
        stderr.contains(&advice),
        "no {language} advice on stderr:\n{stderr}"
    );
    assert!(
        !stdout.contains(CHOOSE_FOLDER) && !stderr.contains(CHOOSE_FOLDER),
        "English advice in {language} output:\n{stdout}\n{stderr}"
    );
    let result = locale::translation(language, "Result: {verdict}").replace("{verdict}", "ERROR");
    assert!(
        stdout.lines().any(|l| l == result),
        "no {result:?} line:\n{stdout}"
    );
}

fn missing_target_advice_is_german_under_language_de() {
    missing_target_advice_is_translated("de");
}

fn missing_target_advice_is_japanese_under_language_ja() {
    missing_target_advice_is_translated("ja");
}

fn german_advice_reads_like_the_german_catalogue_says() {
    // Guards the catalogue itself: the German text a novice reads for a missing folder.
    assert_eq!(
        locale::translation("de", CHOOSE_FOLDER),
        "Wählen Sie einen Ordner, der existiert und in den Sie schreiben dürfen, zum Beispiel Ihren persönlichen Ordner."
    );
}

fn language_without_catalogue_stays_english() {
    let scratch = locale::scratch_dir("cli-i18n-");
    let catalogues = locale::catalogue_dir(scratch.path());
    locale::compile_catalogues(&catalogues, &["de"]);
    let missing = scratch.path().join("no-such-folder");

    let out = run_cli(
        &["--target", missing.to_str().expect("UTF-8 path")],
        "eo",
        &catalogues,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout.contains(&format!("• {CHOOSE_FOLDER}")), "{stdout}");
    assert!(stdout.lines().any(|l| l == "Result: ERROR"), "{stdout}");
}

fn json_keeps_keys_kinds_and_verdicts_under_language_de() {
    let scratch = locale::scratch_dir("cli-i18n-");
    let catalogues = locale::catalogue_dir(scratch.path());
    locale::compile_catalogues(&catalogues, &["de"]);
    let missing = scratch.path().join("no-such-folder");

    let out = run_cli(
        &["--json", "--target", missing.to_str().expect("UTF-8 path")],
        "de",
        &catalogues,
    );
    assert_eq!(out.status.code(), Some(2));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(json["verdict"], "ERROR");
    assert_eq!(json["advice"][0]["kind"], "choose_another_folder");
    let kind = json["error"]["kind"].as_str().expect("error.kind");
    assert!(
        !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
        "error.kind {kind:?} is not a machine-readable kind"
    );
    // The hint is text for people, so it is translated.
    assert_eq!(
        json["error"]["hint"],
        locale::translation("de", CHOOSE_FOLDER).as_str()
    );
}

/// The slow random I/O advice for a drive that is not an SD card (the failing run is on a loop
/// device, so the A1/A2 card sentence is not said).
const RANDOM_IO_SLOW: &str = "Random reads or writes are too slow: the desktop and programs will feel sluggish if the system runs from this drive. Keep the system on a faster drive, and use this one for files.";

/// A profile for [`slow_target`]: 16 MiB, one request at a time, 1 MiB sequential blocks
/// (100 MiB/s through the throttle: seq-write passes) and 4 KiB random blocks (about 100 IOPS:
/// both random checks fail), one second each.
fn failing_profile(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("fails.fio");
    std::fs::write(
        &path,
        "[global]\nioengine=libaio\ndirect=1\niodepth=1\nsize=16m\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=1\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime=1\nstonewall\n",
    )
    .expect("write profile");
    path
}

/// A drive that fails the random checks by construction: a loop-mounted ext4 throttled by a
/// blkio group to 100 write and 100 read IOPS. A skip where it cannot be made (not root, no
/// cgroup throttle).
fn slow_target() -> Result<agnostics_testkit::ThrottledDisk, agnostics_testkit::Skip> {
    agnostics_testkit::ThrottledDisk::require()?;
    Ok(agnostics_testkit::ThrottledDisk::new(
        96,
        agnostics_testkit::Throttle {
            write_iops: 100,
            read_iops: 100,
            ..Default::default()
        },
    ))
}

/// A real run of [`failing_profile`] on a [`slow_target`], in `language`; with `locale` (a
/// `LOCPATH` and a locale name) for LC_ALL instead of `LANG=C.UTF-8`. A skip where the slow
/// target cannot be made.
fn failing_run(
    language: &str,
    locale: Option<(&Path, &str)>,
    json: bool,
) -> Result<(Output, String, tempfile::TempDir), agnostics_testkit::Skip> {
    let slow = slow_target()?;
    let scratch = locale::scratch_dir("cli-i18n-run-");
    let catalogues = locale::catalogue_dir(scratch.path());
    locale::compile_catalogues(&catalogues, &[language]);
    let profile = failing_profile(scratch.path());
    let mut args = vec![
        "--runs",
        "1",
        "--target",
        slow.path().to_str().expect("UTF-8 path"),
        "--profile",
        profile.to_str().expect("UTF-8 path"),
    ];
    if json {
        args.push("--json");
    }
    let mut cmd = slow.command(Path::new(env!("CARGO_BIN_EXE_agnostics-cli")));
    with_language(&mut cmd, &args, language, &catalogues);
    if let Some((locpath, name)) = locale {
        cmd.env("LOCPATH", locpath).env("LC_ALL", name);
    }
    let out = cmd.output().expect("run agnostics-cli");
    let log = std::fs::read_to_string(catalogues.join("rpdiags.txt")).unwrap_or_default();
    Ok((out, log, scratch))
}

/// Upstream's three result lines, exactly, in `stdout`; none of them translated.
fn assert_compat_lines_english(stdout: &str) {
    for (what, unit, target) in [
        ("Sequential write speed", "KB/sec", "10000"),
        ("Random write speed", "IOPS", "500"),
        ("Random read speed", "IOPS", "1500"),
    ] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(what))
            .unwrap_or_else(|| panic!("no {what:?} line:\n{stdout}"));
        let rest = line[what.len()..].trim_start();
        let (value, tail) = rest.split_once(' ').expect("value then unit");
        assert!(
            value.bytes().all(|b| b.is_ascii_digit()),
            "{line:?}: the value is not a whole number"
        );
        let verdict = tail
            .strip_prefix(&format!("{unit} (target {target}) - "))
            .unwrap_or_else(|| panic!("{line:?} is not upstream's form"));
        assert!(["PASS", "FAIL"].contains(&verdict), "{line:?}");
    }
}

fn failing_run_advice_is_translated(language: &str) -> agnostics_testkit::Ran {
    let (out, log, _scratch) = failing_run(language, None, false)?;
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stdout:\n{stdout}\nstderr:\n{}",
        text(&out.stderr)
    );
    assert_compat_lines_english(&stdout);
    let advice = locale::translation(language, RANDOM_IO_SLOW);
    assert!(
        stdout.contains(&format!("• {advice}")),
        "no {language} advice for slow random I/O:\n{stdout}"
    );
    assert!(
        !stdout.contains(RANDOM_IO_SLOW),
        "English advice:\n{stdout}"
    );
    // The log keeps upstream's English form for the scripts that read it.
    assert!(log.contains("Test FAIL"), "log:\n{log}");
    assert!(
        log.lines()
            .any(|l| l.starts_with("Random read speed ") && l.ends_with(" - FAIL")),
        "log:\n{log}"
    );
    assert!(
        !log.contains(&advice),
        "translated advice in the log:\n{log}"
    );
    Ok(())
}

fn failing_run_advice_is_german_and_compat_lines_stay_english() -> agnostics_testkit::Ran {
    failing_run_advice_is_translated("de")
}

fn failing_run_advice_is_japanese_and_compat_lines_stay_english() -> agnostics_testkit::Ran {
    failing_run_advice_is_translated("ja")
}

fn numbers_for_people_take_the_german_decimal_comma_but_compat_lines_and_json_do_not(
) -> agnostics_testkit::Ran {
    let locpath = locale::scratch_dir("cli-i18n-locpath-");
    let german = locale::german_locale(locpath.path())?;
    let (out, _log, _scratch) = failing_run("de", Some((locpath.path(), german)), false)?;
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_compat_lines_english(&stdout);
    let phase = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("seq-write "))
        .unwrap_or_else(|| panic!("no seq-write phase line:\n{stdout}"));
    let mb_per_s = phase
        .split_whitespace()
        .nth(1)
        .expect("the MB/s figure after the phase name");
    let (whole, decimals) = mb_per_s
        .split_once(',')
        .unwrap_or_else(|| panic!("no decimal comma in {phase:?}"));
    assert!(
        whole.bytes().all(|b| b.is_ascii_digit()) && decimals.len() == 2,
        "{phase:?}"
    );

    let (out, _log, _scratch) = failing_run("de", Some((locpath.path(), german)), true)?;
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let seq = &json["runs"][0]["phases"][1];
    assert_eq!(seq["name"], "seq-write");
    assert!(seq["bw_bytes"].as_f64().is_some_and(|v| v > 0.0), "{seq}");
    let raw = text(&out.stdout);
    let field = raw
        .lines()
        .find(|l| l.trim_start().starts_with("\"bw_bytes\": "))
        .expect("a bw_bytes line");
    assert!(
        !field.trim_end_matches(',').contains(','),
        "locale in the JSON: {field:?}"
    );
    Ok(())
}

/// The binary cargo built, as `tools/sd-test` runs it from `target/`, with nothing but the
/// user's language set (no `AGNOSTICS_LOCALEDIR`, no installed copy needed): the catalogues
/// the build compiled from `po/` are found in the build tree, in German and in Japanese.
fn the_cargo_built_binary_speaks_the_users_language_without_agnostics_localedir() {
    for language in ["de", "ja"] {
        let scratch = locale::scratch_dir("cli-i18n-build-tree-");
        let missing = scratch.path().join("no-such-folder");
        let out = Command::new(env!("CARGO_BIN_EXE_agnostics-cli"))
            .args(["--target", missing.to_str().expect("UTF-8 path")])
            .env_remove("AGNOSTICS_LOCALEDIR")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env("LANG", "C.UTF-8")
            .env("LANGUAGE", language)
            .env("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"))
            .env("AGNOSTICS_HISTORY", fresh_history(scratch.path()))
            .output()
            .expect("run agnostics-cli");
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{stdout}");
        let advice = locale::translation(language, CHOOSE_FOLDER);
        assert!(
            stdout.contains(&format!("• {advice}")),
            "no {language} advice from the build tree's catalogues:\n{stdout}"
        );
        assert!(!stdout.contains(CHOOSE_FOLDER), "English advice:\n{stdout}");
    }
}

agnostics_testkit::test_list!(
    the_cargo_built_binary_speaks_the_users_language_without_agnostics_localedir,
    missing_target_advice_is_german_under_language_de,
    missing_target_advice_is_japanese_under_language_ja,
    german_advice_reads_like_the_german_catalogue_says,
    language_without_catalogue_stays_english,
    json_keeps_keys_kinds_and_verdicts_under_language_de,
    failing_run_advice_is_german_and_compat_lines_stay_english,
    failing_run_advice_is_japanese_and_compat_lines_stay_english,
    numbers_for_people_take_the_german_decimal_comma_but_compat_lines_and_json_do_not,
);
