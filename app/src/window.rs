//! The main window: ready (choose a drive, **Run SD card test**) → running (phase, progress,
//! live figure, chart, **Cancel**) → results (PASS/FAIL rows and advice, **Run again**,
//! **Copy results**); errors in a dialog that says what happened and what to do, then back to
//! ready. It observes the [`TestRun`] state object and never blocks: the engine runs on the
//! worker's thread.
//!
//! While a test runs, suspend and logout are inhibited, and closing the window asks first; if
//! confirmed, the test is cancelled, its file removed, and then the window closes.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::engine::EngineKind;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::profile::Profile;
use agnostics_core::report::{self, Report};
use agnostics_core::sdtest::TestOptions;
use agnostics_core::target;
use agnostics_core::units;
use gtk::{gdk, gio, glib};

use crate::config::APP_ID;
use crate::format::{about_size, drive_label};
use crate::test_run::{RunState, TestRun};
use crate::widgets::drive_row::{choices, DriveChoice};
use crate::widgets::{DriveRow, ProgressView, ResultsView};

/// How many times the standard test runs at most (upstream: 3, stopping at the first pass).
pub const RUNS: u32 = 3;

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(file = "window.ui")]
    pub struct Window {
        #[template_child]
        pub back_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub toast_overlay: TemplateChild<adw::ToastOverlay>,
        #[template_child]
        pub stack: TemplateChild<gtk::Stack>,
        #[template_child]
        pub intro_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub drive_row: TemplateChild<DriveRow>,
        #[template_child]
        pub folder_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub run_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub progress_view: TemplateChild<ProgressView>,
        #[template_child]
        pub results_view: TemplateChild<ResultsView>,

        pub test_run: TestRun,
        pub profile: RefCell<Option<Profile>>,
        pub sysfs_root: RefCell<PathBuf>,
        pub preferred_target: RefCell<Option<PathBuf>>,
        pub drives_loaded: Cell<bool>,
        pub drives_generation: Cell<u64>,
        pub run_when_ready: Cell<bool>,
        pub inhibit_cookie: Cell<u32>,
        pub close_when_stopped: Cell<bool>,
        pub dialog: RefCell<Option<adw::MessageDialog>>,
        pub chooser: RefCell<Option<gtk::FileChooserNative>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for Window {
        const NAME: &'static str = "AgnosticsWindow";
        type Type = super::Window;
        type ParentType = adw::ApplicationWindow;

        fn class_init(klass: &mut Self::Class) {
            DriveRow::ensure_type();
            ProgressView::ensure_type();
            ResultsView::ensure_type();
            klass.bind_template();
            klass.install_action("win.run", None, |win, _, _| win.start_test());
            klass.install_action("win.cancel", None, |win, _, _| win.cancel_test());
            klass.install_action("win.copy-results", None, |win, _, _| win.copy_results());
            klass.install_action("win.back", None, |win, _, _| win.show_ready());
            klass.install_action("win.choose-folder", None, |win, _, _| win.choose_folder());
            klass.add_binding_action(gdk::Key::Left, gdk::ModifierType::ALT_MASK, "win.back");
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for Window {
        fn constructed(&self) {
            self.parent_constructed();
            self.sysfs_root.replace(PathBuf::from("/sys"));
            self.obj().setup();
        }
    }

    impl WidgetImpl for Window {}

    impl WindowImpl for Window {
        fn close_request(&self) -> glib::Propagation {
            let obj = self.obj();
            if self.test_run.is_busy() {
                if !self.close_when_stopped.get() {
                    obj.confirm_close();
                }
                return glib::Propagation::Stop;
            }
            obj.uninhibit();
            self.parent_close_request()
        }
    }

    impl ApplicationWindowImpl for Window {}
    impl AdwApplicationWindowImpl for Window {}
}

glib::wrapper! {
    /// The SD card test window.
    pub struct Window(ObjectSubclass<imp::Window>)
        @extends adw::ApplicationWindow, gtk::ApplicationWindow, gtk::Window, gtk::Widget,
        @implements gio::ActionGroup, gio::ActionMap, gtk::Buildable,
                    gtk::ConstraintTarget, gtk::Native, gtk::Root, gtk::ShortcutManager;
}

impl Window {
    /// A window of `app`, in the ready state, with the standard profile; the list of drives
    /// is made on a helper thread (a hung network mount cannot freeze the window).
    pub fn new(app: &impl IsA<gtk::Application>) -> Window {
        glib::Object::builder().property("application", app).build()
    }

    fn setup(&self) {
        let imp = self.imp();
        self.set_icon_name(Some(APP_ID));
        self.set_title(Some(&gettext("SD Card Test")));
        imp.profile.replace(Some(Profile::sd_bench()));
        self.update_intro();

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
            move |_, text| win.toast(text)
        ));
        imp.drive_row.connect_selected_notify(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |_| win.update_folder_label()
        ));
        self.load_drives();
        self.sync_state();
    }

    /// Applies the command line: a folder to test (`--target`), a profile (`--profile`) and
    /// whether to start at once (`--run`, as soon as the drives are listed). Ignored, with a
    /// toast, while a test runs.
    pub fn set_launch(&self, target: Option<PathBuf>, profile: Option<Profile>, run: bool) {
        let imp = self.imp();
        if imp.test_run.is_busy() {
            if target.is_some() || profile.is_some() || run {
                self.toast(&gettext("A test is already running"));
            }
            return;
        }
        if let Some(profile) = profile {
            imp.profile.replace(Some(profile));
            self.update_intro();
        }
        if let Some(target) = target {
            imp.preferred_target.replace(Some(target));
            self.load_drives();
        }
        if run {
            if imp.drives_loaded.get() {
                self.start_test();
            } else {
                imp.run_when_ready.set(true);
            }
        }
    }

    /// Where sysfs is (`/sys`; a fixture tree in tests); lists the drives again.
    pub fn set_sysfs_root(&self, root: PathBuf) {
        self.imp().sysfs_root.replace(root);
        self.load_drives();
    }

    /// The profile the next test runs.
    pub fn profile(&self) -> Profile {
        self.imp()
            .profile
            .borrow()
            .clone()
            .unwrap_or_else(Profile::sd_bench)
    }

    fn update_intro(&self) {
        let size = self.profile().file_size_bytes();
        self.imp().intro_label.set_label(&fill(
            &gettext("The test writes a {size} file on the drive you choose and measures how fast the drive writes and reads it, like Raspberry Pi Diagnostics. It needs {space} of free space and takes a few minutes; the file is removed afterwards."),
            &[
                ("size", &units::human_bytes(size)),
                ("space", &about_size(target::needed_bytes(size))),
            ],
        ));
    }

    /// Lists the drives again (on a helper thread) and selects the preferred folder.
    pub fn load_drives(&self) {
        let imp = self.imp();
        imp.drives_loaded.set(false);
        let generation = imp.drives_generation.get() + 1;
        imp.drives_generation.set(generation);
        imp.drive_row.set_loading();
        self.update_folder_label();
        self.sync_actions();

        let sysfs = imp.sysfs_root.borrow().clone();
        let preferred = imp.preferred_target.borrow().clone();
        let fallback = preferred.clone();
        let listing = gio::spawn_blocking(move || {
            let preferred = preferred.unwrap_or_else(|| target::default_target(&sysfs));
            let info = target::inspect(&preferred, &sysfs).ok();
            choices(target::list(&sysfs), &preferred, info)
        });
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = win)]
            self,
            async move {
                let (list, selected) = listing.await.unwrap_or_else(|_| {
                    let dir = fallback.unwrap_or_else(|| PathBuf::from("/var/tmp"));
                    (vec![DriveChoice::new(dir, None)], 0)
                });
                let imp = win.imp();
                if imp.drives_generation.get() != generation {
                    return;
                }
                imp.drive_row.set_choices(list, selected);
                imp.drives_loaded.set(true);
                win.update_folder_label();
                win.sync_actions();
                if imp.run_when_ready.take() {
                    win.start_test();
                }
            }
        ));
    }

    fn update_folder_label(&self) {
        let imp = self.imp();
        let text = match imp.drive_row.selected_choice() {
            Some(choice) => fill(
                &gettext("The test file goes in {folder}"),
                &[("folder", &choice.dir.display())],
            ),
            None => String::new(),
        };
        imp.folder_label.set_label(&text);
        imp.folder_label.set_visible(!text.is_empty());
    }

    /// Starts the test on the selected drive (the `win.run` action: **Run SD card test**,
    /// **Run again**).
    pub fn start_test(&self) {
        let imp = self.imp();
        if imp.test_run.is_busy() || !imp.drives_loaded.get() {
            return;
        }
        let Some(choice) = imp.drive_row.selected_choice() else {
            return;
        };
        let opts = TestOptions {
            target: choice.dir.clone(),
            profile: self.profile(),
            engine: EngineKind::Native,
            runs: RUNS,
            sysfs_root: imp.sysfs_root.borrow().clone(),
        };
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
        if let Err(e) = imp.test_run.start(opts) {
            self.show_message(
                &gettext("The test could not start"),
                &fill(
                    &gettext("{error}\n\nClose some programs and try again."),
                    &[("error", &e)],
                ),
            );
        }
    }

    /// Stops the running test (the `win.cancel` action, **Cancel**).
    pub fn cancel_test(&self) {
        self.imp().test_run.cancel();
    }

    /// Copies the report as plain text, upstream's compat lines included (the
    /// `win.copy-results` action, **Copy results**).
    pub fn copy_results(&self) {
        if let Some(report) = self.imp().test_run.report() {
            self.clipboard().set_text(&report::to_text(&report));
            self.toast(&gettext("Results copied"));
        }
    }

    /// Back to the choice of drive (the `win.back` action).
    pub fn show_ready(&self) {
        if !self.imp().test_run.is_busy() {
            self.show_page("ready");
        }
    }

    fn show_page(&self, name: &str) {
        let imp = self.imp();
        imp.stack.set_visible_child_name(name);
        imp.back_button.set_visible(name == "results");
        let focus: gtk::Widget = match name {
            "running" => imp.progress_view.cancel_button().upcast(),
            "results" => imp.results_view.run_again_button().upcast(),
            _ => imp.run_button.get().upcast(),
        };
        self.set_default_widget(Some(&focus));
        focus.grab_focus();
        self.sync_actions();
    }

    fn sync_actions(&self) {
        let imp = self.imp();
        let busy = imp.test_run.is_busy();
        let page = imp.stack.visible_child_name();
        self.action_set_enabled("win.run", !busy && imp.drives_loaded.get());
        self.action_set_enabled("win.cancel", imp.test_run.state() == RunState::Running);
        self.action_set_enabled(
            "win.copy-results",
            imp.test_run.report().is_some_and(|r| r.error.is_none()),
        );
        self.action_set_enabled("win.back", !busy && page.as_deref() == Some("results"));
        self.action_set_enabled("win.choose-folder", !busy && imp.drives_loaded.get());
    }

    fn sync_state(&self) {
        let imp = self.imp();
        let run = &imp.test_run;
        match run.state() {
            RunState::Ready => {
                self.uninhibit();
                if run.was_cancelled() {
                    self.toast(&gettext("Test cancelled; its test file was removed"));
                }
                self.show_page("ready");
            }
            RunState::Running => {
                self.inhibit();
                self.show_page("running");
            }
            RunState::Cancelling => {
                imp.progress_view.set_cancelling();
                self.sync_actions();
            }
            RunState::Finished => {
                self.uninhibit();
                if let Some(report) = run.report() {
                    imp.results_view.show_report(&report);
                }
                self.show_page("results");
            }
            RunState::Failed => {
                self.uninhibit();
                self.show_page("ready");
                if let Some(report) = run.report() {
                    self.show_error(&report);
                }
            }
        }
        if !run.is_busy() && imp.close_when_stopped.get() {
            self.close();
        }
    }

    fn inhibit(&self) {
        let imp = self.imp();
        if imp.inhibit_cookie.get() != 0 {
            return;
        }
        if let Some(app) = self.application() {
            let cookie = app.inhibit(
                Some(self),
                gtk::ApplicationInhibitFlags::SUSPEND | gtk::ApplicationInhibitFlags::LOGOUT,
                Some(&gettext("An SD card test is running")),
            );
            imp.inhibit_cookie.set(cookie);
        }
    }

    fn uninhibit(&self) {
        let cookie = self.imp().inhibit_cookie.replace(0);
        if cookie != 0 {
            if let Some(app) = self.application() {
                app.uninhibit(cookie);
            }
        }
    }

    /// True while suspend and logout are inhibited for a running test.
    pub fn is_inhibiting(&self) -> bool {
        self.imp().inhibit_cookie.get() != 0
    }

    /// Shows a short message at the bottom of the window.
    pub fn toast(&self, text: &str) {
        let toast = adw::Toast::new(&glib::markup_escape_text(text));
        self.imp().toast_overlay.add_toast(toast);
    }

    fn show_error(&self, report: &Report) {
        let Some(error) = &report.error else {
            return;
        };
        let heading = match error.kind.as_str() {
            "missing" | "not_a_directory" | "not_writable" | "inspect" => {
                gettext("This folder cannot be used")
            }
            "read_only" => gettext("The drive is read-only"),
            "memory" => gettext("This folder is in memory, not on a drive"),
            "no_space" => gettext("Not enough free space"),
            "io" => gettext("The drive stopped answering"),
            "direct_io_refused" => gettext("This filesystem cannot be measured"),
            "fio_missing" => gettext("fio is not installed"),
            "fio_failed" => gettext("fio failed"),
            _ => gettext("The test could not finish"),
        };
        let body = fill(
            // Translators: what happened (the engine's message), then what to do.
            &gettext("{what}\n\n{todo}"),
            &[("what", &error.message), ("todo", &error.hint)],
        );
        let dialog = self.message_dialog(&heading, &body);
        dialog.add_responses(&[
            ("copy", &gettext("C_opy Details")),
            ("close", &gettext("_Close")),
        ]);
        dialog.set_default_response(Some("close"));
        dialog.set_close_response("close");
        let text = report::to_text(report);
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_, response| {
                    if response == "copy" {
                        win.clipboard().set_text(&text);
                        win.toast(&gettext("Details copied"));
                    }
                }
            ),
        );
        dialog.present();
    }

    fn show_message(&self, heading: &str, body: &str) {
        let dialog = self.message_dialog(heading, body);
        dialog.add_response("close", &gettext("_Close"));
        dialog.set_default_response(Some("close"));
        dialog.set_close_response("close");
        dialog.present();
    }

    /// A modal dialog of this window, remembered until it is answered (see
    /// [`Window::open_dialog`]).
    fn message_dialog(&self, heading: &str, body: &str) -> adw::MessageDialog {
        let dialog = adw::MessageDialog::new(Some(self), Some(heading), Some(body));
        dialog.set_modal(true);
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |dialog, _| {
                    let mut open = win.imp().dialog.borrow_mut();
                    if open.as_ref() == Some(dialog) {
                        *open = None;
                    }
                }
            ),
        );
        self.imp().dialog.replace(Some(dialog.clone()));
        dialog
    }

    fn confirm_close(&self) {
        let dialog = self.message_dialog(
            &gettext("Stop the test?"),
            &gettext("The SD card test is still running. If you close the window now, the test stops, its test file is removed and nothing is graded."),
        );
        dialog.add_responses(&[
            ("keep", &gettext("_Keep Testing")),
            ("stop", &gettext("_Stop and Close")),
        ]);
        dialog.set_response_appearance("stop", adw::ResponseAppearance::Destructive);
        dialog.set_default_response(Some("keep"));
        dialog.set_close_response("keep");
        dialog.connect_response(
            None,
            glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_, response| {
                    if response == "stop" {
                        win.imp().close_when_stopped.set(true);
                        win.cancel_test();
                        // Closes once the worker has removed its file (see sync_state).
                        win.sync_state();
                    }
                }
            ),
        );
        dialog.present();
    }

    fn choose_folder(&self) {
        let chooser = gtk::FileChooserNative::new(
            Some(&gettext("Choose a Folder to Test")),
            Some(self),
            gtk::FileChooserAction::SelectFolder,
            Some(&gettext("_Select")),
            Some(&gettext("_Cancel")),
        );
        chooser.set_modal(true);
        chooser.connect_response(glib::clone!(
            #[weak(rename_to = win)]
            self,
            move |chooser, response| {
                win.imp().chooser.replace(None);
                if response != gtk::ResponseType::Accept {
                    return;
                }
                if let Some(dir) = chooser.file().and_then(|f| f.path()) {
                    win.add_folder(dir);
                }
            }
        ));
        chooser.show();
        self.imp().chooser.replace(Some(chooser));
    }

    /// Adds `dir` to the drives and selects it (what **Choose another folder** does).
    pub fn add_folder(&self, dir: PathBuf) {
        let sysfs = self.imp().sysfs_root.borrow().clone();
        let probe_dir = dir.clone();
        let inspecting = gio::spawn_blocking(move || target::inspect(&probe_dir, &sysfs).ok());
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = win)]
            self,
            async move {
                let info = inspecting.await.ok().flatten();
                win.imp().drive_row.add_folder(dir, info);
            }
        ));
    }

    /// The test run the window observes.
    pub fn test_run(&self) -> TestRun {
        self.imp().test_run.clone()
    }

    /// The report of the last test, when one ended.
    pub fn last_report(&self) -> Option<Report> {
        self.imp().test_run.report()
    }

    /// The page shown: `ready`, `running` or `results`.
    pub fn visible_page(&self) -> String {
        self.imp()
            .stack
            .visible_child_name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    }

    /// True when no page transition is running (the page shown is fully drawn).
    pub fn page_settled(&self) -> bool {
        !self.imp().stack.is_transition_running()
    }

    /// True once the drives are listed (the run button works from then on).
    pub fn drives_loaded(&self) -> bool {
        self.imp().drives_loaded.get()
    }

    /// The dialog shown and not yet answered, if any (error, or "stop the test?").
    pub fn open_dialog(&self) -> Option<adw::MessageDialog> {
        self.imp().dialog.borrow().clone()
    }

    /// **Run SD card test**.
    pub fn run_button(&self) -> gtk::Button {
        self.imp().run_button.get()
    }

    /// The drive chooser.
    pub fn drive_row(&self) -> DriveRow {
        self.imp().drive_row.get()
    }

    /// The running page.
    pub fn progress_view(&self) -> ProgressView {
        self.imp().progress_view.get()
    }

    /// The results page.
    pub fn results_view(&self) -> ResultsView {
        self.imp().results_view.get()
    }
}
