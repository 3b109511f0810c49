//! The SD Card page's ready state: the introduction (file size and space needed), the drive
//! chooser with **Choose another folder**, the profile row, the line naming the folder the
//! test file goes in, what a capacity check found of the chosen drive when it outranks its
//! speed ([`warning`]), why the chosen drive would be refused (when it would), **Run SD
//! Card Test**, and beside it, plain, **Check Capacity…** (the window's capacity check of the
//! chosen drive). The page owns its state: the list of drives ([`drives`]), the profile and the
//! pre-flight checks of the chosen drive ([`profiles`]), the focus at launch and the choices
//! remembered between launches ([`remembered`]). Its buttons use the window's `win.run` and
//! `win.choose-folder` actions; it tells the window what changed by its signals: `changed`
//! (whether **Run** can be pressed), `listed` (the drives are listed, or changed: see
//! [`live`]), `toast` (a short
//! message) and `run-requested` (`--run` once the drives are listed).

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::headline::CapacityKnown;
use agnostics_core::profile::Profile;
use glib::subclass::Signal;
use gtk::{gio, glib};

use crate::widgets::drive_row::DriveChoice;
use crate::widgets::DriveRow;

mod checks;
mod drives;
mod health;
mod in_view;
mod live;
mod profiles;
mod remembered;
mod warning;

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(resource = "/io/github/agnostics_rs/Agnostics/ui/ready_view.ui")]
    pub struct ReadyView {
        #[template_child]
        pub scroller: TemplateChild<gtk::ScrolledWindow>,
        #[template_child]
        pub intro_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub drive_row: TemplateChild<DriveRow>,
        #[template_child]
        pub profile_row: TemplateChild<adw::ComboRow>,
        #[template_child]
        pub folder_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub problem_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub drive_warning_label: TemplateChild<gtk::Label>,
        /// What the history's capacity checks say of the drive under each folder listed
        /// (only those a check ran on).
        pub capacity_known: RefCell<Vec<(PathBuf, CapacityKnown)>>,
        #[template_child]
        pub run_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub capacity_button: TemplateChild<gtk::Button>,

        /// Where sysfs is (`/sys`; a fixture tree in tests).
        pub sysfs_root: RefCell<PathBuf>,
        /// The profile the next test runs (`None` before setup: the standard one).
        pub profile: RefCell<Option<Profile>>,
        /// A job file given with `--profile FILE`: the profile row's last entry.
        pub file_profile: RefCell<Option<Profile>>,
        /// The folder to select when the drives are listed (`--target`, the last drive tested).
        pub preferred_target: RefCell<Option<PathBuf>>,
        /// True once the drives are listed.
        pub drives_loaded: Cell<bool>,
        /// Counts the listings started: a late answer about an earlier one is dropped.
        pub drives_generation: Cell<u64>,
        /// `--run`: start the test as soon as the drives are listed.
        pub run_when_ready: Cell<bool>,
        /// Why the chosen drive would be refused (what happened, then what to do), if it would.
        pub problem: RefCell<Option<String>>,
        /// The chosen drive's only problem is too little room for the test's file.
        pub only_space_lacks: Cell<bool>,
        /// Counts the checks started: a late answer about an earlier choice is dropped.
        pub check_generation: Cell<u64>,
        /// The first list of drives has not given the focus to **Run** yet.
        pub launch_focus: Cell<bool>,
        /// The settings, when their schema is installed (else nothing is remembered).
        pub settings: RefCell<Option<gio::Settings>>,
        /// The kernel's mount table, watched while the page lives.
        pub mount_watch: RefCell<Option<agnostics_core::target_dir::MountWatch>>,
        /// The main loop's watch of [`Self::mount_watch`].
        pub mount_source: RefCell<Option<glib::SourceId>>,
        /// Looks at the free space again while the page is shown.
        pub free_space_timer: RefCell<Option<glib::SourceId>>,
        /// A refresh of the drives is being made.
        pub refreshing: Cell<bool>,
        /// The chooser is being refilled with the same choice kept.
        pub keeping_choice: Cell<bool>,
        /// How worn the chosen drive is.
        pub health: crate::widgets::health_group::HealthGroup,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for ReadyView {
        const NAME: &'static str = "AgnosticsReadyView";
        type Type = super::ReadyView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            DriveRow::ensure_type();
            crate::widgets::WrapBox::ensure_type();
            crate::resources::register();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for ReadyView {
        fn signals() -> &'static [Signal] {
            static SIGNALS: OnceLock<Vec<Signal>> = OnceLock::new();
            SIGNALS.get_or_init(|| {
                vec![
                    // The drives were listed, or the chosen drive's refusal changed: whether
                    // **Run** can be pressed.
                    Signal::builder("changed").build(),
                    // A short message for the bottom of the window.
                    Signal::builder("toast")
                        .param_types([String::static_type()])
                        .build(),
                    // The drives are listed (after `changed`).
                    Signal::builder("listed").build(),
                    // `--run`: the drives are listed, the test is to start.
                    Signal::builder("run-requested").build(),
                ]
            })
        }

        fn constructed(&self) {
            self.parent_constructed();
            // The profiles' popup entries named for screen readers, as the drives' are.
            use crate::widgets::drive_row::wrapping_factory;
            let row = &*self.profile_row;
            row.set_factory(Some(&wrapping_factory(None)));
            row.set_list_factory(Some(&wrapping_factory(Some(row))));
            self.sysfs_root.replace(PathBuf::from("/sys"));
            self.profile.replace(Some(Profile::sd_bench()));
            let obj = self.obj();
            obj.restore_settings();
            obj.setup_profile_row();
            obj.update_intro();
            obj.setup_health();
            self.drive_row.connect_selected_notify(glib::clone!(
                #[weak]
                obj,
                move |_| {
                    // A refresh that keeps the choice looks at it again itself, without
                    // clearing what the page says meanwhile.
                    if obj.imp().keeping_choice.get() {
                        return;
                    }
                    obj.update_folder_label();
                    obj.update_drive_warning();
                    obj.check_target();
                    crate::focus_ring::restore(&obj);
                }
            ));
            obj.follow_drives();
            obj.keep_drive_in_view();
        }

        fn dispose(&self) {
            self.obj().stop_following_drives();
        }
    }
    impl WidgetImpl for ReadyView {}
    impl BoxImpl for ReadyView {}
}

