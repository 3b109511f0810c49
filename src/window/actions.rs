//! The window's actions, one typed name each: the window installs them and enables them, the
//! application gives them their accelerators, and the tests and the `.ui` files (buttons'
//! `action-name`, the shortcuts window) name them as [`Action::name`] spells them.

use super::{Tab, Window};
use gtk::subclass::prelude::*;

/// An action of the main window (`win.…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Run the SD card test (from any tab, it shows on the SD Card tab).
    Run,
    /// After a Quick check: the standard test, the one that grades, on the same drive.
    RunStandard,
    /// Stop the SD card test.
    Cancel,
    /// Start a capacity check of the chosen drive.
    CheckCapacity,
    /// Stop the capacity check.
    CancelCapacity,
    /// Copy the results as text.
    CopyResults,
    /// Save the report.
    SaveReport,
    /// Back to the ready page.
    Back,
    /// The SD Card tab from the keyboard.
    ShowSdCard,
    /// The All Tests tab from the keyboard.
    ShowAllTests,
    /// The History tab from the keyboard.
    ShowHistory,
    /// Choose the folder the test writes in.
    ChooseFolder,
    /// Run the ticked tests of All Tests.
    RunTests,
    /// Stop them.
    CancelTests,
    /// Clear their results.
    ResetTests,
    /// Show the tests' log.
    ShowLog,
}

impl Action {
    /// Every action, in the order they are installed.
    pub const ALL: [Action; 16] = [
        Action::Run,
        Action::RunStandard,
        Action::Cancel,
        Action::CheckCapacity,
        Action::CancelCapacity,
        Action::CopyResults,
        Action::SaveReport,
        Action::Back,
        Action::ShowSdCard,
        Action::ShowAllTests,
        Action::ShowHistory,
        Action::ChooseFolder,
        Action::RunTests,
        Action::CancelTests,
        Action::ResetTests,
        Action::ShowLog,
    ];

    /// Its detailed name, as buttons and accelerators name it: `win.run`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Run => "win.run",
            Action::RunStandard => "win.run-standard",
            Action::Cancel => "win.cancel",
            Action::CheckCapacity => "win.check-capacity",
            Action::CancelCapacity => "win.cancel-capacity",
            Action::CopyResults => "win.copy-results",
            Action::SaveReport => "win.save-report",
            Action::Back => "win.back",
            Action::ShowSdCard => "win.show-sd-card",
            Action::ShowAllTests => "win.show-all-tests",
            Action::ShowHistory => "win.show-history",
            Action::ChooseFolder => "win.choose-folder",
            Action::RunTests => "win.run-tests",
            Action::CancelTests => "win.cancel-tests",
            Action::ResetTests => "win.reset-tests",
            Action::ShowLog => "win.show-log",
        }
    }

    /// Its accelerators, in GTK's spelling (`<Primary>r`); none for most.
    pub fn accels(self) -> &'static [&'static str] {
        match self {
            Action::SaveReport => &["<Primary>s"],
            Action::Run => &["<Primary>r"],
            Action::ShowSdCard => &["<Alt>1"],
            Action::ShowAllTests => &["<Alt>2"],
            Action::ShowHistory => &["<Alt>3"],
            _ => &[],
        }
    }

    /// Does it in `win`.
    pub(super) fn activate(self, win: &Window) {
        match self {
            // Run, its access key or Ctrl+R: from any tab, the test shows on the SD Card tab.
            Action::Run => {
                win.set_tab(Tab::SdCard);
                win.request_test();
            }
            Action::RunStandard => {
                let ready = &win.imp().ready_view;
                ready.choose_profile(agnostics_core::profile::Profile::sd_bench());
                win.set_tab(Tab::SdCard);
                win.request_test();
            }
            Action::Cancel => win.cancel_test(),
            Action::CheckCapacity => win.check_capacity(),
            Action::CancelCapacity => win.cancel_capacity(),
            Action::CopyResults => win.copy_results(),
            Action::SaveReport => win.save_report(),
            Action::Back => win.show_ready(),
            // Alt+1, Alt+2, Alt+3: the switcher's pages from the keyboard, the focus ring
            // shown on the page's first control.
            Action::ShowSdCard => win.show_tab_from_keyboard(Tab::SdCard),
            Action::ShowAllTests => win.show_tab_from_keyboard(Tab::AllTests),
            Action::ShowHistory => win.show_tab_from_keyboard(Tab::History),
            Action::ChooseFolder => win.choose_folder(),
            Action::RunTests => win.run_tests(),
            Action::CancelTests => win.cancel_tests(),
            Action::ResetTests => win.reset_tests(),
            Action::ShowLog => win.imp().tests_view.show_log(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `win.…` names in the text of `dir`'s `.ui` files, and below.
    fn ui_names(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                ui_names(&path, out);
            } else if path.extension().is_some_and(|e| e == "ui") {
                let text = std::fs::read_to_string(&path).unwrap();
                for piece in text.split(">win.").skip(1) {
                    let name = piece.split('<').next().unwrap();
                    out.push((path.display().to_string(), format!("win.{name}")));
                }
            }
        }
    }

    #[test]
    fn every_action_the_ui_files_name_is_one_of_the_window_s() {
        let mut named = Vec::new();
        ui_names(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut named,
        );
        assert!(named.len() >= 20, "{named:?}");
        for (file, name) in named {
            // GTK's own, from the window's shortcuts window.
            if name == "win.show-help-overlay" {
                continue;
            }
            assert!(
                Action::ALL.iter().any(|a| a.name() == name),
                "{file} names {name}, which is no Action"
            );
        }
        let mut names: Vec<_> = Action::ALL.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Action::ALL.len());
    }
}
