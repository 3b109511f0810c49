//! A small per-second chart of the running phase: one bar a second (MB/s or GB/s for
//! sequential phases, IOPS for random ones) on labelled axes (elapsed seconds; the figure's
//! unit), and a reference line: the A1 target (dashed) for graded phases, the phase's average
//! (solid) for the others. A phase too short for a per-second figure shows its average as one
//! bar. Drawn with plotters on cairo, its text with Pango ([`super::chart_text`]), so it works
//! with `GSK_RENDERER=cairo` and in every language; its accessible label says in words what
//! the bars show.

use std::cell::{Cell, RefCell};

use agnostics_core::engine::Sample;
use agnostics_core::i18n::{fill, gettext, number};
use gtk::prelude::*;
use gtk::subclass::prelude::*;
use gtk::{cairo, gdk, glib};
use plotters::prelude::*;

use super::chart_text::{ChartText, DrawnText, PangoBackend};
use crate::format::figure;
use crate::palette::ChartPalette;

/// Seconds the time axis spans at least, so that the first bars are not a page wide.
const MIN_SLOTS: usize = 10;

/// The value axis of a chart: its unit, the unit's size, the tick step and the top, both in
/// the unit shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueAxis {
    /// The unit as printed: "MB/s", "GB/s" or "IOPS".
    pub unit: String,
    /// How many bytes per second (or IOPS) one unit is: 1e6 for MB/s, 1e9 for GB/s, 1 for IOPS.
    pub divisor: f64,
    /// The distance between ticks, in the unit (1, 2 or 5 times a power of ten).
    pub step: f64,
    /// The axis's top, in the unit: a whole number of steps above the highest figure.
    pub top: f64,
}

impl ValueAxis {
    /// The tick values, in the unit, from 0 to the top.
    pub fn ticks(&self) -> Vec<f64> {
        let n = (self.top / self.step).round() as usize;
        (0..=n).map(|i| i as f64 * self.step).collect()
    }

    /// The tick labels: "0", "0.2", "20", "1500", "20k" (IOPS in thousands from 10 000).
    pub fn labels(&self) -> Vec<String> {
        self.ticks().into_iter().map(|v| self.label(v)).collect()
    }

    /// One tick's label.
    pub fn label(&self, value: f64) -> String {
        if value == 0.0 {
            return "0".to_owned();
        }
        if self.divisor == 1.0 && self.top >= 10_000.0 {
            return format!(
                "{}k",
                number(value / 1000.0, decimals_of(self.step / 1000.0))
            );
        }
        number(value, decimals_of(self.step))
    }
}

/// Decimals that show a tick step of 1, 2 or 5 times a power of ten exactly.
fn decimals_of(step: f64) -> usize {
    if step >= 1.0 {
        0
    } else {
        (-step.log10()).ceil().max(0.0) as usize
    }
}

