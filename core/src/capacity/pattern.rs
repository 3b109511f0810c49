//! The 4 KiB pattern block written at each spot, and what a block read back holds.
//!
//! Layout (little-endian): bytes 0–7 the magic [`MAGIC`], 8–15 the run's random key, 16–23
//! the spot's own absolute drive address (bytes), 24–27 the spot's index, 28–31 zero, 32–4063
//! pseudo-random bytes drawn from (key, address) so that no two blocks are alike (a drive that
//! deduplicates or compresses cannot fold them), 4064–4095 the SHA-256 of bytes 0–4063.

use sha2::{Digest, Sha256};

/// The size of a spot, bytes: one 4 KiB block.
pub const BLOCK: usize = 4096;
/// [`BLOCK`] as a u64, for addresses.
pub const BLOCK_U64: u64 = BLOCK as u64;
/// The first 8 bytes of every pattern block.
pub const MAGIC: [u8; 8] = *b"AGNCAP01";
/// Where the checksum starts.
const SUM_AT: usize = BLOCK - 32;

/// A 4 KiB buffer aligned to 4 KiB, as O_DIRECT needs.
#[derive(Clone)]
#[repr(C, align(4096))]
pub struct Block(pub [u8; BLOCK]);

impl std::fmt::Debug for Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Block({:02x?}…)", &self.0[..32])
    }
}

impl Block {
    /// A block of zeros, on the heap.
    pub fn zeroed() -> Box<Block> {
        Box::new(Block([0; BLOCK]))
    }

    /// The block of spot `index` at drive address `address` (bytes) for the run `key`.
    pub fn pattern(key: u64, address: u64, index: u32) -> Box<Block> {
        let mut b = Block::zeroed();
        encode(&mut b, key, address, index);
        b
    }
}

/// Fills `block` with the pattern of spot `index` at `address` for run `key`.
pub fn encode(block: &mut Block, key: u64, address: u64, index: u32) {
    let b = &mut block.0;
    b[..8].copy_from_slice(&MAGIC);
    b[8..16].copy_from_slice(&key.to_le_bytes());
    b[16..24].copy_from_slice(&address.to_le_bytes());
    b[24..28].copy_from_slice(&index.to_le_bytes());
    b[28..32].fill(0);
    let mut state = key ^ address.rotate_left(32) ^ 0x9e37_79b9_7f4a_7c15;
    for chunk in b[32..SUM_AT].chunks_mut(8) {
        let word = splitmix64(&mut state).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    let sum = Sha256::digest(&b[..SUM_AT]);
    b[SUM_AT..].copy_from_slice(&sum);
}

/// One step of SplitMix64: a fast generator whose every output differs for every state.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What a block read back holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// A whole, valid pattern block of this run (`key`): the spot's address and index it was
    /// written for.
    Ours {
        /// The drive address it was written for, bytes.
        address: u64,
        /// The spot index it was written for.
        index: u32,
    },
    /// A valid pattern block of another run (another key): stale data from an earlier check.
    OtherRun {
        /// The drive address it was written for, bytes.
        address: u64,
    },
    /// Every byte zero (a drive that drops writes or unmaps).
    Zeros,
    /// Anything else: not a pattern block, or a damaged one.
    Garbage,
}

/// Decodes `block` read back in the run `key`.
pub fn decode(block: &Block, key: u64) -> Content {
    let b = &block.0;
    if b.iter().all(|&x| x == 0) {
        return Content::Zeros;
    }
    if b[..8] != MAGIC || Sha256::digest(&b[..SUM_AT])[..] != b[SUM_AT..] {
        return Content::Garbage;
    }
    let word = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
    let address = word(16);
    if word(8) != key {
        return Content::OtherRun { address };
    }
    let index = u32::from_le_bytes(b[24..28].try_into().expect("4 bytes"));
    Content::Ours { address, index }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_decodes_to_its_own_address_and_index() {
        let b = Block::pattern(0xfeed, 7 << 30, 42);
        assert_eq!(
            decode(&b, 0xfeed),
            Content::Ours {
                address: 7 << 30,
                index: 42
            }
        );
        assert_eq!(decode(&b, 0xbeef), Content::OtherRun { address: 7 << 30 });
    }

    #[test]
    fn no_two_blocks_are_alike() {
        let a = Block::pattern(1, 0, 0);
        let b = Block::pattern(1, 4096, 1);
        let c = Block::pattern(2, 0, 0);
        assert_ne!(a.0[32..SUM_AT], b.0[32..SUM_AT]);
        assert_ne!(a.0[32..SUM_AT], c.0[32..SUM_AT]);
        // The same spot of the same run is the same block.
        assert_eq!(a.0, Block::pattern(1, 0, 0).0);
    }

    #[test]
    fn zeros_and_damage_are_told_apart() {
        assert_eq!(decode(&Block::zeroed(), 1), Content::Zeros);
        let mut b = Block::pattern(1, 1 << 40, 3);
        b.0[2000] ^= 1;
        assert_eq!(decode(&b, 1), Content::Garbage);
        let mut b = Block::pattern(1, 1 << 40, 3);
        b.0[0] = b'X';
        assert_eq!(decode(&b, 1), Content::Garbage);
        let mut random = Block::zeroed();
        let mut s = 5;
        for x in random.0.iter_mut() {
            *x = splitmix64(&mut s) as u8;
        }
        assert_eq!(decode(&random, 1), Content::Garbage);
    }

    #[test]
    fn addresses_above_4_gib_survive_on_any_platform() {
        let address = u64::MAX - 4095;
        let b = Block::pattern(9, address, u32::MAX);
        assert_eq!(
            decode(&b, 9),
            Content::Ours {
                address,
                index: u32::MAX
            }
        );
        assert_eq!(std::mem::align_of::<Block>(), 4096);
    }
}
