//! A PASS / FAIL / ERROR badge (and a test script's Aborted / Timed out): text plus an icon
//! plus a style class (`success`, `error`, `warning`), never colour alone, so that a verdict
//! reads the same to someone who cannot tell the colours apart (WCAG 2.1, 1.4.1 "Use of
//! Color").

use std::cell::{Cell, RefCell};

use agnostics_core::capacity::CapacityVerdict;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::scripts::ScriptVerdict;
use agnostics_core::verdict::Verdict;
use gtk::glib;
use gtk::prelude::*;
use gtk::subclass::prelude::*;

use crate::format::{script_verdict_text, verdict_text};

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct Badge {
        pub icon: RefCell<Option<gtk::Image>>,
        pub label: gtk::Label,
        pub verdict: Cell<Option<Verdict>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for Badge {
        const NAME: &'static str = "AgnosticsBadge";
        type Type = super::Badge;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            klass.set_css_name("badge");
        }
    }

    impl ObjectImpl for Badge {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            obj.set_spacing(4);
            obj.set_valign(gtk::Align::Center);
            obj.add_css_class("badge");
            // The icon repeats the text; screen readers skip it.
            let icon = gtk::Image::builder()
                .accessible_role(gtk::AccessibleRole::Presentation)
                .build();
            obj.append(&icon);
            obj.append(&self.label);
            self.icon.replace(Some(icon));
        }
    }

    impl WidgetImpl for Badge {}
    impl BoxImpl for Badge {}
}

glib::wrapper! {
    /// A verdict shown as icon + text + style class.
    pub struct Badge(ObjectSubclass<imp::Badge>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

impl Badge {
    /// A badge for `verdict`.
    pub fn new(verdict: Verdict) -> Badge {
        let badge: Badge = glib::Object::new();
        badge.set_verdict(verdict);
        badge
    }

    /// Shows `verdict`: its text, its icon and its style class.
    pub fn set_verdict(&self, verdict: Verdict) {
        let (icon, class) = match verdict {
            Verdict::Pass => ("agnostics-check-symbolic", "success"),
            Verdict::Fail => ("agnostics-error-symbolic", "error"),
            Verdict::Error => ("agnostics-warning-symbolic", "warning"),
            Verdict::NotGraded => ("agnostics-info-symbolic", "accent"),
        };
        self.show(icon, class, &verdict_text(verdict), Some(verdict));
    }

    /// Shows a test script's verdict: PASS, FAIL, "Aborted" or "Timed out" (a timeout is a
    /// failure, with its own words).
    pub fn set_script_verdict(&self, verdict: ScriptVerdict) {
        match verdict {
            ScriptVerdict::Pass => self.set_verdict(Verdict::Pass),
            ScriptVerdict::Fail => self.set_verdict(Verdict::Fail),
            ScriptVerdict::Timeout => self.show(
                "agnostics-error-symbolic",
                "error",
                &script_verdict_text(verdict),
                Some(Verdict::Fail),
            ),
            ScriptVerdict::Aborted => self.show(
                "agnostics-stop-symbolic",
                "warning",
                &script_verdict_text(verdict),
                None,
            ),
        }
    }

    fn show(&self, icon: &str, class: &str, text: &str, verdict: Option<Verdict>) {
        let imp = self.imp();
        for old in ["success", "error", "warning", "accent"] {
            self.remove_css_class(old);
        }
        self.add_css_class(class);
        if let Some(image) = imp.icon.borrow().as_ref() {
            image.set_icon_name(Some(icon));
        }
        imp.label.set_label(text);
        imp.verdict.set(verdict);
        crate::a11y::set_label(
            self,
            &fill(&gettext("Result: {verdict}"), &[("verdict", &text)]),
        );
    }

    /// The mark of a drive that a capacity check once found fake (or losing data): it stays
    /// on the drive's History pages whatever later checks say.
    pub fn found_fake() -> Badge {
        let badge: Badge = glib::Object::new();
        badge.show(
            "agnostics-error-symbolic",
            "error",
            &gettext("Found fake"),
            None,
        );
        crate::a11y::set_label(
            &badge,
            &gettext(
                "Found fake: a capacity check found that this drive does not keep all it claims",
            ),
        );
        badge
    }

    /// A capacity check's verdict in a word ("Genuine", "Fake", …) with its icon and style.
    pub fn capacity(verdict: CapacityVerdict) -> Badge {
        use crate::pages::capacity::verdict::{tone, verdict_word};
        let badge: Badge = glib::Object::new();
        let tone = tone(verdict);
        let word = verdict_word(verdict);
        badge.show(tone.icon_name(), tone.css_class(), &word, None);
        crate::a11y::set_label(
            &badge,
            &fill(&gettext("Capacity: {verdict}"), &[("verdict", &word)]),
        );
        badge
    }

    /// The verdict shown (`None` for an aborted test).
    pub fn verdict(&self) -> Option<Verdict> {
        self.imp().verdict.get()
    }

    /// The badge's text, e.g. "PASS".
    pub fn text(&self) -> String {
        self.imp().label.label().to_string()
    }
}
