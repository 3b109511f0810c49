//! Writing the spots and reading them back: the part both modes share. The caller gives the
//! way to a spot ([`SpotIo`]: the program's file at the spot's offset in it, or the device at
//! the spot's address); every read and write is one 4 KiB block with O_DIRECT.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::pattern::{decode, encode, Block, Content, BLOCK_U64};
use super::plan::{Plan, Spot};
use super::{CapacityError, Event, Found, Phase, UnsureReason};

/// How many reads a spot that read wrong gets in all: the first and two more.
pub const READS: usize = 3;
/// Progress is told every this many spots.
const TELL_EVERY: usize = 32;

/// The way to the spots of one check.
pub trait SpotIo {
    /// Reads the 4 KiB block of `spot` into `buf`.
    fn read(&mut self, spot: &Spot, buf: &mut Block) -> io::Result<()>;
    /// Writes `buf` as the 4 KiB block of `spot`.
    fn write(&mut self, spot: &Spot, buf: &Block) -> io::Result<()>;
    /// Makes every write so far durable on the drive (fdatasync).
    fn flush(&mut self) -> io::Result<()>;
    /// What is written to, for messages (`/dev/sdb`, a file's path).
    fn name(&self) -> String;
}

/// What one spot read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading {
    /// The spot.
    pub spot: Spot,
    /// What its (first) read found.
    pub found: Found,
    /// Set when its reads disagreed or failed.
    pub unsure: Option<UnsureReason>,
}

/// What a block read at `spot` holds, for the run `key`.
pub fn classify(block: &Block, spot: &Spot, key: u64) -> Found {
    match decode(block, key) {
        Content::Ours { address, .. } if address == spot.address => Found::Intact,
        Content::Ours { address, .. } => Found::Wrapped { holds: address },
        Content::OtherRun { .. } => Found::Stale,
        Content::Zeros => Found::Zeros,
        Content::Garbage => Found::Garbage,
    }
}

fn stopped(cancel: &AtomicBool) -> Result<(), CapacityError> {
    if cancel.load(Ordering::SeqCst) {
        Err(CapacityError::Cancelled)
    } else {
        Ok(())
    }
}

fn tell(on_event: &mut dyn FnMut(Event), phase: Phase, done: usize, total: usize) {
    if done % TELL_EVERY == 0 || done == total {
        on_event(Event::Progress {
            phase,
            done: done as u64,
            total: total as u64,
        });
    }
}

