//! Putting saved blocks back, one by one, and only where the device still holds the check's
//! own pattern for that address (the run's key and the address are in every pattern block):
//! saved data is never written over anything else, so a recovery file tried on another card,
//! or on a block the drive itself changed, writes nothing there. Every block is tried; the
//! ones that could not be put back are named, not the first alone.

use std::fs::File;
use std::os::unix::fs::FileExt;

use super::pattern::{decode, Block, Content, BLOCK_U64};

/// How often a block that still holds the check's pattern after being written back is
/// written again (a drive that drops some writes).
const ROUNDS: usize = 3;

/// Why a saved block is not back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// The device holds something else there (neither what was saved nor this check's
    /// pattern for it): nothing was written.
    Foreign,
    /// Writing or reading it failed, or it still reads otherwise: what went wrong.
    Failed(String),
}

/// What putting back a set of saved blocks did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Blocks that held the check's own pattern when first read: the device is the one the
    /// blocks were saved from when this is not 0.
    pub ours: u32,
    /// Blocks written back and read back as saved.
    pub written: u32,
    /// Blocks that already read as saved (never written by the check, or dropped).
    pub in_place: u32,
    /// The blocks not back, with their addresses (bytes), ascending as given.
    pub left: Vec<(u64, Fate)>,
    /// Bytes written.
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
}

impl Applied {
    /// True when every block reads back as saved.
    pub fn whole(&self) -> bool {
        self.left.is_empty()
    }

    /// True when some block held the check's own pattern: the device is the one checked.
    pub fn found_ours(&self) -> bool {
        self.ours > 0
    }
}

/// Where one block stands while it is put back.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// Reads as saved.
    Back,
    /// Holds neither what was saved nor the check's pattern for it.
    Foreign,
    /// Written back, not yet read back.
    Written,
    /// Still holds the check's pattern after being written back.
    Otherwise,
    /// A read or write failed: what the system said.
    Error(String),
}

/// Puts every block of `saved` back on `device` (open with O_DIRECT) where it holds the
/// pattern of run `key` for that address; flushes; reads each written block back, writing
/// again (up to [`ROUNDS`] times) one that still holds the pattern or whose write failed.
pub fn apply(device: &File, key: u64, saved: &[(u64, Box<Block>)]) -> Applied {
    let mut out = Applied::default();
    let mut steps = vec![Step::Foreign; saved.len()];
    let mut written = vec![false; saved.len()];
    for round in 0..ROUNDS {
        let mut wrote_any = false;
        for (i, (address, block)) in saved.iter().enumerate() {
            let retry = matches!(steps[i], Step::Otherwise | Step::Error(_));
            if round > 0 && !retry {
                continue;
            }
            let (step, ours) = put_one(device, key, *address, block, &mut out);
            if round == 0 && ours {
                out.ours += 1;
            }
            if step == Step::Written {
                wrote_any = true;
                written[i] = true;
            }
            steps[i] = step;
        }
        if !wrote_any {
            break;
        }
        if let Err(e) = device.sync_data() {
            for s in steps.iter_mut().filter(|s| **s == Step::Written) {
                *s = Step::Error(format!("fdatasync: {e}"));
            }
        }
        verify(device, saved, &mut steps, &mut out);
    }
    for (i, (address, _)) in saved.iter().enumerate() {
        let fate = match std::mem::replace(&mut steps[i], Step::Back) {
            Step::Back if written[i] => {
                out.written += 1;
                continue;
            }
            Step::Back => {
                out.in_place += 1;
                continue;
            }
            Step::Foreign => Fate::Foreign,
            Step::Written | Step::Otherwise => {
                Fate::Failed(format!("the block at byte {address} reads back otherwise"))
            }
            Step::Error(why) => Fate::Failed(why),
        };
        out.left.push((*address, fate));
    }
    out
}

