//! Translation helpers shared by the CLI and the desktop app: gettext with named placeholders.
//!
//! Strings for people go through [`gettext`](gettextrs::gettext); placeholders are named
//! (`{value}`, `{target}`) so that translators can move them. [`fill`] substitutes them.

pub use gettextrs::{gettext, ngettext, pgettext};

/// Marks `msgid` for extraction into the catalogues without translating it: for strings in
/// tables (`const`/`static`) that are translated later with [`gettext`] when shown.
/// `po/update.sh` extracts its argument (xgettext's `gettext_noop` keyword).
pub const fn gettext_noop(msgid: &'static str) -> &'static str {
    msgid
}

/// The gettext domain of every catalogue of the project.
pub const DOMAIN: &str = "agnostics";

/// Replaces each `{name}` in `template` with its value from `args`.
///
/// Unknown placeholders are left as they are, so a translation with a typo shows the typo
/// instead of losing text.
pub fn fill(template: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in args {
        out = out.replace(&format!("{{{name}}}"), &value.to_string());
    }
    out
}

/// The catalogues the build compiled from `po/` (core's build script, with `msgfmt`), in
/// cargo's target folder; `None` when it could not compile them.
const BUILD_TREE_LOCALEDIR: Option<&str> = option_env!("AGNOSTICS_BUILD_LOCALEDIR");

/// The install's catalogue folder when meson built the program (it passes `LOCALEDIR` to
/// cargo); `None` for a plain cargo build.
const INSTALLED_LOCALEDIR: Option<&str> = option_env!("LOCALEDIR");

/// Where the `.mo` catalogues are, as a folder of `<lang>/LC_MESSAGES/agnostics.mo`:
///
/// 1. `$AGNOSTICS_LOCALEDIR` when set (tests, a translator's own catalogues);
/// 2. the install's folder when meson built the program (`LOCALEDIR` at build time) and it
///    holds the project's catalogues, so an installed program uses the installed translations;
/// 3. the catalogues the cargo build compiled into its target folder, when they are still
///    there, so `cargo build` / `tools/sd-test` speak the user's language from the build tree;
/// 4. `default` (the caller's `LOCALEDIR`, e.g. `/usr/share/locale`) when it holds them;
/// 5. else the install's folder, or `default`: gettext then finds nothing and the program
///    speaks English.
pub fn locale_dir(default: &str) -> std::path::PathBuf {
    if let Some(dir) = std::env::var_os("AGNOSTICS_LOCALEDIR").filter(|d| !d.is_empty()) {
        return dir.into();
    }
    let candidates = [INSTALLED_LOCALEDIR, BUILD_TREE_LOCALEDIR, Some(default)];
    candidates
        .into_iter()
        .flatten()
        .map(std::path::PathBuf::from)
        .find(|dir| has_catalogues(dir))
        .unwrap_or_else(|| INSTALLED_LOCALEDIR.unwrap_or(default).into())
}

/// True when `dir` holds a catalogue of the project's domain for at least one language.
fn has_catalogues(dir: &std::path::Path) -> bool {
    let mo = format!("{DOMAIN}.mo");
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|lang| lang.path().join("LC_MESSAGES").join(&mo).is_file())
    })
}

/// Binds the `agnostics` domain to `locale_dir` and selects the user's locale from the
/// environment (`LANG`, `LC_ALL`, `LANGUAGE`).
///
/// Errors from gettext are ignored on purpose: without catalogues the program speaks English.
pub fn init(locale_dir: &std::path::Path) {
    let _ = gettextrs::setlocale(gettextrs::LocaleCategory::LcAll, "");
    let _ = gettextrs::bindtextdomain(DOMAIN, locale_dir);
    let _ = gettextrs::bind_textdomain_codeset(DOMAIN, "UTF-8");
    let _ = gettextrs::textdomain(DOMAIN);
}

/// Formats `value` with `decimals` digits after the locale's decimal separator (a comma in
/// German), for people; JSON and upstream's compat lines never use this.
pub fn number(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    let point = decimal_point();
    if point == "." {
        text
    } else {
        text.replace('.', &point)
    }
}

/// The current locale's decimal separator (`LC_NUMERIC`), "." when it cannot be read.
fn decimal_point() -> String {
    // SAFETY: localeconv returns a pointer to static storage valid until the next
    // setlocale/localeconv call; we copy the string out at once.
    unsafe {
        let conv = libc::localeconv();
        if conv.is_null() || (*conv).decimal_point.is_null() {
            return ".".into();
        }
        std::ffi::CStr::from_ptr((*conv).decimal_point)
            .to_string_lossy()
            .into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_named_placeholders() {
        assert_eq!(
            fill("{value} of {target}", &[("value", &12), ("target", &"500")]),
            "12 of 500"
        );
    }

    #[test]
    fn the_build_compiled_the_catalogues_of_every_language() {
        // tools/setup installs gettext, so msgfmt was there when this crate was built.
        let dir = std::path::Path::new(
            BUILD_TREE_LOCALEDIR.expect("the build script compiled po/ (is msgfmt installed?)"),
        );
        let linguas = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../po/LINGUAS"),
        )
        .expect("po/LINGUAS");
        for lang in linguas
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let mo = dir.join(lang).join("LC_MESSAGES/agnostics.mo");
            assert!(mo.is_file(), "{} missing", mo.display());
        }
        assert!(has_catalogues(dir));
        assert!(!has_catalogues(std::path::Path::new("/nonexistent")));
    }

    #[test]
    fn fill_keeps_unknown_placeholders() {
        assert_eq!(fill("{nope}", &[("value", &1)]), "{nope}");
    }
}
