//! A bare libadwaita window, the baseline `tools/bench-app` measures the app against: an
//! `adw::Application` whose window holds only an empty header bar, quitting after the
//! number of seconds given as the first argument (default 5).

use std::time::Duration;

use adw::prelude::*;
use gtk::glib;

fn main() -> glib::ExitCode {
    let seconds: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let app = adw::Application::builder()
        .application_id("io.github.agnostics_rs.BareWindow")
        .flags(gtk::gio::ApplicationFlags::NON_UNIQUE)
        .build();
    app.connect_activate(move |app| {
        let content = gtk::Box::new(gtk::Orientation::Vertical, 0);
        content.append(&adw::HeaderBar::new());
        let window = adw::ApplicationWindow::builder()
            .application(app)
            .default_width(800)
            .default_height(600)
            .content(&content)
            .build();
        window.present();
        let app = app.clone();
        glib::timeout_add_local_once(Duration::from_secs(seconds), move || app.quit());
    });
    app.run_with_args::<&str>(&[])
}
