//! The running test: the phase ("Random 4K write, 4 of 5"), the run when there are several, a
//! progress bar that moves with the phase's size or time limit, the live figure (MB/s for
//! sequential phases, IOPS for random ones), the per-second chart, and **Cancel**.

use agnostics_core::engine::run_line;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::verdict::{targets, Standard};
use gtk::glib;
use gtk::prelude::*;
use gtk::subclass::prelude::*;

use crate::format::{phase_figure, phase_title};
use crate::model::test_run::Progress;
use crate::widgets::Chart;

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(resource = "/io/github/agnostics_rs/Agnostics/ui/progress_view.ui")]
    pub struct ProgressView {
        #[template_child]
        pub heading: TemplateChild<gtk::Label>,
        #[template_child]
        pub phase_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub run_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub progress_bar: TemplateChild<gtk::ProgressBar>,
        #[template_child]
        pub estimate_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub figure_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub figure_caption: TemplateChild<gtk::Label>,
        #[template_child]
        pub chart: TemplateChild<Chart>,
        #[template_child]
        pub chart_caption: TemplateChild<gtk::Label>,
        #[template_child]
        pub cancel_button: TemplateChild<gtk::Button>,
        /// Set by `set_cancelling` until the next `reset`: progress no longer replaces the
        /// "Stopping…" line.
        pub cancelling: std::cell::Cell<bool>,
        /// The last phase line announced (announced once per phase).
        pub announced: std::cell::RefCell<String>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for ProgressView {
        const NAME: &'static str = "AgnosticsProgressView";
        type Type = super::ProgressView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            Chart::ensure_type();
            crate::resources::register();
            klass.bind_template();
        }

        fn instance_init(obj: &glib::subclass::InitializingObject<Self>) {
            obj.init_template();
        }
    }

    impl ObjectImpl for ProgressView {}
    impl WidgetImpl for ProgressView {}
    impl BoxImpl for ProgressView {}
}

glib::wrapper! {
    /// The running page.
    pub struct ProgressView(ObjectSubclass<imp::ProgressView>)
        @extends gtk::Box, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget, gtk::Orientable;
}

/// The A1 target of a graded phase, in bytes per second (sequential) or IOPS (random).
pub fn a1_target_of(phase: &str) -> Option<f64> {
    targets(Standard::A1)
        .into_iter()
        .find(|(metric, _, _)| metric.phase() == phase)
        .map(|(_, unit, value)| unit.to_phase_figure(value))
}

/// "About 3 min left" from the run's `elapsed_s` seconds and the `fraction` of it done,
/// assuming the rest goes at the same pace; empty until that guess means something (2 s and
/// 2 % in). When `runs_after` more runs may follow (a run that fails is repeated), the
/// estimate also says how long they would take, each as long as this one: "About 1 min left,
/// up to 4 min if the test runs again".
pub fn time_left(elapsed_s: f64, fraction: f64, runs_after: u32) -> String {
    if !(elapsed_s >= 2.0 && (0.02..1.0).contains(&fraction)) {
        return String::new();
    }
    let left_s = elapsed_s * (1.0 - fraction) / fraction;
    let most_s = left_s + f64::from(runs_after) * elapsed_s / fraction;
    let whole = |s: f64| ((s / 60.0).round() as u64).max(1);
    let (minutes, most) = (whole(left_s), whole(most_s));
    match (left_s < 45.0, runs_after > 0) {
        (true, false) => gettext("Less than a minute left"),
        (true, true) => fill(
            // Translators: the time estimate of a test whose failed run is repeated: this
            // run, then at most {most} minutes for all the runs that may follow.
            &gettext("Less than a minute left, up to {most} min if the test runs again"),
            &[("most", &most)],
        ),
        // Translators: the time estimate of a running test, in whole minutes.
        (false, false) => fill(
            &gettext("About {minutes} min left"),
            &[("minutes", &minutes)],
        ),
        (false, true) => fill(
            // Translators: the time estimate of a test whose failed run is repeated: this
            // run, then at most {most} minutes for all the runs that may follow.
            &gettext("About {minutes} min left, up to {most} min if the test runs again"),
            &[("minutes", &minutes), ("most", &most)],
        ),
    }
}

impl ProgressView {
    /// Clears the view for a new test on the drive named `drive`.
    pub fn reset(&self, drive: &str) {
        let imp = self.imp();
        imp.heading
            .set_label(&fill(&gettext("Testing {drive}"), &[("drive", &drive)]));
        imp.cancelling.set(false);
        imp.announced.replace(String::new());
        imp.phase_label.set_label(&gettext("Starting…"));
        crate::a11y::set_label(&*imp.phase_label, &gettext("Starting…"));
        imp.run_label.set_visible(false);
        imp.estimate_label.set_visible(false);
        imp.progress_bar.set_fraction(0.0);
        imp.figure_label.set_label("—");
        imp.chart.clear();
        imp.chart_caption.set_label(&gettext("Figures per second"));
        imp.cancel_button.set_label(&gettext("_Cancel"));
    }