/// The value axis for figures up to `highest` (bytes per second, or IOPS when `random`):
/// MB/s up to 1000 MB/s, GB/s above; about four round steps with a little room on top.
pub fn value_axis(highest: f64, random: bool) -> ValueAxis {
    let highest = if highest.is_finite() && highest > 0.0 {
        highest
    } else {
        0.0
    };
    let (unit, divisor) = if random {
        (gettext("IOPS"), 1.0)
    } else if highest * 1.15 >= 1e9 {
        (gettext("GB/s"), 1e9)
    } else {
        (gettext("MB/s"), 1e6)
    };
    let room = highest / divisor * 1.15;
    let step = if room > 0.0 {
        let raw = room / 4.0;
        let power = 10f64.powf(raw.log10().floor());
        [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * power)
            .find(|s| *s >= raw * 0.999)
            .unwrap_or(10.0 * power)
    } else if random {
        1.0
    } else {
        0.5
    };
    // IOPS are whole: no step below one.
    let step = if random { step.max(1.0) } else { step };
    let top = ((room / step).ceil().max(1.0)) * step;
    ValueAxis {
        unit,
        divisor,
        step,
        top,
    }
}

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
        /// The phase's average so far in the same unit, when it has one.
        pub average: Cell<Option<f64>>,
        /// The accessible description, also kept for tests.
        pub description: RefCell<String>,
        /// The strings the last drawing drew, for tests.
        pub drawn: RefCell<Vec<DrawnText>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for Chart {
        const NAME: &'static str = "AgnosticsChart";
        type Type = super::Chart;
        type ParentType = gtk::DrawingArea;

        fn class_init(klass: &mut Self::Class) {
            crate::widgets::chart_area::class_init(klass, "chart");
        }
    }

    impl ObjectImpl for Chart {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            crate::widgets::chart_area::set_up(&*obj, 120, |chart, cr, width, height| {
                chart.draw(cr, f64::from(width), f64::from(height));
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
        imp.average.set(None);
        self.describe(&gettext(
            "Per-second chart of the running phase: no figures yet.",
        ));
        self.queue_draw();
    }

    /// Shows the samples of the phase `title`: IOPS when `random`, else bandwidth; `target`
    /// (IOPS, or bytes per second) as a dashed line, else the phase's `average` so far (same
    /// unit) as a solid one. Without samples (a phase shorter than a second) the average is
    /// the one bar.
    pub fn set_samples(
        &self,
        title: &str,
        random: bool,
        samples: &[Sample],
        target: Option<f64>,
        average: Option<f64>,
    ) {
        let imp = self.imp();
        let average = average.filter(|v| v.is_finite() && *v > 0.0);
        let mut values: Vec<f64> = samples
            .iter()
            .map(|s| if random { s.iops } else { s.bw_bytes })
            .filter(|v| v.is_finite() && *v >= 0.0)
            .collect();
        let short = values.is_empty() && average.is_some();
        if short {
            values.extend(average);
        }
        let axis = value_axis(
            values.iter().copied().chain(target).fold(0.0, f64::max),
            random,
        );
        let text = samples_description(title, random, &values, short, &axis, target, average);
        // Progress comes ten times a second and a new sample once a second: redraw (and
        // tell assistive technologies) only when what the chart shows has changed.
        let unchanged = *imp.values.borrow() == values
            && imp.random.get() == random
            && imp.target.get() == target
            && imp.average.get() == average
            && *imp.description.borrow() == text;
        if unchanged {
            return;
        }
        *imp.values.borrow_mut() = values;
        imp.random.set(random);
        imp.target.set(target);
        imp.average.set(average);
        self.describe(&text);
        self.queue_draw();
    }

    /// What the chart shows, in words (its accessible label).
    pub fn description(&self) -> String {
        self.imp().description.borrow().clone()
    }

    /// The reference line drawn, in bytes per second or IOPS, and whether it is the A1 target
    /// (true) or the phase's average (false).
    pub fn reference(&self) -> Option<(f64, bool)> {
        let imp = self.imp();
        match imp.target.get() {
            Some(t) => Some((t, true)),
            None => imp.average.get().map(|a| (a, false)),
        }
    }

    /// The time axis's name.
    pub fn x_axis_name(&self) -> String {
        gettext("Seconds")
    }

    /// The value axis's unit, as its name: "MB/s", "GB/s" or "IOPS".
    pub fn y_axis_name(&self) -> String {
        self.axis().unit
    }

    fn axis(&self) -> ValueAxis {
        let imp = self.imp();
        let highest = imp
            .values
            .borrow()
            .iter()
            .copied()
            .chain(imp.target.get())
            .chain(imp.average.get())
            .fold(0.0, f64::max);
        value_axis(highest, imp.random.get())
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

    /// The colours of the style shown now (light or dark).
    fn palette(&self) -> &'static ChartPalette {
        ChartPalette::current()
    }

    /// The strings the chart last drew (tick labels, axis names), each with the number of
    /// its characters no installed font has.
    pub fn drawn_text(&self) -> Vec<DrawnText> {
        self.imp().drawn.borrow().clone()
    }

    fn draw(&self, cr: &cairo::Context, width: f64, height: f64) {
        if width < 60.0 || height < 40.0 {
            return;
        }
        let text = ChartText::new(self);
        if let Err(e) = self.plot(cr, &text, width as u32, height as u32) {
            // Nothing else to do in a draw function; the description still says it all.
            glib::g_warning!("agnostics", "chart: {e}");
        }
        self.imp().drawn.replace(text.drawn());
    }

    fn plot(
        &self,
        cr: &cairo::Context,
        text: &ChartText,
        width: u32,
        height: u32,
    ) -> Result<(), String> {
        let imp = self.imp();
        let values = imp.values.borrow();
        let axis = self.axis();
        let palette = self.palette();
        let fg_c = to_plotters(&palette.text.rgba());
        let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
        let root = PangoBackend::new(cr, (width, height), text)?.into_drawing_area();
        let (slots, x_ticks) = time_axis(values.len());
        let y_ticks = axis.ticks().len();
        // The family is the widget's own: the backend lays the text out with Pango.
        let label_font = ("sans-serif", 10.0).into_font().color(&fg_c.mix(0.8));
        let desc_font = ("sans-serif", 10.0).into_font().color(&fg_c.mix(0.8));
        let y_unit = axis.unit.clone();
        let mut chart = ChartBuilder::on(&root)
            .margin_top(6)
            .margin_right(10)
            .margin_left(4)
            .margin_bottom(2)
            .x_label_area_size(26)
            .y_label_area_size(44)
            .build_cartesian_2d(0.0..slots, 0.0..axis.top)
            .map_err(|e| err(&e))?;
        let y_label = |v: &f64| axis.label(*v);
        let x_label = |v: &f64| number(*v, 0);
        chart
            .configure_mesh()
            .x_desc(self.x_axis_name())
            .y_desc(y_unit)
            .x_labels(x_ticks)
            .y_labels(y_ticks)
            .x_label_formatter(&x_label)
            .y_label_formatter(&y_label)
            .label_style(label_font)
            .axis_desc_style(desc_font)
            .axis_style(fg_c.mix(0.4))
            .bold_line_style(fg_c.mix(0.1))
            .light_line_style(TRANSPARENT)
            .draw()
            .map_err(|e| err(&e))?;
        let bar = to_plotters(&palette.bar.rgba());
        chart
            .draw_series(values.iter().enumerate().map(|(i, v)| {
                let x = i as f64;
                Rectangle::new(
                    [
                        (x + 0.15, 0.0),
                        (x + 0.85, (v / axis.divisor).min(axis.top)),
                    ],
                    bar.filled(),
                )
            }))
            .map_err(|e| err(&e))?;
        let reference = self.reference().map(|(v, is_target)| {
            let y = (v / axis.divisor).min(axis.top);
            (
                chart.backend_coord(&(0.0, y)),
                chart.backend_coord(&(slots, y)),
                is_target,
            )
        });
        drop(chart);
        root.present().map_err(|e| err(&e))?;
        drop(root);
        if let Some(((x0, y), (x1, _), is_target)) = reference {
            stroke_reference(cr, palette, (x0, x1, y), is_target);
        }
        Ok(())
    }
}

/// The time axis for `seconds` samples: its length in slots (at least [`MIN_SLOTS`]) and the
/// number of ticks to ask for, one every 1, 2, 5, 10, … seconds so that at most about six show.
fn time_axis(seconds: usize) -> (f64, usize) {
    let slots = seconds.max(MIN_SLOTS) as f64;
    let x_step = [1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0]
        .into_iter()
        .find(|s| slots / s <= 6.0)
        .unwrap_or(600.0);
    // Plotters picks round ticks (1, 2 or 5 times a power of ten) with at most the count
    // asked: the axis's own steps, as its top is a whole number of them.
    (slots, (slots / x_step) as usize + 1)
}

/// Draws the reference line across the plot, from `x0` to `x1` at `y` (device pixels): dashed
/// for the A1 target, solid for the phase's average, 2 px thick on a 6 px band of the palette's
/// halo (both on whole pixels) so that it stands out where it crosses a bar.
fn stroke_reference(
    cr: &cairo::Context,
    palette: &ChartPalette,
    (x0, x1, y): (i32, i32, i32),
    is_target: bool,
) {
    let _ = cr.save();
    let y = f64::from(y);
    set_color(cr, &palette.halo.rgba(), 1.0);
    cr.set_line_width(6.0);
    cr.move_to(f64::from(x0), y);
    cr.line_to(f64::from(x1), y);
    let _ = cr.stroke();
    set_color(cr, &palette.reference.rgba(), 1.0);
    cr.set_line_width(2.0);
    if is_target {
        cr.set_dash(&[6.0, 4.0], 0.0);
    }
    cr.move_to(f64::from(x0), y);
    cr.line_to(f64::from(x1), y);
    let _ = cr.stroke();
    let _ = cr.restore();
}

/// The live chart's description for assistive technologies: the phase `title`, its
/// per-second `values` (IOPS when `random`, else bytes per second; `short` when the one value
/// is the average of a phase shorter than a second), the axes, and the target or the average.
fn samples_description(
    title: &str,
    random: bool,
    values: &[f64],
    short: bool,
    axis: &ValueAxis,
    target: Option<f64>,
    average: Option<f64>,
) -> String {
    let figure = |v: f64| figure(random, v, v);
    let mut text = match (values.last(), values.iter().copied().reduce(f64::max)) {
        (Some(&latest), _) if short => fill(
            // Translators: the live chart of a phase shorter than a second.
            &gettext("Chart of {phase}: too short for per-second figures; one bar for its average, {average}."),
            &[("phase", &title), ("average", &figure(latest))],
        ),
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
    if !values.is_empty() {
        text.push(' ');
        text.push_str(&fill(
            // Translators: the live chart's axes; {unit} is MB/s, GB/s or IOPS.
            &gettext("Seconds across, {unit} up, from 0 to {top}."),
            &[("unit", &axis.unit), ("top", &axis.label(axis.top))],
        ));
    }
    if let Some(target) = target {
        text.push(' ');
        text.push_str(&fill(
            &gettext("The dashed line is the A1 target, {target}."),
            &[("target", &figure(target))],
        ));
    } else if let Some(average) = average.filter(|_| !short) {
        text.push(' ');
        text.push_str(&fill(
            &gettext("This phase is not graded; the line is its average so far, {average}."),
            &[("average", &figure(average))],
        ));
    }
    text
}

pub(crate) fn to_plotters(c: &gdk::RGBA) -> RGBAColor {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    RGBAColor(
        byte(c.red()),
        byte(c.green()),
        byte(c.blue()),
        f64::from(c.alpha()),
    )
}

pub(crate) fn set_color(cr: &cairo::Context, color: &gdk::RGBA, alpha: f64) {
    cr.set_source_rgba(
        f64::from(color.red()),
        f64::from(color.green()),
        f64::from(color.blue()),
        f64::from(color.alpha()) * alpha,
    );
}
