//! A phase's write depth: the buffers it runs with, and where a phase that starts lean may
//! grow to once its own first segment has shown the drive fast (see
//! [`super::buffers::write_depth`] and [`super::buffers::probe_requests`]).

use super::buffers::{self, IoBuffers, WriteDepth};
use crate::engine::DepthLimit;
use crate::profile::Job;

/// A phase's buffers at the depth it runs at, and what it may grow to.
#[derive(Debug)]
pub(super) struct Depth {
    /// The rule that chose the buffers.
    rule: WriteDepth,
    pub(super) buffers: IoBuffers,
    /// Requests in flight at most, all clones together.
    pub(super) in_flight: usize,
    /// Requests in flight the profile asks for (`iodepth` × clones).
    wanted: usize,
    /// Where a writing phase that starts lean would grow to if its first segment shows the
    /// drive fast: the requests in that segment and the fast rule.
    grow: Option<(u64, WriteDepth)>,
}

impl Depth {
    /// The depth a phase of `job` starts at, its buffers aligned to `align`: as
    /// [`buffers::write_depth`] says for `fast` and `mem` (`MemAvailable`, bytes), and, when
    /// that is lean and the fast rule would give more, a first segment of
    /// [`buffers::probe_requests`] requests to judge the drive by.
    pub(super) fn new(job: &Job, align: usize, seed: u64, fast: bool, mem: Option<u64>) -> Depth {
        // Every clone keeps its own `iodepth` requests in flight.
        let wanted = job.iodepth.max(1) as usize * job.numjobs.max(1) as usize;
        let rule = buffers::write_depth(job.bs, wanted, fast, mem);
        let full = buffers::write_depth(job.bs, wanted, true, mem);
        let grow = (job.rw.is_write() && full.buffers > rule.buffers)
            .then(|| (buffers::probe_requests(job.bs, rule.buffers), full));
        Depth::with_rule(job, align, seed, wanted, rule, grow)
    }

    fn with_rule(
        job: &Job,
        align: usize,
        seed: u64,
        wanted: usize,
        rule: WriteDepth,
        grow: Option<(u64, WriteDepth)>,
    ) -> Depth {
        // Writes in flight each need their own buffer of fresh data: as many as the rule allows.
        let buffers = IoBuffers::with_write_budget(
            job.bs as usize,
            wanted,
            align,
            job.rw.is_write(),
            seed,
            rule.budget,
        );
        let in_flight = wanted.min(buffers.max_in_flight());
        Depth {
            rule,
            buffers,
            in_flight,
            wanted,
            grow,
        }
    }

    /// Requests in the phase's first segment, after which it judges the drive; `None` when
    /// the phase runs at one depth throughout.
    pub(super) fn first_segment(&self) -> Option<u64> {
        self.grow.map(|(requests, _)| requests)
    }

    /// The depth after a first segment that showed the drive fast: the fast rule's buffers
    /// (made anew with another `seed`; the lean ones are freed first, no I/O uses them).
    pub(super) fn grown(self, job: &Job, align: usize, seed: u64) -> Depth {
        let Some((_, full)) = self.grow else {
            return self;
        };
        let wanted = self.wanted;
        drop(self);
        Depth::with_rule(job, align, seed, wanted, full, None)
    }

    /// After a first segment that did not show the drive fast: the phase keeps this depth.
    pub(super) fn keep(&mut self) {
        self.grow = None;
    }

    /// Why a writing phase ended with fewer requests in flight than its profile asks.
    pub(super) fn limit(&self, job: &Job) -> Option<DepthLimit> {
        self.rule
            .limited_by
            .filter(|_| job.rw.is_write() && self.in_flight < self.wanted)
            .map(|reason| DepthLimit {
                asked: job.iodepth.max(1),
                reason,
                budget_bytes: self.rule.budget,
            })
    }
}
