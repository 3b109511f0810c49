//! Reading the sustained test's data back: every byte written, with O_DIRECT (from the drive,
//! not from memory), each 4 KiB block decoded by the capacity check's [`pattern::decode`] and
//! held to the offset and index it was written for. A block that reads back otherwise (another
//! address, damaged, zeros) counts as corrupt: the drive returned wrong data without an error.
//! A file that ends early counts its missing blocks as corrupt too. The speed counts the time
//! the drive had a request, as writing's does.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::capacity::pattern::{self, Content, BLOCK_U64};
use crate::engine::pause::PauseWatch;
use crate::engine::{EngineError, Event, PhaseResult, RunContext};
use crate::profile::Rw;

use super::measure::{buffer, bytes_of_mut, index_at, latency, not_paused, started};

/// The read-back phase's job name.
pub const VERIFY_PHASE: &str = "sustained-verify";

/// What reading back found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// Bytes read back that held exactly what was written, u64.
    pub bytes: u64,
    /// 4 KiB blocks that did not (wrong address, damaged, zeros or missing), u64.
    pub corrupt_blocks: u64,
    /// The file offset of the first corrupt block, bytes.
    pub first_corrupt: Option<u64>,
    /// The phase as the report's phases hold it.
    pub phase: PhaseResult,
}

/// Whether the block at file offset `at` is what run `key` wrote there.
fn holds(block: &pattern::Block, key: u64, at: u64) -> bool {
    pattern::decode(block, key)
        == Content::Ours {
            address: at,
            index: index_at(at),
        }
}

/// Reads `bytes` (a multiple of `request_bytes`, itself of 4 KiB) back from `file` (open with
/// O_DIRECT) in requests of `request_bytes` and checks every block of run `key`. `index` is
/// the phase's index for the events.
///
/// Errors: [`EngineError::Cancelled`] when `ctx.cancel` is set (checked before each request);
/// [`EngineError::Paused`] (phase `sustained-verify`) as soon as a read is done after this
/// process was stopped, as in writing ([`super::measure::write`]); [`EngineError::Io`]
/// (phase `sustained-verify`, op `read`) when a read fails.
pub fn verify(
    file: &File,
    bytes: u64,
    request_bytes: u64,
    key: u64,
    ctx: &RunContext<'_>,
    index: usize,
) -> Result<Verified, EngineError> {
    started(ctx, index, 2, VERIFY_PHASE, Rw::Read, request_bytes);
    let pauses = PauseWatch::start();
    let start = Instant::now();
    let mut last_progress = start;
    let mut buf = buffer(request_bytes);
    let mut good = 0;
    let mut corrupt = 0;
    let mut first_corrupt = None;
    let mut latencies = Vec::new();
    let mut offset = 0;
    while offset < bytes {
        if ctx.cancel.load(Ordering::SeqCst) {
            return Err(EngineError::Cancelled);
        }
        let t = Instant::now();
        let got = read_fully(file, &mut buf, offset)?;
        not_paused(&pauses, VERIFY_PHASE)?;
        latencies.push(t.elapsed().as_secs_f64() * 1e6);
        for (i, block) in buf.iter().enumerate() {
            let at = offset + i as u64 * BLOCK_U64;
            if (i as u64) < got / BLOCK_U64 && holds(block, key, at) {
                good += BLOCK_U64;
            } else {
                corrupt += 1;
                first_corrupt.get_or_insert(at);
            }
        }
        offset += request_bytes;
        if last_progress.elapsed().as_secs_f64() < 0.1 && offset < bytes {
            continue;
        }
        last_progress = Instant::now();
        progress(ctx, index, (offset, bytes), &latencies, start);
    }
    let seconds = latencies.iter().sum::<f64>() / 1e6;
    let ios = latencies.len() as u64;
    let phase = PhaseResult {
        name: VERIFY_PHASE.to_owned(),
        rw: Rw::Read,
        bs: request_bytes,
        iodepth: 1,
        bytes,
        ios,
        seconds,
        bw_bytes: bytes as f64 / seconds.max(1e-9),
        iops: ios as f64 / seconds.max(1e-9),
        lat_us: latency(&latencies),
        ..PhaseResult::default()
    };
    (ctx.on_event)(Event::PhaseFinished {
        run: ctx.run,
        index,
        result: phase.clone(),
    });
    Ok(Verified {
        bytes: good,
        corrupt_blocks: corrupt,
        first_corrupt,
        phase,
    })
}

/// Says how far reading back is: `done` of `bytes` read, with `latencies_us` the reads' so
/// far, since `start`.
fn progress(
    ctx: &RunContext<'_>,
    index: usize,
    (done, bytes): (u64, u64),
    latencies_us: &[f64],
    start: Instant,
) {
    let busy = latencies_us.iter().sum::<f64>() / 1e6;
    (ctx.on_event)(Event::Progress {
        run: ctx.run,
        index,
        rw: Rw::Read,
        fraction: done as f64 / bytes as f64,
        bytes: done,
        ios: latencies_us.len() as u64,
        elapsed_s: start.elapsed().as_secs_f64(),
        bw_bytes: done as f64 / busy.max(1e-9),
        iops: latencies_us.len() as f64 / busy.max(1e-9),
    });
}

/// Reads into all of `buf` from `offset`, short only at the end of the file; the bytes read.
fn read_fully(file: &File, buf: &mut [pattern::Block], offset: u64) -> Result<u64, EngineError> {
    let bytes = bytes_of_mut(buf);
    let mut done = 0;
    while done < bytes.len() {
        match file.read_at(&mut bytes[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(EngineError::from_io(VERIFY_PHASE, "read", e)),
        }
    }
    Ok(done as u64)
}
