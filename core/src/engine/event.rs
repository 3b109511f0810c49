//! What a running engine tells its observer ([`Event`], on the engine's thread) and what it
//! is given to run with ([`RunContext`]: the run number, the cancel flag, the observer).

use std::sync::atomic::AtomicBool;

use super::{PhaseResult, Sample};
use crate::profile::Rw;

/// Why a run of the test follows the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rerun {
    /// The run before did not pass: the standard test runs again until one passes, as
    /// Raspberry Pi Diagnostics does.
    Failed,
    /// Another test used the drive during the run before: it was not graded, whatever its
    /// figures.
    Shared,
}

/// The line a user interface shows for run `run` of at most `runs`, with why it follows the
/// one before (translated).
pub fn run_line(run: u32, runs: u32, again: Option<Rerun>) -> String {
    use crate::i18n::{fill, gettext};
    let template = match again {
        None => gettext("Run {run} of up to {runs}"),
        // Translators: why a second test starts: upstream's test repeats up to
        // {runs} times until a run passes.
        Some(Rerun::Failed) => gettext(
            "Run {run} of up to {runs}: a test that fails is run again, as Raspberry Pi \
             Diagnostics does",
        ),
        Some(Rerun::Shared) => gettext(
            "Run {run} of up to {runs}: another test used the drive during the run before, so \
             that run was not graded and is run again",
        ),
    };
    fill(&template, &[("run", &run.max(1)), ("runs", &runs)])
}

/// What a running test tells its observer. At most about ten [`Event::Progress`] a second.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A run of the profile starts (1-based `run` of `runs`).
    RunStarted {
        /// 1-based run number.
        run: u32,
        /// How many runs at most.
        runs: u32,
        /// Why this run follows the one before it (`None` for the first).
        again: Option<Rerun>,
    },
    /// A phase starts.
    PhaseStarted {
        /// 1-based run number.
        run: u32,
        /// 0-based index of the phase in the profile.
        index: usize,
        /// Number of phases in the profile.
        count: usize,
        /// The job name.
        name: String,
        /// The job's pattern.
        rw: Rw,
        /// The job's block size, bytes.
        bs: u64,
        /// The queue depth the phase starts at (per clone; the result says the depth it
        /// ended at, which a native writing phase that starts lean may have grown to).
        iodepth: u32,
    },
    /// The running phase's progress.
    Progress {
        /// 1-based run number.
        run: u32,
        /// 0-based phase index.
        index: usize,
        /// The phase's pattern (whether IOPS or MB/s is its figure).
        rw: Rw,
        /// Fraction done, 0.0 to 1.0: the larger of bytes/size and elapsed/runtime.
        fraction: f64,
        /// Bytes so far in this phase.
        bytes: u64,
        /// I/Os so far in this phase.
        ios: u64,
        /// Seconds since the phase started.
        elapsed_s: f64,
        /// Bandwidth since the last progress event, bytes per second.
        bw_bytes: f64,
        /// IOPS since the last progress event.
        iops: f64,
    },
    /// A per-second sample of the running phase.
    Sample {
        /// 1-based run number.
        run: u32,
        /// 0-based phase index.
        index: usize,
        /// The sample.
        sample: Sample,
    },
    /// A phase ended with this result.
    PhaseFinished {
        /// 1-based run number.
        run: u32,
        /// 0-based phase index.
        index: usize,
        /// What it measured.
        result: PhaseResult,
    },
    /// A warning for the user (e.g. io_uring refused, thread pool used).
    Warning(String),
}

/// What an engine needs besides the profile: where to write, how to report, when to stop.
pub struct RunContext<'a> {
    /// 1-based run number, copied into events.
    pub run: u32,
    /// Set from another thread (or a signal handler) to stop: the engine stops submitting,
    /// waits for in-flight I/O and returns [`super::EngineError::Cancelled`].
    pub cancel: &'a AtomicBool,
    /// Receives events; called on the engine's thread.
    pub on_event: &'a (dyn Fn(Event) + Sync),
}

impl std::fmt::Debug for RunContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunContext")
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}
