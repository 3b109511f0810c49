//! Live progress from fio's once-a-second status snapshots: phase-started, progress and
//! sample events while fio runs, and the phases' samples and finished events at the end.

use super::jobfile::section_name;
use super::output::FioOutput;
use crate::engine::{Event, PhaseResult, RunContext, Sample};
use crate::profile::Profile;

/// Turns fio's status snapshots into phase, progress and sample events.
pub(super) struct Live<'a> {
    profile: &'a Profile,
    ctx: &'a RunContext<'a>,
    /// Phases announced with [`Event::PhaseStarted`] so far.
    started: usize,
    /// Per phase: (job_runtime ms, io_bytes, ios) at the last snapshot.
    last: Vec<(u64, u64, u64)>,
    samples: Vec<Vec<Sample>>,
}

impl<'a> Live<'a> {
    pub(super) fn new(profile: &'a Profile, ctx: &'a RunContext<'a>) -> Live<'a> {
        let n = profile.jobs.len();
        Live {
            profile,
            ctx,
            started: 0,
            last: vec![(0, 0, 0); n],
            samples: vec![Vec::new(); n],
        }
    }

    /// The name of the last phase announced as started, if any.
    pub(super) fn running_phase(&self) -> Option<&str> {
        self.started
            .checked_sub(1)
            .map(|i| self.profile.jobs[i].name.as_str())
    }

    fn start_up_to(&mut self, index: usize) {
        while self.started <= index && self.started < self.profile.jobs.len() {
            (self.ctx.on_event)(Event::PhaseStarted {
                run: self.ctx.run,
                index: self.started,
                count: self.profile.jobs.len(),
                name: self.profile.jobs[self.started].name.clone(),
                rw: self.profile.jobs[self.started].rw,
                bs: self.profile.jobs[self.started].bs,
                iodepth: self.profile.jobs[self.started].iodepth,
            });
            self.started += 1;
        }
    }

    pub(super) fn snapshot(&mut self, out: &FioOutput) {
        // The running phase: the last job (in profile order) that has begun.
        let mut running = None;
        for index in 0..self.profile.jobs.len() {
            if let Some(found) = out.job(&section_name(index)) {
                if found.job_runtime > 0 || found.io_bytes() > 0 {
                    running = Some((index, found));
                }
            }
        }
        let Some((index, found)) = running else {
            return;
        };
        self.start_up_to(index);
        let job = &self.profile.jobs[index];
        let bytes = found.io_bytes();
        let ios = [&found.read, &found.write]
            .iter()
            .filter_map(|d| d.as_ref().and_then(|d| d.total_ios))
            .sum::<u64>();
        let ms = found.job_runtime;
        let (last_ms, last_bytes, last_ios) = self.last[index];
        if ms <= last_ms {
            return;
        }
        let dt = (ms - last_ms) as f64 / 1000.0;
        let bw = bytes.saturating_sub(last_bytes) as f64 / dt;
        let iops = ios.saturating_sub(last_ios) as f64 / dt;
        self.last[index] = (ms, bytes, ios);
        let sample = Sample {
            t_s: ms as f64 / 1000.0,
            bw_bytes: bw,
            iops,
        };
        self.samples[index].push(sample);
        (self.ctx.on_event)(Event::Sample {
            run: self.ctx.run,
            index,
            sample,
        });
        let elapsed = ms as f64 / 1000.0;
        let mut fraction = bytes as f64 / job.size_bytes.max(1) as f64;
        if let Some(limit) = job.runtime.filter(|r| !r.is_zero()) {
            fraction = fraction.max(elapsed / limit.as_secs_f64());
        }
        (self.ctx.on_event)(Event::Progress {
            run: self.ctx.run,
            index,
            rw: job.rw,
            fraction: fraction.clamp(0.0, 1.0),
            bytes,
            ios,
            elapsed_s: elapsed,
            bw_bytes: bw,
            iops,
        });
    }

    /// Announces the phases fio finished (with their snapshot samples) and returns the results.
    pub(super) fn finish(mut self, mut results: Vec<PhaseResult>) -> Vec<PhaseResult> {
        for (index, result) in results.iter_mut().enumerate() {
            self.start_up_to(index);
            let mut samples = std::mem::take(&mut self.samples[index]);
            if samples.is_empty() && result.seconds > 0.0 {
                // Shorter than fio's one-second status interval: one sample for the phase.
                let sample = Sample {
                    t_s: result.seconds,
                    bw_bytes: result.bw_bytes,
                    iops: result.iops,
                };
                (self.ctx.on_event)(Event::Sample {
                    run: self.ctx.run,
                    index,
                    sample,
                });
                samples.push(sample);
            }
            result.samples = samples;
            (self.ctx.on_event)(Event::PhaseFinished {
                run: self.ctx.run,
                index,
                result: result.clone(),
            });
        }
        results
    }
}
