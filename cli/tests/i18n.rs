//! `agnostics-cli` speaks the user's language: under `LANG=C.UTF-8 LANGUAGE=de` (or `ja`) the
//! advice for a failed run is the German (Japanese) text from `po/`, the JSON keeps its
//! machine-readable keys and kinds, and without a catalogue for the language it stays English.
//!
//! The catalogues are compiled with `msgfmt` into a scratch directory and found through
//! `AGNOSTICS_LOCALEDIR`. glibc ignores `LANGUAGE` in the "C" locale, but `C.UTF-8` is not "C"
//! (glibc 2.35 and later, Debian 12 has 2.36), so no locale needs to be generated.

#[path = "../../core/tests/common/locale.rs"]
mod locale;
#[path = "../../core/tests/common/po.rs"]
mod po;

use std::path::Path;
use std::process::{Command, Output};


const CHOOSE_FOLDER: &str =
    "Choose a folder that exists and that you can write to, such as your home folder.";

/// Runs the CLI with `args` in `language`, reading catalogues from `catalogues`.
fn run_cli(args: &[&str], language: &str, catalogues: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agnostics-cli"))
        .args(args)
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("LC_NUMERIC")
        .env("LANG", "C.UTF-8")
        .env("LANGUAGE", language)
        .env("AGNOSTICS_LOCALEDIR", catalogues)
        .output()
        .expect("run agnostics-cli")
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

#[test]
fn missing_target_advice_is_german_under_language_de() {
    missing_target_advice_is_translated("de");
}

#[test]
fn missing_target_advice_is_japanese_under_language_ja() {
    missing_target_advice_is_translated("ja");
}

#[test]
fn german_advice_reads_like_the_german_catalogue_says() {
    // Guards the catalogue itself: the German text a novice reads for a missing folder.
    assert_eq!(
        locale::translation("de", CHOOSE_FOLDER),
        "Wählen Sie einen Ordner, der existiert und in den Sie schreiben dürfen, zum Beispiel Ihren persönlichen Ordner."
    );
}

#[test]
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

#[test]
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
