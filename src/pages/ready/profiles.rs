//! The ready page's profile: the profile row (the built-in profiles, standard first, and a job
//! file given on the command line after them), the profile the next test runs, and the intro
//! that says what it needs.

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::profile::{builtin, Profile};
use agnostics_core::target_dir;
use agnostics_core::units;
use gtk::glib;

use super::ReadyView;
use crate::format::{about_size, about_time};

impl ReadyView {
    /// The profile row: the built-in profiles (standard first, the default, or the one the
    /// settings name); the subtitle says what the chosen one measures.
    pub(super) fn setup_profile_row(&self) {
        let row = self.profile_row();
        let titles: Vec<String> = builtin::ALL.iter().map(|b| b.title()).collect();
        let refs: Vec<&str> = titles.iter().map(String::as_str).collect();
        row.set_model(Some(&gtk::StringList::new(&refs)));
        row.set_selected(self.saved_profile_index());
        row.connect_selected_notify(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.profile_chosen();
                crate::focus_ring::restore(&view);
            }
        ));
        self.profile_chosen();
    }

    /// The profile row's choice becomes the profile the next test runs.
    fn profile_chosen(&self) {
        let imp = self.imp();
        let index = imp.profile_row.selected() as usize;
        let (profile, subtitle) = match builtin::ALL.get(index) {
            Some(b) => (b.profile(), b.description()),
            None => match imp.file_profile.borrow().clone() {
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
        imp.profile_row.set_subtitle(&subtitle);
        imp.profile.replace(Some(profile));
        self.update_intro();
        self.profile_saved();
        self.check_target();
    }

    /// Chooses `profile` in the profile row: its built-in entry, or the job file's entry
    /// (added once, replaced by a later file).
    pub fn choose_profile(&self, profile: Profile) {
        let imp = self.imp();
        let index = builtin::ALL
            .iter()
            .position(|b| profile.source.is_none() && b.profile() == profile);
        if let Some(index) = index {
            imp.profile_row.set_selected(index as u32);
            self.profile_chosen();
            return;
        }
        let Some(list) = imp
            .profile_row
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
        imp.file_profile.replace(Some(profile));
        imp.profile_row.set_selected(file_index);
        self.profile_chosen();
    }

    /// The profile the next test runs as its row names it ("Standard test", "Job file x").
    pub fn profile_title(&self) -> String {
        let row = &self.imp().profile_row;
        row.selected_item()
            .and_downcast::<gtk::StringObject>()
            .map(|s| s.string().to_string())
            .unwrap_or_default()
    }

    /// The profile the next test runs.
    pub fn profile(&self) -> Profile {
        self.imp()
            .profile
            .borrow()
            .clone()
            .unwrap_or_else(Profile::sd_bench)
    }

    pub(super) fn update_intro(&self) {
        let profile = self.profile();
        let size = profile.file_size_bytes();
        self.imp().intro_label.set_label(&fill(
            &gettext("The test writes a {size} file on the drive you choose and measures how fast the drive writes and reads it, like Raspberry Pi Diagnostics. It needs {space} of free space and takes {time} on a slow card; the file is removed afterwards."),
            &[
                ("size", &units::si_bytes(size)),
                ("space", &about_size(target_dir::needed_bytes(size))),
                ("time", &about_time(profile.slow_card_duration())),
            ],
        ));
    }
}
