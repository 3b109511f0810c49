//! A small per-second chart of the running phase: one bar a second (MB/s for sequential
//! phases, IOPS for random ones) and, for graded phases, the A1 target as a dashed line. Drawn
//! with cairo, so it works with `GSK_RENDERER=cairo`; its accessible label says in words what
//! the bars show.

use std::cell::{Cell, RefCell};

use agnostics_core::engine::Sample;
use agnostics_core::i18n::{fill, gettext};
use gtk::prelude::*;
use gtk::subclass::prelude::*;
use gtk::{cairo, gdk, glib};

use crate::format::figure;

/// Bars the chart has room for before it starts to squeeze them.
const MIN_SLOTS: usize = 10;

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct Chart {
        /// The figure of each second: bytes per second, or IOPS for random phases.
        pub values: RefCell<Vec<f64>>,
        /// True when the figures are IOPS.
        pub random: Cell<bool>,
        /// The A1 target in the same unit, for graded phases.
        pub target: Cell<Option<f64>>,
        /// The accessible description, also kept for tests.
        pub description: RefCell<String>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for Chart {
        const NAME: &'static str = "AgnosticsChart";
        type Type = super::Chart;
        type ParentType = gtk::DrawingArea;

        fn class_init(klass: &mut Self::Class) {
            klass.set_css_name("chart");
            klass.set_accessible_role(gtk::AccessibleRole::Img);
        }
    }

    impl ObjectImpl for Chart {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            obj.set_content_height(96);
            obj.set_hexpand(true);
            obj.add_css_class("card");
            obj.set_draw_func(|area, cr, width, height| {
                if let Some(chart) = area.downcast_ref::<super::Chart>() {
                    chart.draw(cr, f64::from(width), f64::from(height));
                }
            });
            obj.clear();
        }
    }

    impl WidgetImpl for Chart {}
    impl DrawingAreaImpl for Chart {}
}

glib::wrapper! {
    /// The per-second chart of the running phase.
    pub struct Chart(ObjectSubclass<imp::Chart>)
        @extends gtk::DrawingArea, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for Chart {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl Chart {
    /// An empty chart.
    pub fn new() -> Chart {
        Chart::default()
    }

    /// Empties the chart.
    pub fn clear(&self) {
        let imp = self.imp();
        imp.values.borrow_mut().clear();
        imp.target.set(None);
        self.describe(&gettext(
            "Per-second chart of the running phase: no figures yet.",
        ));
        self.queue_draw();
    }

    /// Shows the samples of the phase `title`: IOPS when `random`, else bandwidth; `target`
    /// (IOPS, or bytes per second) as a dashed line.
    pub fn set_samples(&self, title: &str, random: bool, samples: &[Sample], target: Option<f64>) {
        let imp = self.imp();
        let values: Vec<f64> = samples
            .iter()
            .map(|s| if random { s.iops } else { s.bw_bytes })
            .filter(|v| v.is_finite() && *v >= 0.0)
            .collect();
        let figure = |v: f64| figure(random, v, v);
        let mut text = match (values.last(), values.iter().copied().reduce(f64::max)) {
            (Some(&latest), Some(highest)) => fill(
                // Translators: the accessible description of the live chart.
                &gettext("Per-second chart of {phase}: {seconds} s so far, latest {latest}, highest {highest}."),
                &[
                    ("phase", &title),
                    ("seconds", &values.len()),
                    ("latest", &figure(latest)),
                    ("highest", &figure(highest)),
                ],
            ),
            _ => fill(
                &gettext("Per-second chart of {phase}: no figures yet."),
                &[("phase", &title)],
            ),
        };
        if let Some(target) = target {
            text.push(' ');
            text.push_str(&fill(
                &gettext("The dashed line is the A1 target, {target}."),
                &[("target", &figure(target))],
            ));
        }
        // Progress comes ten times a second and a new sample once a second: redraw (and
        // tell assistive technologies) only when what the chart shows has changed.
        let unchanged = *imp.values.borrow() == values
            && imp.random.get() == random
            && imp.target.get() == target
            && *imp.description.borrow() == text;
        if unchanged {
            return;
        }
        *imp.values.borrow_mut() = values;
        imp.random.set(random);
        imp.target.set(target);
        self.describe(&text);
        self.queue_draw();
    }

    /// What the chart shows, in words (its accessible label).
    pub fn description(&self) -> String {
        self.imp().description.borrow().clone()
    }

    /// The number of bars.
    pub fn len(&self) -> usize {
        self.imp().values.borrow().len()
    }

    /// True when there are no bars.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn describe(&self, text: &str) {
        *self.imp().description.borrow_mut() = text.to_owned();
        crate::a11y::set_label(self, text);
    }

    #[allow(deprecated)] // StyleContext colours: the GTK 4.8 way; Widget::color is 4.10.
    fn colors(&self) -> (gdk::RGBA, gdk::RGBA) {
        let style = self.style_context();
        let fg = style.color();
        let accent = style.lookup_color("accent_color").unwrap_or(fg);
        (fg, accent)
    }

    fn draw(&self, cr: &cairo::Context, width: f64, height: f64) {
        let imp = self.imp();
        let values = imp.values.borrow();
        let target = imp.target.get();
        let (fg, accent) = self.colors();
        let pad = 8.0;
        let (w, h) = (width - 2.0 * pad, height - 2.0 * pad);
        if w <= 0.0 || h <= 0.0 {
            return;
        }
        let highest = values.iter().copied().chain(target).fold(0.0_f64, f64::max);
        let top = if highest > 0.0 { highest * 1.15 } else { 1.0 };
        let y_of = |v: f64| pad + h - (v / top).min(1.0) * h;

        // Baseline.
        set_color(cr, &fg, 0.25);
        cr.set_line_width(1.0);
        cr.move_to(pad, pad + h - 0.5);
        cr.line_to(pad + w, pad + h - 0.5);
        let _ = cr.stroke();

        let slots = values.len().max(MIN_SLOTS);
        let slot = w / slots as f64;
        set_color(cr, &accent, 1.0);
        for (i, v) in values.iter().enumerate() {
            let x = pad + i as f64 * slot + slot * 0.15;
            let y = y_of(*v);
            cr.rectangle(x, y, slot * 0.7, pad + h - y);
        }
        let _ = cr.fill();

        if let Some(target) = target {
            set_color(cr, &fg, 0.7);
            cr.set_line_width(1.5);
            cr.set_dash(&[6.0, 4.0], 0.0);
            let y = y_of(target).round() + 0.5;
            cr.move_to(pad, y);
            cr.line_to(pad + w, y);
            let _ = cr.stroke();
        }
    }
}

fn set_color(cr: &cairo::Context, color: &gdk::RGBA, alpha: f64) {
    cr.set_source_rgba(
        f64::from(color.red()),
        f64::from(color.green()),
        f64::from(color.blue()),
        f64::from(color.alpha()) * alpha,
    );
}
