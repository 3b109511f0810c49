//! Writing the sustained test's data: the plan's units in order with O_DIRECT, one request at
//! a time, each 4 KiB block a [`pattern`] block carrying its own file offset and a checksum
//! (the capacity check's block format). A second thread makes the next request's blocks while
//! the drive takes the one before, so the checksums cost the drive no time; two buffers of one
//! request each are all the memory it keeps.
//!
//! Measured: each request's latency (submission to completion, µs), each unit's time (the sum
//! of its requests'), and a sample at the first completion at least one second after the one
//! before, and one at the end: the bytes written so far and the speed since the last sample. Every speed counts the
//! time the drive had a request (the sum of the latencies, and the final fsync for the phase):
//! when making the blocks is slower than the drive (a fast SSD), the drive's waits for the next
//! block are not held against it.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::Instant;

use crate::capacity::pattern::{self, Block, BLOCK_U64};
use crate::engine::pause::PauseWatch;
use crate::engine::{EngineError, Event, LatencyUs, PhaseResult, RunContext, Sample};
use crate::profile::Rw;

use super::cliff::{self, Unit};
use super::plan::{Plan, SETTLE_SAMPLES};
use super::SpeedSample;

/// The write phase's job name.
pub const WRITE_PHASE: &str = "sustained-write";

/// What writing measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// Bytes written (whole units), u64.
    pub bytes: u64,
    /// Each unit's size and time, in order.
    pub units: Vec<Unit>,
    /// The one-second samples.
    pub samples: Vec<SpeedSample>,
    /// Each request's completion latency, µs, in order.
    pub latencies_us: Vec<f64>,
    /// True when it stopped before the plan's end because the speed had settled after a fall.
    pub settled: bool,
    /// The phase as the report's phases hold it.
    pub phase: PhaseResult,
}

/// A buffer of whole, 4 KiB-aligned pattern blocks.
pub(super) type Buffer = Vec<Block>;

/// `blocks` as bytes, for the system call.
pub(super) fn bytes_of(blocks: &[Block]) -> &[u8] {
    // SAFETY: Block is repr(C) around [u8; 4096]: a slice of them is that many bytes, aligned.
    unsafe {
        std::slice::from_raw_parts(blocks.as_ptr().cast::<u8>(), std::mem::size_of_val(blocks))
    }
}

/// `blocks` as mutable bytes, for reading into.
pub(super) fn bytes_of_mut(blocks: &mut [Block]) -> &mut [u8] {
    let len = std::mem::size_of_val(blocks);
    // SAFETY: as in `bytes_of`; every byte pattern is a valid Block.
    unsafe { std::slice::from_raw_parts_mut(blocks.as_mut_ptr().cast::<u8>(), len) }
}

/// A buffer of `bytes` (a multiple of 4 KiB) of zeroed blocks.
pub(super) fn buffer(bytes: u64) -> Buffer {
    vec![Block([0; pattern::BLOCK]); (bytes / BLOCK_U64) as usize]
}

/// The block index stored in the block at file offset `offset`.
pub(super) fn index_at(offset: u64) -> u32 {
    (offset / BLOCK_U64) as u32
}

/// Fills `buf` with the blocks of run `key` for file offsets from `offset`.
fn fill(buf: &mut Buffer, key: u64, offset: u64) {
    for (i, block) in buf.iter_mut().enumerate() {
        let at = offset + i as u64 * BLOCK_U64;
        pattern::encode(block, key, at, index_at(at));
    }
}

