//! The SD Card page's ready state beyond the list of drives: the pre-flight checks run on the
//! chosen drive as soon as it is chosen (and when the profile changes the space needed), so
//! that a drive the test would refuse (memory, read-only, too little free space, not a
//! folder one can write) is said so on the page, with what to do, and **Run** is off; the
//! profile row and the intro that says what the chosen profile needs; the focus at
//! launch; and the choices remembered between launches (see [`crate::settings`]).

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::profile::{builtin, Profile};
use agnostics_core::sdtest::advice_for_target;
use agnostics_core::target_dir;
use agnostics_core::units;
use gtk::{gio, glib};

use super::Window;
use crate::format::about_size;
use crate::settings;

/// The ready page's state, owned by the window.
#[derive(Debug, Default)]
pub struct ReadyState {
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
    /// Counts the checks started: a late answer about an earlier choice is dropped.
    pub check_generation: Cell<u64>,
    /// The first list of drives has not given the focus to **Run** yet.
    pub launch_focus: Cell<bool>,
    /// The settings, when their schema is installed (else nothing is remembered).
    pub settings: RefCell<Option<gio::Settings>>,
}

impl Window {
    /// The profile row: the built-in profiles (standard first, the default), and a job file
    /// given on the command line after them; the subtitle says what the chosen one measures.
    pub(super) fn setup_profile_row(&self) {
        let imp = self.imp();
        let titles: Vec<String> = builtin::ALL.iter().map(|b| b.title()).collect();
        let refs: Vec<&str> = titles.iter().map(String::as_str).collect();
        imp.ready_view
            .profile_row()
            .set_model(Some(&gtk::StringList::new(&refs)));
        imp.ready_view
            .profile_row()
            .set_selected(self.saved_profile_index());
        imp.ready_view
            .profile_row()
            .connect_selected_notify(glib::clone!(
                #[weak(rename_to = win)]
                self,
                move |_| win.profile_chosen()
            ));
        self.profile_chosen();
    }

    /// The profile row's choice becomes the profile the next test runs.
    fn profile_chosen(&self) {
        let imp = self.imp();
        let index = imp.ready_view.profile_row().selected() as usize;
        let (profile, subtitle) = match builtin::ALL.get(index) {
            Some(b) => (b.profile(), b.description()),
            None => match imp.ready.file_profile.borrow().clone() {
                Some(p) => {
                    let source = p
                        .source
                        .as_ref()
                        .map(|s| s.display().to_string())
                        .unwrap_or_default();
                    (p, source)
                }
                None => return,
            },
        };
        imp.ready_view.profile_row().set_subtitle(&subtitle);
        imp.ready.profile.replace(Some(profile));
        self.update_intro();
        self.profile_saved();
        self.check_target();
    }

    /// Chooses `profile` in the profile row: its built-in entry, or the job file's entry
    /// (added once, replaced by a later file).
    pub(super) fn choose_profile(&self, profile: Profile) {
        let imp = self.imp();
        let index = builtin::ALL
            .iter()
            .position(|b| profile.source.is_none() && b.profile() == profile);
        if let Some(index) = index {
            imp.ready_view.profile_row().set_selected(index as u32);
            self.profile_chosen();
            return;
        }
        let Some(list) = imp
            .ready_view
            .profile_row()
            .model()
            .and_then(|m| m.downcast::<gtk::StringList>().ok())
        else {
            return;
        };
        let label = fill(
            // Translators: the profile row's entry for a job file given on the command line.
            &gettext("Job file {name}"),
            &[("name", &profile.name)],
        );
        let file_index = builtin::ALL.len() as u32;
        if list.n_items() > file_index {
            list.splice(file_index, 1, &[label.as_str()]);
        } else {
            list.append(&label);
        }
        imp.ready.file_profile.replace(Some(profile));
        imp.ready_view.profile_row().set_selected(file_index);
        self.profile_chosen();
    }

    /// The profile the next test runs.
    pub fn profile(&self) -> Profile {
        self.imp()
            .ready
            .profile
            .borrow()
            .clone()
            .unwrap_or_else(Profile::sd_bench)
    }

    pub(super) fn update_intro(&self) {
        let size = self.profile().file_size_bytes();
        self.imp().ready_view.intro_label().set_label(&fill(
            &gettext("The test writes a {size} file on the drive you choose and measures how fast the drive writes and reads it, like Raspberry Pi Diagnostics. It needs {space} of free space and takes a few minutes; the file is removed afterwards."),
            &[
                ("size", &units::si_bytes(size)),
                ("space", &about_size(target_dir::needed_bytes(size))),
            ],
        ));
    }

