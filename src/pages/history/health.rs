//! A drive's page's **Health** group: a connected drive is looked at on a helper thread (the
//! kernel log since boot, its own wear report, its runs); one that is not connected shows
//! what its runs say (its speed against its first tests, a capacity check that found it
//! fake). Hidden for the runs of drives not identified.

use std::path::PathBuf;

use gtk::prelude::*;
use gtk::subclass::prelude::*;

use super::HistoryView;
use crate::model::health_worker;
use crate::widgets::health_group::HealthGroup;

impl HistoryView {
    /// Shows the Health group of the drive shown, anew.
    pub(super) fn show_drive_health(&self) {
        let imp = self.imp();
        let health = &imp.drive.health;
        let shown = imp.drive.shown.borrow();
        let Some(page) = shown.as_ref().filter(|p| p.id.is_some()) else {
            health.group.set_visible(false);
            return;
        };
        health.group.set_visible(true);
        match self.shown_drive_folder() {
            Some(dir) => health.check_folder(dir, PathBuf::from("/sys"), imp.path.borrow().clone()),
            None => health.show_not_connected(health_worker::not_connected(
                &page.runs,
                page.checks.found_fake,
            )),
        }
    }

    /// The drive page's Health group.
    pub fn health_group(&self) -> HealthGroup {
        self.imp().drive.health.clone()
    }
}
