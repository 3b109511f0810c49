//! Where a trend chart puts its runs across: by date when the runs are far enough apart for
//! each to have its own place and label, else one run after the other, evenly spaced and each
//! labelled with its own time (runs minutes apart in a first session would otherwise fall on
//! one vertical line under one date).

use agnostics_core::i18n::{fill, gettext};
use chrono::{DateTime, FixedOffset, NaiveDateTime};

use super::trend_series::TrendSeries;

/// Seconds in a day: the date axis counts days.
const DAY: f64 = 86_400.0;

/// Pixels a date tick label needs across.
const LABEL_WIDTH: f64 = 100.0;

/// Pixels a character of a run's tick label needs across, about (12 px digits).
const CHAR_WIDTH: f64 = 7.5;

/// The x axis of a trend chart.
#[derive(Debug, Clone, PartialEq)]
pub enum XAxis {
    /// By date: x is days since 1970-01-01 in the runs' local clock, over `range`.
    Dates {
        /// The axis's first and last day.
        range: (f64, f64),
    },
    /// One run after the other: x is the run's place, 0 for the oldest, over `range`.
    Runs {
        /// Each run's start (seconds since 1970-01-01 in its local clock), oldest first.
        starts: Vec<i64>,
        /// Each run's label: its time, with the date when the runs span more than one day;
        /// no two alike.
        labels: Vec<String>,
        /// The runs' day when they are all on one, for the axis's name.
        day: Option<String>,
        /// The axis's first and last place.
        range: (f64, f64),
    },
}

/// A run's start in its own local clock, seconds since 1970-01-01.
fn local_seconds(when: &DateTime<FixedOffset>) -> i64 {
    when.naive_local().and_utc().timestamp()
}

/// The x axis for `series` on a chart `width` pixels wide: by date when every two runs are
/// at least a tick label's width apart, else by run.
pub fn x_axis(series: &[TrendSeries], width: u32) -> XAxis {
    let mut starts: Vec<i64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| local_seconds(&p.when)))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let range = date_range(&starts);
    let per_pixel = (range.1 - range.0) / f64::from(width.max(1));
    let apart = starts
        .windows(2)
        .all(|w| (w[1] - w[0]) as f64 / DAY >= LABEL_WIDTH * per_pixel);
    if starts.len() > 1 && apart {
        return XAxis::Dates { range };
    }
    let labels = run_labels(&starts);
    let day = match (starts.first(), starts.last()) {
        (Some(&a), Some(&b)) if a.div_euclid(86_400) == b.div_euclid(86_400) => {
            Some(format_seconds(a, "%Y-%m-%d"))
        }
        _ => None,
    };
    let last = starts.len().saturating_sub(1) as f64;
    XAxis::Runs {
        starts,
        labels,
        day,
        range: (-0.5, last + 0.5),
    }
}

impl XAxis {
    /// The x of a run that started `when`.
    pub fn x(&self, when: &DateTime<FixedOffset>) -> f64 {
        match self {
            XAxis::Dates { .. } => x_of(when),
            XAxis::Runs { starts, .. } => {
                let at = local_seconds(when);
                starts.partition_point(|&s| s < at) as f64
            }
        }
    }

    /// The axis's range.
    pub fn range(&self) -> (f64, f64) {
        match self {
            XAxis::Dates { range } | XAxis::Runs { range, .. } => *range,
        }
    }

    /// The axis's name: "Date of the run", or the time of the runs on their one day.
    pub fn name(&self) -> String {
        match self {
            XAxis::Runs { day: Some(day), .. } => fill(
                // Translators: the trend chart's horizontal axis when every run is on one day.
                &gettext("Time of the run, {date}"),
                &[("date", day)],
            ),
            _ => gettext("Date of the run"),
        }
    }

