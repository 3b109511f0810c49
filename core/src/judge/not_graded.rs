//! Not graded, and why: a check, a run or the A2 checks left ERROR with the reason, the
//! measured values kept. The causes judged here: a cache answered (by the target's caches or
//! the drive's own counters, [`super::counters_short`]), a figure the card's link cannot
//! carry ([`crate::card::findings`]), and A2 on a host that does not queue commands.

use crate::advice::Advice;
use crate::card::{CardInfo, CommandQueueing, QueueingState};
use crate::report::{ErrorKind, ErrorReport, Report, RunReport};
use crate::target_dir::Transport;
use crate::verdict::{Check, Standard, Verdict};

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

impl RunReport {
    /// Makes the whole run ungraded: every check and both verdicts ERROR, with `reason` on
    /// each check that has none yet; the phases and measured values are kept.
    pub fn not_graded(&mut self, reason: &str) {
        for c in &mut self.checks {
            c.not_graded(reason);
        }
        self.verdict = Verdict::Error;
        self.a2_verdict = Verdict::Error;
    }

    /// Leaves the A2 checks ungraded: each ERROR with `reason` (an earlier reason kept), the
    /// A2 verdict ERROR; the A1 checks and verdict are unchanged.
    pub fn a2_not_graded(&mut self, reason: &str) {
        for c in self
            .checks
            .iter_mut()
            .filter(|c| c.standard == Standard::A2)
        {
            c.not_graded(reason);
        }
        self.a2_verdict = Verdict::Error;
    }
}

impl CardInfo {
    /// Why the A2 checks are not graded on this device, or `None` when they are: an SD card
    /// whose host does not queue commands (or where sysfs does not say) runs like an A1 card
    /// ([`CommandQueueing::a2_reason`]). Other devices are not affected.
    pub fn a2_not_graded_reason(&self) -> Option<String> {
        if self.kind != Transport::Sd {
            return None;
        }
        match &self.command_queueing {
            Some(q) => q.a2_reason(),
            None => CommandQueueing {
                state: QueueingState::Unknown,
                source: None,
                value: None,
            }
            .a2_reason(),
        }
    }
}

/// Every run not graded because a cache answered (`reason`), and, unless another error came
/// first, the test's error.
pub(crate) fn cached(report: &mut Report, reason: String) {
    for run in &mut report.runs {
        run.not_graded(&reason);
    }
    if report.error.is_none() {
        report.error = Some(ErrorReport::new(
            ErrorKind::Cached,
            reason,
            Advice::CachedResult.text(),
        ));
        report.advice.push(Advice::CachedResult);
    }
}

/// Each run with a figure the card's link cannot carry ([`crate::card::findings`]) not graded.
/// Every run is checked, not only the deciding one: no run that the link cannot carry keeps a
/// PASS anywhere (its checks, its verdicts, the compat lines, the log). The first such finding,
/// if any.
pub(crate) fn implausible(report: &mut Report) -> Option<String> {
    let mut first_implausible = None;
    for r in &mut report.runs {
        let found = crate::card::findings(report.card.as_ref(), &r.phases);
        if let Some(f) = found.iter().find(|f| f.is_implausible()) {
            let text = f.text();
            r.not_graded(&text);
            first_implausible.get_or_insert(text);
        }
    }
    first_implausible
}

/// A2 not graded on a card whose host does not queue commands
/// ([`CardInfo::a2_not_graded_reason`]): every run's A2 checks ERROR with the reason, the A2
/// verdict ERROR. Nothing changes for other devices.
pub(crate) fn a2_without_queueing(report: &mut Report) {
    if let Some(reason) = report.card.as_ref().and_then(|c| c.a2_not_graded_reason()) {
        for r in &mut report.runs {
            r.a2_not_graded(&reason);
        }
        report.a2_verdict = Verdict::Error;
    }
}
