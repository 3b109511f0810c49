//! The grading of one run of a profile: each graded job against A1 then A2, each run's
//! verdict combining its standard's checks; a profile that only measures is NOT_GRADED.

use super::checks::{checks, checks_for};
use crate::engine::PhaseResult;
use crate::report::RunReport;
use crate::verdict::{Check, Standard, Verdict};

impl RunReport {
    /// Grades `phases` and builds the run's report.
    pub fn grade(run: u32, phases: Vec<PhaseResult>) -> RunReport {
        let a1 = checks(&phases, Standard::A1);
        let a2 = checks(&phases, Standard::A2);
        RunReport::from_checks(run, phases, a1, a2)
    }

    /// Grades `phases` as the test does: like [`RunReport::grade`], but a check whose job in
    /// `profile` is not what the check claims (direction, pattern, block size, `direct=1`) is
    /// ERROR with the reason (see [`super::job_problem`]).
    pub fn grade_profile(
        run: u32,
        phases: Vec<PhaseResult>,
        profile: &crate::profile::Profile,
    ) -> RunReport {
        let a1 = checks_for(&phases, profile, Standard::A1);
        let a2 = checks_for(&phases, profile, Standard::A2);
        RunReport::from_checks(run, phases, a1, a2)
    }

    /// The run with its A1 checks then its A2 checks, each verdict combining its standard's.
    fn from_checks(
        run: u32,
        phases: Vec<PhaseResult>,
        a1: Vec<Check>,
        a2: Vec<Check>,
    ) -> RunReport {
        let verdict = Verdict::all(a1.iter().map(|c| c.verdict));
        let a2_verdict = Verdict::all(a2.iter().map(|c| c.verdict));
        let mut checks = a1;
        checks.extend(a2);
        RunReport {
            run,
            verdict,
            a2_verdict,
            phases,
            checks,
        }
    }

    /// A run of a profile that only measures: verdicts NOT_GRADED, no checks.
    pub fn measured(run: u32, phases: Vec<PhaseResult>) -> RunReport {
        RunReport {
            run,
            verdict: Verdict::NotGraded,
            a2_verdict: Verdict::NotGraded,
            phases,
            checks: Vec::new(),
        }
    }
}