    /// The ticks to draw at `x`, with their labels, on a chart `width` pixels wide: each
    /// run's (every second, third … run's when there is no room for all) when by run; the
    /// runs' own dates when by date and there is room for each, else none (round dates).
    pub fn ticks(&self, series: &[TrendSeries], width: u32) -> Option<Vec<(f64, String)>> {
        let room = |label_width: f64| {
            ((f64::from(width) - 90.0) / (label_width + 10.0))
                .floor()
                .max(1.0) as usize
        };
        match self {
            XAxis::Runs { labels, .. } => {
                let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
                let every = labels
                    .len()
                    .div_ceil(room(CHAR_WIDTH * longest as f64))
                    .max(1);
                Some(
                    labels
                        .iter()
                        .enumerate()
                        .step_by(every)
                        .map(|(i, l)| (i as f64, l.clone()))
                        .collect(),
                )
            }
            XAxis::Dates { range } => {
                let span = range.1 - range.0;
                let mut dates: Vec<f64> = series
                    .iter()
                    .flat_map(|s| s.points.iter().map(|p| x_of(&p.when)))
                    .collect();
                dates.sort_by(f64::total_cmp);
                dates.dedup();
                (dates.len() <= room(LABEL_WIDTH).clamp(2, 8))
                    .then(|| dates.iter().map(|&d| (d, date_label(d, span))).collect())
            }
        }
    }

    /// The label of a round tick at `x` (by date).
    pub fn label(&self, x: f64) -> String {
        match self {
            XAxis::Dates { range } => date_label(x, range.1 - range.0),
            XAxis::Runs { labels, .. } => labels
                .get(x.round().max(0.0) as usize)
                .cloned()
                .unwrap_or_default(),
        }
    }
}