/// Writes every spot's pattern block for the run `key`, highest address first, then flushes.
/// Returns the bytes written.
///
/// Errors: [`CapacityError::Io`] (naming the spot's address) when no write succeeded,
/// [`CapacityError::Cancelled`] between two writes when `cancel` is set.
pub fn write_all(
    io: &mut dyn SpotIo,
    plan: &Plan,
    key: u64,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<u64, CapacityError> {
    let total = plan.spots.len();
    on_event(Event::Phase {
        phase: Phase::Writing,
        total: total as u64,
    });
    let mut block = Block::zeroed();
    let mut written = 0;
    let mut first_error = None;
    for (done, spot) in plan.write_order().enumerate() {
        stopped(cancel)?;
        encode(&mut block, key, spot.address, spot.index);
        // A spot whose write fails (a worn band of the card) is read back like any other and
        // found not holding its block: the check goes on to a verdict.
        match io.write(spot, &block) {
            Ok(()) => written += BLOCK_U64,
            Err(e) => {
                first_error.get_or_insert_with(|| {
                    CapacityError::io(format!("write {} at byte {}", io.name(), spot.address), e)
                });
            }
        }
        tell(on_event, Phase::Writing, done + 1, total);
    }
    if let (0, Some(e)) = (written, first_error) {
        return Err(e);
    }
    io.flush()
        .map_err(|e| CapacityError::io(format!("fdatasync {}", io.name()), e))?;
    Ok(written)
}

/// Reads every spot back (ascending), re-reading twice more each that is not its own block.
/// Returns every spot's reading and the bytes read.
///
/// Errors: [`CapacityError::Cancelled`] between two reads when `cancel` is set; a failed
/// read is no error but an unsure spot.
pub fn read_back(
    io: &mut dyn SpotIo,
    plan: &Plan,
    key: u64,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<(Vec<Reading>, u64), CapacityError> {
    let total = plan.spots.len();
    on_event(Event::Phase {
        phase: Phase::Reading,
        total: total as u64,
    });
    let mut block = Block::zeroed();
    let mut read = 0;
    let mut out = Vec::with_capacity(total);
    for (done, spot) in plan.spots.iter().enumerate() {
        stopped(cancel)?;
        let mut once = |block: &mut Block| -> Result<Found, String> {
            read += BLOCK_U64;
            io.read(spot, block).map_err(|e| e.to_string())?;
            Ok(classify(block, spot, key))
        };
        let first = once(&mut block);
        let reading = match first {
            Ok(Found::Intact) => Reading {
                spot: *spot,
                found: Found::Intact,
                unsure: None,
            },
            first => {
                let again: Vec<Result<Found, String>> =
                    (1..READS).map(|_| once(&mut block)).collect();
                judge(spot, first, &again)
            }
        };
        out.push(reading);
        tell(on_event, Phase::Reading, done + 1, total);
    }
    Ok((out, read))
}

/// The reading of a spot whose first read was `first` and whose re-reads gave `again`.
fn judge(spot: &Spot, first: Result<Found, String>, again: &[Result<Found, String>]) -> Reading {
    let found = first.as_ref().ok().copied().unwrap_or(Found::Garbage);
    let error = std::iter::once(&first)
        .chain(again)
        .find_map(|r| r.as_ref().err().cloned());
    let unsure = if let Some(message) = error {
        Some(UnsureReason::ReadError {
            address: spot.address,
            message,
        })
    } else if again.iter().any(|r| r.as_ref().ok() != Some(&found)) {
        Some(UnsureReason::RetriesDisagreed {
            address: spot.address,
        })
    } else {
        None
    };
    Reading {
        spot: *spot,
        found,
        unsure,
    }
}

/// Seconds per 4 KiB read, from reading up to `n` spots spread over `plan` (timed with a
/// monotonic clock); `None` without spots or when a read fails.
pub fn probe_reads(io: &mut dyn SpotIo, plan: &Plan, n: usize) -> Option<f64> {
    let spots = &plan.spots;
    if spots.is_empty() || n == 0 {
        return None;
    }
    let step = (spots.len() / n).max(1);
    let mut block = Block::zeroed();
    let start = Instant::now();
    let mut count = 0;
    for spot in spots.iter().step_by(step).take(n) {
        io.read(spot, &mut block).ok()?;
        count += 1;
    }
    Some(start.elapsed().as_secs_f64() / f64::from(count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_reads_that_agree_keep_the_finding() {
        let spot = Spot {
            index: 0,
            address: 4096,
        };
        let r = judge(
            &spot,
            Ok(Found::Zeros),
            &[Ok(Found::Zeros), Ok(Found::Zeros)],
        );
        assert_eq!((r.found, r.unsure), (Found::Zeros, None));
        let r = judge(
            &spot,
            Ok(Found::Zeros),
            &[Ok(Found::Intact), Ok(Found::Zeros)],
        );
        assert_eq!(
            r.unsure,
            Some(UnsureReason::RetriesDisagreed { address: 4096 })
        );
        let r = judge(
            &spot,
            Err("EIO".into()),
            &[Ok(Found::Intact), Ok(Found::Intact)],
        );
        assert!(matches!(r.unsure, Some(UnsureReason::ReadError { .. })));
    }

    #[test]
    fn a_block_is_classified_against_its_spot() {
        let spot = Spot {
            index: 1,
            address: 1 << 34,
        };
        let own = Block::pattern(7, 1 << 34, 1);
        assert_eq!(classify(&own, &spot, 7), Found::Intact);
        let low = Block::pattern(7, 4096, 0);
        assert_eq!(classify(&low, &spot, 7), Found::Wrapped { holds: 4096 });
        assert_eq!(classify(&own, &spot, 8), Found::Stale);
        assert_eq!(classify(&Block::zeroed(), &spot, 7), Found::Zeros);
    }
}
