//! A drive's trend chart: one line per test phase across the drive's stored runs, drawn with
//! `plotters` on cairo (so it works with `GSK_RENDERER=cairo`). The x axis is the date of
//! each run (local time), the y axis the figure in its unit (MB/s of 1 000 000 bytes per
//! second, or IOPS); one chart shows one unit, and a single run is one point. The accessible
//! label names the chart, its description says in words what the axes and each line show.

use std::cell::RefCell;

use agnostics_core::i18n::{fill, gettext, ngettext, number};
use chrono::{DateTime, FixedOffset, NaiveDateTime};
use gtk::prelude::*;
use gtk::subclass::prelude::*;
use gtk::{cairo, gdk, glib};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_cairo::CairoBackend;

use agnostics_core::figure::Unit;

use crate::format::{iops, mb_per_s};

/// Seconds in a day: the x axis counts days.
const DAY: f64 = 86_400.0;

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

/// One run's figure: when the run started and its value (bytes per second or IOPS).
#[derive(Debug, Clone, PartialEq)]
pub struct TrendPoint {
    /// When the run started, with the offset it was recorded in.
    pub when: DateTime<FixedOffset>,
    /// The figure, in the chart's unit (bandwidth in bytes per second).
    pub value: f64,
}

/// One line of the chart: a phase's figure run after run, oldest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrendSeries {
    /// The phase's name for people, e.g. "Sequential write" (the legend).
    pub name: String,
    /// Its points, oldest first.
    pub points: Vec<TrendPoint>,
}

mod imp {
    use super::*;

    #[derive(Debug, Default)]
    pub struct TrendChart {
        pub title: RefCell<String>,
        pub unit: std::cell::Cell<Unit>,
        pub series: RefCell<Vec<TrendSeries>>,
        pub description: RefCell<String>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TrendChart {
        const NAME: &'static str = "AgnosticsTrendChart";
        type Type = super::TrendChart;
        type ParentType = gtk::DrawingArea;

        fn class_init(klass: &mut Self::Class) {
            klass.set_css_name("trendchart");
            klass.set_accessible_role(gtk::AccessibleRole::Img);
        }
    }

