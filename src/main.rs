//! `agnostics`: the desktop app. Everything is in the library (`agnostics_gtk`) so that the UI
//! tests can drive the same window.

fn main() -> gtk::glib::ExitCode {
    agnostics_gtk::run()
}
