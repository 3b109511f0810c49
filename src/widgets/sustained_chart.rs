//! The sustained write test's chart: the write speed (MB/s, or GB/s) over the bytes written
//! (MB, or GB from 2 GB), a dot a second joined by a line, and the cliff (where the speed
//! fell for good) as a dashed upright line labelled with the bytes written before it. Drawn with plotters on cairo, its text with Pango
//! ([`super::chart_text`]); its accessible label says in words what it shows.

use std::cell::{Cell, RefCell};

use agnostics_core::i18n::{fill, gettext, number};
use agnostics_core::sustained::SpeedSample;
use agnostics_core::units::human_bytes;
use gtk::subclass::prelude::*;
use gtk::{cairo, glib};
use plotters::prelude::*;

use super::chart::{set_color, to_plotters, value_axis};
use super::chart_text::{ChartText, DrawnText, PangoBackend};
use crate::format::mb_per_s;
use crate::palette::ChartPalette;

/// The bytes axis's unit: its size in bytes and its name ("MB written", "GB written").
fn bytes_unit(total: u64) -> (f64, String) {
    if total >= 2_000_000_000 {
        (1e9, gettext("GB written"))
    } else {
        (1e6, gettext("MB written"))
    }
}

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct SustainedChart {
        /// The samples shown.
        pub samples: RefCell<Vec<SpeedSample>>,
        /// Where the speed fell for good, bytes written; `None` when it did not.
        pub cliff: Cell<Option<u64>>,
        /// The accessible label, also kept for tests.
        pub description: RefCell<String>,
        /// The strings the last drawing drew, for tests.
        pub drawn: RefCell<Vec<DrawnText>>,
        /// Whether the last drawing drew the cliff's line.
        pub drew_cliff: Cell<bool>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for SustainedChart {
        const NAME: &'static str = "AgnosticsSustainedChart";
        type Type = super::SustainedChart;
        type ParentType = gtk::DrawingArea;

        fn class_init(klass: &mut Self::Class) {
            crate::widgets::chart_area::class_init(klass, "chart");
        }
    }

    impl ObjectImpl for SustainedChart {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            crate::widgets::chart_area::set_up(&*obj, 160, |chart, cr, width, height| {
                chart.draw(cr, f64::from(width), f64::from(height));
            });
        }
    }

    impl WidgetImpl for SustainedChart {}
    impl DrawingAreaImpl for SustainedChart {}
}