    impl ObjectImpl for TrendChart {
        fn constructed(&self) {
            self.parent_constructed();
            let obj = self.obj();
            obj.set_content_height(220);
            obj.set_hexpand(true);
            obj.add_css_class("card");
            obj.set_draw_func(|area, cr, width, height| {
                if let Some(chart) = area.downcast_ref::<super::TrendChart>() {
                    chart.draw(cr, width, height);
                }
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

    #[allow(deprecated)] // StyleContext colours: the GTK 4.8 way; Widget::color is 4.10.
    fn palette(&self) -> (RGBAColor, Vec<RGBAColor>) {
        let style = self.style_context();
        let fg = style.color();
        let dark = fg.red() + fg.green() + fg.blue() > 1.5;
        // libadwaita's palette: blue, orange, green, purple, red; lighter shades on dark.
        let names: [(&str, &str, (u8, u8, u8)); 5] = [
            ("blue_3", "blue_2", (0x35, 0x84, 0xe4)),
            ("orange_3", "orange_2", (0xe6, 0x61, 0x00)),
            ("green_4", "green_3", (0x2e, 0xc2, 0x7e)),
            ("purple_3", "purple_2", (0x91, 0x41, 0xac)),
            ("red_3", "red_2", (0xe0, 0x1b, 0x24)),
        ];
        let lines = names
            .iter()
            .map(|(light, darker, fallback)| {
                style
                    .lookup_color(if dark { darker } else { light })
                    .map(|c| rgba(&c, 1.0))
                    .unwrap_or(RGBAColor(fallback.0, fallback.1, fallback.2, 1.0))
            })
            .collect();
        (rgba(&fg, 1.0), lines)
    }

    fn draw(&self, cr: &cairo::Context, width: i32, height: i32) {
        if width < 80 || height < 60 {
            return;
        }
        if let Err(e) = self.plot(cr, width as u32, height as u32) {
            // Nothing else to do in a draw function; the description still says it all.
            glib::g_warning!("agnostics", "trend chart: {e}");
        }
    }

    fn plot(&self, cr: &cairo::Context, width: u32, height: u32) -> Result<(), String> {
        let imp = self.imp();
        let series = imp.series.borrow();
        let unit = imp.unit.get();
        let (fg, lines) = self.palette();
        let err = |e: &dyn std::fmt::Debug| format!("{e:?}");
        let root = CairoBackend::new(cr, (width, height))
            .map_err(|e| err(&e))?
            .into_drawing_area();

        let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
        let x_desc = gettext("Date of the run");
        let family =
            super::chart_font::family_for(self, &[&[x_desc.as_str()], &names[..]].concat());
        let label_font = (family.as_str(), 12.0).into_font().color(&fg.mix(0.8));
        let desc_font = (family.as_str(), 13.0).into_font().color(&fg);
        if series.is_empty() {
            return draw_empty(&root, label_font, (width, height)).map_err(|e| err(&e));
        }

        let (x0, x1) = x_range(&series);
        let top = y_top(&series, unit);
        let span_days = x1 - x0;
        let x_labels = ((width as usize).saturating_sub(90) / 110).clamp(2, 8);
        let y_decimals = if top < 10.0 { 1 } else { 0 };
        let dates = tick_dates(&series, span_days, width);
        let legend = legend_layout(cr, &family, &series, f64::from(width) - 80.0);
        let lines_of_legend = legend.last().map_or(0, |e| e.line + 1);
        let y_axis_area = 64;

        let x_format = |x: &f64| date_label(*x, span_days);
        let y_format = |y: &f64| number(*y, y_decimals);
        let mut chart = frame(&root, lines_of_legend, y_axis_area)
            .build_cartesian_2d(x0..x1, 0.0..top)
            .map_err(|e| err(&e))?;
        // The runs' own dates are the ticks when there is room for each; else round dates.
        let own_ticks = dates.len() <= x_labels;
        chart
            .configure_mesh()
            .x_desc(x_desc.as_str())
            .y_desc(axis_name(unit))
            .x_labels(if own_ticks { 0 } else { x_labels })
            .y_labels(5)
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .label_style(label_font.clone())
            .axis_desc_style(desc_font)
            .axis_style(fg.mix(0.5))
            .bold_line_style(fg.mix(0.12))
            .light_line_style(TRANSPARENT)
            .draw()
            .map_err(|e| err(&e))?;
        let ticks: Vec<((i32, i32), String)> = if own_ticks {
            dates
                .iter()
                .map(|&d| (chart.backend_coord(&(d, 0.0)), date_label(d, span_days)))
                .collect()
        } else {
            Vec::new()
        };
        draw_lines(&mut chart, &series, unit, &lines).map_err(|e| err(&e))?;
        drop(chart);
        root.present().map_err(|e| err(&e))?;
        drop(root);
        draw_legend(
            cr,
            &family,
            &legend,
            &series,
            &fg,
            &lines,
            f64::from(y_axis_area) + 8.0,
        );
        draw_ticks(cr, &family, &ticks, &fg);
        Ok(())
    }
}

/// The plot's frame on `root`: room above it for `legend_lines` lines of legend, and
/// `y_axis_area` pixels left of it for the y axis's labels.
fn frame<'a, 'b>(
    root: &'a DrawingArea<CairoBackend<'b>, Shift>,
    legend_lines: usize,
    y_axis_area: u32,
) -> ChartBuilder<'a, 'a, CairoBackend<'b>> {
    let mut builder = ChartBuilder::on(root);
    builder
        .margin_top(12 + 18 * legend_lines as u32)
        .margin_right(36)
        .margin_left(8)
        .margin_bottom(6)
        .x_label_area_size(40)
        .y_label_area_size(y_axis_area);
    builder
}

/// Says on the empty chart (`width` × `height` pixels) that there are no runs yet.
fn draw_empty(
    root: &DrawingArea<CairoBackend<'_>, Shift>,
    font: TextStyle<'_>,
    (width, height): (u32, u32),
) -> Result<(), DrawingAreaErrorKind<cairo::Error>> {
    let at = (width as i32 / 2 - 60, height as i32 / 2 - 6);
    root.draw(&Text::new(gettext("No runs to show yet"), at, font))?;
    root.present()
}

/// The top of the y axis: a fifth above the highest figure (in the axis's unit), 1 when
/// there is none.
fn y_top(series: &[TrendSeries], unit: Unit) -> f64 {
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| plotted(unit, p.value)))
        .fold(0.0_f64, f64::max);
    if top > 0.0 {
        top * 1.2
    } else {
        1.0
    }
}

/// The runs' own dates (days on the x axis), in order, for ticks: runs closer than a tick
/// label's width (about 100 of `width` pixels across `span_days`) share one.
fn tick_dates(series: &[TrendSeries], span_days: f64, width: u32) -> Vec<f64> {
    let mut dates: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| x_of(&p.when)))
        .collect();
    dates.sort_by(f64::total_cmp);
    let min_gap = span_days * 100.0 / f64::from(width.max(1));
    dates.dedup_by(|a, b| (*a - *b).abs() < min_gap);
    dates
}

