//! The warning above **Run** when the history's capacity checks know something about the
//! chosen drive that outranks any speed (it was found fake, or never checked whole): before a
//! test of a fake card, the person reads what was found and what to do. One rule decides
//! ([`agnostics_core::headline`]); the test itself is not refused.

use std::path::PathBuf;

use agnostics_core::headline::{headline, CapacityKnown, Tone};
use gtk::prelude::*;
use gtk::subclass::prelude::*;

use super::ReadyView;

impl ReadyView {
    /// Takes what the capacity checks say of the drive under each listed folder (`known`,
    /// only the folders whose drive a check ran on) and shows the chosen one's warning.
    pub fn set_capacity_known(&self, known: Vec<(PathBuf, CapacityKnown)>) {
        self.imp().capacity_known.replace(known);
        self.update_drive_warning();
    }

    /// Shows or hides the warning of the drive chosen.
    pub(super) fn update_drive_warning(&self) {
        let imp = self.imp();
        let chosen = imp.drive_row.selected_choice().map(|c| c.dir);
        let known = chosen
            .and_then(|dir| {
                imp.capacity_known
                    .borrow()
                    .iter()
                    .find(|(d, _)| *d == dir)
                    .map(|(_, k)| *k)
            })
            .unwrap_or_default();
        let weighed = headline(known, None);
        let text = match weighed.action() {
            Some(action) if !weighed.is_speed() => format!("{}\n{}", weighed.title(), action),
            _ => String::new(),
        };
        let label = &imp.drive_warning_label;
        label.set_label(&text);
        label.set_visible(!text.is_empty());
        // Red for a drive found fake, the warning colour for one never checked whole.
        for old in ["error", "warning"] {
            label.remove_css_class(old);
        }
        label.add_css_class(if weighed.tone() == Tone::Danger {
            "error"
        } else {
            "warning"
        });
    }

    /// The warning above **Run** about the chosen drive, `None` when none is shown.
    pub fn drive_warning(&self) -> Option<String> {
        let label = &self.imp().drive_warning_label;
        label.is_visible().then(|| label.label().to_string())
    }
}
