//! The **All Tests** page, like upstream agnostics' window: the built-in SD card test first,
//! then the test scripts found on this system, each with a **Run Test?** switch and a result
//! column; **Show Log**, **Reset** and **Run Tests** (which becomes **Stop** while tests run).
//! The rows show the page's [`TestsSession`]'s list of [`TestItem`]s, one [`TestRow`] bound to
//! each, and follow its state; the page runs the session ([`session`]). A script's output is
//! shown in a dialog (the capped display copy; the log has all of it).
//!
//! Its buttons use the window's `win.run-tests`, `win.cancel-tests`, `win.reset-tests` and
//! `win.show-log` actions (the window knows whether the SD card test runs). It asks the window
//! by its signals: `start-sd-test` (start the SD card test; returns whether it started),
//! `toast` (a short message) and `message` (a dialog's heading and body).

use std::cell::RefCell;
use std::sync::OnceLock;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::scripts::ScriptResult;
use glib::subclass::Signal;
use gtk::{gio, glib};

use crate::format::script_verdict_text;
use crate::model::tests_session::{TestItem, TestsSession};
use crate::widgets::test_row::TestRow;

mod session;

pub use session::log_error;

/// What one row shows, read back from the widgets (for tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownTest {
    /// The test's name.
    pub title: String,
    /// Its description.
    pub subtitle: String,
    /// The **Run Test?** switch.
    pub selected: bool,
    /// The result column: PASS, FAIL, Aborted, Timed out, ERROR, "…" while running, or empty.
    pub result: String,
}

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(resource = "/io/github/agnostics_rs/Agnostics/ui/tests_view.ui")]
    pub struct TestsView {
        #[template_child]
        pub list: TemplateChild<gtk::ListBox>,
        #[template_child]
        pub show_log_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub reset_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub run_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub stop_button: TemplateChild<gtk::Button>,
        /// The rows, in the order of the session's items (kept in step with the list).
        pub rows: RefCell<Vec<TestRow>>,
        /// The session shown and run.
        pub session: TestsSession,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TestsView {
        const NAME: &'static str = "AgnosticsTestsView";
        type Type = super::TestsView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            crate::resources::register();
            crate::widgets::WrapBox::ensure_type();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for TestsView {
        fn signals() -> &'static [Signal] {
            static SIGNALS: OnceLock<Vec<Signal>> = OnceLock::new();
            SIGNALS.get_or_init(|| {
                vec![
                    // The session's SD card test is to start: returns whether it started.
                    Signal::builder("start-sd-test")
                        .return_type::<bool>()
                        .build(),
                    // A short message for the bottom of the window.
                    Signal::builder("toast")
                        .param_types([String::static_type()])
                        .build(),
                    // A dialog to show: its heading and body.
                    Signal::builder("message")
                        .param_types([String::static_type(), String::static_type()])
                        .build(),
                ]
            })
        }

        fn constructed(&self) {
            self.parent_constructed();
            self.obj().show_session();
        }
    }

    impl WidgetImpl for TestsView {}
    impl BoxImpl for TestsView {}
}

