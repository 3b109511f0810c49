//! The drive chooser kept in view above the pinned **Run** (and the line naming the folder
//! the test file goes in, pinned with it): on a short or narrow window, the title and
//! introduction scroll out before the drive that Run writes to does.

use adw::subclass::prelude::*;
use gtk::glib;
use gtk::prelude::*;

use super::ReadyView;

impl ReadyView {
    /// Keeps the drive chooser in view when the page's size changes: on a short or narrow
    /// window the scrolled part is scrolled down just far enough that the chooser shows above
    /// the pinned **Run** (the title and introduction scroll out first).
    pub(super) fn keep_drive_in_view(&self) {
        let adjustment = self.imp().scroller.vadjustment();
        adjustment.connect_changed(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |adjustment| {
                // The viewport sets its adjustment before it allocates its child, so the
                // chooser's place is known only once this allocation is done.
                let adjustment = adjustment.clone();
                glib::idle_add_local_once(glib::clone!(
                    #[weak]
                    view,
                    move || view.scroll_to_drive(&adjustment)
                ));
            }
        ));
    }

    fn scroll_to_drive(&self, adjustment: &gtk::Adjustment) {
        let imp = self.imp();
        // The scrolled content (inside the viewport GTK adds), whose top is 0 however far it
        // is scrolled.
        let Some(content) = imp
            .scroller
            .child()
            .and_then(|v| v.downcast::<gtk::Viewport>().ok())
            .and_then(|v| v.child())
        else {
            return;
        };
        let Some(bounds) = imp.drive_row.compute_bounds(&content) else {
            return;
        };
        let bottom = f64::from(bounds.y() + bounds.height()) + 6.0;
        let page = adjustment.page_size();
        if page > 0.0 && adjustment.value() + page < bottom {
            adjustment.set_value((bottom - page).min(adjustment.upper() - page));
        }
    }
}
