//! Random order without repeats: every block-aligned offset of a region exactly once, like
//! fio's random map, in O(1) memory.
//!
//! The order is a keyed permutation of the block numbers `0..blocks`: a four-round Feistel
//! network over the smallest even power of two `2^(2h) >= blocks`, with cycle-walking (values
//! at or above `blocks` are permuted again until they fall inside). A Feistel network is a
//! bijection of its domain whatever its round function, and cycle-walking restricts a
//! bijection to a subset, so every block comes exactly once. The domain is below `4 × blocks`,
//! so a step takes fewer than four rounds of walking on average. See docs/design.md, "Two engines".

/// A keyed permutation of `0..blocks` (block numbers, u64).
#[derive(Debug, Clone)]
pub struct Permutation {
    blocks: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    /// The permutation of `0..blocks` chosen by `seed`. `blocks` may be 0 (empty) or 1.
    pub fn new(blocks: u64, seed: u64) -> Permutation {
        // Bits needed for the largest value `blocks - 1`, rounded up to even, at least 2.
        let bits = if blocks <= 1 {
            2
        } else {
            64 - (blocks - 1).leading_zeros()
        };
        let half_bits = bits.div_ceil(2).max(1);
        let mut state = seed;
        let keys = [
            splitmix(&mut state),
            splitmix(&mut state),
            splitmix(&mut state),
            splitmix(&mut state),
        ];
        Permutation {
            blocks,
            half_bits,
            keys,
        }
    }

    /// How many blocks it permutes.
    pub fn len(&self) -> u64 {
        self.blocks
    }

    /// True when it permutes no block.
    pub fn is_empty(&self) -> bool {
        self.blocks == 0
    }

    /// The block at position `index` of the order, for `index < len()`.
    ///
    /// Panics when `index >= len()` (a caller bug: the walk would not end).
    pub fn at(&self, index: u64) -> u64 {
        assert!(
            index < self.blocks,
            "index {index} outside 0..{}",
            self.blocks
        );
        let mut x = self.feistel(index);
        while x >= self.blocks {
            x = self.feistel(x);
        }
        x
    }

    fn feistel(&self, x: u64) -> u64 {
        let h = self.half_bits;
        let mask = if h >= 32 {
            u32::MAX as u64
        } else {
            (1u64 << h) - 1
        };
        let mut left = (x >> h) & mask;
        let mut right = x & mask;
        for key in self.keys {
            let next = left ^ (mix(right ^ key) & mask);
            left = right;
            right = next;
        }
        (left << h) | right
    }

    /// Iterates over the whole order, `len()` block numbers.
    pub fn iter(&self) -> Order<'_> {
        Order {
            perm: self,
            next: 0,
        }
    }
}

/// The block numbers of a [`Permutation`], in order.
#[derive(Debug, Clone)]
pub struct Order<'a> {
    perm: &'a Permutation,
    next: u64,
}

impl Iterator for Order<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.next >= self.perm.blocks {
            return None;
        }
        let block = self.perm.at(self.next);
        self.next += 1;
        Some(block)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.perm.blocks - self.next;
        let left = usize::try_from(left).unwrap_or(usize::MAX);
        (left, usize::try_from(self.perm.blocks - self.next).ok())
    }
}

/// SplitMix64: expands a seed into round keys.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The round function: a 64-bit finaliser (any function keeps the Feistel a bijection).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 33)).wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    z = (z ^ (z >> 33)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    z ^ (z >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_covers_every_block_once(blocks: u64, seed: u64) {
        let perm = Permutation::new(blocks, seed);
        let mut seen = vec![false; blocks as usize];
        let mut count = 0u64;
        for block in perm.iter() {
            assert!(block < blocks, "block {block} outside 0..{blocks}");
            assert!(
                !seen[block as usize],
                "block {block} twice (blocks {blocks})"
            );
            seen[block as usize] = true;
            count += 1;
        }
        assert_eq!(count, blocks);
    }

    #[test]
    fn covers_every_block_exactly_once_for_many_sizes() {
        for blocks in 0..=600u64 {
            assert_covers_every_block_once(blocks, blocks.wrapping_mul(7919));
        }
        for blocks in [
            1000, 1023, 1024, 1025, 4095, 4097, 65_535, 65_536, 65_537, 100_003,
        ] {
            assert_covers_every_block_once(blocks, 42);
        }
    }

    #[test]
    fn covers_the_standard_test_file_in_4k_blocks() {
        // 256 MiB in 4 KiB blocks, as rand-4k-write/read.
        assert_covers_every_block_once(65_536, 1);
        assert_covers_every_block_once(256 * 1024 * 1024 / 4096 + 7, 2);
    }

    #[test]
    fn a_single_block_is_block_zero() {
        assert_eq!(Permutation::new(1, 99).iter().collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn order_is_not_sequential_and_depends_on_seed() {
        let a: Vec<u64> = Permutation::new(1000, 1).iter().collect();
        let b: Vec<u64> = Permutation::new(1000, 2).iter().collect();
        assert_ne!(a, b);
        let in_place = a
            .iter()
            .enumerate()
            .filter(|(i, v)| *i as u64 == **v)
            .count();
        assert!(in_place < 20, "{in_place} blocks kept their place");
    }

    #[test]
    fn handles_huge_block_counts_in_u64() {
        for blocks in [u64::MAX, u64::MAX / 3, 1 << 40, (1 << 33) + 5] {
            let perm = Permutation::new(blocks, 5);
            for i in [0, 1, blocks / 2, blocks - 1] {
                assert!(perm.at(i) < blocks);
            }
        }
    }
}
