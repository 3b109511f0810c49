//! Locales for the tests: the project's catalogues compiled with `msgfmt` into a temporary
//! locale directory, and German (decimal comma) and Japanese glibc locales built with
//! `localedef` into a temporary `LOCPATH`, so no test depends on what the machine has generated.
//!
//! Shared by the i18n tests of core, the CLI and the app.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::po;

/// A scratch directory on disk (not tmpfs): under the workspace's `target/`.
pub fn scratch_dir(prefix: &str) -> tempfile::TempDir {
    let base = po::source_root().join("target").join("test-scratch");
    std::fs::create_dir_all(&base).expect("create target/test-scratch");
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(base)
        .expect("create scratch directory")
}

/// Compiles `po/<lang>.po` for each of `langs` into `dir/<lang>/LC_MESSAGES/agnostics.mo`
/// (what `bindtextdomain` expects) with `msgfmt --check`. Panics when msgfmt is missing or
/// refuses a catalogue: gettext is a build dependency (tools/setup installs it).
pub fn compile_catalogues(dir: &Path, langs: &[&str]) {
    for lang in langs {
        let out_dir = dir.join(lang).join("LC_MESSAGES");
        std::fs::create_dir_all(&out_dir).expect("create LC_MESSAGES");
        let status = Command::new("msgfmt")
            .arg("--check")
            .arg("--output-file")
            .arg(out_dir.join("agnostics.mo"))
            .arg(po::po_dir().join(format!("{lang}.po")))
            .status()
            .expect("run msgfmt (install gettext: tools/setup)");
        assert!(status.success(), "msgfmt refused po/{lang}.po");
    }
}

/// Builds the glibc locale `de_DE.UTF-8` into `dir` (use it as `LOCPATH`) and returns its
/// name, or a [`Skip`](crate::Skip) with the reason when `localedef` or the locale
/// sources (package `locales`) are missing.
pub fn german_locale(dir: &Path) -> Result<&'static str, crate::Skip> {
    build_locale(dir, "de_DE", "de_DE.UTF-8")
}

/// Builds the glibc locale `ja_JP.UTF-8` into `dir`, like [`german_locale`].
pub fn japanese_locale(dir: &Path) -> Result<&'static str, crate::Skip> {
    build_locale(dir, "ja_JP", "ja_JP.UTF-8")
}

fn build_locale(dir: &Path, source: &str, name: &'static str) -> Result<&'static str, crate::Skip> {
    let out = Command::new("localedef")
        .args(["-i", source, "-f", "UTF-8"])
        .arg(dir.join(name))
        .output();
    match out {
        Ok(_) if dir.join(name).join("LC_NUMERIC").exists() => Ok(name),
        Ok(o) => Err(crate::Skip(format!(
            "needs the {name} locale: localedef could not build it: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ))),
        Err(e) => Err(crate::Skip(format!(
            "needs localedef to build {name} ({e}); install the package locales"
        ))),
    }
}

/// The translation of `msgid` in `po/<lang>.po`; panics when it is missing or untranslated.
pub fn translation(lang: &str, msgid: &str) -> String {
    let entries = po::read(&po::po_dir().join(format!("{lang}.po")));
    let text = po::lookup(&entries, msgid)
        .unwrap_or_else(|| panic!("po/{lang}.po does not translate {msgid:?}"))
        .to_owned();
    assert_ne!(text, msgid, "po/{lang}.po leaves {msgid:?} in English");
    text
}

/// Where the compiled catalogues of a test live.
pub fn catalogue_dir(scratch: &Path) -> PathBuf {
    scratch.join("locale")
}
