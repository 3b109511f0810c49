//! The offsets a phase visits: sequential from 0, or every block once in a random order
//! ([`Permutation`]), `size / bs` blocks of `bs` bytes (a partial last block is not visited,
//! so `bytes == ios × bs` always), for each of a job's clones, once or (fio's `time_based`)
//! over and over.

use crate::engine::randmap::Permutation;

/// One clone's walk over the blocks.
#[derive(Debug)]
struct Walk {
    /// Requests handed out in the current pass.
    next: u64,
    /// Passes completed.
    passes: u64,
    order: Option<Permutation>,
}

/// The requests of one phase (one pass of a job, or all of a `time_based` job), handed out one
/// at a time: for each of the job's clones (fio's `numjobs`), `size / bs` blocks, in turn one
/// request from each clone that has any left, so that the clones progress together.
#[derive(Debug)]
pub struct OffsetPlan {
    bs: u64,
    blocks: u64,
    seed: u64,
    wrap: bool,
    walks: Vec<Walk>,
    cursor: usize,
    handed: u64,
    /// Requests after which [`OffsetPlan::next_request`] hands out nothing until
    /// [`OffsetPlan::release`] (a phase's first segment).
    hold: Option<u64>,
}

impl OffsetPlan {
    /// `size / bs` blocks of `bs` bytes for one clone, in a random order (chosen by `seed`)
    /// when `random`, visited once. `bs` must not be 0.
    pub fn new(size: u64, bs: u64, random: bool, seed: u64) -> OffsetPlan {
        OffsetPlan::with_clones(size, bs, random, seed, 1, false)
    }

    /// `clones` (at least 1) walks over the `size / bs` blocks of `bs` bytes, each
    /// sequential from 0 or (when `random`) every block once in its own order; with `wrap`
    /// (fio's `time_based`) a walk that has visited every block starts over (a random one in
    /// a fresh order) and the plan never runs out. `bs` must not be 0.
    pub fn with_clones(
        size: u64,
        bs: u64,
        random: bool,
        seed: u64,
        clones: u32,
        wrap: bool,
    ) -> OffsetPlan {
        let blocks = size / bs;
        let walks = (0..u64::from(clones.max(1)))
            .map(|c| Walk {
                next: 0,
                passes: 0,
                order: random.then(|| Permutation::new(blocks, walk_seed(seed, c, 0))),
            })
            .collect();
        OffsetPlan {
            bs,
            blocks,
            seed,
            wrap: wrap && blocks > 0,
            walks,
            cursor: 0,
            handed: 0,
            hold: None,
        }
    }

    /// Bytes one walk covers: `size / bs` whole blocks.
    pub fn planned_bytes(&self) -> u64 {
        self.blocks * self.bs
    }

    /// True when every request has been handed out (never with `wrap`).
    pub fn exhausted(&self) -> bool {
        !self.wrap && self.walks.iter().all(|w| w.next >= self.blocks)
    }

    /// The start of the file every byte of which some walk has handed out, bytes: all of a
    /// walk once it has completed a pass, the blocks below its position for a sequential one.
    pub fn covered_bytes(&self) -> u64 {
        self.walks
            .iter()
            .map(|w| {
                if w.passes > 0 || w.next >= self.blocks {
                    self.planned_bytes()
                } else if w.order.is_none() {
                    w.next * self.bs
                } else {
                    0
                }
            })
            .max()
            .unwrap_or(0)
    }

    /// Requests handed out so far.
    pub fn handed(&self) -> u64 {
        self.handed
    }

    /// Ends a segment after `requests` requests in all have been handed out: from then
    /// [`OffsetPlan::next_request`] returns `None` (the I/O paths finish what is in flight and
    /// return) until [`OffsetPlan::release`], which continues where it stopped.
    pub fn hold_after(&mut self, requests: u64) {
        self.hold = Some(requests);
    }

    /// True when the plan stopped at its hold with requests left (never once exhausted).
    pub fn held(&self) -> bool {
        self.hold.is_some_and(|h| self.handed >= h) && !self.exhausted()
    }

    /// Lifts the hold: the next request is the one after the last handed out.
    pub fn release(&mut self) {
        self.hold = None;
    }

