//! The checks against A1 and A2: which job may stand for a check, and a measured figure
//! against its standard's minimum ([`crate::verdict::targets`]). A value exactly at its
//! target passes; missing data is ERROR, never PASS.

use crate::engine::PhaseResult;
use crate::verdict::{targets, Check, Metric, Standard, Verdict};

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
    use crate::figure::Unit;

    use crate::sample::measured as phase;

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
}
