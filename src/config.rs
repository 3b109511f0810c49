//! Build-time configuration, committed so that plain `cargo build`, `cargo clippy` and
//! `cargo test` work without meson. meson passes the installed values through the environment
//! of its cargo call (`APP_ID`, `LOCALEDIR`, `PKGDATADIR`, `VERSION`); without them the development
//! defaults below apply.

/// The application ID: the D-Bus name, the desktop file's name (`APP_ID.desktop`), the icon
/// name and what the Raspberry Pi taskbar matches windows by. A domain the project owns
/// (`io.github.agnostics_rs`).
pub const APP_ID: &str = match option_env!("APP_ID") {
    Some(id) => id,
    None => "io.github.agnostics_rs.Agnostics",
};

/// The program's version, e.g. `0.1.0` (meson's project version, else Cargo's).
pub const VERSION: &str = match option_env!("VERSION") {
    Some(version) => version,
    None => env!("CARGO_PKG_VERSION"),
};

/// Where the gettext catalogues are installed (`…/share/locale`); the domain is
/// [`agnostics_core::i18n::DOMAIN`]. The app looks here through
/// [`agnostics_core::i18n::locale_dir`], which, for a plain cargo build (no meson `LOCALEDIR`),
/// first takes the catalogues the build compiled into cargo's target folder.
pub const LOCALEDIR: &str = match option_env!("LOCALEDIR") {
    Some(dir) => dir,
    None => "/usr/share/locale",
};

/// Where the program's data is installed (`…/share/agnostics`: `sd_bench.fio`, test scripts),
/// as upstream agnostics has it.
pub const PKGDATADIR: &str = match option_env!("PKGDATADIR") {
    Some(dir) => dir,
    None => "/usr/share/agnostics",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_id_is_reverse_dns_of_a_domain_the_project_owns() {
        assert!(APP_ID.starts_with("io.github.agnostics_rs."));
        assert!(gtk::gio::Application::id_is_valid(APP_ID));
    }
}
