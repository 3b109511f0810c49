//! Message dialogs (`adw::MessageDialog`) laid out without GTK warnings on libadwaita 1.7.

use adw::prelude::*;

/// Keeps libadwaita 1.7 from measuring a message dialog's heading narrower than it can be.
/// The dialog holds the heading twice, on one line (shown only where the line fits) and
/// wrapping, and measures both for the narrower of their two minimum widths: for a long
/// heading, narrower than the one-line label's whole line, which GTK 4.18 reports ("needs at
/// least" more). The one-line label is let shrink to an ellipsis (where it is shown it has its
/// whole line), and both labels ask for the wider of their two minimums (the dialog is its own
/// root, so they are measured styled here), so neither is measured narrower than it can be.
pub fn steady_heading(dialog: &adw::MessageDialog, heading: &str) {
    let labels = labels_showing(dialog.upcast_ref(), heading);
    for label in labels.iter().filter(|l| !l.wraps()) {
        label.set_ellipsize(gtk::pango::EllipsizeMode::End);
    }
    let widest = labels
        .iter()
        .map(|l| l.measure(gtk::Orientation::Horizontal, -1).0)
        .max()
        .unwrap_or(-1);
    for label in &labels {
        label.set_width_request(widest);
    }
}

/// The labels under `widget` that show `text`.
fn labels_showing(widget: &gtk::Widget, text: &str) -> Vec<gtk::Label> {
    let mut found = Vec::new();
    let mut child = widget.first_child();
    while let Some(c) = child {
        if let Some(label) = c.downcast_ref::<gtk::Label>() {
            if label.label() == text {
                found.push(label.clone());
            }
        }
        found.extend(labels_showing(&c, text));
        child = c.next_sibling();
    }
    found
}