glib::wrapper! {
    /// The sustained write test's speed over the bytes written, with its cliff.
    pub struct SustainedChart(ObjectSubclass<imp::SustainedChart>)
        @extends gtk::DrawingArea, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl SustainedChart {
    /// A chart of `samples` with the `cliff` (bytes written before the speed fell) marked.
    pub fn new(samples: &[SpeedSample], cliff: Option<u64>) -> SustainedChart {
        let chart: SustainedChart = glib::Object::new();
        let imp = chart.imp();
        *imp.samples.borrow_mut() = samples
            .iter()
            .filter(|s| s.bytes_per_second.is_finite() && s.bytes_per_second >= 0.0)
            .copied()
            .collect();
        imp.cliff.set(cliff);
        let text = describe(&imp.samples.borrow(), cliff);
        *imp.description.borrow_mut() = text.clone();
        crate::a11y::set_label(&chart, &text);
        chart
    }

    /// What the chart shows, in words (its accessible label).
    pub fn description(&self) -> String {
        self.imp().description.borrow().clone()
    }

    /// The number of samples drawn.
    pub fn len(&self) -> usize {
        self.imp().samples.borrow().len()
    }

    /// True when there are no samples.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the last drawing marked the cliff.
    pub fn drew_cliff(&self) -> bool {
        self.imp().drew_cliff.get()
    }

    /// The strings the chart last drew (tick labels, axis names), each with the number of
    /// its characters no installed font has.
    pub fn drawn_text(&self) -> Vec<DrawnText> {
        self.imp().drawn.borrow().clone()
    }

    fn draw(&self, cr: &cairo::Context, width: f64, height: f64) {
        if width < 60.0 || height < 40.0 || self.is_empty() {
            return;
        }
        let text = ChartText::new(self);
        match self.plot(cr, &text, width as u32, height as u32) {
            Ok(cliff) => self.imp().drew_cliff.set(cliff),
            // Nothing else to do in a draw function; the description still says it all.
            Err(e) => glib::g_warning!("agnostics", "sustained chart: {e}"),
        }
        self.imp().drawn.replace(text.drawn());
    }

    /// Draws the chart; true when it drew the cliff's line.
    fn plot(
        &self,
        cr: &cairo::Context,
        text: &ChartText,
        width: u32,
        height: u32,
    ) -> Result<bool, String> {
        let imp = self.imp();
        let samples = imp.samples.borrow();
        let highest = samples
            .iter()
            .map(|s| s.bytes_per_second)
            .fold(0.0, f64::max);
        let axis = value_axis(highest, false);
        let total = samples.iter().map(|s| s.bytes).max().unwrap_or(0);
        let (per, x_name) = bytes_unit(total);
        let x_top = (total as f64 / per).max(1.0);
        let palette = ChartPalette::current();
        let fg_c = to_plotters(&palette.text.rgba());
        let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
        let root = PangoBackend::new(cr, (width, height), text)?.into_drawing_area();
        let font = ("sans-serif", 10.0).into_font().color(&fg_c.mix(0.8));
        let mut chart = ChartBuilder::on(&root)
            .margin_top(6)
            .margin_right(14)
            .margin_left(4)
            .margin_bottom(2)
            .x_label_area_size(34)
            .y_label_area_size(44)
            .build_cartesian_2d(0.0..x_top, 0.0..axis.top)
            .map_err(|e| err(&e))?;
        let y_label = |v: &f64| axis.label(*v);
        let x_label = |v: &f64| number(*v, if x_top < 10.0 { 1 } else { 0 });
        chart
            .configure_mesh()
            .x_desc(x_name)
            .y_desc(axis.unit.clone())
            .x_labels(6)
            .y_labels(axis.ticks().len())
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .label_style(font.clone())
            .axis_desc_style(font)
            .axis_style(fg_c.mix(0.4))
            .bold_line_style(fg_c.mix(0.1))
            .light_line_style(TRANSPARENT)
            .draw()
            .map_err(|e| err(&e))?;
        let line = to_plotters(&palette.bar.rgba());
        let points = samples.iter().map(|s| {
            (
                s.bytes as f64 / per,
                (s.bytes_per_second / axis.divisor).min(axis.top),
            )
        });
        chart
            .draw_series(LineSeries::new(points.clone(), line.stroke_width(2)))
            .map_err(|e| err(&e))?;
        // A dot on each sample, so that a run of one second still shows its one.
        chart
            .draw_series(points.map(|p| Circle::new(p, 3, line.filled())))
            .map_err(|e| err(&e))?;
        let cliff = imp.cliff.get().map(|c| {
            let x = c as f64 / per;
            (
                chart.backend_coord(&(x, 0.0)),
                chart.backend_coord(&(x, axis.top)),
            )
        });
        drop(chart);
        root.present().map_err(|e| err(&e))?;
        drop(root);
        if let Some((bottom, top)) = cliff {
            draw_cliff(cr, palette, bottom, top);
            let label = human_bytes(imp.cliff.get().unwrap_or(0));
            label_cliff(cr, text, palette, &label, top, width);
        }
        Ok(cliff.is_some())
    }
}

/// The cliff's dashed upright line, in the reference colour, from `bottom` to `top` (the
/// drawing's pixel coordinates).
fn draw_cliff(cr: &cairo::Context, palette: &ChartPalette, bottom: (i32, i32), top: (i32, i32)) {
    let _ = cr.save();
    set_color(cr, &palette.reference.rgba(), 1.0);
    cr.set_line_width(2.0);
    cr.set_dash(&[6.0, 4.0], 0.0);
    cr.move_to(f64::from(bottom.0), f64::from(bottom.1));
    cr.line_to(f64::from(top.0), f64::from(top.1));
    let _ = cr.stroke();
    let _ = cr.restore();
}

/// The cliff's `label` (the bytes written before it) beside the top of its line, `top` in the
/// drawing's pixels; left of the line when it would pass the drawing's `width`.
fn label_cliff(
    cr: &cairo::Context,
    text: &ChartText,
    palette: &ChartPalette,
    label: &str,
    top: (i32, i32),
    width: u32,
) {
    let (w, _) = text.size(label, 10.0);
    let x = f64::from(top.0);
    let x = if x + 4.0 + w <= f64::from(width) {
        x + 4.0
    } else {
        x - 4.0 - w
    };
    set_color(cr, &palette.text.rgba(), 0.8);
    text.show(cr, label, 10.0, (x, f64::from(top.1)));
}

/// The chart's accessible label: what the axes show, the highest and last speed, and where
/// the dashed line (the cliff) is.
fn describe(samples: &[SpeedSample], cliff: Option<u64>) -> String {
    let highest = samples
        .iter()
        .map(|s| s.bytes_per_second)
        .fold(0.0, f64::max);
    let mut text = match samples.last() {
        Some(last) => fill(
            // Translators: the accessible label of the sustained write test's chart.
            &gettext(
                "Chart of the write speed over the bytes written: {count} samples up to \
                 {bytes}, highest {highest}, last {last}.",
            ),
            &[
                ("count", &samples.len()),
                ("bytes", &human_bytes(last.bytes)),
                ("highest", &mb_per_s(highest)),
                ("last", &mb_per_s(last.bytes_per_second)),
            ],
        ),
        None => gettext("Chart of the write speed over the bytes written: no samples."),
    };
    if let Some(cliff) = cliff {
        text.push(' ');
        text.push_str(&fill(
            &gettext("The dashed line marks where the speed fell, after {bytes}."),
            &[("bytes", &human_bytes(cliff))],
        ));
    }
    text
}
