//! A drive's trend chart: one line per test phase across the drive's stored runs, drawn with
//! `plotters` on cairo (so it works with `GSK_RENDERER=cairo`), its text with Pango. Across,
//! the runs by date, or one after the other when they are close (see [`super::trend_axis`]);
//! up, the figure in its unit (MB/s of 1 000 000 bytes per second, or IOPS); one chart shows
//! one unit, and a single run is one point. A phase graded by the A1 class has its target as
//! a dashed line labelled "A1". The accessible label names the chart, its description says in
//! words what the axes, each line and each target show.

use std::cell::RefCell;

use agnostics_core::i18n::{fill, gettext, ngettext, number};
use chrono::{DateTime, FixedOffset};
use gtk::prelude::*;
use gtk::subclass::prelude::*;
use gtk::{cairo, gdk, glib};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use agnostics_core::figure::Unit;

use super::chart_text::{set_source, ChartText, DrawnText, PangoBackend};
use super::trend_axis::{x_axis, XAxis};
pub use super::trend_series::{TrendPoint, TrendSeries};
use crate::format::{iops, mb_per_s};
use crate::palette::ChartPalette;

/// The y axis's unit as printed: "MB/s" for the bandwidth units (figures given in `unit`,
/// drawn in MB/s) or "IOPS".
pub fn axis_name(unit: Unit) -> String {
    match unit {
        Unit::BytesPerSecond | Unit::KibPerS | Unit::MbPerS => gettext("MB/s"),
        Unit::Iops => gettext("IOPS"),
    }
}

/// A figure in `unit` for people: "12.34 MB/s", "612 IOPS".
pub fn unit_text(unit: Unit, value: f64) -> String {
    if unit.is_bandwidth() {
        mb_per_s(unit.to_phase_figure(value))
    } else {
        iops(value)
    }
}

/// A figure in `unit` as drawn on the y axis (MB/s for bandwidth).
fn plotted(unit: Unit, value: f64) -> f64 {
    if unit.is_bandwidth() {
        agnostics_core::units::mb_per_s(unit.to_phase_figure(value))
    } else {
        value
    }
}

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct TrendChart {
        pub title: RefCell<String>,
        pub unit: std::cell::Cell<Unit>,
        pub series: RefCell<Vec<TrendSeries>>,
        pub description: RefCell<String>,
        pub drawing: RefCell<super::TrendDrawing>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TrendChart {
        const NAME: &'static str = "AgnosticsTrendChart";
        type Type = super::TrendChart;
        type ParentType = gtk::DrawingArea;

        fn class_init(klass: &mut Self::Class) {
            crate::widgets::chart_area::class_init(klass, "trendchart");
        }
    }

    impl ObjectImpl for TrendChart {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            crate::widgets::chart_area::set_up(&*obj, 220, |chart, cr, width, height| {
                chart.draw(cr, width, height);
            });
        }
    }

    impl WidgetImpl for TrendChart {}
    impl DrawingAreaImpl for TrendChart {}
}

glib::wrapper! {
    /// A trend chart of one unit's figures over a drive's runs.
    pub struct TrendChart(ObjectSubclass<imp::TrendChart>)
        @extends gtk::DrawingArea, gtk::Widget,
        @implements gtk::Buildable, gtk::ConstraintTarget;
}

impl Default for TrendChart {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl TrendChart {
    /// An empty chart.
    pub fn new() -> TrendChart {
        TrendChart::default()
    }

