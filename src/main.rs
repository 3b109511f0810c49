//! `agnostics`: the desktop app. Everything is in the library (`agnostics`) so that the UI
//! tests can drive the same window.

fn main() -> gtk::glib::ExitCode {
    agnostics::run()
}
