//! The running test: the phase ("Random 4K write, 4 of 5"), the run when there are several, a
//! progress bar that moves with the phase's size or time limit, the live figure (MB/s for
//! sequential phases, IOPS for random ones), the per-second chart, and **Cancel**.

use agnostics_core::i18n::{fill, gettext};
use agnostics_core::verdict::{targets, Standard};
use gtk::glib;
use gtk::prelude::*;
use gtk::subclass::prelude::*;

use crate::format::{phase_figure, phase_title};
use crate::test_run::Progress;
use crate::widgets::Chart;

mod imp {
    use super::*;

    #[derive(Debug, Default, gtk::CompositeTemplate)]
    #[template(file = "progress_view.ui")]
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
        pub figure_label: TemplateChild<gtk::Label>,
        #[template_child]
        pub figure_caption: TemplateChild<gtk::Label>,
        #[template_child]
        pub chart: TemplateChild<Chart>,
        #[template_child]
        pub chart_caption: TemplateChild<gtk::Label>,
        #[template_child]
        pub cancel_button: TemplateChild<gtk::Button>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for ProgressView {
        const NAME: &'static str = "AgnosticsProgressView";
        type Type = super::ProgressView;
        type ParentType = gtk::Box;

        fn class_init(klass: &mut Self::Class) {
            Chart::ensure_type();
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

impl ProgressView {
    /// Clears the view for a new test on the drive named `drive`.
    pub fn reset(&self, drive: &str) {
        let imp = self.imp();
        imp.heading
            .set_label(&fill(&gettext("Testing {drive}"), &[("drive", &drive)]));
        imp.phase_label.set_label(&gettext("Starting…"));
        imp.run_label.set_visible(false);
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
        imp.phase_label.set_label(&fill(
            // Translators: the running phase and its place, e.g. "Random 4K write, 4 of 5".
            &gettext("{phase}, {number} of {count}"),
            &[
                ("phase", &title),
                ("number", &(p.index + 1)),
                ("count", &p.count),
            ],
        ));
        imp.run_label.set_visible(p.runs > 1);
        imp.run_label.set_label(&fill(
            &gettext("Run {run} of up to {runs}"),
            &[("run", &p.run), ("runs", &p.runs)],
        ));
        imp.progress_bar.set_fraction(p.fraction.clamp(0.0, 1.0));
        imp.figure_label.set_label(&if p.measured {
            phase_figure(p.rw, p.bw_bytes, p.iops)
        } else {
            "—".to_owned()
        });
        let target = a1_target_of(&p.name);
        imp.chart
            .set_samples(&title, p.rw.is_random(), &p.samples, target);
        imp.chart_caption.set_label(&match target {
            Some(t) => fill(
                &gettext("Figures per second; the dashed line is the A1 target ({target})"),
                &[("target", &phase_figure(p.rw, t, t))],
            ),
            None => gettext("Figures per second; this phase is not graded"),
        });
    }

    /// Shows that the test is stopping and removing its file.
    pub fn set_cancelling(&self) {
        let imp = self.imp();
        imp.phase_label
            .set_label(&gettext("Stopping the test and removing its test file…"));
        imp.cancel_button.set_label(&gettext("Stopping…"));
    }

    /// The phase line, e.g. "Random 4K write, 4 of 5".
    pub fn phase_text(&self) -> String {
        self.imp().phase_label.label().to_string()
    }

    /// The time estimate, e.g. "About 2 min left" (empty when there is none yet).
    pub fn estimate_text(&self) -> String {
        String::new()
    }

    /// The run line, e.g. "Run 2 of up to 3: upstream repeats a failed test".
    pub fn run_text(&self) -> String {
        self.imp().run_label.label().to_string()
    }

    /// What the page last announced to screen readers (the phase started).
    pub fn announcement(&self) -> String {
        String::new()
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