    /// Shows `series` (figures in `unit`) under the name `title`, e.g. "Sequential speed".
    /// Series without points are left out; points with a value that is not a finite number
    /// of at least 0 too.
    pub fn set_series(&self, title: &str, unit: Unit, series: Vec<TrendSeries>) {
        let imp = self.imp();
        let series: Vec<TrendSeries> = series
            .into_iter()
            .map(|mut s| {
                s.points.retain(|p| p.value.is_finite() && p.value >= 0.0);
                s.points.sort_by_key(|p| p.when);
                s
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        imp.title.replace(title.to_owned());
        imp.unit.set(unit);
        let text = describe(title, unit, &series);
        imp.series.replace(series);
        imp.description.replace(text.clone());
        crate::a11y::set_label(self, title);
        crate::a11y::set_description(self, &text);
        self.queue_draw();
    }

    /// The chart's name (its accessible label).
    pub fn title(&self) -> String {
        self.imp().title.borrow().clone()
    }

    /// What the chart shows, in words: axes, units and each line (its accessible description).
    pub fn description(&self) -> String {
        self.imp().description.borrow().clone()
    }

    /// The lines shown, with their points.
    pub fn series(&self) -> Vec<TrendSeries> {
        self.imp().series.borrow().clone()
    }

    /// The unit of the figures.
    pub fn unit(&self) -> Unit {
        self.imp().unit.get()
    }

    /// The text colour and the series' colours of the style shown now (light or dark).
    fn palette(&self) -> (RGBAColor, Vec<RGBAColor>) {
        let palette = ChartPalette::current();
        let lines = palette.lines.iter().map(|c| rgba(&c.rgba(), 1.0)).collect();
        (rgba(&palette.text.rgba(), 1.0), lines)
    }

    /// What the last drawing drew, in pixels of the widget: ticks, points, target lines and
    /// text.
    pub fn drawing(&self) -> TrendDrawing {
        self.imp().drawing.borrow().clone()
    }

    fn draw(&self, cr: &cairo::Context, width: i32, height: i32) {
        if width < 80 || height < 60 {
            return;
        }
        let text = ChartText::new(self);
        match self.plot(cr, &text, width as u32, height as u32) {
            Ok(drawing) => {
                self.imp().drawing.replace(TrendDrawing {
                    text: text.drawn(),
                    ..drawing
                });
            }
            // Nothing else to do in a draw function; the description still says it all.
            Err(e) => glib::g_warning!("agnostics", "trend chart: {e}"),
        }
    }

    fn plot(
        &self,
        cr: &cairo::Context,
        text: &ChartText,
        width: u32,
        height: u32,
    ) -> Result<TrendDrawing, String> {
        let imp = self.imp();
        let series = imp.series.borrow();
        let unit = imp.unit.get();
        let (fg, lines) = self.palette();
        let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
        let root = PangoBackend::new(cr, (width, height), text)?.into_drawing_area();
        if series.is_empty() {
            root.present().map_err(|e| err(&e))?;
            drop(root);
            draw_empty(cr, text, &fg, (width, height));
            return Ok(TrendDrawing::default());
        }
        let axis = x_axis(&series, width);
        let (x0, x1) = axis.range();
        let top = y_top(&series, unit);
        let legend = legend_layout(text, &series, f64::from(width) - 80.0);
        let lines_of_legend = legend.last().map_or(0, |e| e.line + 1);
        let ticks = axis.ticks(&series, width);
        let mut chart = frame(&root, lines_of_legend)
            .build_cartesian_2d(x0..x1, 0.0..top)
            .map_err(|e| err(&e))?;
        mesh(&mut chart, &axis, unit, top, ticks.is_none(), width, &fg).map_err(|e| err(&e))?;
        let at = |x: f64, y: f64| chart.backend_coord(&(x, y));
        let drawing = TrendDrawing {
            ticks: ticks
                .unwrap_or_default()
                .into_iter()
                .map(|(x, label)| (at(x, 0.0), label))
                .collect(),
            points: series
                .iter()
                .map(|s| {
                    s.points
                        .iter()
                        .map(|p| at(axis.x(&p.when), plotted(unit, p.value)))
                        .collect()
                })
                .collect(),
            targets: targets(&series, unit, |y| (at(x0, y), at(x1, y))),
            text: Vec::new(),
        };
        let mut drawing = drawing;
        let label_height = text.size("A1", LEGEND_FONT).1.ceil() as i32;
        place_labels(&mut drawing.targets, label_height);
        draw_lines(&mut chart, &series, unit, &axis, &lines).map_err(|e| err(&e))?;
        drop(chart);
        root.present().map_err(|e| err(&e))?;
        drop(root);
        draw_targets(cr, text, &drawing.targets, &fg, &lines);
        draw_legend(cr, text, &legend, &series, (&fg, &lines), Y_AXIS_AREA + 8.0);
        draw_ticks(cr, text, &drawing.ticks, &fg);
        Ok(drawing)
    }
}

/// What a trend chart drew, in the widget's pixels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrendDrawing {
    /// The x axis's own ticks: where each is (on the axis) and its label; empty when the
    /// axis has round date ticks of plotters' choosing.
    pub ticks: Vec<((i32, i32), String)>,
    /// Each series' points, in the order of [`TrendChart::series`].
    pub points: Vec<Vec<(i32, i32)>>,
    /// The A1 target lines drawn.
    pub targets: Vec<TargetLine>,
    /// Every string drawn, in order.
    pub text: Vec<DrawnText>,
}

/// A dashed A1 target line across the plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetLine {
    /// The series (index into [`TrendChart::series`]) whose target it is.
    pub series: usize,
    /// Its left end.
    pub from: (i32, i32),
    /// Its right end.
    pub to: (i32, i32),
    /// The top of its "A1" label, right of the plot: beside the line, or moved down just
    /// clear of the label above when two lines lie closer than a label's height.
    pub label_top: i32,
}

/// The y axis's labels' room, in pixels.
const Y_AXIS_AREA: f64 = 64.0;

/// The target lines of `series` (ends in pixels from `ends`, given the target in the axis's
/// unit).
fn targets(
    series: &[TrendSeries],
    unit: Unit,
    ends: impl Fn(f64) -> ((i32, i32), (i32, i32)),
) -> Vec<TargetLine> {
    series
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let (from, to) = ends(plotted(unit, s.target?));
            Some(TargetLine {
                series: i,
                from,
                to,
                label_top: from.1,
            })
        })
        .collect()
}