type Chart2d<'a, 'b> =
    ChartContext<'a, CairoBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws each series as a line with a dot per run.
fn draw_lines(
    chart: &mut Chart2d<'_, '_>,
    series: &[TrendSeries],
    unit: Unit,
    lines: &[RGBAColor],
) -> Result<(), DrawingAreaErrorKind<cairo::Error>> {
    for (i, s) in series.iter().enumerate() {
        let color = lines[i % lines.len()];
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .map(|p| (x_of(&p.when), plotted(unit, p.value)))
            .collect();
        chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?;
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?;
    }
    Ok(())
}

/// Where a legend entry goes: its line (0 first) and its x offset from the legend's start.
#[derive(Debug, Clone, Copy)]
struct LegendEntry {
    line: usize,
    x: f64,
}

const LEGEND_FONT: f64 = 12.0;
const SWATCH: f64 = 18.0;

fn legend_font(cr: &cairo::Context, family: &str) {
    cr.select_font_face(family, cairo::FontSlant::Normal, cairo::FontWeight::Normal);
    cr.set_font_size(LEGEND_FONT);
}

/// Lays the legend out above the plot: entries side by side, on as many lines as `room`
/// (pixels) needs, measured with cairo's own text extents.
fn legend_layout(
    cr: &cairo::Context,
    family: &str,
    series: &[TrendSeries],
    room: f64,
) -> Vec<LegendEntry> {
    let _ = cr.save();
    legend_font(cr, family);
    let mut out = Vec::new();
    let (mut line, mut x) = (0, 0.0);
    for s in series {
        let text = cr
            .text_extents(&s.name)
            .map(|e| e.x_advance())
            .unwrap_or(100.0);
        let wide = SWATCH + 6.0 + text + 18.0;
        if x > 0.0 && x + wide > room {
            line += 1;
            x = 0.0;
        }
        out.push(LegendEntry { line, x });
        x += wide;
    }
    let _ = cr.restore();
    out
}

/// The x axis's ticks at the runs' dates: a short mark and the date centred under it.
fn draw_ticks(cr: &cairo::Context, family: &str, ticks: &[((i32, i32), String)], fg: &RGBAColor) {
    let _ = cr.save();
    legend_font(cr, family);
    cr.set_source_rgba(
        f64::from(fg.0) / 255.0,
        f64::from(fg.1) / 255.0,
        f64::from(fg.2) / 255.0,
        fg.3 * 0.8,
    );
    cr.set_line_width(1.0);
    for ((x, y), text) in ticks {
        let (x, y) = (f64::from(*x) + 0.5, f64::from(*y));
        cr.move_to(x, y);
        cr.line_to(x, y + 5.0);
        let _ = cr.stroke();
        let w = cr.text_extents(text).map(|e| e.x_advance()).unwrap_or(0.0);
        cr.move_to(x - w / 2.0, y + 5.0 + LEGEND_FONT + 2.0);
        let _ = cr.show_text(text);
    }
    let _ = cr.restore();
}