glib::wrapper! {
    /// The SD Card page's ready state.
    pub struct ReadyView(ObjectSubclass<imp::ReadyView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for ReadyView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl ReadyView {
    /// The drive chooser.
    pub fn drive_row(&self) -> DriveRow {
        self.imp().drive_row.get()
    }

    /// The profile row.
    pub fn profile_row(&self) -> adw::ComboRow {
        self.imp().profile_row.get()
    }

    /// **Run SD Card Test**.
    pub fn run_button(&self) -> gtk::Button {
        self.imp().run_button.get()
    }

    /// **Check Capacity…**.
    pub fn capacity_button(&self) -> gtk::Button {
        self.imp().capacity_button.get()
    }

    /// The drive holding the folder `dir` as the chooser names it, else the folder itself.
    pub fn drive_name_of(&self, dir: &Path) -> String {
        self.imp()
            .drive_row
            .choices()
            .into_iter()
            .find(|c| c.dir == dir)
            .map_or_else(|| dir.display().to_string(), |c| c.label)
    }

    /// The drive chosen, once the drives are listed.
    pub fn chosen_drive(&self) -> Option<DriveChoice> {
        if !self.drives_loaded() {
            return None;
        }
        self.imp().drive_row.selected_choice()
    }

    /// True once the drives are listed.
    pub fn drives_loaded(&self) -> bool {
        self.imp().drives_loaded.get()
    }

    /// True when **Run** can start a test: the drives are listed and the test would not
    /// refuse the chosen one.
    pub fn can_run(&self) -> bool {
        self.drives_loaded() && self.imp().problem.borrow().is_none()
    }

    /// Where sysfs is: `/sys`, or the fixture tree [`ReadyView::set_sysfs_root`] gave.
    pub fn sysfs_root(&self) -> PathBuf {
        self.imp().sysfs_root.borrow().clone()
    }

    /// Reads sysfs at `root` from now on and lists the drives again.
    pub fn set_sysfs_root(&self, root: PathBuf) {
        self.imp().sysfs_root.replace(root);
        self.load_drives();
    }

    /// Selects `target` when the drives are listed, and lists them again (`--target`).
    pub fn set_preferred_target(&self, target: PathBuf) {
        self.imp().preferred_target.replace(Some(target));
        self.load_drives();
    }

    /// Asks for the test to start (the `run-requested` signal) as soon as the drives are
    /// listed: at once when they are (`--run`).
    pub fn request_run(&self) {
        if self.drives_loaded() {
            self.emit_by_name::<()>("run-requested", &[]);
        } else {
            self.imp().run_when_ready.set(true);
        }
    }

    /// The control that gets the focus when the page shows: the drive chooser, which writes
    /// nothing, so that a stray Return or Space cannot start a test; the test starts only
    /// from **Run** (its button, its access key, or Ctrl+R).
    pub fn focus_default(&self) {
        self.imp().drive_row.grab_focus();
    }

    /// Calls `f` when the drives were listed or the chosen drive's refusal changed.
    pub fn connect_changed<F: Fn(&ReadyView) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("changed", false, move |values| {
            if let Some(view) = values.first().and_then(|v| v.get::<ReadyView>().ok()) {
                f(&view);
            }
            None
        })
    }

    /// Calls `f` each time the drives have been listed.
    pub fn connect_listed<F: Fn(&ReadyView) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("listed", false, move |values| {
            if let Some(view) = values.first().and_then(|v| v.get::<ReadyView>().ok()) {
                f(&view);
            }
            None
        })
    }

    /// Calls `f` with each short message the page has for the bottom of the window.
    pub fn connect_toast<F: Fn(&ReadyView, &str) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("toast", false, move |values| {
            let view = values.first().and_then(|v| v.get::<ReadyView>().ok());
            let text = values.get(1).and_then(|v| v.get::<String>().ok());
            if let (Some(view), Some(text)) = (view, text) {
                f(&view, &text);
            }
            None
        })
    }

    /// Calls `f` when the test is to start because [`ReadyView::request_run`] asked for it.
    pub fn connect_run_requested<F: Fn(&ReadyView) + 'static>(
        &self,
        f: F,
    ) -> glib::SignalHandlerId {
        self.connect_local("run-requested", false, move |values| {
            if let Some(view) = values.first().and_then(|v| v.get::<ReadyView>().ok()) {
                f(&view);
            }
            None
        })
    }

    fn emit_changed(&self) {
        self.emit_by_name::<()>("changed", &[]);
    }

    fn emit_toast(&self, text: &str) {
        self.emit_by_name::<()>("toast", &[&text.to_string()]);
    }

    /// Remembers `dir` as the last drive tested.
    pub fn remember_drive(&self, dir: &Path) {
        if let (Some(settings), Some(dir)) = (self.imp().settings.borrow().as_ref(), dir.to_str()) {
            let _ = settings.set_string("last-drive", dir);
        }
    }
}
