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

/// Where the `.mo` catalogues are: `$AGNOSTICS_LOCALEDIR` when set (tests, running from the
/// build tree), else `build_time` (the `LOCALEDIR` meson passed to cargo, or the caller's
/// default).
pub fn locale_dir(build_time: &str) -> std::path::PathBuf {
    match std::env::var_os("AGNOSTICS_LOCALEDIR") {
        Some(dir) if !dir.is_empty() => dir.into(),
        _ => build_time.into(),
    }
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
    fn fill_keeps_unknown_placeholders() {
        assert_eq!(fill("{nope}", &[("value", &1)]), "{nope}");
    }
}
