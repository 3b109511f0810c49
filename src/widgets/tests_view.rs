//! The **All Tests** page, like upstream agnostics' window: the built-in SD card test first,
//! then the test scripts found on this system, each with a **Run Test?** switch and a result
//! column; **Show Log**, **Reset** and **Run Tests** (which becomes **Stop** while tests run).
//! The window runs the tests and tells this view what happened; a script's output is shown in
//! a dialog (the capped display copy; the log has all of it).

use std::cell::RefCell;

use adw::prelude::*;
use adw::subclass::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::scripts::{ScriptResult, ScriptTest};
use agnostics_core::verdict::Verdict;
use gtk::glib;

use super::test_row::TestRow;
use crate::format::script_verdict_text;

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
        pub group: TemplateChild<adw::PreferencesGroup>,
        #[template_child]
        pub show_log_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub reset_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub run_button: TemplateChild<gtk::Button>,
        #[template_child]
        pub stop_button: TemplateChild<gtk::Button>,
        /// The built-in SD card test's row, then one per script.
        pub rows: RefCell<Vec<TestRow>>,
        /// The scripts, in the order of their rows (row `i + 1`).
        pub scripts: RefCell<Vec<ScriptTest>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TestsView {
        const NAME: &'static str = "AgnosticsTestsView";
        type Type = super::TestsView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            crate::resources::register();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for TestsView {
        fn constructed(&self) {
            self.parent_constructed();
            self.obj().set_scripts(Vec::new());
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

impl TestsView {
    /// Lists the built-in SD card test and `scripts` (replacing the list; every test selected,
    /// no results).
    pub fn set_scripts(&self, scripts: Vec<ScriptTest>) {
        let imp = self.imp();
        for old in imp.rows.borrow_mut().drain(..) {
            imp.group.remove(&old.row);
        }
        let mut rows = vec![TestRow::new(
            &gettext("SD card speed test"),
            &gettext("Measures the drive chosen on the SD Card page against the SD Association's A1 minimums (a few minutes)."),
            false,
        )];
        for script in &scripts {
            let row = TestRow::new(&script.name, &script.description, true);
            row.connect_show_output(glib::clone!(
                #[weak(rename_to = view)]
                self,
                move |result| view.show_output(result)
            ));
            rows.push(row);
        }
        for row in &rows {
            imp.group.add(&row.row);
        }
        imp.rows.replace(rows);
        imp.scripts.replace(scripts);
    }

    /// True when the built-in SD card test is selected.
    pub fn sd_selected(&self) -> bool {
        self.imp()
            .rows
            .borrow()
            .first()
            .is_some_and(TestRow::is_selected)
    }

    /// The selected scripts with their positions among the scripts.
    pub fn selected_scripts(&self) -> Vec<(usize, ScriptTest)> {
        let imp = self.imp();
        let rows = imp.rows.borrow();
        imp.scripts
            .borrow()
            .iter()
            .enumerate()
            .filter(|(i, _)| rows.get(i + 1).is_some_and(TestRow::is_selected))
            .map(|(i, s)| (i, s.clone()))
            .collect()
    }

    /// Selects or deselects the test in row `row` (0: the SD card test; `i + 1`: script `i`).
    pub fn set_selected(&self, row: usize, selected: bool) {
        if let Some(r) = self.imp().rows.borrow().get(row) {
            r.switch.set_active(selected);
        }
    }

    /// Tests are running (`true`): the switches are locked and **Run Tests** becomes **Stop**.
    pub fn set_running(&self, running: bool) {
        let imp = self.imp();
        for row in imp.rows.borrow().iter() {
            row.switch.set_sensitive(!running);
        }
        imp.run_button.set_visible(!running);
        imp.stop_button.set_visible(running);
    }

    /// The SD card test is running (`None`) or ended: its verdict, or `Some(None)` when it was
    /// cancelled.
    pub fn set_sd_state(&self, ended: Option<Option<Verdict>>) {
        if let Some(row) = self.imp().rows.borrow().first() {
            match ended {
                None => row.set_running(false),
                Some(verdict) => row.set_sd_result(verdict),
            }
        }
    }

    /// Script `index` is running, or being stopped.
    pub fn set_script_running(&self, index: usize, stopping: bool) {
        if let Some(row) = self.imp().rows.borrow().get(index + 1) {
            row.set_running(stopping);
        }
    }

    /// Script `index` ended with `result`.
    pub fn set_script_result(&self, index: usize, result: &ScriptResult) {
        if let Some(row) = self.imp().rows.borrow().get(index + 1) {
            row.set_script_result(result);
        }
    }

    /// Clears every result (before a run).
    pub fn clear_results(&self) {
        for row in self.imp().rows.borrow().iter() {
            row.clear();
        }
    }

    /// **Reset**: no results, every test selected again.
    pub fn reset(&self) {
        self.clear_results();
        for row in self.imp().rows.borrow().iter() {
            row.switch.set_active(true);
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