/// The runs' labels: the time of day ("14:05") when the runs are on one day, else the date
/// ("12-04", with the year when they span more than one); with the time, then the seconds,
/// when needed: the first format that tells every run apart.
fn run_labels(starts: &[i64]) -> Vec<String> {
    let (first, last) = match (starts.first(), starts.last()) {
        (Some(&a), Some(&b)) => (a, b),
        _ => return Vec::new(),
    };
    let year = |s: i64| format_seconds(s, "%Y");
    let formats: &[&str] = if first.div_euclid(86_400) == last.div_euclid(86_400) {
        &["%H:%M", "%H:%M:%S"]
    } else if year(first) == year(last) {
        &["%m-%d", "%m-%d %H:%M", "%m-%d %H:%M:%S"]
    } else {
        &["%Y-%m-%d", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"]
    };
    let labelled = |format: &str| -> Vec<String> {
        starts.iter().map(|&s| format_seconds(s, format)).collect()
    };
    formats
        .iter()
        .map(|f| labelled(f))
        .find(|labels| labels.windows(2).all(|w| w[0] != w[1]))
        .unwrap_or_else(|| labelled(formats[formats.len() - 1]))
}

fn format_seconds(seconds: i64, format: &str) -> String {
    DateTime::from_timestamp(seconds, 0)
        .map(|t| t.naive_utc().format(format).to_string())
        .unwrap_or_default()
}

/// The x coordinate of a time by date: days since 1970-01-01 in the time's own local clock, so
/// that whole numbers fall on midnights.
pub fn x_of(when: &DateTime<FixedOffset>) -> f64 {
    local_seconds(when) as f64 / DAY
}

/// The date axis's range for runs starting at `starts` (seconds): widened to at least a day
/// (half a day on each side of a single run) and by a twentieth on each side so that the
/// first and last points are clear of the axes.
fn date_range(starts: &[i64]) -> (f64, f64) {
    let (lo, hi) = match (starts.first(), starts.last()) {
        (Some(&a), Some(&b)) => (a as f64 / DAY, b as f64 / DAY),
        _ => (0.0, 0.0),
    };
    let (lo, hi) = if hi - lo < 1.0 {
        let mid = (lo + hi) / 2.0;
        (mid - 0.5, mid + 0.5)
    } else {
        (lo, hi)
    };
    let pad = (hi - lo) / 20.0;
    (lo - pad, hi + pad)
}

/// A date tick: the date, with the time of day when the chart spans less than three days.
pub fn date_label(x: f64, span_days: f64) -> String {
    let Some(when) = DateTime::from_timestamp((x * DAY).round() as i64, 0) else {
        return String::new();
    };
    let when: NaiveDateTime = when.naive_utc();
    if span_days < 3.0 {
        when.format("%m-%d %H:%M").to_string()
    } else {
        when.format("%Y-%m-%d").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::widgets::trend_chart::TrendPoint;

    fn series(times: &[&str]) -> Vec<TrendSeries> {
        vec![TrendSeries {
            name: "Sequential write".into(),
            points: times
                .iter()
                .map(|t| TrendPoint {
                    when: DateTime::parse_from_rfc3339(t).unwrap(),
                    value: 12e6,
                })
                .collect(),
            target: None,
        }]
    }

    #[test]
    fn runs_minutes_apart_are_spaced_by_run_with_their_times() {
        let s = series(&[
            "2026-12-04T10:00:00+01:00",
            "2026-12-04T10:04:00+01:00",
            "2026-12-04T10:04:30+01:00",
        ]);
        let axis = x_axis(&s, 700);
        let xs: Vec<f64> = s[0].points.iter().map(|p| axis.x(&p.when)).collect();
        assert_eq!(xs, [0.0, 1.0, 2.0]);
        let ticks = axis.ticks(&s, 700).unwrap();
        let labels: Vec<&str> = ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["10:00:00", "10:04:00", "10:04:30"]);
        assert_eq!(axis.name(), "Time of the run, 2026-12-04");
    }

    #[test]
    fn runs_months_apart_are_placed_by_date() {
        let s = series(&["2026-05-01T09:00:00+00:00", "2026-07-01T09:00:00+00:00"]);
        let axis = x_axis(&s, 700);
        assert!(matches!(axis, XAxis::Dates { .. }), "{axis:?}");
        assert_eq!(axis.name(), "Date of the run");
        let labels: Vec<String> = axis
            .ticks(&s, 700)
            .unwrap()
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(labels, ["2026-05-01", "2026-07-01"]);
    }

    #[test]
    fn close_runs_on_several_days_are_labelled_by_date_then_time() {
        let s = series(&[
            "2026-12-03T09:00:00+00:00",
            "2026-12-04T10:00:00+00:00",
            "2026-12-04T10:05:00+00:00",
        ]);
        let axis = x_axis(&s, 700);
        let labels: Vec<String> = axis
            .ticks(&s, 700)
            .unwrap()
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(labels, ["12-03 09:00", "12-04 10:00", "12-04 10:05"]);
        assert_eq!(axis.name(), "Date of the run");
    }

    #[test]
    fn a_single_run_is_one_place_in_the_middle() {
        let s = series(&["2026-06-01T12:00:00+00:00"]);
        let axis = x_axis(&s, 700);
        assert_eq!(axis.range(), (-0.5, 0.5));
        assert_eq!(axis.x(&s[0].points[0].when), 0.0);
    }

    #[test]
    fn too_many_runs_for_labels_label_every_few() {
        let times: Vec<String> = (0..20)
            .map(|i| format!("2026-12-04T10:{i:02}:00+00:00"))
            .collect();
        let refs: Vec<&str> = times.iter().map(String::as_str).collect();
        let s = series(&refs);
        let ticks = x_axis(&s, 400).ticks(&s, 400).unwrap();
        assert!(ticks.len() < 20 && ticks.len() >= 2, "{ticks:?}");
        assert_eq!(ticks[0].1, "10:00");
    }

    #[test]
    fn date_ticks_show_the_time_of_day_only_for_short_spans() {
        let x = x_of(&DateTime::parse_from_rfc3339("2026-06-01T06:00:00+02:00").unwrap());
        assert_eq!(date_label(x, 10.0), "2026-06-01");
        assert_eq!(date_label(x, 1.0), "06-01 06:00");
    }
}