glib::wrapper! {
    /// The list of tests.
    pub struct TestsView(ObjectSubclass<imp::TestsView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Default for TestsView {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl TestsView {
    /// The control that gets the focus when the page shows and no session runs: the first
    /// test's row (Space there ticks or unticks it), else **Reset**; never **Run Tests**, so
    /// that a stray Return or Space runs nothing.
    pub fn focus_default(&self) {
        let imp = self.imp();
        match imp.list.row_at_index(0) {
            Some(row) => {
                row.grab_focus();
            }
            None => {
                imp.reset_button.grab_focus();
            }
        }
    }

    /// The **All Tests** list and its session.
    pub fn session(&self) -> TestsSession {
        self.imp().session.clone()
    }

    /// Shows the session: a row for each of its items, bound to it, and **Run Tests** or
    /// **Stop** and the switches locked as its state says.
    fn show_session(&self) {
        let imp = self.imp();
        let session = &imp.session;
        let items = session.items();
        let shown = imp.rows.borrow().len() as u32;
        self.items_changed(&items, 0, shown, items.n_items());
        items.connect_items_changed(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |items, position, removed, added| view
                .items_changed(items, position, removed, added)
        ));
        session.connect_state_notify(glib::clone!(
            #[weak(rename_to = view)]
            self,
            move |session| view.sync_running(session.is_busy())
        ));
        self.sync_running(session.is_busy());
    }

    /// The rows follow the list: `removed` rows at `position` go, rows for the `added` items
    /// there come.
    fn items_changed(&self, items: &gio::ListStore, position: u32, removed: u32, added: u32) {
        let imp = self.imp();
        let busy = imp.session.is_busy();
        let mut rows = imp.rows.borrow_mut();
        let start = (position as usize).min(rows.len());
        let end = (start + removed as usize).min(rows.len());
        for old in rows.drain(start..end) {
            imp.list.remove(&old.row);
        }
        for i in 0..added {
            let Some(item) = items.item(position + i).and_downcast::<TestItem>() else {
                continue;
            };
            let row = TestRow::new(&item);
            row.connect_show_output(glib::clone!(
                #[weak(rename_to = view)]
                self,
                move |result| view.show_output(result)
            ));
            row.switch.set_sensitive(!busy);
            imp.list.insert(&row.row, (position + i) as i32);
            rows.insert(start + i as usize, row);
        }
    }

    /// Tests are running (`true`): the switches are locked and **Run Tests** becomes **Stop**.
    fn sync_running(&self, running: bool) {
        let imp = self.imp();
        for row in imp.rows.borrow().iter() {
            row.switch.set_sensitive(!running);
        }
        imp.run_button.set_visible(!running);
        imp.stop_button.set_visible(running);
    }

    /// Selects or deselects the test in row `row` (0: the SD card test; `i + 1`: script `i`).
    pub fn set_selected(&self, row: usize, selected: bool) {
        if let Some(r) = self.imp().rows.borrow().get(row) {
            r.switch.set_active(selected);
        }
    }

    /// A dialog with the script's verdict, its reason and its output (the display copy:
    /// capped, invalid UTF-8 replaced), selectable to copy.
    pub fn show_output(&self, result: &ScriptResult) {
        let window = self.root().and_downcast::<gtk::Window>();
        let reason = result.reason();
        let verdict = script_verdict_text(result.verdict);
        let body = if reason.is_empty() {
            verdict
        } else {
            fill(
                // Translators: a test's verdict and why, e.g. "FAIL: exit status 3".
                &gettext("{verdict}: {reason}"),
                &[("verdict", &verdict), ("reason", &reason)],
            )
        };
        let dialog = adw::MessageDialog::new(window.as_ref(), Some(&result.name), Some(&body));
        crate::widgets::message_dialog::steady_heading(&dialog, &result.name);
        dialog.set_modal(true);
        let text = if result.output.is_empty() {
            gettext("(The test printed nothing.)")
        } else {
            result.output.clone()
        };
        let view = gtk::TextView::builder()
            .editable(false)
            .monospace(true)
            .wrap_mode(gtk::WrapMode::WordChar)
            .top_margin(6)
            .bottom_margin(6)
            .left_margin(6)
            .right_margin(6)
            .build();
        view.buffer().set_text(&text);
        crate::a11y::set_label(&view, &gettext("The test's output"));
        let scroller = gtk::ScrolledWindow::builder()
            // A group (GTK 4.18 makes it generic, which cannot carry the pane's name).
            .accessible_role(gtk::AccessibleRole::Group)
            .hscrollbar_policy(gtk::PolicyType::Never)
            .min_content_height(160)
            .max_content_height(220)
            .min_content_width(320)
            .propagate_natural_height(true)
            .child(&view)
            .build();
        scroller.add_css_class("card");
        dialog.set_extra_child(Some(&scroller));
        dialog.add_response("close", &gettext("_Close"));
        dialog.set_default_response(Some("close"));
        dialog.set_close_response("close");
        dialog.present();
    }

    /// What the rows show.
    pub fn shown_tests(&self) -> Vec<ShownTest> {
        self.imp()
            .rows
            .borrow()
            .iter()
            .map(|r| ShownTest {
                title: r.row.title().to_string(),
                subtitle: r.row.subtitle().map(|s| s.to_string()).unwrap_or_default(),
                selected: r.is_selected(),
                result: r.result_text(),
            })
            .collect()
    }

    /// The rows (0: the SD card test; `i + 1`: script `i`).
    pub fn rows(&self) -> Vec<TestRow> {
        self.imp().rows.borrow().clone()
    }

    /// **Run Tests**.
    pub fn run_button(&self) -> gtk::Button {
        self.imp().run_button.get()
    }

    /// **Stop**.
    pub fn stop_button(&self) -> gtk::Button {
        self.imp().stop_button.get()
    }

    /// **Show Log**.
    pub fn show_log_button(&self) -> gtk::Button {
        self.imp().show_log_button.get()
    }

    /// **Reset**.
    pub fn reset_button(&self) -> gtk::Button {
        self.imp().reset_button.get()
    }
}