/// Reads the block at `address` and writes `block` there when it holds the pattern of run
/// `key` for it. The step it is at, and whether it held the pattern.
fn put_one(
    device: &File,
    key: u64,
    address: u64,
    block: &Block,
    out: &mut Applied,
) -> (Step, bool) {
    let mut now = Block::zeroed();
    out.bytes_read += BLOCK_U64;
    match device.read_exact_at(&mut now.0, address) {
        Err(e) => (Step::Error(format!("read at byte {address}: {e}")), false),
        Ok(()) if now.0 == block.0 => (Step::Back, false),
        Ok(()) if is_ours(&now, key, address) => {
            out.bytes_written += BLOCK_U64;
            match device.write_all_at(&block.0, address) {
                Ok(()) => (Step::Written, true),
                Err(e) => (Step::Error(format!("write at byte {address}: {e}")), true),
            }
        }
        Ok(()) => (Step::Foreign, false),
    }
}

/// Reads back every block written and every foreign one: back when it reads as saved (its
/// write, or that of an alias on a drive that wraps, put it there); a written block that
/// does not is [`Step::Otherwise`].
fn verify(device: &File, saved: &[(u64, Box<Block>)], steps: &mut [Step], out: &mut Applied) {
    let mut now = Block::zeroed();
    for (i, (address, block)) in saved.iter().enumerate() {
        if !matches!(steps[i], Step::Written | Step::Foreign) {
            continue;
        }
        out.bytes_read += BLOCK_U64;
        steps[i] = match device.read_exact_at(&mut now.0, *address) {
            Err(e) => Step::Error(format!("read at byte {address}: {e}")),
            Ok(()) if now.0 == block.0 => Step::Back,
            Ok(()) if steps[i] == Step::Foreign => Step::Foreign,
            Ok(()) => Step::Otherwise,
        };
    }
}

/// True when `block` is the pattern of run `key` written for `address`.
fn is_ours(block: &Block, key: u64, address: u64) -> bool {
    matches!(decode(block, key), Content::Ours { address: a, .. } if a == address)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::OpenOptionsExt;

    fn device(blocks: u64) -> (tempfile::TempDir, File) {
        let dir = crate::target_dir::scratch_dir();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(dir.path().join("dev"))
            .unwrap();
        f.set_len(blocks * BLOCK_U64).unwrap();
        (dir, f)
    }

    #[test]
    fn only_blocks_holding_the_checks_own_pattern_are_written() {
        let (_dir, dev) = device(8);
        let original = |i: u8| {
            let mut b = Block::zeroed();
            b.0.fill(i + 1);
            b
        };
        let saved: Vec<(u64, Box<Block>)> = (0..4)
            .map(|i| (i as u64 * BLOCK_U64, original(i)))
            .collect();
        // Block 0: this run's pattern; 1: untouched; 2: another run's pattern; 3: the pattern
        // of another address.
        dev.write_all_at(&Block::pattern(7, 0, 0).0, 0).unwrap();
        dev.write_all_at(&saved[1].1 .0, BLOCK_U64).unwrap();
        dev.write_all_at(&Block::pattern(8, 2 * BLOCK_U64, 2).0, 2 * BLOCK_U64)
            .unwrap();
        dev.write_all_at(&Block::pattern(7, 0, 0).0, 3 * BLOCK_U64)
            .unwrap();
        let applied = apply(&dev, 7, &saved);
        assert_eq!(applied.written, 1);
        assert_eq!(applied.in_place, 1);
        assert_eq!(
            applied.left,
            vec![
                (2 * BLOCK_U64, Fate::Foreign),
                (3 * BLOCK_U64, Fate::Foreign)
            ]
        );
        assert!(applied.found_ours());
        let mut b = Block::zeroed();
        dev.read_exact_at(&mut b.0, 0).unwrap();
        assert_eq!(b.0, saved[0].1 .0);
        dev.read_exact_at(&mut b.0, 2 * BLOCK_U64).unwrap();
        assert_eq!(b.0, Block::pattern(8, 2 * BLOCK_U64, 2).0, "left alone");
        assert_eq!(applied.bytes_written, BLOCK_U64);
    }

    #[test]
    fn a_card_without_the_pattern_gets_nothing() {
        let (_dir, dev) = device(4);
        dev.write_all_at(&[9u8; 4096], 0).unwrap();
        let saved = vec![(0, Block::zeroed())];
        let applied = apply(&dev, 1, &saved);
        assert!(!applied.found_ours());
        assert_eq!(applied.bytes_written, 0);
        assert_eq!(applied.left, vec![(0, Fate::Foreign)]);
    }
}