/// Places the targets' labels, each `height` pixels high: centred on its line, top to
/// bottom, each moved down just clear of the one above it, so that no two overprint.
fn place_labels(targets: &mut [TargetLine], height: i32) {
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by_key(|&i| targets[i].from.1);
    let mut below = i32::MIN;
    for i in order {
        let top = (targets[i].from.1 - height / 2).max(below.saturating_add(1));
        targets[i].label_top = top;
        below = top + height;
    }
}

/// The plot's frame on `root`: room above it for `legend_lines` lines of legend, and room
/// left of it for the y axis's labels.
fn frame<'a, 'b>(
    root: &'a DrawingArea<PangoBackend<'b>, Shift>,
    legend_lines: usize,
) -> ChartBuilder<'a, 'a, PangoBackend<'b>> {
    let mut builder = ChartBuilder::on(root);
    builder
        .margin_top(12 + 18 * legend_lines as u32)
        .margin_right(36)
        .margin_left(8)
        .margin_bottom(6)
        .x_label_area_size(40)
        .y_label_area_size(Y_AXIS_AREA as u32);
    builder
}

type Chart2d<'a, 'b> =
    ChartContext<'a, PangoBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The axes, their names and the grid; the x axis's labels of plotters' choosing only when
/// `round_dates` (else the chart draws the runs' own).
fn mesh(
    chart: &mut Chart2d<'_, '_>,
    axis: &XAxis,
    unit: Unit,
    top: f64,
    round_dates: bool,
    width: u32,
    fg: &RGBAColor,
) -> Result<(), DrawingAreaErrorKind<cairo::Error>> {
    let x_labels = ((width as usize).saturating_sub(90) / 110).clamp(2, 8);
    let y_decimals = if top < 10.0 { 1 } else { 0 };
    let x_format = |x: &f64| axis.label(*x);
    let y_format = |y: &f64| number(*y, y_decimals);
    // The family is the widget's own: the backend lays the text out with Pango.
    let label_font = ("sans-serif", 12.0).into_font().color(&fg.mix(0.8));
    let desc_font = ("sans-serif", 13.0).into_font().color(fg);
    chart
        .configure_mesh()
        .x_desc(axis.name())
        .y_desc(axis_name(unit))
        .x_labels(if round_dates { x_labels } else { 0 })
        .y_labels(5)
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .label_style(label_font)
        .axis_desc_style(desc_font)
        .axis_style(fg.mix(0.5))
        .bold_line_style(fg.mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()
}

/// Says on the empty chart (`width` × `height` pixels) that there are no runs yet.
fn draw_empty(cr: &cairo::Context, text: &ChartText, fg: &RGBAColor, (width, height): (u32, u32)) {
    let _ = cr.save();
    set_source(cr, fg.to_backend_color());
    let at = (f64::from(width) / 2.0, f64::from(height) / 2.0 - 8.0);
    text.show_centred(cr, &gettext("No runs to show yet"), 12.0, at);
    let _ = cr.restore();
}

/// The top of the y axis: a fifth above the highest figure or target (in the axis's unit), 1
/// when there is none.
fn y_top(series: &[TrendSeries], unit: Unit) -> f64 {
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.value).chain(s.target))
        .map(|v| plotted(unit, v))
        .fold(0.0_f64, f64::max);
    if top > 0.0 {
        top * 1.2
    } else {
        1.0
    }
}

