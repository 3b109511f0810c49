//! A document's verdicts graded again from its own figures with this program's rules: what the
//! history does with every run it shows, compares or trends, and how an import finds a
//! document whose verdicts were edited (or damaged) apart from its figures.
//!
//! Grading again can only take a verdict down, never up: a check or run the document says was
//! not graded (ERROR: a cache answered, the job was not what the check claims, the card's host
//! does not queue commands) stays ERROR, because the reason is in the test, not in the
//! figures; a check marked PASS whose phase's figure is below its target is FAIL; a check with
//! no phase measured behind it is ERROR.

use super::checks::grade;
use super::counters::counters_short;
use super::not_graded::{a2_without_queueing, implausible};
use crate::report::{Report, RunReport};
use crate::verdict::{targets, Check, Standard, Verdict};

impl Report {
    /// This report with each run's checks graded again from its phases against this program's
    /// A1 and A2 targets ([`targets`]), each run's verdicts combined from them, the
    /// overall verdicts taken from the deciding run, a figure faster than the card's link
    /// not graded ([`crate::card::findings`]) and A2 not graded on a host without command
    /// queueing ([`crate::card::CardInfo::a2_not_graded_reason`]) and no run graded whose
    /// drive's own counters account for under 90 % of a phase's bytes (the phase's
    /// `device_io`), as the test itself does.
    /// A profile that only measures (NOT_GRADED) and a test that stopped with an error
    /// (ERROR) keep those verdicts. Advice and warnings are left as they are.
    pub fn regraded(&self) -> Report {
        let mut r = self.graded_from_figures();
        if r.error.is_some()
            || matches!(r.verdict, Verdict::Error | Verdict::NotGraded)
            || !r.graded
        {
            return r;
        }
        // A figure the drive's own counters did not account for was a cache's.
        if let Some(reason) = r.runs.iter().find_map(|run| counters_short(&run.phases)) {
            for run in &mut r.runs {
                run.not_graded(&reason);
            }
            r.verdict = Verdict::Error;
            r.a2_verdict = Verdict::Error;
            return r;
        }
        if implausible(&mut r).is_some() {
            r.verdict = Verdict::Error;
            r.a2_verdict = Verdict::Error;
            return r;
        }
        a2_without_queueing(&mut r);
        r
    }

    /// The checks and verdicts of this report from its figures alone: each run's checks
    /// graded again, the overall verdicts from the deciding run (ERROR after a test error,
    /// NOT_GRADED kept). The rules that need more than the figures (the link, command
    /// queueing) are [`Report::regraded`]'s.
    fn graded_from_figures(&self) -> Report {
        let mut r = self.clone();
        for run in &mut r.runs {
            regrade_run(run);
        }
        if r.error.is_some() || self.verdict == Verdict::Error {
            r.verdict = Verdict::Error;
            r.a2_verdict = Verdict::Error;
            return r;
        }
        if !r.graded || self.verdict == Verdict::NotGraded {
            return r;
        }
        match r.deciding_run().map(|d| (d.verdict, d.a2_verdict)) {
            Some((a1, a2)) => {
                r.verdict = a1;
                r.a2_verdict = a2;
            }
            None => {
                r.verdict = Verdict::Error;
                r.a2_verdict = Verdict::Error;
            }
        }
        if self.a2_verdict == Verdict::Error {
            r.a2_verdict = Verdict::Error;
        }
        r
    }

    /// Where this document's verdicts or graded values disagree with its own figures, one
    /// line each (English, for the import's refusal): `run 1: A1 seq-write: the document says
    /// PASS (10240.0 KiB/s against 10000), its figures give 1.0 KiB/s: FAIL`. Empty when the
    /// document grades as it says. A verdict the document gives worse than its figures (ERROR
    /// for a reason of the test's) is no contradiction, and only the figures are weighed: the
    /// link and command-queueing rules of [`Report::regraded`] take a verdict down when it is
    /// shown, they do not make a document another program version wrote a forgery.
    pub fn contradictions(&self) -> Vec<String> {
        let again = self.graded_from_figures();
        let mut out = Vec::new();
        for (said, run) in self.runs.iter().zip(&again.runs) {
            for c in &said.checks {
                let Some(now) = run
                    .checks
                    .iter()
                    .find(|n| n.metric == c.metric && n.standard == c.standard)
                else {
                    continue;
                };
                let value_differs = match (c.value, now.value) {
                    (Some(a), Some(b)) => !same_value(a, b),
                    (None, None) => false,
                    _ => true,
                };
                let better = rank(c.verdict) > rank(now.verdict);
                if better || (value_differs && c.verdict != Verdict::Error) {
                    out.push(format!(
                        "run {}: {} {}: the document says {} ({} {} against {}), its figures give {} {}: {}",
                        said.run,
                        c.standard.as_str(),
                        c.name,
                        c.verdict.as_str(),
                        shown(c.value),
                        c.unit.as_str(),
                        c.target,
                        shown(now.value),
                        now.unit.as_str(),
                        now.verdict.as_str()
                    ));
                }
            }
            for (standard, was, is) in [
                (Standard::A1, said.verdict, run.verdict),
                (Standard::A2, said.a2_verdict, run.a2_verdict),
            ] {
                if rank(was) > rank(is) {
                    out.push(format!(
                        "run {}: the document says {} {}, its checks give {}",
                        said.run,
                        standard.as_str(),
                        was.as_str(),
                        is.as_str()
                    ));
                }
            }
        }
        for (standard, was, is) in [
            (Standard::A1, self.verdict, again.verdict),
            (Standard::A2, self.a2_verdict, again.a2_verdict),
        ] {
            if rank(was) > rank(is) {
                out.push(format!(
                    "the document's {} verdict is {}, its runs give {}",
                    standard.as_str(),
                    was.as_str(),
                    is.as_str()
                ));
            }
        }
        out
    }
}

