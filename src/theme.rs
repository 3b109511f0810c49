//! Raspberry Pi OS dark mode (docs/design.md, "On the Raspberry Pi desktop"): the desktop switches the
//! GTK theme name (PiXtrix → PiXonyx) and does not set the `color-scheme` that libadwaita
//! follows, so the app reads the theme name and forces the dark style when it names a dark
//! theme, following later changes.
//!
//! libadwaita replaces GtkSettings' `gtk-theme-name` with its own "Adwaita-empty" at start-up,
//! so the name is read from where the desktop really says it, latest change wins: the
//! `GTK_THEME` variable; the display's own setting (XSETTINGS on X11, the settings portal on
//! Wayland) and its `setting-changed` signal; GtkSettings' value before libadwaita replaced it
//! (`settings.ini`) and any later change to it.

use adw::prelude::*;
use gtk::gdk;

/// The value libadwaita puts in `gtk-theme-name` in place of the desktop's theme.
const ADWAITA_PLACEHOLDER: &str = "Adwaita-empty";

/// True when a GTK theme name is a dark theme: Raspberry Pi OS's "PiXonyx", a name ending in
/// "-dark" (any case), containing "Dark", or a `GTK_THEME` variant such as "Adwaita:dark".
pub fn is_dark_theme(name: &str) -> bool {
    let name = name.trim();
    let lower = name.to_ascii_lowercase();
    lower == "pixonyx"
        || lower.ends_with("-dark")
        || lower.ends_with(":dark")
        || name.contains("Dark")
}

/// The color scheme for a desktop theme name: dark themes force the dark style; any other
/// name (or none) leaves libadwaita to follow the desktop's own `color-scheme`.
pub fn color_scheme_for(theme_name: Option<&str>) -> adw::ColorScheme {
    match theme_name {
        Some(name) if is_dark_theme(name) => adw::ColorScheme::ForceDark,
        _ => adw::ColorScheme::Default,
    }
}

/// GtkSettings' theme name as the desktop set it, read before libadwaita starts; call this
/// after `gtk::init` and before the application's startup hands over to libadwaita.
pub fn theme_name_before_libadwaita() -> Option<String> {
    gtk::Settings::default()
        .map(|s| s.gtk_theme_name())
        .map(|n| n.map(|n| n.to_string()).unwrap_or_default())
        .filter(|n| !n.is_empty() && n != ADWAITA_PLACEHOLDER)
}

fn display_theme_name(display: &gdk::Display) -> Option<String> {
    display
        .get_setting("gtk-theme-name")
        .and_then(|v| v.get::<Option<String>>().ok().flatten())
        .filter(|n| !n.is_empty())
}

fn apply(name: Option<&str>) {
    adw::StyleManager::default().set_color_scheme(color_scheme_for(name));
}

/// Sets the style from the desktop's theme name now and follows its changes for the life of
/// the program; the latest change wins. `initial` is [`theme_name_before_libadwaita`].
pub fn follow_desktop_theme(initial: Option<String>) {
    let from_env = std::env::var("GTK_THEME").ok().filter(|n| !n.is_empty());
    let Some(display) = gdk::Display::default() else {
        apply(from_env.or(initial).as_deref());
        return;
    };
    apply(
        from_env
            .or_else(|| display_theme_name(&display))
            .or(initial)
            .as_deref(),
    );
    display.connect_setting_changed(|display, name| {
        if name == "gtk-theme-name" {
            apply(display_theme_name(display).as_deref());
        }
    });
    gtk::Settings::for_display(&display).connect_gtk_theme_name_notify(|settings| {
        let name = settings.gtk_theme_name().map(|n| n.to_string());
        if name.as_deref().is_some_and(|n| n != ADWAITA_PLACEHOLDER) {
            apply(name.as_deref());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixonyx_and_dark_variants_are_dark() {
        for name in [
            "PiXonyx",
            "Adwaita-dark",
            "Arc-Dark",
            "Yaru-dark",
            "Adwaita:dark",
            "Mint-Y-Dark-Aqua",
        ] {
            assert!(is_dark_theme(name), "{name}");
        }
        for name in ["PiXtrix", "PiXflat", "Adwaita", "HighContrast", ""] {
            assert!(!is_dark_theme(name), "{name}");
        }
    }
}
