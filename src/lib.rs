//! Agnostics' desktop app (GTK 4 / libadwaita, API of GTK 4.8 and libadwaita 1.2 only): a
//! window that runs the SD card test on a worker thread and shows its verdict as PASS/FAIL
//! rows with advice. A library so that the UI tests (`tests/ui*.rs`, through [`testing`]) can drive the same
//! window; `main.rs` only calls [`run`].
//!
//! The names tell the architecture: [`application`] and [`window`] (the UI: the window and
//! its three views), [`pages`] (each page of a view, its own widget with its own state),
//! [`widgets`] (leaf widgets the pages share: badge, charts, log view, rows), [`model`] (the
//! state objects the pages observe, the workers that bridge threads to the main loop, the
//! history store, the `~/rpdiags.txt` log), [`format`] (figures and names for people),
//! [`theme`] (Raspberry Pi OS dark mode), [`config`] (build-time values).

pub mod a11y;
pub mod application;
pub mod bench_probe;
pub mod config;
pub mod focus_ring;
pub mod format;
pub mod model;
pub mod pages;
pub mod palette;
pub mod resources;
pub mod settings;
#[doc(hidden)]
pub mod testing;
pub mod theme;
pub mod widgets;
pub mod window;

pub use application::Application;
pub use window::Window;

use gtk::glib;
use gtk::prelude::*;

/// Runs the app with the process's command line: translations from the directory
/// [`agnostics_core::i18n::locale_dir`] chooses (`$AGNOSTICS_LOCALEDIR`, the install's
/// [`config::LOCALEDIR`], or the cargo build tree's catalogues), then the application (which parses `--target`, `--profile`, `--dir`, `--run`). Returns
/// the exit status: the application's, or 128 + the signal when SIGINT, SIGTERM or SIGHUP
/// stopped it (130, 143, 129).
pub fn run() -> glib::ExitCode {
    agnostics_core::i18n::init(&agnostics_core::i18n::locale_dir(config::LOCALEDIR));
    glib::set_application_name(&agnostics_core::i18n::gettext("Raspberry Pi Diagnostics"));
    let app = Application::new();
    let code = app.run();
    match app.stopped_by_signal() {
        Some(signal) => {
            let code = agnostics_core::exit_code::ExitCode::from(signal).code();
            glib::ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX))
        }
        None => code,
    }
}