/// A verdict's standing: PASS above FAIL above ERROR; NOT_GRADED beside PASS (measured, no
/// grade to contradict).
fn rank(v: Verdict) -> u8 {
    match v {
        Verdict::Pass | Verdict::NotGraded => 2,
        Verdict::Fail => 1,
        Verdict::Error => 0,
    }
}

/// True when `a` and `b` are one figure computed two ways: equal to a millionth.
fn same_value(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

fn shown(value: Option<f64>) -> String {
    value.map_or_else(|| "no value".to_owned(), |v| format!("{v:.1}"))
}

/// Grades `run`'s checks again from its phases (see the module's rules).
fn regrade_run(run: &mut RunReport) {
    if run.verdict == Verdict::NotGraded && run.checks.is_empty() {
        return;
    }
    let mut checks = Vec::new();
    for standard in [Standard::A1, Standard::A2] {
        for (metric, unit, target) in targets(standard) {
            let said = run
                .checks
                .iter()
                .find(|c| c.metric == metric && c.standard == standard);
            let name = said.map_or(metric.phase(), |c| c.name.as_str()).to_owned();
            let figure = run
                .phases
                .iter()
                .find(|p| p.name == name && p.ios > 0)
                .map(|p| unit.of_phase(p));
            // The document's own value where it is the figure (to the last bits of rounding:
            // the test computes it from the same phase), so a document is shown as written.
            let value = match (said.and_then(|c| c.value), figure) {
                (Some(v), Some(f)) if same_value(v, f) => Some(v),
                _ => figure,
            };
            let (verdict, reason) = match said {
                Some(c) if c.verdict == Verdict::Error => (Verdict::Error, c.reason.clone()),
                _ => (grade(value, target), None),
            };
            checks.push(Check {
                name,
                metric,
                standard,
                value,
                unit,
                target,
                verdict,
                reason,
            });
        }
    }
    let combined = |standard: Standard| {
        Verdict::all(
            checks
                .iter()
                .filter(|c| c.standard == standard)
                .map(|c| c.verdict),
        )
    };
    let (a1, a2) = (combined(Standard::A1), combined(Standard::A2));
    run.verdict = if run.verdict == Verdict::Error {
        Verdict::Error
    } else {
        a1
    };
    run.a2_verdict = if run.a2_verdict == Verdict::Error {
        Verdict::Error
    } else {
        a2
    };
    run.checks = checks;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    /// A standard test that passed A1 and A2: 12 MiB/s sequential write, 3000 and 5000 IOPS.
    fn passing() -> Report {
        let phases = [
            sample::phase("seq-write")
                .bw_bytes(12.0 * 1048576.0)
                .iops(3.0),
            sample::phase("rand-4k-write")
                .bw_bytes(3000.0 * 4096.0)
                .iops(3000.0),
            sample::phase("rand-4k-read")
                .bw_bytes(5000.0 * 4096.0)
                .iops(5000.0),
        ]
        .map(|p| p.bytes(4096).ios(1).build());
        sample::report().run(sample::run(1, phases)).build()
    }

    #[test]
    fn a_program_made_report_grades_as_it_says() {
        let r = passing();
        assert_eq!(
            (r.verdict, r.a2_verdict),
            (Verdict::Pass, Verdict::Pass),
            "{r:?}"
        );
        assert!(r.contradictions().is_empty(), "{:?}", r.contradictions());
        assert_eq!(r.regraded(), r);
    }

    #[test]
    fn figures_edited_down_fail_and_contradict_the_verdicts() {
        let mut r = passing();
        for run in &mut r.runs {
            for p in &mut run.phases {
                p.bw_bytes = 1000.0;
                p.iops = 1.0;
            }
        }
        let again = r.regraded();
        assert_eq!(again.verdict, Verdict::Fail);
        assert_eq!(again.runs[0].verdict, Verdict::Fail);
        let c = again.runs[0].checks.iter().find(|c| c.name == "seq-write");
        assert_eq!(c.map(|c| c.verdict), Some(Verdict::Fail));
        let said = r.contradictions();
        assert!(
            said.iter()
                .any(|l| l.starts_with("run 1: A1 seq-write: the document says PASS")),
            "{said:?}"
        );
        assert!(said.iter().any(|l| l.contains("A1 verdict is PASS")));
    }

    #[test]
    fn a_check_not_graded_stays_not_graded() {
        let mut r = passing();
        r.runs[0].not_graded("a cache answered");
        r.verdict = Verdict::Error;
        r.a2_verdict = Verdict::Error;
        let again = r.regraded();
        assert_eq!(again.verdict, Verdict::Error);
        assert!(again.runs[0].checks.iter().all(
            |c| c.verdict == Verdict::Error && c.reason.as_deref() == Some("a cache answered")
        ));
        assert!(r.contradictions().is_empty());
    }

    #[test]
    fn a_missing_phase_is_error_not_pass() {
        let mut r = passing();
        r.runs[0].phases.retain(|p| p.name != "rand-4k-read");
        let again = r.regraded();
        assert_eq!(again.runs[0].verdict, Verdict::Error);
        assert_eq!(again.verdict, Verdict::Error);
        assert!(!r.contradictions().is_empty());
    }
}
