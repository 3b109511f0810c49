//! The log (`rpdiags.txt`, see [`crate::model::rpdiags`]) shown inside the app: a window of its own,
//! transient for the main window, with the file's text read-only in a monospace view and the
//! file's path in the header, so that **Show Log** works without a text editor installed and
//! says where the log is. **Copy** puts the whole text on the clipboard.

use std::io::Read;
use std::path::Path;

use adw::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use gtk::glib;

/// The most of the log shown (bytes, from its start); the rest is named, not shown. Scripts
/// may print megabytes, and a text view of that size makes the window slow.
pub const MAX_SHOWN_BYTES: u64 = 4 * 1024 * 1024;

/// The log's text, lossily decoded, at most [`MAX_SHOWN_BYTES`] of it, with a line saying
/// how much was left out. Errors: the file cannot be opened or read.
pub fn read_log(path: &Path) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let total = file.metadata()?.len();
    let mut bytes = Vec::new();
    file.take(MAX_SHOWN_BYTES).read_to_end(&mut bytes)?;
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if total > MAX_SHOWN_BYTES {
        text.push_str(&fill(
            &gettext("\n… ({count} more bytes in the file)"),
            &[("count", &(total - MAX_SHOWN_BYTES))],
        ));
    }
    Ok(text)
}

/// A window showing `text`, the log at `path`, transient for `parent`; Escape closes it.
pub fn log_window(parent: &impl IsA<gtk::Window>, path: &Path, text: &str) -> adw::Window {
    let title = adw::WindowTitle::new(&gettext("Test Log"), &path.display().to_string());
    let header = adw::HeaderBar::new();
    header.set_title_widget(Some(&title));

    let buffer = gtk::TextBuffer::new(None);
    buffer.set_text(text);
    let view = gtk::TextView::builder()
        .buffer(&buffer)
        .editable(false)
        .cursor_visible(false)
        .monospace(true)
        .wrap_mode(gtk::WrapMode::WordChar)
        .top_margin(12)
        .bottom_margin(12)
        .left_margin(12)
        .right_margin(12)
        .build();
    crate::a11y::set_label(
        &view,
        &fill(&gettext("The log, {path}"), &[("path", &path.display())]),
    );
    let scrolled = gtk::ScrolledWindow::builder()
        // A group (GTK 4.18 makes it generic, which cannot carry the pane's name).
        .accessible_role(gtk::AccessibleRole::Group)
        .child(&view)
        .vexpand(true)
        .hscrollbar_policy(gtk::PolicyType::Never)
        .build();

    let copy = gtk::Button::with_mnemonic(&gettext("_Copy"));
    copy.set_tooltip_text(Some(&gettext("Copy the whole log")));
    header.pack_start(&copy);

    let content = gtk::Box::new(gtk::Orientation::Vertical, 0);
    content.append(&header);
    content.append(&scrolled);

    let window = adw::Window::builder()
        .transient_for(parent)
        .default_width(720)
        .default_height(440)
        .content(&content)
        .title(gettext("Test Log"))
        .build();
    // One of the application's windows: it keeps the app running and Ctrl+W closes it.
    window.set_application(parent.as_ref().application().as_ref());
    let shown = text.to_owned();
    copy.connect_clicked(glib::clone!(
        #[weak]
        window,
        move |_| window.clipboard().set_text(&shown)
    ));
    let escape = gtk::ShortcutController::new();
    escape.add_shortcut(gtk::Shortcut::new(
        gtk::ShortcutTrigger::parse_string("Escape"),
        Some(gtk::NamedAction::new("window.close")),
    ));
    window.add_controller(escape);
    window
}
