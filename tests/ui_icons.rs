//! UI test of the app's icons, on a real display (run under `xvfb-run -a cargo test -p agnostics
//! --test ui_icons`): every icon name the app's code and templates use (read from `src/`, the
//! `.rs` and `.ui` files) is one of its own, found by the display's icon theme in the app's
//! resources, so no icon theme can shadow it or leave a hole (GNOME 48's Adwaita has no
//! `emblem-ok-symbolic`; Raspberry Pi OS's own themes are not Adwaita). At every size the app
//! draws a symbolic icon, GTK finds the pre-rendered symbolic PNG, so it needs no SVG loader
//! (librsvg): not installed everywhere, and about 6.5 MiB of memory where it is.

#[path = "ui_support/mod.rs"]
mod support;

use std::path::Path;

use agnostics::Application;
use gtk::prelude::*;

use support::*;

/// Where the resources keep the icons.
const ICONS: &str = "/io/github/agnostics_rs/Agnostics/icons";

/// The sizes, in pixels, the app draws symbolic icons at: 16 (buttons, rows), 32 (the history's
/// capacity rows), 48 (the verdict), 64 (the card on the ready and capacity pages).
const SIZES: [i32; 4] = [16, 32, 48, 64];

fn main() {
    let tests = crate::ui_tests![
        every_symbolic_icon_named_is_the_apps_own_at_every_size,
        the_application_icon_is_found_without_an_svg_loader,
    ];
    agnostics_testkit::harness::conclude_on_this_thread(tests).exit()
}

/// Every name ending in `-symbolic` in the `.rs` and `.ui` files under `dir`, sorted, once each.
fn symbolic_names_in(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("the source folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            symbolic_names_in(&path, out);
            continue;
        }
        if !matches!(path.extension().and_then(|e| e.to_str()), Some("rs" | "ui")) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("a source file");
        for (end, _) in text.match_indices("-symbolic") {
            let start = text[..end]
                .rfind(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
                .map_or(0, |i| i + 1);
            out.push(text[start..end + "-symbolic".len()].to_owned());
        }
    }
    out.sort();
    out.dedup();
}

/// The URI of the file the display's icon theme gives for `name` at `size` pixels.
fn found(theme: &gtk::IconTheme, name: &str, size: i32) -> String {
    let icon = theme.lookup_icon(
        name,
        &[],
        size,
        1,
        gtk::TextDirection::Ltr,
        gtk::IconLookupFlags::empty(),
    );
    icon.file().map(|f| f.uri().to_string()).unwrap_or_default()
}

/// Each symbolic icon named in `src/` is an `agnostics-…` name, has its SVG in the resources,
/// and is found at each size the app draws as the resources' own pre-rendered PNG.
fn every_symbolic_icon_named_is_the_apps_own_at_every_size(app: &Application) {
    let window = new_window(app);
    window.present();
    iterate_briefly();
    let mut names = Vec::new();
    symbolic_names_in(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut names,
    );
    // The window's icon, the buttons, the rows, the verdicts: at least this many names.
    assert!(names.len() >= 17, "names found in src/: {names:?}");
    let foreign: Vec<_> = names
        .iter()
        .filter(|n| !n.starts_with("agnostics-"))
        .collect();
    assert!(
        foreign.is_empty(),
        "icons named that a theme could lack or shadow: {foreign:?}"
    );
    let theme = gtk::IconTheme::for_display(&gtk::prelude::WidgetExt::display(&window));
    for name in &names {
        let svg = format!("{ICONS}/scalable/actions/{name}.svg");
        assert!(
            gtk::gio::resources_get_info(&svg, gtk::gio::ResourceLookupFlags::NONE).is_ok(),
            "{svg} is in the resources"
        );
        assert!(theme.has_icon(name), "the icon theme has {name}");
        for size in SIZES {
            assert_eq!(
                found(&theme, name, size),
                format!("resource://{ICONS}/{size}x{size}/actions/{name}.symbolic.png"),
                "{name} at {size} px"
            );
        }
    }
    window.close();
}

/// The application icon (the window's, the About window's at 128 px) is found as a PNG of the
/// resources at the sizes that matter, so it shows also where no SVG loader is installed.
fn the_application_icon_is_found_without_an_svg_loader(app: &Application) {
    let window = new_window(app);
    window.present();
    iterate_briefly();
    let theme = gtk::IconTheme::for_display(&gtk::prelude::WidgetExt::display(&window));
    let id = agnostics::config::APP_ID;
    for size in [48, 64, 128] {
        assert_eq!(
            found(&theme, id, size),
            format!("resource://{ICONS}/{size}x{size}/apps/{id}.png"),
            "the application icon at {size} px"
        );
    }
    window.close();
}
