//! The SD card test from the SD Card page: started on the chosen drive with the chosen
//! profile (from **Run**, **Run Again**, `--run` or a **Run Tests** session) on the
//! [`TestRun`](crate::model::test_run::TestRun), cancelled, and its results copied. The pages follow the run's state (see
//! [`state`](super::state)).

use std::cell::Cell;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::engine::EngineKind;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report;
use agnostics_core::sdtest::TestOptions;
use gtk::glib;

use super::Window;
use crate::format::drive_label;

impl Window {
    /// Starts the test once the window has drawn a frame, as a test started from the Run
    /// button always is: the first frame (where a software GL renderer compiles its shaders)
    /// then never holds up the main loop while the engine's events come in.
    pub(super) fn start_when_drawn(&self) {
        let Some(clock) = self.frame_clock() else {
            // Not realized yet: its first frame comes after realize.
            let handler: std::rc::Rc<Cell<Option<glib::SignalHandlerId>>> = Default::default();
            let id = self.connect_realize(glib::clone!(
                #[strong]
                handler,
                move |win| {
                    if let Some(id) = handler.take() {
                        win.disconnect(id);
                    }
                    win.start_when_drawn();
                }
            ));
            handler.set(Some(id));
            return;
        };
        let handler: std::rc::Rc<Cell<Option<glib::SignalHandlerId>>> = Default::default();
        let id = clock.connect_after_paint(glib::clone!(
            #[weak(rename_to = win)]
            self,
            #[strong]
            handler,
            move |clock| {
                if let Some(id) = handler.take() {
                    clock.disconnect(id);
                }
                glib::idle_add_local_once(glib::clone!(
                    #[weak]
                    win,
                    move || win.request_test()
                ));
            }
        ));
        handler.set(Some(id));
        self.queue_draw();
    }

    /// Starts the test on the selected drive (the `win.run` action: **Run SD Card Test**,
    /// **Run Again**).
    pub(crate) fn start_test(&self) {
        let imp = self.imp();
        if imp.test_run.is_busy() {
            return;
        }
        let Some(choice) = imp.ready_view.chosen_drive() else {
            return;
        };
        imp.ready_view.remember_drive(&choice.dir);
        let opts = self.test_options(&choice.dir);
        let drive = match &choice.info {
            Some(info) => drive_label(
                info.transport,
                info.device.as_ref().map(|d| d.disk.as_str()),
                info.device.as_ref().and_then(|d| d.model.as_deref()),
                &info.fs_type,
                None,
            ),
            None => choice.dir.display().to_string(),
        };
        imp.progress_view.reset(&drive);
        match imp.test_run.start(opts) {
            Ok(()) => imp.sd_log_pending.set(true),
            Err(e) => {
                self.show_message(
                    &gettext("The test could not start"),
                    &fill(
                        &gettext("{error}\n\nClose some programs and try again."),
                        &[("error", &e)],
                    ),
                );
            }
        }
    }

    /// What a test in `dir` runs with: the chosen profile, the native engine, upstream's
    /// number of runs.
    pub(super) fn test_options(&self, dir: &std::path::Path) -> TestOptions {
        let imp = self.imp();
        TestOptions {
            target: dir.to_owned(),
            profile: imp.ready_view.profile(),
            engine: EngineKind::Native,
            runs: agnostics_core::sdtest::UPSTREAM_RUNS,
            sysfs_root: imp.ready_view.sysfs_root(),
            lock_dir: agnostics_core::drive_lock::default_dir(),
        }
    }

    /// Stops the running test (the `win.cancel` action, **Cancel**).
    pub(crate) fn cancel_test(&self) {
        self.imp().test_run.cancel();
    }

    /// Copies the report as plain text, upstream's compat lines included (the
    /// `win.copy-results` action, **Copy Results**).
    pub(super) fn copy_results(&self) {
        if let Some(report) = self.imp().test_run.report() {
            self.clipboard().set_text(&report::to_text(&report));
            self.toast(&gettext("Results copied"));
        }
    }
}