/// Draws each series as a line with a dot per run.
fn draw_lines(
    chart: &mut Chart2d<'_, '_>,
    series: &[TrendSeries],
    unit: Unit,
    axis: &XAxis,
    lines: &[RGBAColor],
) -> Result<(), DrawingAreaErrorKind<cairo::Error>> {
    for (i, s) in series.iter().enumerate() {
        let color = lines[i % lines.len()];
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (axis.x(&p.when), plotted(unit, p.value)))
            .collect();
        chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
    }
    Ok(())
}

/// Draws the A1 target lines: dashed, in the text's colour (clear on either style's
/// background), each labelled "A1" right of the plot beside a dot of its series' colour.
fn draw_targets(
    cr: &cairo::Context,
    text: &ChartText,
    targets: &[TargetLine],
    fg: &RGBAColor,
    lines: &[RGBAColor],
) {
    let _ = cr.save();
    cr.set_line_width(1.5);
    for t in targets {
        let y = f64::from(t.from.1).round() + 0.5;
        let right = f64::from(t.to.0);
        set_source(cr, fg.mix(0.85).to_backend_color());
        cr.set_dash(&[6.0, 4.0], 0.0);
        cr.move_to(f64::from(t.from.0), y);
        cr.line_to(right, y);
        let _ = cr.stroke();
        cr.set_dash(&[], 0.0);
        set_source(cr, lines[t.series % lines.len()].to_backend_color());
        cr.arc(right + 6.0, y, 3.0, 0.0, std::f64::consts::TAU);
        let _ = cr.fill();
        set_source(cr, fg.to_backend_color());
        text.show(
            cr,
            "A1",
            LEGEND_FONT,
            (right + 11.0, f64::from(t.label_top)),
        );
    }
    let _ = cr.restore();
}

/// Where a legend entry goes: its line (0 first) and its x offset from the legend's start.
#[derive(Debug, Clone, Copy)]
struct LegendEntry {
    line: usize,
    x: f64,
}

const LEGEND_FONT: f64 = 12.0;
const SWATCH: f64 = 18.0;

/// Lays the legend out above the plot: entries side by side, on as many lines as `room`
/// (pixels) needs, measured with Pango.
fn legend_layout(text: &ChartText, series: &[TrendSeries], room: f64) -> Vec<LegendEntry> {
    let mut out = Vec::new();
    let (mut line, mut x) = (0, 0.0);
    for s in series {
        let wide = SWATCH + 6.0 + text.size(&s.name, LEGEND_FONT).0 + 18.0;
        if x > 0.0 && x + wide > room {
            line += 1;
            x = 0.0;
        }
        out.push(LegendEntry { line, x });
        x += wide;
    }
    out
}

/// The x axis's own ticks: a short mark and the label centred under it.
fn draw_ticks(
    cr: &cairo::Context,
    text: &ChartText,
    ticks: &[((i32, i32), String)],
    fg: &RGBAColor,
) {
    let _ = cr.save();
    set_source(cr, fg.mix(0.8).to_backend_color());
    cr.set_line_width(1.0);
    for ((x, y), label) in ticks {
        let (x, y) = (f64::from(*x) + 0.5, f64::from(*y));
        cr.move_to(x, y);
        cr.line_to(x, y + 5.0);
        let _ = cr.stroke();
        text.show_centred(cr, label, LEGEND_FONT, (x, y + 6.0));
    }
    let _ = cr.restore();
}

/// The legend above the plot, from `left`: a swatch of each line's colour and its name.
fn draw_legend(
    cr: &cairo::Context,
    text: &ChartText,
    legend: &[LegendEntry],
    series: &[TrendSeries],
    (fg, lines): (&RGBAColor, &[RGBAColor]),
    left: f64,
) {
    let _ = cr.save();
    for (i, (entry, s)) in legend.iter().zip(series).enumerate() {
        let top = 4.0 + 18.0 * entry.line as f64;
        let x = left + entry.x;
        let (_, h) = text.size(&s.name, LEGEND_FONT);
        set_source(cr, lines[i % lines.len()].to_backend_color());
        cr.set_line_width(3.0);
        cr.move_to(x, top + h / 2.0);
        cr.line_to(x + SWATCH, top + h / 2.0);
        let _ = cr.stroke();
        set_source(cr, fg.to_backend_color());
        text.show(cr, &s.name, LEGEND_FONT, (x + SWATCH + 6.0, top));
    }
    let _ = cr.restore();
}

