//! How long a profile takes on a slow card: one that just meets the A1 targets (10 MB/s
//! sequential, 500 random writes and 1500 random reads of 4 KiB a second), so that the time
//! said before a test is one a person can plan on.

use std::time::Duration;

use super::{Job, Profile, Rw};

/// Sequential bytes a second of the slow card (A1's class 10: 10 MB/s).
const SLOW_SEQUENTIAL_BYTES_PER_S: f64 = 10e6;
/// Random writes a second of the slow card (A1's minimum).
const SLOW_RANDOM_WRITE_IOPS: f64 = 500.0;
/// Random reads a second of the slow card (A1's minimum).
const SLOW_RANDOM_READ_IOPS: f64 = 1500.0;

impl Job {
    /// How long the job runs on the slow card: its ramp, then its work at the slow card's
    /// pace ([`Job::work_bytes`]), or its `runtime` when that comes first (all of it when
    /// `time_based`).
    pub fn slow_card_duration(&self) -> Duration {
        let ramp = self.ramp_time.unwrap_or_default();
        if self.time_based {
            return ramp + self.runtime.unwrap_or_default();
        }
        let per_s = match self.rw {
            Rw::Read | Rw::Write => SLOW_SEQUENTIAL_BYTES_PER_S,
            Rw::RandWrite => SLOW_RANDOM_WRITE_IOPS * self.bs as f64,
            Rw::RandRead => SLOW_RANDOM_READ_IOPS * self.bs as f64,
        };
        let work = Duration::from_secs_f64(self.work_bytes() as f64 / per_s);
        ramp + self.runtime.map_or(work, |limit| work.min(limit))
    }
}

impl Profile {
    /// How long one run of the profile takes on the slow card: its jobs one after another
    /// ([`Job::slow_card_duration`]).
    pub fn slow_card_duration(&self) -> Duration {
        self.jobs.iter().map(Job::slow_card_duration).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::builtin::Builtin;
    use std::time::Duration;

    fn seconds(name: &str) -> u64 {
        Builtin::find(name)
            .unwrap()
            .profile()
            .slow_card_duration()
            .as_secs()
    }

    #[test]
    fn a_slow_card_takes_half_a_minute_for_the_quick_check_and_two_for_the_standard_test() {
        // quick: three 32 MiB sequential passes at 10 MB/s (3.36 s each), then 5 s of each
        // random phase (32 MiB at 500 or 1500 IOPS takes longer).
        assert_eq!(seconds("quick"), 20);
        // standard: three 256 MiB passes (26.8 s each), then 10 s of each random phase.
        assert_eq!(seconds("standard"), 100);
        // qd1: a 100 MiB pass (10.5 s), then 10 s of each of the four phases.
        assert_eq!(seconds("qd1"), 50);
        let quick = Builtin::find("quick").unwrap().profile();
        assert_eq!(
            quick.jobs[0].slow_card_duration(),
            Duration::from_secs_f64(32.0 * 1024.0 * 1024.0 / 10e6)
        );
    }
}
