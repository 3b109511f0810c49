//! The words of a verdict and the standards it is given against: PASS, FAIL, ERROR and
//! NOT_GRADED, the SD Association's Application Performance Classes and their minimums (SD
//! Physical Layer Simplified Specification, "Application Performance Class"), and one graded
//! figure ([`Check`]). The rules that apply them are [`crate::judge`]'s.
//!
//! A1: sustained sequential write 10 MB/s, random 4 KiB write 500 IOPS, random 4 KiB read 1500
//! IOPS. A2: 10 MB/s, 2000 and 4000 IOPS. Upstream agnostics checks the sequential write as
//! 10000 KiB/s (10.24 MB/s); the A1 check keeps that figure, the A2 check uses 10 MB/s.

use serde::{Deserialize, Serialize};

use crate::exit_code::ExitCode;
use crate::figure::{StandardPhase, Unit};

/// PASS, FAIL or ERROR, serialised as upstream spells them; NOT_GRADED for a profile that only
/// measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The measurement meets the target.
    #[serde(rename = "PASS")]
    Pass,
    /// The measurement is below the target.
    #[serde(rename = "FAIL")]
    Fail,
    /// There is no trustworthy measurement (missing, failed or implausible).
    #[serde(rename = "ERROR")]
    Error,
    /// Measured, not graded: a profile that only measures (`quick`, `qd1`, `matrix`); only the
    /// standard test is graded against A1/A2.
    #[serde(rename = "NOT_GRADED")]
    NotGraded,
}

impl Verdict {
    /// `PASS`, `FAIL`, `ERROR` or `NOT_GRADED` (the untranslated form of upstream's log and compat lines).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Error => "ERROR",
            Verdict::NotGraded => "NOT_GRADED",
        }
    }

    /// Combines verdicts: ERROR if any is ERROR (or NOT_GRADED, which no check is), else FAIL
    /// if any is FAIL, else PASS. An empty list is ERROR (nothing was measured).
    pub fn all<I: IntoIterator<Item = Verdict>>(verdicts: I) -> Verdict {
        let mut seen = false;
        let mut out = Verdict::Pass;
        for v in verdicts {
            seen = true;
            match (out, v) {
                (_, Verdict::Error | Verdict::NotGraded) => return Verdict::Error,
                (_, Verdict::Fail) => out = Verdict::Fail,
                _ => {}
            }
        }
        if seen {
            out
        } else {
            Verdict::Error
        }
    }
}

impl Verdict {
    /// The exit status of a command this verdict ends: PASS and NOT_GRADED (every job of a
    /// profile that only measures measured) [`ExitCode::Success`], FAIL [`ExitCode::Failed`],
    /// ERROR [`ExitCode::NoVerdict`].
    pub fn exit_code(self) -> ExitCode {
        match self {
            Verdict::Pass | Verdict::NotGraded => ExitCode::Success,
            Verdict::Fail => ExitCode::Failed,
            Verdict::Error => ExitCode::NoVerdict,
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The SD Association's Application Performance Classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standard {
    /// Application Performance Class 1.
    A1,
    /// Application Performance Class 2 (needs host command queueing and cache, e.g. Pi 5).
    A2,
}

impl Standard {
    /// `A1` or `A2`, as the SD Association names the classes.
    pub fn as_str(self) -> &'static str {
        match self {
            Standard::A1 => "A1",
            Standard::A2 => "A2",
        }
    }
}

/// What a check measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Sequential write bandwidth of the `seq-write` phase.
    SeqWrite,
    /// Random 4 KiB write IOPS of the `rand-4k-write` phase.
    RandWrite,
    /// Random 4 KiB read IOPS of the `rand-4k-read` phase.
    RandRead,
}

impl Metric {
    /// The standard test's phase the metric is read from.
    pub fn standard_phase(self) -> StandardPhase {
        match self {
            Metric::SeqWrite => StandardPhase::SeqWrite,
            Metric::RandWrite => StandardPhase::Rand4kWrite,
            Metric::RandRead => StandardPhase::Rand4kRead,
        }
    }

    /// The profile job (fio job name) the metric is read from: `seq-write`, `rand-4k-write`,
    /// `rand-4k-read`.
    pub fn phase(self) -> &'static str {
        self.standard_phase().job_name()
    }
}

/// One graded figure of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The phase (fio job name) graded, e.g. `seq-write`.
    pub name: String,
    /// What is measured.
    pub metric: Metric,
    /// A1 or A2.
    pub standard: Standard,
    /// The measured value in `unit`; `None` when there is no measurement (then ERROR).
    pub value: Option<f64>,
    /// The unit of `value` and `target`.
    pub unit: Unit,
    /// The minimum that passes, in `unit`.
    pub target: f64,
    /// PASS when `value >= target`, FAIL below, ERROR without a value or when the figure
    /// cannot be graded (see `reason`).
    pub verdict: Verdict,
    /// Why the check is ERROR although it may have a value: the job is not what the check
    /// claims (direction, pattern, block size, buffered I/O), a cache answered, or the figure
    /// is faster than the link can carry. Translated text for people; null when graded.
    #[serde(default)]
    pub reason: Option<String>,
}

/// The targets of one standard: (metric, unit, minimum).
pub fn targets(standard: Standard) -> [(Metric, Unit, f64); 3] {
    match standard {
        Standard::A1 => [
            (Metric::SeqWrite, Unit::KibPerS, 10_000.0),
            (Metric::RandWrite, Unit::Iops, 500.0),
            (Metric::RandRead, Unit::Iops, 1500.0),
        ],
        Standard::A2 => [
            (Metric::SeqWrite, Unit::MbPerS, 10.0),
            (Metric::RandWrite, Unit::Iops, 2000.0),
            (Metric::RandRead, Unit::Iops, 4000.0),
        ],
    }
}

/// The target of `metric` under `standard`: its unit and minimum (see [`targets`]).
pub fn target(standard: Standard, metric: Metric) -> (Unit, f64) {
    targets(standard)
        .into_iter()
        .find(|(m, _, _)| *m == metric)
        .map(|(_, unit, value)| (unit, value))
        .expect("every standard has a target for every metric")
}

/// The random 4 KiB minimums of `standard`: (read IOPS, write IOPS), e.g. (1500, 500) for A1.
pub fn class_iops(standard: Standard) -> (f64, f64) {
    (
        target(standard, Metric::RandRead).1,
        target(standard, Metric::RandWrite).1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combining_verdicts() {
        use Verdict::*;
        assert_eq!(Verdict::all([Pass, Pass]), Pass);
        assert_eq!(Verdict::all([Pass, Fail]), Fail);
        assert_eq!(Verdict::all([Fail, Error, Pass]), Error);
        assert_eq!(Verdict::all([]), Error);
    }
}