    /// Why the test would refuse the chosen drive, as the ready page says it: `None` when it
    /// would not (or while the checks run).
    pub fn ready_problem(&self) -> Option<String> {
        self.imp().ready.problem.borrow().clone()
    }

    /// Runs the pre-flight checks on the chosen drive on a helper thread (a hung network
    /// mount cannot freeze the window) and shows their refusal, if any, above **Run**.
    pub(super) fn check_target(&self) {
        let imp = self.imp();
        let generation = imp.ready.check_generation.get() + 1;
        imp.ready.check_generation.set(generation);
        self.set_problem(None);
        let Some(choice) = imp.ready_view.drive_row().selected_choice() else {
            return;
        };
        let dir = choice.dir.clone();
        let size = self.profile().file_size_bytes();
        let sysfs = imp.sysfs_root.borrow().clone();
        let checking = gio::spawn_blocking(move || {
            target_dir::preflight(&dir, size, &sysfs)
                .err()
                .map(|e| (e.message(), advice_for_target(&e).text()))
        });
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = win)]
            self,
            async move {
                let problem = checking.await.ok().flatten();
                if win.imp().ready.check_generation.get() == generation {
                    // What happened and what to do, compactly (the heading the error
                    // dialog would show mostly says the same as the advice).
                    win.set_problem(
                        problem.map(|(what, todo)| format!("{}. {todo}", sentence(&what))),
                    );
                }
            }
        ));
    }

    fn set_problem(&self, problem: Option<String>) {
        let imp = self.imp();
        let label = &imp.ready_view.problem_label();
        label.set_label(problem.as_deref().unwrap_or(""));
        label.set_visible(problem.is_some());
        // The problem names the folder: the line that names it is not needed then.
        imp.ready_view
            .folder_label()
            .set_visible(problem.is_none() && !imp.ready_view.folder_label().label().is_empty());
        let had_focus = imp.ready_view.run_button().has_focus();
        imp.ready.problem.replace(problem);
        self.sync_actions();
        if had_focus && !imp.ready_view.run_button().is_sensitive() {
            imp.ready_view.drive_row().grab_focus();
        }
    }

    /// Once the first list of drives is there (and **Run** can be pressed), the focus goes to
    /// **Run**, not to the header's first tab where GTK would put it.
    pub(super) fn give_launch_focus(&self) {
        let imp = self.imp();
        if imp.ready.launch_focus.take()
            && self.tab() == super::Tab::SdCard
            && self.page() == super::Page::Ready
        {
            self.sync_focus();
        }
    }

    /// Reads the remembered window size, drive and profile (nothing when the schema is not
    /// installed, as in a build tree).
    pub(super) fn restore_settings(&self) {
        let imp = self.imp();
        imp.ready.launch_focus.set(true);
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
        let drive = settings.string("last-drive");
        if !drive.is_empty() && Path::new(drive.as_str()).is_dir() {
            imp.ready
                .preferred_target
                .replace(Some(Path::new(drive.as_str()).to_path_buf()));
        }
        imp.ready.settings.replace(Some(settings));
    }

    /// The profile row's entry the settings name (the standard test when none is).
    pub(super) fn saved_profile_index(&self) -> u32 {
        let settings = self.imp().ready.settings.borrow();
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
        let settings = imp.ready.settings.borrow();
        let Some(settings) = settings.as_ref() else {
            return;
        };
        if let Some(b) = builtin::ALL.get(imp.ready_view.profile_row().selected() as usize) {
            let _ = settings.set_string("profile", b.name);
        }
    }

    /// Remembers `dir` as the last drive tested.
    pub(super) fn drive_saved(&self, dir: &Path) {
        if let (Some(settings), Some(dir)) =
            (self.imp().ready.settings.borrow().as_ref(), dir.to_str())
        {
            let _ = settings.set_string("last-drive", dir);
        }
    }

    /// Remembers the window's size and the drive chosen, when the window closes.
    pub(super) fn save_settings(&self) {
        let imp = self.imp();
        if let Some(choice) = imp.ready_view.drive_row().selected_choice() {
            self.drive_saved(&choice.dir);
        }
        let settings = imp.ready.settings.borrow();
        let Some(settings) = settings.as_ref() else {
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

/// `text` with its first letter upper-case: the engine's messages are made to follow
/// "Error: ", and here one starts a sentence.
fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
