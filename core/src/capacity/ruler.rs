//! A sparse ruler: a few marks on `0..=m` such that every distance `1..=m` is the difference
//! of two marks. With one spot per mark, 1 MiB apart on the drive, a drive that wraps at any
//! real size `R` that is a multiple of 1 MiB (a write at `P` lands at `P mod R`) has two spots
//! exactly `R` apart, and the higher one reads back the lower one's block. About `2·√m` marks:
//! 64 for 1 GiB, about 360 for 32 GB, about 1 960 for 1 TB.
//!
//! Also the check of any set of marks: which distances they cover ([`covered`]), so that what a
//! plan rules out is computed, never assumed.

/// Marks on `0..=m` (ascending, no duplicates) whose differences cover every distance
/// `1..=m`: the first `k = ⌈√m⌉` units `0, 1, …, k-1` and every `k`-th unit down from `m`
/// (`m, m-k, m-2k, …`). For a distance `d`, some mark `b = m - j·k` lies in `[d, d+k-1]`
/// (there is one every `k` units down to below `k`, and `m ≥ d`), and `a = b - d < k` is a
/// mark too.
pub fn marks(m: u64) -> Vec<u64> {
    if m == 0 {
        return vec![0];
    }
    let k = ceil_sqrt(m);
    let mut out: Vec<u64> = (0..k.min(m + 1)).collect();
    let mut b = m;
    loop {
        out.push(b);
        if b < k {
            break;
        }
        b -= k;
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// `⌈√m⌉`, exactly (a float's root, corrected).
fn ceil_sqrt(m: u64) -> u64 {
    let mut k = (m as f64).sqrt() as u64;
    while k.saturating_mul(k) > m {
        k -= 1;
    }
    while k.saturating_mul(k) < m {
        k += 1;
    }
    k
}

/// Which distances the marks `units` (any order) cover: `out[d]` is true when two marks are
/// `d` apart, for `d` in `0..=span` (`span` the largest minus the smallest mark; `out[0]` is
/// true when there is a mark at all). Quadratic in the number of marks: a few million steps for
/// a 1 TB drive's plan.
pub fn covered(units: &[u64]) -> Vec<bool> {
    let mut u = units.to_vec();
    u.sort_unstable();
    u.dedup();
    let (Some(&lo), Some(&hi)) = (u.first(), u.last()) else {
        return Vec::new();
    };
    let mut out = vec![false; (hi - lo + 1) as usize];
    for (i, &a) in u.iter().enumerate() {
        for &b in &u[i..] {
            out[(b - a) as usize] = true;
        }
    }
    out
}

/// The largest `w` such that every distance `1..=w` is covered in `cover` (from [`covered`]):
/// 0 when distance 1 is not.
pub fn covered_up_to(cover: &[bool]) -> u64 {
    cover
        .iter()
        .skip(1)
        .position(|&c| !c)
        .map_or(cover.len().saturating_sub(1), |i| i) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marks_cover_every_distance() {
        for m in (0..400).chain([1023, 1024, 4095, 30_517]) {
            let marks = marks(m);
            assert_eq!(*marks.first().unwrap(), 0);
            assert_eq!(*marks.last().unwrap(), m);
            let cover = covered(&marks);
            assert_eq!(covered_up_to(&cover), m, "m = {m}");
            let k = (m as f64).sqrt().ceil() as usize;
            assert!(marks.len() <= 2 * k + 2, "{m}: {} marks", marks.len());
        }
    }

    #[test]
    fn a_gap_is_found() {
        assert_eq!(covered_up_to(&covered(&[0, 1, 3])), 3);
        assert_eq!(covered_up_to(&covered(&[0, 1, 4])), 1);
        assert_eq!(covered_up_to(&covered(&[5, 9])), 0);
        assert_eq!(covered_up_to(&covered(&[])), 0);
        assert_eq!(covered_up_to(&covered(&[7])), 0);
    }
}