    /// The next request: its sequence number in the plan (0, 1, …) and its byte offset;
    /// `None` when the plan is exhausted or at its hold.
    pub fn next_request(&mut self) -> Option<(u64, u64)> {
        if self.hold.is_some_and(|h| self.handed >= h) {
            return None;
        }
        let count = self.walks.len();
        for step in 0..count {
            let c = (self.cursor + step) % count;
            let walk = &mut self.walks[c];
            if walk.next >= self.blocks {
                if !self.wrap {
                    continue;
                }
                walk.next = 0;
                walk.passes += 1;
                if walk.order.is_some() {
                    let seed = walk_seed(self.seed, c as u64, walk.passes);
                    walk.order = Some(Permutation::new(self.blocks, seed));
                }
            }
            let block = match &walk.order {
                Some(p) => p.at(walk.next),
                None => walk.next,
            };
            walk.next += 1;
            self.cursor = (c + 1) % count;
            let seq = self.handed;
            self.handed += 1;
            return Some((seq, block * self.bs));
        }
        None
    }
}

/// The order seed of clone `clone`'s pass `pass`.
fn walk_seed(seed: u64, clone: u64, pass: u64) -> u64 {
    seed ^ clone.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ pass.wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
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

    #[test]
    fn clones_each_cover_the_file_in_turn() {
        let mut p = OffsetPlan::with_clones(4 * 4096, 4096, false, 0, 3, false);
        let offsets: Vec<u64> = std::iter::from_fn(|| p.next_request().map(|r| r.1)).collect();
        assert_eq!(offsets.len(), 12);
        assert_eq!(&offsets[..6], &[0, 0, 0, 4096, 4096, 4096]);
        assert!(p.exhausted());
        let mut r = OffsetPlan::with_clones(100 * 512, 512, true, 5, 2, false);
        let mut a = Vec::new();
        let mut b = Vec::new();
        while let Some((seq, off)) = r.next_request() {
            if seq % 2 == 0 {
                a.push(off)
            } else {
                b.push(off)
            }
        }
        assert_ne!(a, b, "each clone has its own order");
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        assert_eq!(a, (0..100).map(|x| x * 512).collect::<Vec<_>>());
    }

    #[test]
    fn a_held_plan_continues_where_it_stopped() {
        let mut whole = OffsetPlan::with_clones(64 << 10, 4096, true, 5, 2, false);
        let expected: Vec<u64> = std::iter::from_fn(|| whole.next_request().map(|r| r.1)).collect();
        let mut p = OffsetPlan::with_clones(64 << 10, 4096, true, 5, 2, false);
        p.hold_after(5);
        let mut got: Vec<u64> = std::iter::from_fn(|| p.next_request().map(|r| r.1)).collect();
        assert_eq!((got.len(), p.handed(), p.held()), (5, 5, true));
        p.release();
        got.extend(std::iter::from_fn(|| p.next_request().map(|r| r.1)));
        assert_eq!(got, expected);
        assert!(!p.held() && p.exhausted());
        // A hold beyond the plan's end: exhausted, not held.
        let mut short = OffsetPlan::new(16 << 10, 4096, false, 1);
        short.hold_after(10);
        assert_eq!(std::iter::from_fn(|| short.next_request()).count(), 4);
        assert!(!short.held());
    }

    #[test]
    fn a_wrapping_plan_starts_over_and_never_ends() {
        let mut p = OffsetPlan::with_clones(3 * 4096, 4096, false, 0, 1, true);
        let offsets: Vec<u64> = (0..7).map(|_| p.next_request().unwrap().1).collect();
        assert_eq!(offsets, [0, 4096, 8192, 0, 4096, 8192, 0]);
        assert!(!p.exhausted());
        assert_eq!(p.covered_bytes(), 3 * 4096);
        let mut r = OffsetPlan::with_clones(50 * 512, 512, true, 9, 1, true);
        let first: Vec<u64> = (0..50).map(|_| r.next_request().unwrap().1).collect();
        let second: Vec<u64> = (0..50).map(|_| r.next_request().unwrap().1).collect();
        assert_ne!(first, second);
        assert_eq!(r.covered_bytes(), 50 * 512);
    }
}
