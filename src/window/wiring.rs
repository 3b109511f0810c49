//! The window wiring its parts: the test run's signals to the running page and toasts, the
//! ready page's signals to the actions, the focus and `--run`, the view stack to the header
//! and the focus; and the window's own remembered size.

use adw::prelude::*;
use adw::subclass::prelude::*;
use gtk::glib;

use super::{Page, Tab, Window};
use crate::settings;

impl Window {
    /// The running page follows the test's progress; its warnings become toasts.
    pub(super) fn setup_run(&self) {
        let imp = self.imp();
        imp.test_run.connect_state_notify(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| win.sync_state()
        ));
        imp.test_run.connect_progress(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |run| win.imp().progress_view.update(&run.progress())
        ));
        imp.test_run.connect_warning(glib::clone!(
            #[weak(rename_to = win)]
            self,
            // The engine's warnings are made to follow "warning: ": a toast is a sentence.
            move |_, text| win.toast(&crate::format::capitalized(text))
        ));
    }

    /// The ready page's changes enable or disable the actions; the first list of drives (and
    /// a list that took the focused row away) gives the focus to the page's default control;
    /// `--run` starts the test once the window is drawn.
    pub(super) fn setup_ready(&self) {
        let ready = &self.imp().ready_view;
        ready.connect_changed(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |ready| {
                win.sync_actions();
                // All Tests says the test chosen here, and its time as this page says it.
                let profile = ready.profile();
                win.imp().tests_view.session().describe_sd_test(
                    &ready.profile_title(),
                    &crate::format::about_time(profile.slow_card_duration()),
                );
            }
        ));
        ready.connect_listed(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |ready| {
                // At launch; and when listing again took the focused row away (another
                // folder chosen), so that the keyboard does not lose its place.
                let lost = gtk::prelude::GtkWindowExt::focus(&win).is_none_or(|f| !f.is_mapped());
                if (ready.take_launch_focus() || lost)
                    && win.tab() == Tab::SdCard
                    && win.page() == Page::Ready
                {
                    win.sync_focus();
                }
            }
        ));
        ready.connect_toast(glib::clone!(
            #[weak(rename_to = win)]
            self,
            // The engine's warnings are made to follow "warning: ": a toast is a sentence.
            move |_, text| win.toast(&crate::format::capitalized(text))
        ));
        ready.connect_run_requested(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| win.start_when_drawn()
        ));
    }

    /// The header's back button and the focus follow the view shown.
    /// When the Keyboard Shortcuts window closes, the focus is back where it was, or on the
    /// page's first control, with its ring drawn when the keyboard is in use (GTK leaves the
    /// window's focus unmarked).
    pub(super) fn focus_after_help(&self) {
        let Some(help) = self.help_overlay() else {
            return;
        };
        help.connect_hide(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| {
                glib::idle_add_local_once(glib::clone!(
                    #[weak]
                    win,
                    move || {
                        if gtk::prelude::GtkWindowExt::focus(&win).is_none_or(|f| !f.is_mapped()) {
                            win.sync_focus();
                        }
                        crate::focus_ring::restore(&win);
                    }
                ));
            }
        ));
    }

    pub(super) fn view_stack_follows(&self) {
        self.imp()
            .view_stack
            .connect_visible_child_name_notify(glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_| {
                    win.sync_header();
                    win.sync_focus();
                    // Ctrl+S saves what the tab shows.
                    win.sync_actions();
                }
            ));
    }

    /// Reads the remembered window size (nothing when the schema is not installed, as in a
    /// build tree).
    pub(super) fn restore_size(&self) {
        let Some(settings) = settings::settings() else {
            return;
        };
        let (width, height) = (settings.int("window-width"), settings.int("window-height"));
        if width > 0 && height > 0 {
            self.set_default_size(width, height);
        }
        if settings.boolean("window-maximized") {
            self.maximize();
        }
    }

    /// Remembers the window's size and the drive chosen, when the window closes.
    pub(super) fn save_settings(&self) {
        self.imp().ready_view.save_settings();
        let Some(settings) = settings::settings() else {
            return;
        };
        let maximized = self.is_maximized();
        let _ = settings.set_boolean("window-maximized", maximized);
        if !maximized {
            let (width, height) = self.default_size();
            let _ = settings.set_int("window-width", width);
            let _ = settings.set_int("window-height", height);
        }
    }
}
