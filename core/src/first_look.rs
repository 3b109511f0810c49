//! What a Quick check's figures suggest, for the step after it: the Quick check is not graded
//! (its file is small, so a card's cache can flatter it), but a novice still asks whether the
//! figures are good. Each of the standard test's graded figures the Quick check measured is
//! set beside the A1 target it would be graded against, in words, with the next step: run the
//! standard test, the only one that grades.

use crate::history::{format_figure, phase_label};
use crate::i18n::{fill, gettext};
use crate::judge;
use crate::report::Report;
use crate::verdict::{Check, Standard, Verdict};

/// The name of the profile whose runs get a first look: the Quick check.
pub const QUICK: &str = "quick";

/// A Quick check's figures against the A1 targets: a hint, not a grade.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstLook {
    /// The A1 checks of the Quick check's run (value, unit, target; PASS at or above the
    /// target, FAIL below), in the standard order: sequential write, random write, random read.
    pub checks: Vec<Check>,
}

/// The first look at `report`: `Some` for a Quick check that ran without an error and measured
/// every figure A1 grades; `None` for any other report (a graded test has its verdict).
pub fn first_look(report: &Report) -> Option<FirstLook> {
    if report.profile.name != QUICK || report.error.is_some() || report.graded {
        return None;
    }
    let run = report.deciding_run().or_else(|| report.runs.last())?;
    let checks = judge::checks(&run.phases, Standard::A1);
    checks
        .iter()
        .all(|c| c.value.is_some())
        .then_some(FirstLook { checks })
}

impl FirstLook {
    /// The figures below their A1 target.
    pub fn below(&self) -> Vec<&Check> {
        self.checks
            .iter()
            .filter(|c| c.verdict == Verdict::Fail)
            .collect()
    }

    /// What the figures suggest and what to do next, in words (translated): "A first look,
    /// not a grade: Random 4K read 705 IOPS is below the 1500 IOPS A1 asks for. Run the
    /// standard test to grade this drive."
    pub fn text(&self) -> String {
        let below = self.below();
        if below.is_empty() {
            return gettext(
                "A first look, not a grade: every figure meets the A1 targets. Run the standard test to grade this drive.",
            );
        }
        let figures: Vec<String> = below
            .iter()
            .map(|c| {
                fill(
                    // Translators: one figure of a Quick check, e.g. "Random 4K read 705 IOPS
                    // is below the 1500 IOPS A1 asks for".
                    &gettext("{figure} {value} is below the {target} A1 asks for"),
                    &[
                        ("figure", &phase_label(&c.name)),
                        ("value", &format_figure(c.value.unwrap_or(0.0), c.unit)),
                        ("target", &format_figure(c.target, c.unit)),
                    ],
                )
            })
            .collect();
        fill(
            &gettext(
                "A first look, not a grade: {figures}. Run the standard test to grade this drive.",
            ),
            &[("figures", &figures.join("; "))],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    fn quick(seq_write_bytes: f64, rand_write: f64, rand_read: f64) -> Report {
        let mut report = sample::report()
            .run(sample::run(
                1,
                [
                    sample::phase("seq-write").bw_bytes(seq_write_bytes),
                    sample::phase("rand-4k-write").iops(rand_write),
                    sample::phase("rand-4k-read").iops(rand_read),
                ],
            ))
            .build();
        report.profile.name = QUICK.to_owned();
        report.graded = false;
        report.verdict = Verdict::NotGraded;
        for run in &mut report.runs {
            run.verdict = Verdict::NotGraded;
        }
        report
    }

    #[test]
    fn a_quick_check_below_a1_says_which_figure_and_the_next_step() {
        let look = first_look(&quick(20e6, 900.0, 705.0)).expect("a Quick check");
        let below: Vec<&str> = look.below().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(below, ["rand-4k-read"]);
        assert_eq!(
            look.text(),
            "A first look, not a grade: Random 4K read 705 IOPS is below the 1500 IOPS A1 \
             asks for. Run the standard test to grade this drive."
        );
    }

    #[test]
    fn a_quick_check_meeting_a1_still_points_to_the_standard_test() {
        let look = first_look(&quick(20e6, 900.0, 2000.0)).expect("a Quick check");
        assert!(look.below().is_empty());
        assert!(look.text().contains("every figure meets the A1 targets"));
        assert!(look
            .text()
            .ends_with("Run the standard test to grade this drive."));
    }

    #[test]
    fn only_a_quick_check_that_measured_gets_a_first_look() {
        let mut standard = quick(20e6, 900.0, 705.0);
        standard.profile.name = "sd_bench".to_owned();
        standard.graded = true;
        assert_eq!(first_look(&standard), None);
        let mut failed = quick(20e6, 900.0, 705.0);
        failed.error = Some(sample::error(crate::report::ErrorKind::Io, "x"));
        assert_eq!(first_look(&failed), None);
    }
}
