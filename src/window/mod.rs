//! The main window, a shell around three views in a view stack; each page is its own widget
//! with its own state (see [`crate::pages`]), and the window wires them. **SD Card**: ready
//! ([`ReadyView`]: choose a drive, **Run SD card test**) → running (phase, progress, live
//! figure, chart, **Cancel**) → results (PASS/FAIL rows and advice, the card, **Run Again**,
//! **Copy Results**, **Save report**); errors in a dialog that says what happened and what to
//! do, then back to ready; and the capacity check from **Check Capacity…** (its question,
//! progress and verdict; see [`capacity`]). **All Tests** ([`TestsView`]): upstream's list of tests with **Run
//! Tests**, **Show Log** and **Reset**. **History** ([`HistoryView`]): the drives tested,
//! their trend charts and runs, compare and save. The window owns the [`TestRun`] (the SD card
//! test, started from the ready page, the results page or a **Run Tests** session), its
//! actions and its dialogs, and never blocks: the engine and the scripts run on workers'
//! threads. Every test's result goes to `rpdiags.txt` ([`crate::model::rpdiags`]).
//!
//! While a test runs, suspend and logout are inhibited, and closing the window asks first; if
//! confirmed, the tests are stopped, the test file removed, and then the window closes.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::gettext;
use agnostics_core::profile::Profile;
use gtk::{gdk, gio, glib};

use crate::config::APP_ID;
use crate::model::capacity_check::CapacityCheck;
use crate::model::test_run::TestRun;
use crate::pages::{CapacityView, HistoryView, ProgressView, ReadyView, ResultsView, TestsView};

mod all_tests;
mod busy;
mod capacity;
mod dialogs;
mod history;
mod pages;
mod sd_test;
mod state;
mod wiring;

