//! Verdicts: grading a run's phases against the SD Association's Application Performance Class
//! minimums (SD Physical Layer Simplified Specification, "Application Performance Class").
//!
//! A1: sustained sequential write 10 MB/s, random 4 KiB write 500 IOPS, random 4 KiB read 1500
//! IOPS. A2: 10 MB/s, 2000 and 4000 IOPS. Upstream agnostics checks the sequential write as
//! 10000 KiB/s (10.24 MB/s); the A1 check keeps that figure, the A2 check uses 10 MB/s.
//! A value exactly at its target passes. Missing data is ERROR, never PASS.

use serde::{Deserialize, Serialize};

use crate::engine::PhaseResult;
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

impl Check {
    /// Makes this check ungraded: ERROR with `reason`, the measured value kept. An earlier
    /// reason is kept (the first cause found is the one shown).
    pub fn not_graded(&mut self, reason: &str) {
        self.verdict = Verdict::Error;
        if self.reason.is_none() {
            self.reason = Some(reason.to_owned());
        }
    }
}

/// The smallest sequential block size graded as a sustained sequential write: 64 KiB, bytes.
///
/// Cards program flash in pages and erase in allocation units of megabytes; a write in
/// requests much smaller than 64 KiB is dominated by each command's overhead and measures
/// that, not the sustained sequential rate the SD Association's figure is about (the standard
/// test writes 4 MiB requests; Speed Class measurements use recording units of 64 KiB or more).
pub const MIN_SEQ_BS: u64 = 64 * 1024;

/// The block size of the random checks: 4 KiB, bytes.
pub const RANDOM_BS: u64 = 4096;

/// Why `job` does not measure what `metric`'s check claims, or `None` when it does.
///
/// The sequential-write check needs `rw=write` with `bs` of at least [`MIN_SEQ_BS`]; the random
/// checks need `rw=randwrite` / `rw=randread` with `bs` of exactly [`RANDOM_BS`]; every check
/// needs `direct=1` (a buffered job measures the page cache). The reason is translated text
/// naming the job, the key and its value.
pub fn job_problem(metric: Metric, job: &crate::profile::Job) -> Option<String> {
    use crate::i18n::{fill, gettext};
    use crate::profile::Rw;
    let want = match metric {
        Metric::SeqWrite => Rw::Write,
        Metric::RandWrite => Rw::RandWrite,
        Metric::RandRead => Rw::RandRead,
    };
    if job.rw != want {
        return Some(fill(
            // Translators: {job} is a fio job name, {rw} and {want} fio's rw values such as
            // "read" or "randwrite".
            &gettext(
                "job {job} has rw={rw}, not rw={want}: it does not measure what its check claims",
            ),
            &[
                ("job", &job.name),
                ("rw", &job.rw.as_fio()),
                ("want", &want.as_fio()),
            ],
        ));
    }
    let bs_ok = match metric {
        Metric::SeqWrite => job.bs >= MIN_SEQ_BS,
        Metric::RandWrite | Metric::RandRead => job.bs == RANDOM_BS,
    };
    if !bs_ok {
        let want = match metric {
            Metric::SeqWrite => gettext("at least 64 KiB"),
            Metric::RandWrite | Metric::RandRead => gettext("4 KiB"),
        };
        return Some(fill(
            // Translators: {bs} is a size in bytes; {want} is "4 KiB" or "at least 64 KiB".
            &gettext("job {job} has bs={bs} bytes; its check needs a block size of {want}"),
            &[("job", &job.name), ("bs", &job.bs), ("want", &want)],
        ));
    }
    if !job.direct {
        return Some(fill(
            &gettext("job {job} is buffered (direct=0): the page cache answers, not the drive, so it is not graded"),
            &[("job", &job.name)],
        ));
    }
    None
}

