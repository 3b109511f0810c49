//! The pre-flight checks run on the chosen drive as soon as it is chosen (and when the profile
//! changes the space needed), so that a drive the test would refuse (memory, read-only, too
//! little free space, not a folder one can write) is said so on the page, with what to do,
//! and **Run** is off. They run again as the drive changes (see [`live`](super::live)).

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::error_kind::ErrorKind;
use agnostics_core::sdtest::advice_for_target;
use agnostics_core::target_dir;
use gtk::{gio, glib};

use super::ReadyView;

impl ReadyView {
    /// Why the test would refuse the chosen drive, as the page says it: `None` when it would
    /// not (or while the checks run).
    pub fn problem(&self) -> Option<String> {
        self.imp().problem.borrow().clone()
    }

    /// True when the chosen drive can be checked for capacity as far as the page knows: the
    /// test would take it, or would refuse it only for want of room for its file (the
    /// capacity check needs far less). Memory, read-only and missing folders are not.
    pub fn can_check_capacity(&self) -> bool {
        self.chosen_drive().is_some()
            && (self.imp().problem.borrow().is_none() || self.imp().only_space_lacks.get())
    }

    /// Runs the pre-flight checks on the chosen drive on a helper thread (a hung network
    /// mount cannot freeze the window) and shows their refusal, if any, above **Run**.
    pub(super) fn check_target(&self) {
        self.imp().only_space_lacks.set(false);
        self.set_problem(None);
        self.recheck_target();
    }

    /// Runs the pre-flight checks on the chosen drive again, the refusal shown meanwhile
    /// kept (**Run** does not flicker on while the drive is looked at again).
    pub(super) fn recheck_target(&self) {
        let imp = self.imp();
        let generation = imp.check_generation.get() + 1;
        imp.check_generation.set(generation);
        let Some(choice) = imp.drive_row.selected_choice() else {
            return;
        };
        let dir = choice.dir.clone();
        let size = self.profile().file_size_bytes();
        let sysfs = self.sysfs_root();
        let checking = gio::spawn_blocking(move || {
            target_dir::preflight(&dir, size, &sysfs)
                .err()
                .map(|e| (e.message(), advice_for_target(&e).text(), e.kind()))
        });
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = view)]
            self,
            async move {
                let problem = checking.await.ok().flatten();
                if view.imp().check_generation.get() == generation {
                    // Too little room for the test's file leaves room for a capacity check.
                    view.imp().only_space_lacks.set(
                        problem
                            .as_ref()
                            .is_some_and(|(_, _, kind)| *kind == ErrorKind::NoSpace),
                    );
                    // What happened and what to do, compactly (the heading the error
                    // dialog would show mostly says the same as the advice).
                    let problem = problem.map(|(what, todo, _)| {
                        format!("{}. {todo}", crate::format::capitalized(&what))
                    });
                    if *view.imp().problem.borrow() != problem {
                        view.set_problem(problem);
                    }
                }
            }
        ));
    }

    fn set_problem(&self, problem: Option<String>) {
        let imp = self.imp();
        let label = &imp.problem_label;
        label.set_label(problem.as_deref().unwrap_or(""));
        label.set_visible(problem.is_some());
        // The problem names the folder: the line that names it is not needed then.
        imp.folder_label
            .set_visible(problem.is_none() && !imp.folder_label.label().is_empty());
        let had_focus = imp.run_button.has_focus();
        imp.problem.replace(problem);
        self.emit_changed();
        if had_focus && !imp.run_button.is_sensitive() {
            imp.drive_row.grab_focus();
        }
    }
}
