//! The ready page's choices remembered between launches (see [`crate::settings`]): the last
//! drive tested and the built-in profile chosen; and the focus given once, at launch.

use std::path::Path;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::profile::builtin;

use super::ReadyView;
use crate::settings;

impl ReadyView {
    /// Reads the remembered drive (nothing when the schema is not installed, as in a build
    /// tree); the launch focus is due.
    pub(super) fn restore_settings(&self) {
        let imp = self.imp();
        imp.launch_focus.set(true);
        let Some(settings) = settings::settings() else {
            return;
        };
        let drive = settings.string("last-drive");
        if !drive.is_empty() && Path::new(drive.as_str()).is_dir() {
            imp.preferred_target
                .replace(Some(Path::new(drive.as_str()).to_path_buf()));
        }
        imp.settings.replace(Some(settings));
    }

    /// The profile row's entry the settings name (the standard test when none is).
    pub(super) fn saved_profile_index(&self) -> u32 {
        let settings = self.imp().settings.borrow();
        let Some(settings) = settings.as_ref() else {
            return 0;
        };
        let name = settings.string("profile");
        builtin::ALL
            .iter()
            .position(|b| b.name == name.as_str())
            .unwrap_or(0) as u32
    }

    /// Remembers the built-in profile chosen (a job file from the command line is not).
    pub(super) fn profile_saved(&self) {
        let imp = self.imp();
        let settings = imp.settings.borrow();
        let Some(settings) = settings.as_ref() else {
            return;
        };
        if let Some(b) = builtin::ALL.get(imp.profile_row.selected() as usize) {
            let _ = settings.set_string("profile", b.name);
        }
    }

    /// Remembers the drive chosen (when the window closes).
    pub fn save_settings(&self) {
        if let Some(choice) = self.imp().drive_row.selected_choice() {
            self.remember_drive(&choice.dir);
        }
    }

    /// True once, when the first list of drives is there: the focus is then to go to
    /// **Run**, not to the header's first tab where GTK would put it.
    pub fn take_launch_focus(&self) -> bool {
        self.imp().launch_focus.take()
    }
}
