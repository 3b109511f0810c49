//! One row of the Tests list, like upstream's, bound to its [`TestItem`]: the test's name and
//! description (plain text, never markup: a script named `<b>&</b>` shows exactly that), a
//! **Run Test?** switch bound to the item's `selected`, and a result column that follows the
//! item's `state` and `result`: a spinner while the test runs, its badge when it has ended. A
//! script's row also has a button that shows its output.

use adw::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::scripts::{ScriptResult, ScriptVerdict};
use agnostics_core::verdict::Verdict;
use gtk::glib;

use crate::model::tests_session::{Outcome, TestItem, TestState};
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
    /// Weak: the item's handlers hold the row, and the list holds the item.
    item: glib::WeakRef<TestItem>,
}

impl TestRow {
    /// A row showing `item`, and following it from now on; a script's row has the button
    /// that shows its output.
    pub fn new(item: &TestItem) -> TestRow {
        let name = item.name();
        let row = adw::ActionRow::new();
        row.set_use_markup(false);
        row.set_title(&name);
        row.set_subtitle(&item.description());
        // The SD card test's description follows the test chosen on the SD Card page.
        item.connect_description_notify(glib::clone!(
            #[weak]
            row,
            move |item| row.set_subtitle(&item.description())
        ));
        let spinner = gtk::Spinner::builder()
            .valign(gtk::Align::Center)
            .visible(false)
            .build();
        crate::a11y::set_label(&spinner, &gettext("Running"));
        let badge = Badge::new(Verdict::Pass);
        badge.set_visible(false);
        let output_button = gtk::Button::builder()
            .icon_name("agnostics-terminal-symbolic")
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
            .valign(gtk::Align::Center)
            .tooltip_text(gettext("Run Test?"))
            .build();
        item.bind_property("selected", &switch, "active")
            .bidirectional()
            .sync_create()
            .build();
        row.add_suffix(&spinner);
        row.add_suffix(&badge);
        if item.script_test().is_some() {
            row.add_suffix(&output_button);
        }
        row.add_suffix(&switch);
        row.set_activatable_widget(Some(&switch));
        // After the row made its title label the switch's too, which would read "Run Slow? Slow".
        crate::a11y::set_whole_label(&switch, &fill(&gettext("Run {test}?"), &[("test", &name)]));
        let this = TestRow {
            row,
            switch,
            spinner,
            badge,
            output_button,
            item: item.downgrade(),
        };
        let follow = {
            let this = this.clone();
            move |item: &TestItem| this.sync(item)
        };
        item.connect_state_notify(follow.clone());
        item.connect_result_notify(follow);
        this.sync(item);
        this
    }

    /// Calls `f` with the script's result when its output button is pressed.
    pub fn connect_show_output<F: Fn(&ScriptResult) + 'static>(&self, f: F) {
        let item = self.item.clone();
        self.output_button.connect_clicked(move |_| {
            if let Some(r) = item.upgrade().and_then(|i| i.script_result()) {
                f(&r);
            }
        });
    }

    /// The item shown, while it is listed.
    pub fn item(&self) -> Option<TestItem> {
        self.item.upgrade()
    }

    /// True when the switch says to run it.
    pub fn is_selected(&self) -> bool {
        self.switch.is_active()
    }

    /// Shows what the item says.
    fn sync(&self, item: &TestItem) {
        match item.state() {
            TestState::Running | TestState::Stopping => {
                self.badge.set_visible(false);
                self.output_button.set_visible(false);
                self.spinner.set_visible(true);
                self.spinner.set_spinning(true);
                self.spinner
                    .set_tooltip_text(Some(&if item.state() == TestState::Stopping {
                        gettext("Stopping…")
                    } else {
                        gettext("Running…")
                    }));
            }
            TestState::Idle | TestState::Ended => {
                self.spinner.set_spinning(false);
                self.spinner.set_visible(false);
                match item.outcome() {
                    None => {
                        self.badge.set_visible(false);
                        self.output_button.set_visible(false);
                    }
                    Some(Outcome::Sd(verdict)) => {
                        match verdict {
                            Some(v) => self.badge.set_verdict(v),
                            None => self.badge.set_script_verdict(ScriptVerdict::Aborted),
                        }
                        self.badge.set_tooltip_text(None);
                        self.badge.set_visible(true);
                    }
                    Some(Outcome::Script(result)) => {
                        self.badge.set_script_verdict(result.verdict);
                        let reason = result.reason();
                        self.badge
                            .set_tooltip_text((!reason.is_empty()).then_some(reason.as_str()));
                        self.output_button.set_visible(true);
                        self.badge.set_visible(true);
                    }
                }
            }
        }
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
        self.item.upgrade().and_then(|i| i.script_result())
    }
}