/// Grades one run's phases against a standard, requiring each graded job of `profile` to be
/// what its check claims ([`job_problem`]): a check whose job is not is ERROR with the reason,
/// its measured value kept. A job missing from the profile gives an ERROR check, as in
/// [`checks`].
pub fn checks_for(
    phases: &[PhaseResult],
    profile: &crate::profile::Profile,
    standard: Standard,
) -> Vec<Check> {
    let mut out = checks(phases, standard);
    for c in &mut out {
        if let Some(reason) = profile.job(&c.name).and_then(|j| job_problem(c.metric, j)) {
            c.not_graded(&reason);
        }
    }
    out
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

/// A measured value against a target: PASS at or above, FAIL below, ERROR when missing or not
/// a finite non-negative number.
pub fn grade(value: Option<f64>, target: f64) -> Verdict {
    match value {
        Some(v) if v.is_finite() && v >= 0.0 => {
            if v >= target {
                Verdict::Pass
            } else {
                Verdict::Fail
            }
        }
        _ => Verdict::Error,
    }
}

/// Grades one run's phases against a standard by job name alone (the phases are taken to be
/// what their names say; the test itself grades with [`checks_for`], which checks the jobs).
/// A phase that is missing, or has no I/O, gives an ERROR check.
pub fn checks(phases: &[PhaseResult], standard: Standard) -> Vec<Check> {
    targets(standard)
        .into_iter()
        .map(|(metric, unit, target)| {
            let phase = phases
                .iter()
                .find(|p| p.name == metric.phase() && p.ios > 0);
            let value = phase.map(|p| unit.of_phase(p));
            Check {
                name: metric.phase().to_owned(),
                metric,
                standard,
                value,
                unit,
                target,
                verdict: grade(value, target),
                reason: None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(name: &str, bw_bytes: f64, iops: f64) -> PhaseResult {
        crate::sample::phase(name)
            .bw_bytes(bw_bytes)
            .iops(iops)
            .bytes(1)
            .ios(1)
            .build()
    }

    #[test]
    fn seq_write_exactly_at_target_passes() {
        let c = checks(&[phase("seq-write", 10_240_000.0, 2.0)], Standard::A1);
        assert_eq!(c[0].value, Some(10_000.0));
        assert_eq!(c[0].verdict, Verdict::Pass);
        let c = checks(&[phase("seq-write", 10_239_999.0, 2.0)], Standard::A1);
        assert_eq!(c[0].verdict, Verdict::Fail);
    }

    #[test]
    fn a2_seq_write_uses_si_megabytes() {
        let c = checks(&[phase("seq-write", 10_000_000.0, 2.0)], Standard::A2);
        assert_eq!((c[0].unit, c[0].verdict), (Unit::MbPerS, Verdict::Pass));
        let c = checks(&[phase("seq-write", 10_000_000.0, 2.0)], Standard::A1);
        assert_eq!(c[0].verdict, Verdict::Fail);
    }

    #[test]
    fn iops_exactly_at_target_pass() {
        let p = [
            phase("rand-4k-write", 0.0, 500.0),
            phase("rand-4k-read", 0.0, 1500.0),
        ];
        let c = checks(&p, Standard::A1);
        assert_eq!(c[1].verdict, Verdict::Pass);
        assert_eq!(c[2].verdict, Verdict::Pass);
        let p = [
            phase("rand-4k-write", 0.0, 499.9),
            phase("rand-4k-read", 0.0, 1499.9),
        ];
        let c = checks(&p, Standard::A1);
        assert_eq!((c[1].verdict, c[2].verdict), (Verdict::Fail, Verdict::Fail));
        let c = checks(
            &[
                phase("rand-4k-write", 0.0, 2000.0),
                phase("rand-4k-read", 0.0, 3999.0),
            ],
            Standard::A2,
        );
        assert_eq!((c[1].verdict, c[2].verdict), (Verdict::Pass, Verdict::Fail));
    }

    #[test]
    fn missing_phase_is_error_never_pass() {
        let c = checks(&[], Standard::A1);
        assert!(c
            .iter()
            .all(|c| c.verdict == Verdict::Error && c.value.is_none()));
        let mut empty = phase("seq-write", 99e9, 99e9);
        empty.ios = 0;
        assert_eq!(checks(&[empty], Standard::A1)[0].verdict, Verdict::Error);
        assert_eq!(grade(Some(f64::NAN), 1.0), Verdict::Error);
    }

    #[test]
    fn combining_verdicts() {
        use Verdict::*;
        assert_eq!(Verdict::all([Pass, Pass]), Pass);
        assert_eq!(Verdict::all([Pass, Fail]), Fail);
        assert_eq!(Verdict::all([Fail, Error, Pass]), Error);
        assert_eq!(Verdict::all([]), Error);
    }
}
