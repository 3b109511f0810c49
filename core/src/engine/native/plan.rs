//! The offsets a phase visits: sequential from 0, or every block once in a random order
//! ([`Permutation`]), `size / bs` blocks of `bs` bytes (a partial last block is not visited,
//! so `bytes == ios × bs` always).

use crate::engine::randmap::Permutation;

/// The requests of one phase, handed out one at a time.
#[derive(Debug)]
pub struct OffsetPlan {
    bs: u64,
    blocks: u64,
    next: u64,
    order: Option<Permutation>,
}

impl OffsetPlan {
    /// `size / bs` blocks of `bs` bytes, in a random order (chosen by `seed`) when `random`.
    /// `bs` must not be 0.
    pub fn new(size: u64, bs: u64, random: bool, seed: u64) -> OffsetPlan {
        let blocks = size / bs;
        OffsetPlan {
            bs,
            blocks,
            next: 0,
            order: random.then(|| Permutation::new(blocks, seed)),
        }
    }

    /// Bytes the phase covers when it is not stopped by its runtime.
    pub fn planned_bytes(&self) -> u64 {
        self.blocks * self.bs
    }

    /// True when every request has been handed out.
    pub fn exhausted(&self) -> bool {
        self.next >= self.blocks
    }

    /// The next request: its sequence number (0, 1, …) and its byte offset.
    pub fn next_request(&mut self) -> Option<(u64, u64)> {
        if self.exhausted() {
            return None;
        }
        let seq = self.next;
        self.next += 1;
        let block = match &self.order {
            Some(p) => p.at(seq),
            None => seq,
        };
        Some((seq, block * self.bs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_plan_walks_the_file_in_order() {
        let mut p = OffsetPlan::new(10 * 4096 + 100, 4096, false, 0);
        let offsets: Vec<u64> = std::iter::from_fn(|| p.next_request().map(|r| r.1)).collect();
        assert_eq!(offsets, (0..10).map(|b| b * 4096).collect::<Vec<_>>());
        assert!(p.exhausted());
        assert_eq!(p.planned_bytes(), 10 * 4096);
    }

    #[test]
    fn random_plan_visits_every_block_once() {
        let mut p = OffsetPlan::new(1000 * 512, 512, true, 11);
        let mut offsets: Vec<u64> = std::iter::from_fn(|| p.next_request().map(|r| r.1)).collect();
        assert_ne!(offsets, (0..1000).map(|b| b * 512).collect::<Vec<_>>());
        offsets.sort_unstable();
        assert_eq!(offsets, (0..1000).map(|b| b * 512).collect::<Vec<_>>());
    }
}