    /// Shows what the test is doing.
    pub fn update(&self, p: &Progress) {
        let imp = self.imp();
        if p.name.is_empty() {
            return;
        }
        let title = phase_title(&p.name, p.rw, p.bs);
        let phase_line = fill(
            // Translators: the running phase and its place, e.g. "Random 4K write, 4 of 5".
            &gettext("{phase}, {number} of {count}"),
            &[
                ("phase", &title),
                ("number", &(p.index + 1)),
                ("count", &p.count),
            ],
        );
        // After a cancel the "Stopping…" line stays: the engine still reports as it drains.
        if !imp.cancelling.get() {
            if imp.phase_label.label() != phase_line {
                imp.phase_label.set_label(&phase_line);
                crate::a11y::set_label(&*imp.phase_label, &phase_line);
            }
            if *imp.announced.borrow() != phase_line {
                crate::a11y::announce(&*imp.phase_label, &phase_line);
                imp.announced.replace(phase_line);
            }
        }
        imp.run_label.set_visible(p.runs > 1);
        imp.run_label
            .set_label(&run_line(p.run, p.runs, p.again.filter(|_| p.run > 1)));
        let overall = p.overall_fraction();
        imp.progress_bar.set_fraction(overall);
        // No estimate once stopping: the rest of the test will not run.
        let estimate = if imp.cancelling.get() {
            String::new()
        } else {
            time_left(
                p.run_elapsed_s,
                overall,
                p.runs.saturating_sub(p.run.max(1)),
            )
        };
        imp.estimate_label.set_visible(!estimate.is_empty());
        imp.estimate_label.set_label(&estimate);
        imp.figure_label.set_label(&if p.measured {
            phase_figure(p.rw, p.bw_bytes, p.iops)
        } else {
            "—".to_owned()
        });
        let target = a1_target_of(&p.name);
        let average = p
            .measured
            .then_some(if p.rw.is_random() { p.iops } else { p.bw_bytes });
        imp.chart
            .set_samples(&title, p.rw.is_random(), &p.samples, target, average);
        imp.chart_caption.set_label(&match target {
            Some(t) => fill(
                &gettext("Figures per second; the dashed line is the A1 target ({target})"),
                &[("target", &phase_figure(p.rw, t, t))],
            ),
            None => {
                gettext("Figures per second; this phase is not graded: the line is its average")
            }
        });
    }

    /// Shows that the test is stopping and removing its file.
    pub fn set_cancelling(&self) {
        let imp = self.imp();
        imp.cancelling.set(true);
        imp.estimate_label.set_visible(false);
        let stopping = gettext("Stopping the test and removing its test file…");
        imp.phase_label.set_label(&stopping);
        crate::a11y::set_label(&*imp.phase_label, &stopping);
        crate::a11y::announce(&*imp.phase_label, &stopping);
        imp.cancel_button.set_label(&gettext("Stopping…"));
    }

    /// The phase line, e.g. "Random 4K write, 4 of 5".
    pub fn phase_text(&self) -> String {
        self.imp().phase_label.label().to_string()
    }

    /// The time estimate, e.g. "About 2 min left" (empty when there is none yet).
    pub fn estimate_text(&self) -> String {
        let label = &self.imp().estimate_label;
        if label.is_visible() {
            label.label().to_string()
        } else {
            String::new()
        }
    }

    /// The run line, e.g. "Run 2 of up to 3: a test that fails is run again, as Raspberry Pi
    /// Diagnostics does".
    pub fn run_text(&self) -> String {
        self.imp().run_label.label().to_string()
    }

    /// What the page last announced to screen readers (the phase started).
    pub fn announcement(&self) -> String {
        self.imp().announced.borrow().clone()
    }

    /// The live figure, e.g. "45.21 MB/s".
    pub fn figure_text(&self) -> String {
        self.imp().figure_label.label().to_string()
    }

    /// The progress bar's fraction.
    pub fn fraction(&self) -> f64 {
        self.imp().progress_bar.fraction()
    }

    /// The chart.
    pub fn chart(&self) -> Chart {
        self.imp().chart.get()
    }

    /// The **Cancel** button.
    pub fn cancel_button(&self) -> gtk::Button {
        self.imp().cancel_button.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_estimate_counts_the_runs_that_may_follow() {
        assert_eq!(time_left(1.0, 0.5, 0), "");
        assert_eq!(time_left(10.0, 0.5, 0), "Less than a minute left");
        // 20 s a run: 10 s of this one, then two more of 20 s.
        assert_eq!(
            time_left(10.0, 0.5, 2),
            "Less than a minute left, up to 1 min if the test runs again"
        );
        // 40 s a run, a quarter done: 30 s left, then 80 s.
        assert_eq!(
            time_left(10.0, 0.25, 2),
            "Less than a minute left, up to 2 min if the test runs again"
        );
        assert_eq!(time_left(60.0, 0.25, 0), "About 3 min left");
        assert_eq!(
            time_left(60.0, 0.25, 1),
            "About 3 min left, up to 7 min if the test runs again"
        );
    }
}
