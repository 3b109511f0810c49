//! The SD Card page's **Health** group: how worn the chosen drive is, looked at anew on a
//! helper thread each time another drive is chosen or the drives are listed again.

use adw::prelude::*;
use adw::subclass::prelude::*;
use gtk::glib;

use super::ReadyView;
use crate::model::history_store;
use crate::widgets::health_group::HealthGroup;

impl ReadyView {
    /// Puts the Health group below the drive chooser and looks at each drive chosen.
    pub(super) fn setup_health(&self) {
        let imp = self.imp();
        // In the scrolled part, after the drive chooser (the line naming the folder is pinned
        // with Run, below it).
        let page = imp.drive_row.parent().and_then(|list| list.parent());
        if let Some(page) = page.and_downcast::<gtk::Box>() {
            page.append(&imp.health.group);
        }
        imp.drive_row.connect_selected_notify(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.update_health()
        ));
        self.connect_listed(|view| view.update_health());
    }

    /// The Health group.
    pub fn health_group(&self) -> HealthGroup {
        self.imp().health.clone()
    }

    /// Looks at the chosen drive (nothing while the drives are being listed).
    fn update_health(&self) {
        let imp = self.imp();
        let Some(choice) = self.chosen_drive() else {
            return;
        };
        imp.health
            .check_folder(choice.dir, self.sysfs_root(), history_store::default_path());
    }
}
