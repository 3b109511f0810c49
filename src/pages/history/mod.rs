//! The History view: every drive tested ([`drives`]); a drive's page with its trend charts and
//! runs, **Rename** ([`drive`]); a stored run's results with **Save report** and **Forget
//! Run** ([`run`]); and **Compare** of two chosen runs, from one drive or two ([`compare`]).
//! A drive's capacity checks, its **Found fake** mark and a stored check's page are in
//! [`capacity`]; forgetting a run or a check, with **Undo**, in `forgotten`. Each page keeps its own widgets and state; [`HistoryView`] holds them in a stack, moves
//! between them by [`HistoryPage`], and keeps what they share: the history's path, the runs
//! ticked for **Compare** (the bar at the bottom) and the loads under way. Everything the
//! history stores is read and written off the main loop ([`crate::model::history_store`] in
//! `gio::spawn_blocking`); [`HistoryView::reload`] shows a newly recorded run.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use adw::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use gtk::subclass::prelude::*;
use gtk::{gio, glib};

use crate::model::history_store;

pub mod capacity;
pub mod compare;
pub mod drive;
pub mod drives;
mod forgotten;
mod health;
pub mod labels;
mod layout;
pub mod run;
mod stored_page;

pub use compare::CompareView;

/// A page of the History view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HistoryPage {
    /// Every drive tested.
    #[default]
    Drives,
    /// One drive: its trend charts and runs.
    Drive,
    /// One stored run's results.
    Run,
    /// Two runs side by side.
    Compare,
    /// One stored capacity check's verdict.
    Check,
}

impl HistoryPage {
    /// Every page, in the stack's order.
    pub const ALL: [HistoryPage; 5] = [
        HistoryPage::Drives,
        HistoryPage::Drive,
        HistoryPage::Run,
        HistoryPage::Compare,
        HistoryPage::Check,
    ];

    /// The page's name in the view's stack.
    pub fn name(self) -> &'static str {
        match self {
            HistoryPage::Drives => "drives",
            HistoryPage::Drive => "drive",
            HistoryPage::Run => "run",
            HistoryPage::Compare => "compare",
            HistoryPage::Check => "check",
        }
    }

    /// The page named `name` in the view's stack, if there is one.
    pub fn from_name(name: &str) -> Option<HistoryPage> {
        HistoryPage::ALL.into_iter().find(|p| p.name() == name)
    }
}

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct HistoryView {
        pub path: RefCell<PathBuf>,
        pub stack: gtk::Stack,
        pub drives: drives::DrivesPage,
        pub drive: drive::DrivePage,
        pub run: run::RunPage,
        pub compare: compare::ComparePage,
        pub capacity: capacity::CapacityParts,
        pub compare_bar: gtk::ActionBar,
        pub compare_label: gtk::Label,
        pub compare_button: gtk::Button,
        /// The runs chosen for **Compare** (id, label for people), oldest choice first.
        pub chosen: RefCell<Vec<(String, String)>>,
        pub pending: Cell<u32>,
        pub generation: Cell<u64>,
        pub dialog: RefCell<Option<adw::MessageDialog>>,
        pub chooser: RefCell<Option<gtk::FileChooserNative>>,
        /// The "Run forgotten" toast while its **Undo** can still be pressed.
        pub undo_toast: RefCell<Option<adw::Toast>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for HistoryView {
        const NAME: &'static str = "AgnosticsHistoryView";
        type Type = super::HistoryView;
        type ParentType = gtk::Box;
    }

    impl ObjectImpl for HistoryView {
        fn signals() -> &'static [glib::subclass::Signal] {
            static SIGNALS: std::sync::OnceLock<Vec<glib::subclass::Signal>> =
                std::sync::OnceLock::new();
            SIGNALS.get_or_init(|| {
                vec![
                    // **Check Capacity…** on a connected drive's page: the folder to check.
                    glib::subclass::Signal::builder("check-capacity")
                        .param_types([String::static_type()])
                        .build(),
                ]
            })
        }

        fn constructed(&self) {
            self.parent_constructed();
            self.path.replace(history_store::default_path());
            self.obj().build();
        }
    }
    impl WidgetImpl for HistoryView {}
    impl BoxImpl for HistoryView {}
}

