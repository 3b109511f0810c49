//! The ready page's list of drives: made on a helper thread (a hung network mount
//! cannot freeze the window), the preferred folder selected, test files of killed runs removed
//! (and said so), and the line that names the folder the test file goes in.

use std::path::PathBuf;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::engine::testfile;
use agnostics_core::i18n::{fill, gettext, ngettext};
use agnostics_core::target_dir;
use gtk::{gio, glib};

use super::ReadyView;
use crate::widgets::drive_row::{choices, DriveChoice};

impl ReadyView {
    /// Lists the drives again (on a helper thread) and selects the preferred folder.
    pub fn load_drives(&self) {
        let imp = self.imp();
        imp.drives_loaded.set(false);
        let generation = imp.drives_generation.get() + 1;
        imp.drives_generation.set(generation);
        imp.drive_row.set_loading();
        self.update_folder_label();
        self.emit_changed();

        let sysfs = self.sysfs_root();
        let preferred = imp.preferred_target.borrow().clone();
        let fallback = preferred.clone();
        let listing = gio::spawn_blocking(move || {
            let preferred = preferred.unwrap_or_else(|| target_dir::default_target(&sysfs));
            let info = target_dir::inspect(&preferred, &sysfs).ok();
            let (list, selected) = choices(target_dir::list(&sysfs), &preferred, info);
            // Test files left by a killed run (its process gone), in the folders offered:
            // one directory listing each, on this helper thread.
            let removed: Vec<PathBuf> = list
                .iter()
                .flat_map(|choice| testfile::remove_stale(&choice.dir))
                .collect();
            (list, selected, removed)
        });
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = view)]
            self,
            async move {
                let (list, selected, removed) = listing.await.unwrap_or_else(|_| {
                    let dir = fallback.unwrap_or_else(|| PathBuf::from("/var/tmp"));
                    (vec![DriveChoice::new(dir, None)], 0, Vec::new())
                });
                // Said even when this listing is outdated: the files are gone either way.
                view.tell_stale_removed(&removed);
                let imp = view.imp();
                if imp.drives_generation.get() != generation {
                    return;
                }
                imp.drive_row.set_choices(list, selected);
                imp.drives_loaded.set(true);
                view.update_folder_label();
                view.check_target();
                view.emit_changed();
                view.emit_by_name::<()>("listed", &[]);
                if imp.run_when_ready.take() {
                    view.emit_by_name::<()>("run-requested", &[]);
                }
            }
        ));
    }

    /// One toast (and one line on stderr, for a terminal that started the app) for the test
    /// files of killed runs that [`testfile::remove_stale`] removed; nothing when there were
    /// none.
    fn tell_stale_removed(&self, removed: &[PathBuf]) {
        let text = match removed {
            [] => return,
            [path] => fill(
                &gettext("Removed a test file left by an earlier test that was stopped: {path}"),
                &[("path", &path.display())],
            ),
            paths => fill(
                &ngettext(
                    "Removed {count} test file left by earlier tests that were stopped, in {folders}",
                    "Removed {count} test files left by earlier tests that were stopped, in {folders}",
                    u32::try_from(paths.len()).unwrap_or(u32::MAX),
                ),
                &[("count", &paths.len()), ("folders", &folders_of(paths))],
            ),
        };
        eprintln!("agnostics: {text}");
        self.emit_toast(&text);
    }

    pub(super) fn update_folder_label(&self) {
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
}

/// The distinct folders holding `paths`, in order, joined with ", ".
fn folders_of(paths: &[PathBuf]) -> String {
    let mut folders: Vec<String> = Vec::new();
    for path in paths {
        let folder = path
            .parent()
            .unwrap_or(path.as_path())
            .display()
            .to_string();
        if !folders.contains(&folder) {
            folders.push(folder);
        }
    }
    folders.join(", ")
}

impl ReadyView {
    /// Adds `dir` to the drives and selects it (what **Choose another folder** does), once it
    /// is inspected on a helper thread.
    pub fn add_folder(&self, dir: PathBuf) {
        let sysfs = self.sysfs_root();
        let probe_dir = dir.clone();
        let inspecting = gio::spawn_blocking(move || target_dir::inspect(&probe_dir, &sysfs).ok());
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = view)]
            self,
            async move {
                let info = inspecting.await.ok().flatten();
                view.imp().drive_row.add_folder(dir, info);
            }
        ));
    }
}
