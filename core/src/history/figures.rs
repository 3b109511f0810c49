//! A run's figures: each measured phase's bandwidth (bytes/s) or IOPS, their unit, and how
//! they are named and written for people. Pure: no I/O, no database.

use serde::{Deserialize, Serialize};

use crate::engine::PhaseResult;
use crate::report::Report;

/// The unit of a figure. JSON: `bytes_per_second`, `iops`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureUnit {
    /// Bandwidth, bytes per second (sequential phases).
    BytesPerSecond,
    /// I/O operations per second (random phases).
    Iops,
}

/// One figure of a run: the fio job name, the unit, the value in that unit.
pub type Figure = (String, FigureUnit, f64);

/// The figures of a report: each phase of its deciding run but `prepare-file`, with the
/// phase's bandwidth (sequential phases, bytes/s) or IOPS (random phases). Phases that moved
/// nothing are left out.
pub fn figures(report: &Report) -> Vec<Figure> {
    let Some(run) = report.deciding_run() else {
        return Vec::new();
    };
    run.phases
        .iter()
        .filter(|p| p.name != "prepare-file" && p.ios > 0)
        .filter_map(|p| {
            let (unit, value) = figure_of(p);
            (value.is_finite() && value > 0.0).then(|| (p.name.clone(), unit, value))
        })
        .collect()
}

fn figure_of(p: &PhaseResult) -> (FigureUnit, f64) {
    if p.rw.is_random() {
        (FigureUnit::Iops, p.iops)
    } else {
        (FigureUnit::BytesPerSecond, p.bw_bytes)
    }
}

/// For people: the figure's name (`Sequential write`, `Random 4K read`), else the job name.
pub fn phase_label(phase: &str) -> String {
    use crate::i18n::gettext;
    match phase {
        "seq-write" => gettext("Sequential write"),
        "seq-read" => gettext("Sequential read"),
        "rand-4k-write" => gettext("Random 4K write"),
        "rand-4k-read" => gettext("Random 4K read"),
        other => other.to_owned(),
    }
}

/// For people: `6.3 MB/s` (MB = 10^6 bytes) or `1,234 IOPS`, with the locale's separators;
/// rounded down like the report's tables (499.7 IOPS is `499 IOPS`), so a figure never shows
/// a target it missed.
pub fn format_figure(value: f64, unit: FigureUnit) -> String {
    use crate::report::whole;
    match unit {
        // The allowance keeps 2.3 (22.999… tenths in binary) from showing as 2.2.
        FigureUnit::BytesPerSecond => format!(
            "{} MB/s",
            crate::i18n::number(whole(crate::units::mb_per_s(value) * 10.0 + 1e-7) / 10.0, 1)
        ),
        FigureUnit::Iops => format!("{} IOPS", crate::i18n::number(whole(value), 0)),
    }
}

/// True for the figures the A1/A2 checks grade (`seq-write`, `rand-4k-write`, `rand-4k-read`).
pub fn is_graded_phase(phase: &str) -> bool {
    matches!(phase, "seq-write" | "rand-4k-write" | "rand-4k-read")
}