fn draw_legend(
    cr: &cairo::Context,
    family: &str,
    legend: &[LegendEntry],
    series: &[TrendSeries],
    fg: &RGBAColor,
    lines: &[RGBAColor],
    left: f64,
) {
    let _ = cr.save();
    legend_font(cr, family);
    let source = |c: &RGBAColor| {
        cr.set_source_rgba(
            f64::from(c.0) / 255.0,
            f64::from(c.1) / 255.0,
            f64::from(c.2) / 255.0,
            c.3,
        )
    };
    for (i, (entry, s)) in legend.iter().zip(series).enumerate() {
        let y = 14.0 + 18.0 * entry.line as f64;
        let x = left + entry.x;
        source(&lines[i % lines.len()]);
        cr.set_line_width(3.0);
        cr.move_to(x, y - 4.0);
        cr.line_to(x + SWATCH, y - 4.0);
        let _ = cr.stroke();
        source(fg);
        cr.move_to(x + SWATCH + 6.0, y);
        let _ = cr.show_text(&s.name);
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

/// The x coordinate of a time: days since 1970-01-01 in the time's own local clock, so that
/// whole numbers fall on midnights.
fn x_of(when: &DateTime<FixedOffset>) -> f64 {
    when.naive_local().and_utc().timestamp() as f64 / DAY
}

/// The x axis's range: the runs' dates, widened to at least a day (half a day on each side of
/// a single run) and by a twentieth on each side so that the first and last points are clear
/// of the axes.
fn x_range(series: &[TrendSeries]) -> (f64, f64) {
    let xs = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| x_of(&p.when)));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
        (lo.min(x), hi.max(x))
    });
    let (lo, hi) = if hi - lo < 1.0 {
        let mid = (lo + hi) / 2.0;
        (mid - 0.5, mid + 0.5)
    } else {
        (lo, hi)
    };
    let pad = (hi - lo) / 20.0;
    (lo - pad, hi + pad)
}

/// A tick of the x axis: the date, with the time of day when the chart spans less than three
/// days.
fn date_label(x: f64, span_days: f64) -> String {
    let Some(when) = chrono::DateTime::from_timestamp((x * DAY).round() as i64, 0) else {
        return String::new();
    };
    let when: NaiveDateTime = when.naive_utc();
    if span_days < 3.0 {
        when.format("%m-%d %H:%M").to_string()
    } else {
        when.format("%Y-%m-%d").to_string()
    }
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
    fn a_single_run_spans_a_day_around_it() {
        let series = [TrendSeries {
            name: "Sequential write".into(),
            points: vec![at("2026-06-01T12:00:00+00:00", 12e6)],
        }];
        let (lo, hi) = x_range(&series);
        let x = x_of(&series[0].points[0].when);
        assert!(lo < x && x < hi);
        assert!((hi - lo - 1.1).abs() < 1e-9);
    }

    #[test]
    fn the_description_names_the_axes_units_and_figures() {
        let series = [TrendSeries {
            name: "Sequential write".into(),
            points: vec![
                at("2026-06-01T12:00:00+00:00", 12.6e6),
                at("2026-07-01T12:00:00+00:00", 6.3e6),
            ],
        }];
        let text = describe("Sequential speed", Unit::BytesPerSecond, &series);
        assert!(
            text.contains("Horizontal axis: the date of each run, from 2026-06-01 to 2026-07-01")
        );
        assert!(text.contains("Vertical axis: MB/s"));
        assert!(text.contains("2 runs, first 12.60 MB/s, latest 6.30 MB/s on 2026-07-01"));
    }

    #[test]
    fn ticks_show_the_time_of_day_only_for_short_spans() {
        let x = x_of(&DateTime::parse_from_rfc3339("2026-06-01T06:00:00+02:00").unwrap());
        assert_eq!(date_label(x, 10.0), "2026-06-01");
        assert_eq!(date_label(x, 1.0), "06-01 06:00");
    }
}
