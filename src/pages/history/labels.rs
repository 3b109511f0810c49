//! The History view's words for people: a run's date, a profile's title, a run's figures on
//! one line, and a drive's series as the trend charts' lines.

use agnostics_core::figure::{StandardPhase, Unit};
use agnostics_core::history::{RunSummary, SeriesPoint};
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::profile::{builtin, Builtin};
use agnostics_core::verdict::{target, Metric, Standard};
use chrono::DateTime;

use crate::format::{iops, mb_per_s};
use crate::widgets::trend_chart::{TrendPoint, TrendSeries};

/// A run's start for people, in local time: "2026-06-01 12:00" (the text as given when it
/// is not RFC 3339).
pub fn date_text(rfc3339: &str) -> String {
    local_time(rfc3339, "%Y-%m-%d %H:%M")
}

/// [`date_text`] with the seconds, for two runs of the same minute: "2026-06-01 12:00:07".
pub fn date_seconds_text(rfc3339: &str) -> String {
    local_time(rfc3339, "%Y-%m-%d %H:%M:%S")
}

/// An RFC 3339 time in local time, in chrono's `format`; the text as given when it is not
/// RFC 3339.
fn local_time(rfc3339: &str, format: &str) -> String {
    match DateTime::parse_from_rfc3339(rfc3339) {
        Ok(t) => t.with_timezone(&chrono::Local).format(format).to_string(),
        Err(_) => rfc3339.to_owned(),
    }
}

/// A profile's name for people: a built-in profile's title (found by its own name or by
/// the name of the job file it runs, e.g. `sd_bench`), else the name.
pub fn profile_title(name: &str) -> String {
    Builtin::find(name)
        .or_else(|| builtin::ALL.iter().find(|b| b.profile().name == name))
        .map(|b| b.title())
        .unwrap_or_else(|| name.to_owned())
}

/// A run's figures on one line: "write 12.34 MB/s · read 45.00 MB/s · 4K write 612 IOPS · 4K
/// read 1600 IOPS" (those it has).
pub fn run_figures(run: &RunSummary) -> String {
    let mut parts = Vec::new();
    if let Some(v) = run.seq_write_bw {
        parts.push(fill(&gettext("write {value}"), &[("value", &mb_per_s(v))]));
    }
    if let Some(v) = run.seq_read_bw {
        parts.push(fill(&gettext("read {value}"), &[("value", &mb_per_s(v))]));
    }
    if let Some(v) = run.rand_write_iops {
        parts.push(fill(&gettext("4K write {value}"), &[("value", &iops(v))]));
    }
    if let Some(v) = run.rand_read_iops {
        parts.push(fill(&gettext("4K read {value}"), &[("value", &iops(v))]));
    }
    if parts.is_empty() {
        return gettext("no figures");
    }
    parts.join(" · ")
}

/// The A1 minimum of the standard phase named `phase` (a fio job name) in `unit`, when the A1
/// class grades it: 10 000 KiB/s for sequential write, 500 and 1500 IOPS for random 4K write
/// and read; `None` for the other phases or when `unit` is not the target's kind.
pub fn a1_target(phase: &str, unit: Unit) -> Option<f64> {
    let metric = [Metric::SeqWrite, Metric::RandWrite, Metric::RandRead]
        .into_iter()
        .find(|m| StandardPhase::from_job_name(phase) == Some(m.standard_phase()))?;
    let (target_unit, value) = target(Standard::A1, metric);
    (target_unit.is_bandwidth() == unit.is_bandwidth())
        .then(|| target_unit.to_phase_figure(value) / unit.to_phase_figure(1.0))
}

/// True when the profile called `name` is graded against A1 (the standard test only): its
/// charts show the A1 targets; a Quick check's or another profile's do not.
pub fn profile_graded(name: &str) -> bool {
    Builtin::find(name)
        .or_else(|| builtin::ALL.iter().find(|b| b.profile().name == name))
        .is_some_and(|b| b.graded)
}

/// The trend charts' lines from a drive's series: per unit, one line per phase (the file's
/// preparation left out), in the order the phases first appear, with the phase's A1 target
/// when the profile charted is `graded`.
pub fn chart_series(points: &[SeriesPoint], unit: Unit, graded: bool) -> Vec<TrendSeries> {
    let mut series: Vec<(String, TrendSeries)> = Vec::new();
    for p in points.iter().filter(|p| {
        p.unit == unit && StandardPhase::from_job_name(&p.phase) != Some(StandardPhase::PrepareFile)
    }) {
        let Ok(when) = DateTime::parse_from_rfc3339(&p.started) else {
            continue;
        };
        let at = match series.iter().position(|(phase, _)| *phase == p.phase) {
            Some(at) => at,
            None => {
                series.push((
                    p.phase.clone(),
                    TrendSeries {
                        name: agnostics_core::history::phase_label(&p.phase),
                        points: Vec::new(),
                        target: a1_target(&p.phase, unit).filter(|_| graded),
                    },
                ));
                series.len() - 1
            }
        };
        series[at].1.points.push(TrendPoint {
            when,
            value: p.value,
        });
    }
    series.into_iter().map(|(_, s)| s).collect()
}