/// Writes the plan's units to `file` (open with O_DIRECT) for run `key`, until the plan's
/// end or until the speed has stayed down for [`SETTLE_SAMPLES`] samples after a fall; then
/// fsyncs. `index` is the phase's index for the events.
///
/// Errors: [`EngineError::Cancelled`] when `ctx.cancel` is set (checked before each
/// request); [`EngineError::Paused`] (phase `sustained-write`) as soon as a request or the
/// fsync is done after this process was stopped ([`PauseWatch`]: SIGSTOP, Ctrl+Z, a suspended
/// machine), as the standard test's phases end: the stop would count as one long write, and
/// the drive may have emptied its cache meanwhile; [`EngineError::NoSpace`],
/// [`EngineError::Io`] or [`EngineError::ReadOnly`] (phase `sustained-write`) when a write or
/// the fsync fails.
pub fn write(
    file: &File,
    plan: &Plan,
    key: u64,
    ctx: &RunContext<'_>,
    index: usize,
) -> Result<Written, EngineError> {
    started(ctx, index, 2, WRITE_PHASE, Rw::Write, plan.request_bytes);
    let (full_tx, full_rx) = mpsc::sync_channel::<(u64, Buffer)>(1);
    let (empty_tx, empty_rx) = mpsc::channel::<Buffer>();
    for _ in 0..2 {
        empty_tx
            .send(buffer(plan.request_bytes))
            .expect("receiver alive");
    }
    let request = plan.request_bytes;
    let end = plan.max_bytes;
    let pauses = PauseWatch::start();
    std::thread::scope(|s| {
        s.spawn(move || {
            let mut offset = 0;
            while offset < end {
                let Ok(mut buf) = empty_rx.recv() else { return };
                fill(&mut buf, key, offset);
                if full_tx.send((offset, buf)).is_err() {
                    return;
                }
                offset += request;
            }
        });
        let mut state = Writing::new(plan, ctx, index);
        let result = (|| {
            for (offset, buf) in full_rx.iter() {
                if ctx.cancel.load(Ordering::SeqCst) {
                    return Err(EngineError::Cancelled);
                }
                let t = Instant::now();
                file.write_all_at(bytes_of(&buf), offset)
                    .map_err(|e| EngineError::from_io(WRITE_PHASE, "write", e))?;
                let seconds = t.elapsed().as_secs_f64();
                not_paused(&pauses, WRITE_PHASE)?;
                let done = state.completed(seconds);
                // The generator may already have stopped at the plan's end.
                let _ = empty_tx.send(buf);
                if done {
                    break;
                }
            }
            let t = Instant::now();
            file.sync_all()
                .map_err(|e| EngineError::from_io(WRITE_PHASE, "fsync", e))?;
            let seconds = t.elapsed().as_secs_f64();
            not_paused(&pauses, WRITE_PHASE)?;
            Ok(seconds)
        })();
        // Dropping the channels' ends stops the generator wherever it waits.
        drop(full_rx);
        drop(empty_tx);
        result.map(|fsync_s| state.finish(fsync_s))
    })
}

/// Err([`EngineError::Paused`]) for `phase` when `pauses` has found this process stopped
/// since it started: a phase during which it was stopped has not measured the drive.
pub(super) fn not_paused(pauses: &PauseWatch, phase: &str) -> Result<(), EngineError> {
    let stopped = pauses.stopped();
    if stopped.is_zero() {
        return Ok(());
    }
    Err(EngineError::Paused {
        phase: phase.to_owned(),
        stopped_s: stopped.as_secs(),
    })
}

/// Says that phase `index` of `count` starts.
pub(super) fn started(
    ctx: &RunContext<'_>,
    index: usize,
    count: usize,
    name: &str,
    rw: Rw,
    bs: u64,
) {
    (ctx.on_event)(Event::PhaseStarted {
        run: ctx.run,
        index,
        count,
        name: name.to_owned(),
        rw,
        bs,
        iodepth: 1,
    });
}

/// The write phase as it goes.
struct Writing<'a> {
    plan: &'a Plan,
    ctx: &'a RunContext<'a>,
    index: usize,
    start: Instant,
    bytes: u64,
    unit: Unit,
    units: Vec<Unit>,
    latencies_us: Vec<f64>,
    samples: Vec<SpeedSample>,
    engine_samples: Vec<Sample>,
    /// Seconds the drive had a request, so far.
    busy: f64,
    /// When the last sample was taken, and the bytes, requests and busy seconds then.
    last_sample: (Instant, u64, u64, f64),
    last_progress: Instant,
    settled: bool,
}

