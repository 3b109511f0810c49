//! The results page's headline: the speed verdict in words with its icon, unless a fact about
//! the drive outranks it (a capacity check found it fake, or never reached all of it; another
//! test used it), which then heads the page with what to do. One rule decides:
//! [`agnostics_core::headline`].

use adw::prelude::*;
use agnostics_core::headline::{headline, CapacityKnown, Headline, Speed, Tone};
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::Report;
use agnostics_core::verdict::Verdict;
use gtk::subclass::prelude::*;

use super::ResultsView;
use crate::format::{target_report_label, verdict_text};

impl ResultsView {
    /// Weighs what the drive's capacity checks say (`capacity`) with the verdict shown: a
    /// drive found fake, or whose capacity was never checked whole, is headed so, whatever
    /// its speed, with what to do (and screen readers hear it).
    pub fn show_capacity(&self, capacity: CapacityKnown) {
        let imp = self.imp();
        imp.capacity.set(capacity);
        let shown = imp.shown.borrow().clone();
        if let Some(report) = shown {
            self.show_summary(&report);
        }
    }

    /// The headline: the speed verdict, unless a fact about the drive outranks it.
    pub(super) fn show_summary(&self, report: &Report) {
        let imp = self.imp();
        let weighed = headline(imp.capacity.get(), Some(Speed::of(report)));
        imp.first_look.set(false);
        self.sync_standard_button();
        let said = if weighed.is_speed() && weighed != Headline::Shared {
            self.show_verdict(report)
        } else {
            self.show_headline(weighed)
        };
        crate::a11y::set_label(&*imp.title_label, &said);
        crate::a11y::announce(&*imp.title_label, &said);
        imp.announced.replace(said);
        let subtitle = match &report.target {
            Some(t) => fill(
                &gettext("Tested: {drive}, in {path}"),
                &[("drive", &target_report_label(t)), ("path", &t.path)],
            ),
            None => String::new(),
        };
        imp.subtitle_label.set_label(&subtitle);
        imp.subtitle_label.set_visible(!subtitle.is_empty());
    }

    /// Heads the page with the speed verdict of `report`; returns what screen readers say.
    fn show_verdict(&self, report: &Report) -> String {
        let imp = self.imp();
        // The SD card targets only rate an SD card: another drive below them gets a warning,
        // not the red of a failed card, and the note that they are a reference is right here.
        let reference_only = report.graded && !report.sd_graded && report.verdict != Verdict::Error;
        let (icon, class) = match report.verdict {
            Verdict::Pass => ("agnostics-pass-symbolic", "success"),
            Verdict::Fail if reference_only => ("agnostics-info-symbolic", "warning"),
            Verdict::Fail => ("agnostics-error-symbolic", "error"),
            Verdict::Error => ("agnostics-warning-symbolic", "warning"),
            Verdict::NotGraded => ("agnostics-pass-symbolic", "accent"),
        };
        self.set_icon(icon, class);
        let title = match (report.verdict, report.sd_graded) {
            (Verdict::Pass, true) => gettext("Your SD card is fast enough"),
            (Verdict::Fail, true) => gettext("Your SD card is too slow"),
            (Verdict::Pass, false) => gettext("This drive meets the SD card targets"),
            (Verdict::Fail, false) => gettext("This drive is below the SD card targets"),
            (Verdict::Error, _) => gettext("Some figures could not be measured"),
            (Verdict::NotGraded, _) => gettext("Measured, not graded"),
        };
        imp.title_label.set_label(&title);
        let look = agnostics_core::first_look::first_look(report);
        let note = if reference_only {
            gettext("For reference only: this drive is not an SD card, so the SD card targets do not rate it.")
        } else if let Some(look) = &look {
            look.text()
        } else {
            String::new()
        };
        imp.first_look.set(look.is_some());
        self.sync_standard_button();
        imp.reference_label.set_label(&note);
        imp.reference_label.set_visible(!note.is_empty());
        let mut said = fill(
            // Translators: what screen readers announce when a test ends, e.g.
            // "PASS: Your SD card is fast enough".
            &gettext("{verdict}: {title}"),
            &[
                ("verdict", &verdict_text(report.verdict)),
                ("title", &title),
            ],
        );
        if !note.is_empty() {
            said.push(' ');
            said.push_str(&note);
        }
        said
    }

    /// Heads the page with a fact about the drive that outranks its speed (found fake, its
    /// capacity unproven, another test on it) and what to do; returns what screen readers say.
    fn show_headline(&self, weighed: Headline) -> String {
        let imp = self.imp();
        let (icon, class) = match weighed.tone() {
            Tone::Danger => ("agnostics-error-symbolic", "error"),
            _ => ("agnostics-warning-symbolic", "warning"),
        };
        self.set_icon(icon, class);
        let title = weighed.title();
        imp.title_label.set_label(&title);
        let mut action = weighed.action().unwrap_or_default();
        if weighed == Headline::FoundFake {
            // The A1 rows below may say PASS: their speeds are real, and they are not a
            // reason to keep the drive.
            action.push('\n');
            action.push_str(&gettext(
                "The speeds below were measured, but a drive that loses data is not safe to use, however fast it is.",
            ));
        }
        imp.reference_label.set_label(&action);
        imp.reference_label.set_visible(!action.is_empty());
        if action.is_empty() {
            title
        } else {
            format!("{title} {action}")
        }
    }

    /// Shows the icon `icon` with the style class `class` beside the headline.
    fn set_icon(&self, icon: &str, class: &str) {
        let image = &self.imp().verdict_icon;
        image.set_icon_name(Some(icon));
        for old in ["success", "error", "warning", "accent"] {
            image.remove_css_class(old);
        }
        image.add_css_class(class);
    }
}
