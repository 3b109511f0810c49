//! A run's figures: each measured phase's bandwidth (bytes/s) or IOPS, their unit, and how
//! they are named and written for people. Pure: no I/O, no database.

use crate::figure::{down_text, StandardPhase, Unit};
use crate::report::Report;

/// One figure of a run: the fio job name, the unit ([`Unit::BytesPerSecond`] or
/// [`Unit::Iops`]), the value in that unit.
pub type Figure = (String, Unit, f64);

/// The figures of a report: each phase of its deciding run but `prepare-file`, with the
/// phase's bandwidth (sequential phases, bytes/s) or IOPS (random phases). Phases that moved
/// nothing are left out.
pub fn figures(report: &Report) -> Vec<Figure> {
    let Some(run) = report.deciding_run() else {
        return Vec::new();
    };
    run.phases
        .iter()
        .filter(|p| {
            StandardPhase::from_job_name(&p.name) != Some(StandardPhase::PrepareFile) && p.ios > 0
        })
        .filter_map(|p| {
            let unit = Unit::judging(p.rw);
            let value = unit.of_phase(p);
            (value.is_finite() && value > 0.0).then(|| (p.name.clone(), unit, value))
        })
        .collect()
}

/// For people: the figure's name (`Sequential write`, `Random 4K read`), else the job name.
pub fn phase_label(phase: &str) -> String {
    StandardPhase::from_job_name(phase).map_or_else(|| phase.to_owned(), StandardPhase::title)
}

/// For people: `6.3 MB/s` (MB = 10^6 bytes) or `1,234 IOPS`, with the locale's separators;
/// rounded down like the report's tables (499.7 IOPS is `499 IOPS`, see
/// [`crate::figure::down`]), so a figure never shows a target it missed. `value` is in `unit`.
pub fn format_figure(value: f64, unit: Unit) -> String {
    let bytes_per_s = unit.to_phase_figure(value);
    if unit.is_bandwidth() {
        format!("{} MB/s", down_text(crate::units::mb_per_s(bytes_per_s), 1))
    } else {
        format!("{} IOPS", down_text(value, 0))
    }
}

/// True for the figures the A1/A2 checks grade (`seq-write`, `rand-4k-write`, `rand-4k-read`).
pub fn is_graded_phase(phase: &str) -> bool {
    StandardPhase::from_job_name(phase).is_some_and(StandardPhase::is_graded)
}
