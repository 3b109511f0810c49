//! Compiles the translations (`po/<lang>.po` for each language of `po/LINGUAS`) with `msgfmt`
//! into `$OUT_DIR/locale/<lang>/LC_MESSAGES/agnostics.mo`, the layout `bindtextdomain` reads,
//! and tells the crate where that folder is (`AGNOSTICS_BUILD_LOCALEDIR`). A program built with
//! plain cargo (`tools/sd-test`, running from `target/`) then speaks the user's language
//! without being installed; `agnostics_core::i18n::locale_dir` prefers an installed copy when
//! meson gave one (`LOCALEDIR`).
//!
//! Without `msgfmt` (package gettext) or without the `po/` folder (a crate built outside the
//! repository) the build goes on with a cargo warning, and the programs speak English.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let po = manifest.join("../po");
    println!("cargo:rerun-if-changed={}", po.display());
    println!("cargo:rerun-if-env-changed=PATH");

    let Ok(linguas) = std::fs::read_to_string(po.join("LINGUAS")) else {
        println!(
            "cargo:warning=no translations at {} (no LINGUAS): messages will be English",
            po.display()
        );
        return;
    };
    let locale = out.join("locale");
    let mut compiled = 0;
    for lang in languages(&linguas) {
        match compile(
            &po.join(format!("{lang}.po")),
            &locale.join(lang).join("LC_MESSAGES"),
        ) {
            Ok(()) => compiled += 1,
            Err(Missing) => {
                println!(
                    "cargo:warning=msgfmt not found (install gettext, as tools/setup does): \
                     the programs run from the build tree will speak English"
                );
                return;
            }
            Err(Refused(why)) => {
                println!("cargo:warning=po/{lang}.po not compiled, it stays English: {why}")
            }
        }
    }
    if compiled > 0 {
        println!(
            "cargo:rustc-env=AGNOSTICS_BUILD_LOCALEDIR={}",
            locale.display()
        );
    }
}

/// The language codes of a `LINGUAS` file: one a line, `#` comments and blank lines ignored.
fn languages(linguas: &str) -> impl Iterator<Item = &str> {
    linguas
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// Why a catalogue was not compiled.
enum Failure {
    /// `msgfmt` cannot be run.
    Missing,
    /// `msgfmt` refused the catalogue (its message).
    Refused(String),
}
use Failure::{Missing, Refused};

/// `msgfmt --check` of `po` into `dir/agnostics.mo`.
fn compile(po: &Path, dir: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| Refused(format!("{}: {e}", dir.display())))?;
    let output = Command::new("msgfmt")
        .arg("--check")
        .arg("--output-file")
        .arg(dir.join("agnostics.mo"))
        .arg(po)
        .output()
        .map_err(|_| Missing)?;
    if output.status.success() {
        Ok(())
    } else {
        Err(Refused(
            String::from_utf8_lossy(&output.stderr)
                .trim()
                .replace('\n', "; "),
        ))
    }
}