fn rgba(c: &gdk::RGBA, alpha: f64) -> RGBAColor {
    let byte = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    RGBAColor(
        byte(c.red()),
        byte(c.green()),
        byte(c.blue()),
        f64::from(c.alpha()) * alpha,
    )
}

/// The chart in words: its title, what each axis is, and per line the number of runs, the
/// first and the latest figure, the lowest and the highest.
pub fn describe(title: &str, unit: Unit, series: &[TrendSeries]) -> String {
    let dates: Vec<&DateTime<FixedOffset>> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| &p.when))
        .collect();
    let (Some(first), Some(last)) = (dates.iter().min(), dates.iter().max()) else {
        return fill(
            // Translators: the accessible description of an empty trend chart.
            &gettext("{title}: no runs to show yet."),
            &[("title", &title)],
        );
    };
    let mut text = fill(
        // Translators: the accessible description of a trend chart; {unit} is "MB/s" or "IOPS".
        &gettext("{title}: a line chart. Horizontal axis: the date of each run, from {first} to {last}. Vertical axis: {unit}, from 0."),
        &[
            ("title", &title),
            ("first", &first.format("%Y-%m-%d").to_string()),
            ("last", &last.format("%Y-%m-%d").to_string()),
            ("unit", &axis_name(unit)),
        ],
    );
    for s in series {
        let (Some(oldest), Some(latest)) = (s.points.first(), s.points.last()) else {
            continue;
        };
        let low = s
            .points
            .iter()
            .map(|p| p.value)
            .fold(f64::INFINITY, f64::min);
        let high = s.points.iter().map(|p| p.value).fold(0.0_f64, f64::max);
        text.push(' ');
        text.push_str(&fill(
            &ngettext(
                "{name}: {count} run, {latest} on {date}.",
                "{name}: {count} runs, first {first}, latest {latest} on {date}, lowest {low}, highest {high}.",
                u32::try_from(s.points.len()).unwrap_or(u32::MAX),
            ),
            &[
                ("name", &s.name),
                ("count", &s.points.len()),
                ("first", &unit_text(unit, oldest.value)),
                ("latest", &unit_text(unit, latest.value)),
                ("date", &latest.when.format("%Y-%m-%d").to_string()),
                ("low", &unit_text(unit, low)),
                ("high", &unit_text(unit, high)),
            ],
        ));
        if let Some(target) = s.target {
            text.push(' ');
            text.push_str(&fill(
                &gettext("The dashed line is the A1 target, {target}."),
                &[("target", &unit_text(unit, target))],
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, value: f64) -> TrendPoint {
        TrendPoint {
            when: DateTime::parse_from_rfc3339(text).unwrap(),
            value,
        }
    }

    #[test]
    fn the_description_names_the_axes_units_figures_and_target() {
        let series = [TrendSeries {
            name: "Sequential write".into(),
            points: vec![
                at("2026-06-01T12:00:00+00:00", 12.6e6),
                at("2026-07-01T12:00:00+00:00", 6.3e6),
            ],
            target: Some(10.24e6),
        }];
        let text = describe("Sequential speed", Unit::BytesPerSecond, &series);
        assert!(
            text.contains("Horizontal axis: the date of each run, from 2026-06-01 to 2026-07-01")
        );
        assert!(text.contains("Vertical axis: MB/s"));
        assert!(text.contains("2 runs, first 12.60 MB/s, latest 6.30 MB/s on 2026-07-01"));
        assert!(
            text.contains("The dashed line is the A1 target, 10.24 MB/s."),
            "{text}"
        );
    }

    #[test]
    fn the_axis_top_leaves_room_above_the_target() {
        let series = [TrendSeries {
            name: "Random 4K write".into(),
            points: vec![at("2026-06-01T12:00:00+00:00", 100.0)],
            target: Some(500.0),
        }];
        assert_eq!(y_top(&series, Unit::Iops), 600.0);
    }
}