impl<'a> Writing<'a> {
    fn new(plan: &'a Plan, ctx: &'a RunContext<'a>, index: usize) -> Writing<'a> {
        let now = Instant::now();
        Writing {
            plan,
            ctx,
            index,
            start: now,
            bytes: 0,
            unit: Unit {
                bytes: 0,
                seconds: 0.0,
            },
            units: Vec::new(),
            latencies_us: Vec::new(),
            samples: Vec::new(),
            engine_samples: Vec::new(),
            busy: 0.0,
            last_sample: (now, 0, 0, 0.0),
            last_progress: now,
            settled: false,
        }
    }

    /// One request of the plan's size completed in `seconds`; true when the test has written
    /// enough (the plan's end, or the speed settled after a fall).
    fn completed(&mut self, seconds: f64) -> bool {
        self.bytes += self.plan.request_bytes;
        self.latencies_us.push(seconds * 1e6);
        self.busy += seconds;
        self.unit.bytes += self.plan.request_bytes;
        self.unit.seconds += seconds;
        if self.unit.bytes >= self.plan.unit_bytes {
            self.units.push(self.unit);
            self.unit = Unit {
                bytes: 0,
                seconds: 0.0,
            };
        }
        let now = Instant::now();
        if now.duration_since(self.last_progress).as_secs_f64() >= 0.1 {
            self.last_progress = now;
            self.progress(now);
        }
        if now.duration_since(self.last_sample.0).as_secs_f64() >= 1.0 {
            self.sample(now);
            self.settled = self.has_settled();
            if self.settled {
                return true;
            }
        }
        self.bytes >= self.plan.max_bytes
    }

    fn progress(&self, now: Instant) {
        let busy = self.busy.max(1e-9);
        (self.ctx.on_event)(Event::Progress {
            run: self.ctx.run,
            index: self.index,
            rw: Rw::Write,
            fraction: self.bytes as f64 / self.plan.max_bytes as f64,
            bytes: self.bytes,
            ios: self.latencies_us.len() as u64,
            elapsed_s: now.duration_since(self.start).as_secs_f64(),
            bw_bytes: self.bytes as f64 / busy,
            iops: self.latencies_us.len() as f64 / busy,
        });
    }

    fn sample(&mut self, now: Instant) {
        let (_, bytes, ios, busy) = self.last_sample;
        let dt = (self.busy - busy).max(1e-9);
        let ios_now = self.latencies_us.len() as u64;
        let speed = (self.bytes - bytes) as f64 / dt;
        self.samples.push(SpeedSample {
            bytes: self.bytes,
            bytes_per_second: speed,
        });
        let sample = Sample {
            t_s: now.duration_since(self.start).as_secs_f64(),
            bw_bytes: speed,
            iops: (ios_now - ios) as f64 / dt,
        };
        self.engine_samples.push(sample);
        (self.ctx.on_event)(Event::Sample {
            run: self.ctx.run,
            index: self.index,
            sample,
        });
        self.last_sample = (now, self.bytes, ios_now, self.busy);
    }

    /// True when the units show a cliff and [`SETTLE_SAMPLES`] samples ended after it.
    fn has_settled(&self) -> bool {
        cliff::find(&self.units).is_some_and(|c| {
            self.samples.iter().filter(|s| s.bytes > c.bytes).count() >= SETTLE_SAMPLES
        })
    }

    /// The phase's result, `fsync_s` the final fsync's seconds.
    fn finish(mut self, fsync_s: f64) -> Written {
        // The last stretch, shorter than a second, is a sample too.
        if self.bytes > self.last_sample.1 {
            self.sample(Instant::now());
        }
        let seconds = self.busy + fsync_s;
        let ios = self.latencies_us.len() as u64;
        let phase = PhaseResult {
            name: WRITE_PHASE.to_owned(),
            rw: Rw::Write,
            bs: self.plan.request_bytes,
            iodepth: 1,
            bytes: self.bytes,
            ios,
            seconds,
            bw_bytes: self.bytes as f64 / seconds.max(1e-9),
            iops: ios as f64 / seconds.max(1e-9),
            lat_us: latency(&self.latencies_us),
            samples: self.engine_samples,
            ..PhaseResult::default()
        };
        (self.ctx.on_event)(Event::PhaseFinished {
            run: self.ctx.run,
            index: self.index,
            result: phase.clone(),
        });
        Written {
            bytes: self.bytes,
            units: self.units,
            samples: self.samples,
            latencies_us: self.latencies_us,
            settled: self.settled,
            phase,
        }
    }
}

/// p50, p99 (nearest rank) and max of `values_us`, µs; zeros when empty.
pub fn latency(values_us: &[f64]) -> LatencyUs {
    let mut v = values_us.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = |p: f64| -> f64 {
        if v.is_empty() {
            return 0.0;
        }
        let i = ((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
        v[i]
    };
    LatencyUs {
        p50: rank(50.0),
        p99: rank(99.0),
        max: v.last().copied().unwrap_or(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_percentiles_by_nearest_rank() {
        let values: Vec<f64> = (1..=200).map(f64::from).collect();
        let l = latency(&values);
        assert_eq!((l.p50, l.p99, l.max), (100.0, 198.0, 200.0));
        assert_eq!(latency(&[]), LatencyUs::default());
        assert_eq!(latency(&[7.0]).p99, 7.0);
    }

    #[test]
    fn blocks_carry_their_own_offsets() {
        let mut buf = buffer(3 * BLOCK_U64);
        fill(&mut buf, 11, 8 * BLOCK_U64);
        for (i, b) in buf.iter().enumerate() {
            let at = (8 + i as u64) * BLOCK_U64;
            assert_eq!(
                pattern::decode(b, 11),
                pattern::Content::Ours {
                    address: at,
                    index: index_at(at)
                }
            );
        }
        assert_eq!(bytes_of(&buf).len(), 3 * 4096);
        assert_eq!(bytes_of(&buf).as_ptr() as usize % 4096, 0);
    }
}
