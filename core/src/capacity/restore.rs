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

/// What became of one saved block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// It reads back as saved: put back now, or never changed.
    Back,
    /// The device holds something else there (neither what was saved nor this check's
    /// pattern for it): nothing was written.
    Foreign,
    /// Writing or reading it failed, or it still reads otherwise: what went wrong.
    Failed(String),
}

/// What putting back a set of saved blocks did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
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
        self.written > 0 || self.left.iter().any(|(_, f)| matches!(f, Fate::Failed(_)))
    }
}

/// Puts every block of `saved` back on `device` (open with O_DIRECT) where it holds the
/// pattern of run `key` for that address; flushes; reads each written block back, writing
/// again (up to [`ROUNDS`] times) one that still holds the pattern.
pub fn apply(device: &File, key: u64, saved: &[(u64, Box<Block>)]) -> Applied {
    let mut out = Applied::default();
    let mut now = Block::zeroed();
    // Per block: None = back, Some(fate) = not (yet).
    let mut state: Vec<Option<Fate>> = Vec::with_capacity(saved.len());
    let mut written = vec![false; saved.len()];
    for round in 0..ROUNDS {
        let mut wrote_any = false;
        for (i, (address, block)) in saved.iter().enumerate() {
            if round > 0 && !matches!(state[i], Some(Fate::Failed(_))) {
                continue;
            }
            out.bytes_read += BLOCK_U64;
            let fate = match device.read_exact_at(&mut now.0, *address) {
                Err(e) => Some(Fate::Failed(format!("read at byte {address}: {e}"))),
                Ok(()) if now.0 == block.0 => None,
                Ok(()) if is_ours(&now, key, *address) => {
                    out.bytes_written += BLOCK_U64;
                    wrote_any = true;
                    written[i] = true;
                    match device.write_all_at(&block.0, *address) {
                        Ok(()) => Some(Fate::Failed(format!(
                            "the block at byte {address} reads back otherwise"
                        ))),
                        Err(e) => Some(Fate::Failed(format!("write at byte {address}: {e}"))),
                    }
                }
                Ok(()) => Some(Fate::Foreign),
            };
            if round == 0 {
                state.push(fate);
            } else {
                state[i] = fate;
            }
        }
        if !wrote_any {
            break;
        }
        if let Err(e) = device.sync_data() {
            for s in state.iter_mut().filter(|s| s.is_some()) {
                *s = Some(Fate::Failed(format!("fdatasync: {e}")));
            }
            break;
        }
        verify(device, key, saved, &mut state, &mut out);
    }
    for (i, (address, _)) in saved.iter().enumerate() {
        match state[i].take() {
            None if written[i] => out.written += 1,
            None => out.in_place += 1,
            Some(f) => out.left.push((*address, f)),
        }
    }
    out
}

/// Reads back every block not known to be back: back when it reads as saved (a write, or an
/// alias of it, put it there), a write failure still when it holds the pattern, foreign else.
fn verify(
    device: &File,
    key: u64,
    saved: &[(u64, Box<Block>)],
    state: &mut [Option<Fate>],
    out: &mut Applied,
) {
    let mut now = Block::zeroed();
    for (i, (address, block)) in saved.iter().enumerate() {
        let Some(fate) = &state[i] else { continue };
        if let Fate::Failed(why) = fate {
            if why.starts_with("write at") {
                continue;
            }
        }
        out.bytes_read += BLOCK_U64;
        state[i] = match device.read_exact_at(&mut now.0, *address) {
            Err(e) => Some(Fate::Failed(format!("read at byte {address}: {e}"))),
            Ok(()) if now.0 == block.0 => None,
            Ok(()) if is_ours(&now, key, *address) => Some(Fate::Failed(format!(
                "the block at byte {address} reads back otherwise"
            ))),
            Ok(()) => match fate {
                Fate::Failed(_) => Some(Fate::Failed(format!(
                    "the block at byte {address} reads back otherwise"
                ))),
                other => Some(other.clone()),
            },
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
        let saved: Vec<(u64, Box<Block>)> =
            (0..4).map(|i| (i as u64 * BLOCK_U64, original(i))).collect();
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
            vec![(2 * BLOCK_U64, Fate::Foreign), (3 * BLOCK_U64, Fate::Foreign)]
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