glib::wrapper! {
    /// The History view.
    pub struct HistoryView(ObjectSubclass<imp::HistoryView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for HistoryView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl HistoryView {
    /// Gives the focus to the first control of the page shown (the first drive, the back
    /// button of a drive's or a run's page); false when there is none (no runs yet).
    pub fn focus_default(&self) -> bool {
        let imp = self.imp();
        if self.visible_page() == HistoryPage::Drives {
            if let Some(row) = imp.drives.list.row_at_index(0) {
                return imp.drives.list.is_visible() && row.grab_focus();
            }
            return false;
        }
        imp.stack
            .visible_child()
            .is_some_and(|page| page.child_focus(gtk::DirectionType::TabForward))
    }

    /// Leaves the page shown for the one its back button leads to (a drive's page for the list
    /// of drives, a run's for its drive's page, the comparison for the page it was opened
    /// from); false on the list of drives, which has no way back.
    pub fn go_back(&self) -> bool {
        let to = match self.visible_page() {
            HistoryPage::Drives => return false,
            HistoryPage::Drive => HistoryPage::Drives,
            HistoryPage::Run | HistoryPage::Check => HistoryPage::Drive,
            HistoryPage::Compare => self.imp().compare.back.get(),
        };
        self.show(to);
        true
    }

    /// A History page of [`crate::model::history_store::default_path`], loading its drives.
    pub fn new() -> HistoryView {
        HistoryView::default()
    }

    pub(super) fn build(&self) {
        let imp = self.imp();
        self.set_orientation(gtk::Orientation::Vertical);
        imp.stack
            .set_transition_type(gtk::StackTransitionType::Crossfade);
        imp.stack.set_vexpand(true);
        self.append(&imp.stack);
        self.build_drives_page();
        self.build_drive_page();
        self.build_run_page();
        self.build_compare_page();
        self.build_check_page();
        self.build_compare_bar();
        // Alt+Left (GNOME's "back") or Escape leaves a drive's, a run's or the comparison's
        // page, as its back button does, wherever the focus is on it.
        let back = gtk::ShortcutController::new();
        back.add_shortcut(gtk::Shortcut::new(
            gtk::ShortcutTrigger::parse_string("<Alt>Left|Escape"),
            Some(gtk::CallbackAction::new(|widget, _| {
                widget
                    .downcast_ref::<HistoryView>()
                    .is_some_and(HistoryView::go_back)
                    .into()
            })),
        ));
        self.add_controller(back);
        imp.stack.connect_visible_child_name_notify(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.sync_chosen();
                // The page that was left took the focus with it: the new one's first control
                // gets it (a keyboard user would otherwise be nowhere).
                if view.is_mapped() {
                    view.focus_default();
                }
            }
        ));
        self.reload();
    }

    pub(super) fn build_compare_bar(&self) {
        let imp = self.imp();
        imp.compare_label.set_wrap(true);
        imp.compare_label.set_hexpand(true);
        imp.compare_label.set_xalign(0.0);
        imp.compare_bar.pack_start(&imp.compare_label);
        let clear = gtk::Button::with_mnemonic(&gettext("C_lear"));
        clear.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| {
                view.imp().chosen.borrow_mut().clear();
                view.sync_chosen();
            }
        ));
        imp.compare_button.set_label(&gettext("_Compare"));
        imp.compare_button.set_use_underline(true);
        imp.compare_button.add_css_class("suggested-action");
        imp.compare_button.connect_clicked(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |_| view.compare_chosen()
        ));
        imp.compare_bar.pack_end(&imp.compare_button);
        imp.compare_bar.pack_end(&clear);
        imp.compare_bar.set_revealed(false);
        self.append(&imp.compare_bar);
    }

    /// Uses the history at `path` (tests; the app uses [`history_store::default_path`]) and
    /// loads it again.
    pub fn set_path(&self, path: &Path) {
        self.imp().path.replace(path.to_path_buf());
        self.imp().chosen.borrow_mut().clear();
        self.sync_chosen();
        self.show(HistoryPage::Drives);
        self.reload();
    }

    /// Shows a short message in the window's toast overlay.
    pub(super) fn toast(&self, text: &str) {
        self.add_toast(adw::Toast::new(&glib::markup_escape_text(text)));
    }

    /// Shows `toast` in the window's toast overlay (nothing when the page is not in a window).
    pub(super) fn add_toast(&self, toast: adw::Toast) {
        if let Some(overlay) = self
            .ancestor(adw::ToastOverlay::static_type())
            .and_downcast::<adw::ToastOverlay>()
        {
            crate::a11y::add_toast(&overlay, toast);
        }
    }

    /// Runs `work` on a helper thread, then `then` with its result on the main loop (unless
    /// a newer load of the same kind replaced it, when `generation` is given).
    pub(super) fn background<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Path) -> T + Send + 'static,
        then: impl FnOnce(&HistoryView, T) + 'static,
    ) {
        let imp = self.imp();
        let path = imp.path.borrow().clone();
        imp.pending.set(imp.pending.get() + 1);
        let handle = gio::spawn_blocking(move || work(&path));
        glib::spawn_future_local(glib::clone!(
            #[weak(rename_to = view)]
            self,
            async move {
                let result = handle.await;
                view.imp().pending.set(view.imp().pending.get() - 1);
                match result {
                    Ok(value) => then(&view, value),
                    Err(_) => view.toast(&gettext("Reading the history failed unexpectedly")),
                }
            }
        ));
    }

    /// True while the page waits for the history (for tests).
    pub fn is_loading(&self) -> bool {
        self.imp().pending.get() > 0
    }

    /// Reads the history again: the list of drives, and the drive shown (a new run appears).
    pub fn reload(&self) {
        let generation = self.imp().generation.get() + 1;
        self.imp().generation.set(generation);
        self.background(history_store::listing, move |view, listing| {
            if view.imp().generation.get() == generation {
                view.show_drives(listing);
            }
        });
        let shown =
            (self.imp().drive.shown.borrow().as_ref()).map(|p| (p.key(), p.profile.clone()));
        if let Some((key, profile)) = shown {
            self.load_drive(&key, Some(profile));
        }
    }

    /// The page shown.
    pub fn visible_page(&self) -> HistoryPage {
        self.imp()
            .stack
            .visible_child_name()
            .and_then(|n| HistoryPage::from_name(&n))
            .unwrap_or_default()
    }

    /// Calls `f` each time another of the History pages is shown.
    pub fn connect_page_shown<F: Fn(&HistoryView) + 'static>(&self, f: F) {
        let view = self.downgrade();
        self.imp()
            .stack
            .connect_visible_child_name_notify(move |_| {
                if let Some(view) = view.upgrade() {
                    f(&view);
                }
            });
    }

    /// True when a stored run's page is shown, with its run (what **Save Report…** and
    /// Ctrl+S save then).
    pub fn shows_a_run(&self) -> bool {
        self.visible_page() == HistoryPage::Run && self.imp().run.report.borrow().is_some()
    }

    /// The save dialog of the stored run shown, while it is open.
    pub fn open_chooser(&self) -> Option<gtk::FileChooserNative> {
        self.imp().chooser.borrow().clone()
    }

    /// True when a stored capacity check's page is shown, with its check.
    pub fn shows_a_check(&self) -> bool {
        self.visible_page() == HistoryPage::Check && self.shown_check().is_some()
    }

    /// **Save Report…** of the stored run or capacity check shown (Ctrl+S on its page);
    /// nothing without one.
    pub fn save_shown(&self) {
        if self.shows_a_run() {
            self.ask_save_run();
        } else if self.shows_a_check() {
            self.ask_save_check();
        }
    }

    /// Shows `page`.
    pub(super) fn show(&self, page: HistoryPage) {
        self.imp().stack.set_visible_child_name(page.name());
    }

    /// The **Compare** bar at the bottom, shown while a run is ticked.
    pub fn compare_bar(&self) -> gtk::ActionBar {
        self.imp().compare_bar.clone()
    }

    /// How many runs are ticked for **Compare** (0 to 2).
    pub fn chosen_count(&self) -> usize {
        self.imp().chosen.borrow().len()
    }

    /// Ticks or unticks `run` for **Compare**; a third tick drops the oldest choice.
    pub fn choose(&self, run: &str, label: &str, chosen: bool) {
        {
            let mut list = self.imp().chosen.borrow_mut();
            list.retain(|(id, _)| id != run);
            if chosen {
                list.push((run.to_owned(), label.to_owned()));
                while list.len() > 2 {
                    list.remove(0);
                }
            }
        }
        self.sync_chosen();
    }

    pub(super) fn sync_chosen(&self) {
        let imp = self.imp();
        let chosen = imp.chosen.borrow().clone();
        for (id, _, check) in imp.drive.run_rows.borrow().iter() {
            let on = chosen.iter().any(|(c, _)| c == id);
            if check.is_active() != on {
                check.set_active(on);
            }
        }
        let browsing = matches!(
            self.visible_page(),
            HistoryPage::Drives | HistoryPage::Drive
        );
        imp.compare_bar.set_revealed(!chosen.is_empty() && browsing);
        imp.compare_button.set_sensitive(chosen.len() == 2);
        let text = match chosen.as_slice() {
            [(_, a)] => fill(
                &gettext("Compare {left} with… (tick another run)"),
                &[("left", a)],
            ),
            [(_, a), (_, b)] => fill(
                &gettext("Compare {left} with {right}"),
                &[("left", a), ("right", b)],
            ),
            _ => String::new(),
        };
        imp.compare_label.set_label(&text);
        imp.compare_label.set_tooltip_text(Some(&text));
    }

    /// Compares the two runs ticked (the older run on the left, whichever was ticked first)
    /// and shows the comparison.
    pub fn compare_chosen(&self) {
        let chosen = self.imp().chosen.borrow().clone();
        let [(a, _), (b, _)] = chosen.as_slice() else {
            return;
        };
        self.show_comparison(a, b, true);
    }

    /// The dialog shown and not yet answered (rename, forget), if any.
    pub fn open_dialog(&self) -> Option<adw::MessageDialog> {
        self.imp().dialog.borrow().clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_names_map_both_ways() {
        for page in HistoryPage::ALL {
            assert_eq!(HistoryPage::from_name(page.name()), Some(page));
        }
        assert_eq!(HistoryPage::from_name("ready"), None);
    }
}