pub use pages::{Page, Tab};

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(resource = "/io/github/agnostics_rs/Agnostics/ui/window.ui")]
    pub struct Window {
        #[template_child]
        pub back_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub toast_overlay: TemplateChild<adw::ToastOverlay>,
        /// The toasts shown (some may have gone), so that they can be dismissed.
        pub toasts: RefCell<Vec<adw::Toast>>,
        #[template_child]
        pub view_stack: TemplateChild<adw::ViewStack>,
        #[template_child]
        pub stack: TemplateChild<gtk::Stack>,
        #[template_child]
        pub ready_view: TemplateChild<ReadyView>,
        #[template_child]
        pub progress_view: TemplateChild<ProgressView>,
        #[template_child]
        pub results_view: TemplateChild<ResultsView>,
        #[template_child]
        pub capacity_view: TemplateChild<CapacityView>,
        #[template_child]
        pub tests_view: TemplateChild<TestsView>,
        #[template_child]
        pub history_view: TemplateChild<HistoryView>,

        pub test_run: TestRun,
        pub capacity_check: CapacityCheck,
        pub inhibit_cookie: Cell<u32>,
        pub close_when_stopped: Cell<bool>,
        pub dialog: RefCell<Option<adw::MessageDialog>>,
        /// The capacity check's question while it is not answered.
        pub capacity_question: RefCell<Option<adw::MessageDialog>>,
        pub chooser: RefCell<Option<gtk::FileChooserNative>>,
        /// The SD card test started has not had its result logged yet.
        pub sd_log_pending: Cell<bool>,
        /// How many searches for the history's connected drives have not answered yet.
        pub finding_connected: Cell<u32>,
        /// A test waits for its drive to be free of another test (see `busy.rs`).
        pub waiting_for_drive: Cell<bool>,
        /// The capacity check asked about or running: where it was started and what drive.
        pub capacity_run: RefCell<super::capacity::CapacityRun>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for Window {
        const NAME: &'static str = "AgnosticsWindow";
        type Type = super::Window;
        type ParentType = adw::ApplicationWindow;

        fn class_init(klass: &mut Self::Class) {
            ReadyView::ensure_type();
            ProgressView::ensure_type();
            ResultsView::ensure_type();
            CapacityView::ensure_type();
            TestsView::ensure_type();
            HistoryView::ensure_type();
            crate::resources::register();
            klass.bind_template();
            // Run, its access key or Ctrl+R: from any tab, the test shows on the SD Card tab.
            klass.install_action("win.run", None, |win, _, _| {
                win.set_tab(Tab::SdCard);
                win.request_test();
            });
            // After a Quick check: the standard test, the one that grades, on the same drive.
            klass.install_action("win.run-standard", None, |win, _, _| {
                let ready = &win.imp().ready_view;
                ready.choose_profile(agnostics_core::profile::Profile::sd_bench());
                win.set_tab(Tab::SdCard);
                win.request_test();
            });
            klass.install_action("win.cancel", None, |win, _, _| win.cancel_test());
            klass.install_action("win.check-capacity", None, |win, _, _| win.check_capacity());
            klass.install_action("win.cancel-capacity", None, |win, _, _| {
                win.cancel_capacity()
            });
            klass.install_action("win.copy-results", None, |win, _, _| win.copy_results());
            klass.install_action("win.save-report", None, |win, _, _| win.save_report());
            klass.install_action("win.back", None, |win, _, _| win.show_ready());
            // Alt+1, Alt+2, Alt+3: the switcher's pages from the keyboard, the focus ring shown
            // on the page's first control.
            klass.install_action("win.show-sd-card", None, |win, _, _| {
                win.show_tab_from_keyboard(Tab::SdCard)
            });
            klass.install_action("win.show-all-tests", None, |win, _, _| {
                win.show_tab_from_keyboard(Tab::AllTests)
            });
            klass.install_action("win.show-history", None, |win, _, _| {
                win.show_tab_from_keyboard(Tab::History)
            });
            klass.install_action("win.choose-folder", None, |win, _, _| win.choose_folder());
            klass.install_action("win.run-tests", None, |win, _, _| win.run_tests());
            klass.install_action("win.cancel-tests", None, |win, _, _| win.cancel_tests());
            klass.install_action("win.reset-tests", None, |win, _, _| win.reset_tests());
            klass.install_action("win.show-log", None, |win, _, _| {
                win.imp().tests_view.show_log()
            });
            klass.add_binding_action(gdk::Key::Left, gdk::ModifierType::ALT_MASK, "win.back");
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for Window {
        fn constructed(&self) {
            self.parent_constructed();
            self.obj().setup();
        }
    }

    impl WidgetImpl for Window {}

    impl WindowImpl for Window {
        fn close_request(&self) -> glib::Propagation {
            let obj = self.obj();
            if obj.is_busy() {
                if !self.close_when_stopped.get() {
                    obj.confirm_close();
                }
                return glib::Propagation::Stop;
            }
            obj.uninhibit();
            obj.save_settings();
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
        self.set_icon_name(Some(APP_ID));
        // The name of the menu entry, which the taskbar shows too.
        self.set_title(Some(&gettext("Raspberry Pi Diagnostics")));
        self.restore_size();
        crate::a11y::name_mnemonic_buttons(self);
        self.setup_run();
        self.setup_capacity();
        self.setup_ready();
        self.view_stack_follows();
        crate::focus_ring::follow(self);
        // The shortcuts window comes with the application, set after construction.
        self.connect_realize(|win| win.focus_after_help());
        self.setup_history();
        self.setup_tests();
        self.imp().ready_view.load_drives();
        self.imp().tests_view.load_scripts();
        self.sync_state();
        crate::a11y::hide_pages_not_shown(self);
        crate::a11y::tidy(self);
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
            imp.ready_view.choose_profile(profile);
        }
        if let Some(target) = target {
            imp.ready_view.set_preferred_target(target);
        }
        if run {
            imp.ready_view.request_run();
        }
    }

    /// Where test scripts are looked for besides `agnostics/` under `$XDG_DATA_DIRS`
    /// (`--dir`); lists the tests again. Ignored, with a toast, while tests run.
    pub fn set_script_dirs(&self, dirs: Vec<PathBuf>) {
        if self.is_busy() {
            self.toast(&gettext("A test is already running"));
            return;
        }
        self.imp().tests_view.set_script_dirs(dirs);
    }

    /// Back to the choice of drive (the `win.back` action).
    pub(crate) fn show_ready(&self) {
        if !self.imp().test_run.is_busy() && !self.is_checking_capacity() {
            self.show_page(Page::Ready);
        }
    }

    /// Shows a short message at the bottom of the window.
    pub(crate) fn toast(&self, text: &str) {
        let toast = adw::Toast::new(&glib::markup_escape_text(text));
        crate::a11y::add_toast(&self.imp().toast_overlay, toast.clone());
        let mut toasts = self.imp().toasts.borrow_mut();
        toasts.retain(|t| t.upcast_ref::<glib::Object>().ref_count() > 1);
        toasts.push(toast);
    }

    /// The SD Card view's page shown.
    pub(crate) fn page(&self) -> Page {
        self.imp()
            .stack
            .visible_child_name()
            .and_then(|n| Page::from_name(&n))
            .unwrap_or(Page::Ready)
    }

    /// The view shown.
    pub(crate) fn tab(&self) -> Tab {
        self.imp()
            .view_stack
            .visible_child_name()
            .and_then(|n| Tab::from_name(&n))
            .unwrap_or(Tab::SdCard)
    }

    /// Shows the view `tab`.
    pub(crate) fn set_tab(&self, tab: Tab) {
        self.imp().view_stack.set_visible_child_name(tab.name());
    }

    /// Shows `tab` as its shortcut does: its page's first control focused, with the ring.
    fn show_tab_from_keyboard(&self, tab: Tab) {
        self.set_tab(tab);
        self.sync_focus();
        self.set_focus_visible(true);
    }
}
