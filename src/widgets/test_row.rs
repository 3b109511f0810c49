//! One row of the Tests list, like upstream's: the test's name and description (plain text,
//! never markup: a script named `<b>&</b>` shows exactly that), a **Run Test?** switch, and a
//! result column that shows a spinner while the test runs and its badge when it has ended. A
//! script's row also has a button that shows its output.

use std::cell::RefCell;
use std::rc::Rc;

use adw::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::scripts::{ScriptResult, ScriptVerdict};
use agnostics_core::verdict::Verdict;

use crate::widgets::Badge;

/// A row of the Tests list and its parts.
#[derive(Debug, Clone)]
pub struct TestRow {
    /// The row itself, for the list.
    pub row: adw::ActionRow,
    /// **Run Test?**
    pub switch: gtk::Switch,
    spinner: gtk::Spinner,
    badge: Badge,
    output_button: gtk::Button,
    result: Rc<RefCell<Option<ScriptResult>>>,
}

impl TestRow {
    /// A row for the test `name` described by `description`, selected; `output` gives it the
    /// button that shows a script's output.
    pub fn new(name: &str, description: &str, output: bool) -> TestRow {
        let row = adw::ActionRow::new();
        row.set_use_markup(false);
        row.set_title(name);
        row.set_subtitle(description);
        let spinner = gtk::Spinner::builder()
            .valign(gtk::Align::Center)
            .visible(false)
            .build();
        crate::a11y::set_label(&spinner, &gettext("Running"));
        let badge = Badge::new(Verdict::Pass);
        badge.set_visible(false);
        let output_button = gtk::Button::builder()
            .icon_name("utilities-terminal-symbolic")
            .valign(gtk::Align::Center)
            .tooltip_text(gettext("Show the test's output"))
            .visible(false)
            .build();
        output_button.add_css_class("flat");
        crate::a11y::set_label(
            &output_button,
            &fill(&gettext("Show the output of {test}"), &[("test", &name)]),
        );
        let switch = gtk::Switch::builder()
            .active(true)
            .valign(gtk::Align::Center)
            .tooltip_text(gettext("Run Test?"))
            .build();
        crate::a11y::set_label(&switch, &fill(&gettext("Run {test}?"), &[("test", &name)]));
        row.add_suffix(&spinner);
        row.add_suffix(&badge);
        if output {
            row.add_suffix(&output_button);
        }
        row.add_suffix(&switch);
        row.set_activatable_widget(Some(&switch));
        TestRow {
            row,
            switch,
            spinner,
            badge,
            output_button,
            result: Rc::default(),
        }
    }

    /// Calls `f` with the script's result when its output button is pressed.
    pub fn connect_show_output<F: Fn(&ScriptResult) + 'static>(&self, f: F) {
        let result = Rc::clone(&self.result);
        self.output_button.connect_clicked(move |_| {
            if let Some(r) = result.borrow().as_ref() {
                f(r);
            }
        });
    }

    /// True when the switch says to run it.
    pub fn is_selected(&self) -> bool {
        self.switch.is_active()
    }

    /// The test is running: a spinner in the result column.
    pub fn set_running(&self, stopping: bool) {
        self.badge.set_visible(false);
        self.spinner.set_visible(true);
        self.spinner.set_spinning(true);
        self.spinner.set_tooltip_text(Some(&if stopping {
            gettext("Stopping…")
        } else {
            gettext("Running…")
        }));
    }

    /// The built-in SD card test ended: PASS, FAIL or ERROR, or Aborted when it was cancelled.
    pub fn set_sd_result(&self, verdict: Option<Verdict>) {
        match verdict {
            Some(v) => self.badge.set_verdict(v),
            None => self.badge.set_script_verdict(ScriptVerdict::Aborted),
        }
        self.badge.set_tooltip_text(None);
        self.show_badge();
    }

    /// A script ended: its badge (with the reason as a tooltip) and its output button.
    pub fn set_script_result(&self, result: &ScriptResult) {
        self.badge.set_script_verdict(result.verdict);
        let reason = result.reason();
        self.badge
            .set_tooltip_text((!reason.is_empty()).then_some(reason.as_str()));
        self.result.replace(Some(result.clone()));
        self.output_button.set_visible(true);
        self.show_badge();
    }

    fn show_badge(&self) {
        self.spinner.set_spinning(false);
        self.spinner.set_visible(false);
        self.badge.set_visible(true);
    }

    /// No result shown (before a run, after **Reset**).
    pub fn clear(&self) {
        self.spinner.set_spinning(false);
        self.spinner.set_visible(false);
        self.badge.set_visible(false);
        self.output_button.set_visible(false);
        self.result.replace(None);
    }

    /// The result column's text: the badge's (PASS, FAIL, Aborted, Timed out, ERROR), "…"
    /// while running, empty when there is none.
    pub fn result_text(&self) -> String {
        if self.badge.is_visible() {
            self.badge.text()
        } else if self.spinner.is_visible() {
            "…".into()
        } else {
            String::new()
        }
    }

    /// The script's result, once it ended.
    pub fn script_result(&self) -> Option<ScriptResult> {
        self.result.borrow().clone()
    }
}
