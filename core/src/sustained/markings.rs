//! The speed markings on SD cards and whether a measured sustained write speed meets them.
//!
//! Each marking promises a minimum sustained sequential write speed (SD Physical Layer
//! Simplified Specification: Speed Class C2/C4/C6/C10, 2, 4, 6 and 10 MB/s; UHS Speed Grade
//! U1/U3, 10 and 30 MB/s; Video Speed Class V6/V10/V30/V60/V90, 6, 10, 30, 60 and 90 MB/s;
//! 1 MB/s = 1 000 000 bytes per second). The card says which it claims in its SD Status
//! (SPEED_CLASS, UHS_SPEED_GRADE, VIDEO_SPEED_CLASS): claiming one also claims the smaller ones
//! of its family (Class 10 is at least 6 MB/s too).
//!
//! Measured here through the file system on this computer, not under the SD Association's test
//! conditions (a freshly formatted card, its own host and timing): a card can meet its marking
//! there and not here.

use serde::{Deserialize, Serialize};

use crate::card::ssr::Ssr;

/// The three families of markings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Speed Class (C2, C4, C6, C10).
    SpeedClass,
    /// UHS Speed Grade (U1, U3).
    Uhs,
    /// Video Speed Class (V6, V10, V30, V60, V90).
    Video,
}

/// Every marking: its name, family and minimum, MB/s (SD Physical Layer Simplified
/// Specification).
pub const TABLE: [(&str, Family, u8); 11] = [
    ("C2", Family::SpeedClass, 2),
    ("C4", Family::SpeedClass, 4),
    ("C6", Family::SpeedClass, 6),
    ("C10", Family::SpeedClass, 10),
    ("U1", Family::Uhs, 1),
    ("U3", Family::Uhs, 3),
    ("V6", Family::Video, 6),
    ("V10", Family::Video, 10),
    ("V30", Family::Video, 30),
    ("V60", Family::Video, 60),
    ("V90", Family::Video, 90),
];

/// One marking judged against a measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marking {
    /// `C10`, `U3`, `V30`, …
    pub name: String,
    /// Its family.
    pub family: Family,
    /// The sustained sequential write speed it promises, bytes per second (u64).
    pub min_bytes_per_second: u64,
    /// Whether the measured sustained speed reaches it; `None` when the link to the card
    /// cannot carry that speed, so no card could show it here.
    pub met: Option<bool>,
    /// Whether the card claims it in its SD Status; `None` when that is unknown (not an SD
    /// card, or no SD Status read, or a reserved value).
    pub claimed: Option<bool>,
}

/// The minimum speed of a marking of `family` with number `n`, bytes per second: the number
/// is MB/s, except U1 = 10 MB/s and U3 = 30 MB/s.
fn min_bytes(family: Family, n: u8) -> u64 {
    let mb = match family {
        Family::Uhs => u64::from(n) * 10,
        Family::SpeedClass | Family::Video => u64::from(n),
    };
    mb * 1_000_000
}

/// Every marking of [`TABLE`] judged: `sustained` the measured sustained write speed (bytes
/// per second), `link` the most the link to the card carries (bytes per second; `None` when
/// unknown: nothing is ruled out), `ssr` the card's SD Status when it was read.
pub fn judge(sustained: f64, link: Option<f64>, ssr: Option<&Ssr>) -> Vec<Marking> {
    TABLE
        .iter()
        .map(|&(name, family, n)| {
            let min = min_bytes(family, n);
            let carried = link.is_none_or(|l| l >= min as f64);
            Marking {
                name: name.to_owned(),
                family,
                min_bytes_per_second: min,
                met: carried.then_some(sustained >= min as f64),
                claimed: ssr.and_then(|s| claimed(s, family, n)),
            }
        })
        .collect()
}

/// Whether the card's SD Status claims marking `n` of `family`: its own rating in that family
/// is at least `n` (0 = not rated: claims none); `None` for a reserved value.
fn claimed(ssr: &Ssr, family: Family, n: u8) -> Option<bool> {
    let rating = match family {
        Family::SpeedClass => ssr.speed_class,
        Family::Uhs => ssr.uhs_grade,
        Family::Video => ssr.video_class,
    }?;
    Some(rating >= n)
}

/// The best marking of each family the card claims, in [`TABLE`] order (`["C10", "U3",
/// "V30"]`).
pub fn best_claimed(markings: &[Marking]) -> Vec<&str> {
    best(markings, |m| m.claimed == Some(true))
}

/// The best marking of each family the measured speed meets.
pub fn best_met(markings: &[Marking]) -> Vec<&str> {
    best(markings, |m| m.met == Some(true))
}

fn best(markings: &[Marking], keep: impl Fn(&Marking) -> bool) -> Vec<&str> {
    [Family::SpeedClass, Family::Uhs, Family::Video]
        .into_iter()
        .filter_map(|f| {
            markings
                .iter()
                .rfind(|m| m.family == f && keep(m))
                .map(|m| m.name.as_str())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ssr(speed_class: Option<u8>, uhs: Option<u8>, video: Option<u8>) -> Ssr {
        let mut s = crate::card::ssr::decode(&[0; 64]);
        s.speed_class = speed_class;
        s.uhs_grade = uhs;
        s.video_class = video;
        s
    }

    #[test]
    fn the_table_is_the_specifications() {
        let m = judge(0.0, None, None);
        let got: Vec<(&str, u64)> = m
            .iter()
            .map(|m| (m.name.as_str(), m.min_bytes_per_second))
            .collect();
        assert_eq!(
            got,
            [
                ("C2", 2_000_000),
                ("C4", 4_000_000),
                ("C6", 6_000_000),
                ("C10", 10_000_000),
                ("U1", 10_000_000),
                ("U3", 30_000_000),
                ("V6", 6_000_000),
                ("V10", 10_000_000),
                ("V30", 30_000_000),
                ("V60", 60_000_000),
                ("V90", 90_000_000),
            ]
        );
        assert!(m
            .iter()
            .all(|m| m.claimed.is_none() && m.met == Some(false)));
    }

    #[test]
    fn met_at_or_above_the_minimum_and_null_beyond_the_link() {
        // 12 MB/s measured; a DDR50 bus carries 50 MB/s: V60 and V90 cannot be shown.
        let m = judge(12_000_000.0, Some(50_000_000.0), None);
        let met: Vec<(&str, Option<bool>)> = m.iter().map(|m| (m.name.as_str(), m.met)).collect();
        assert_eq!(
            met,
            [
                ("C2", Some(true)),
                ("C4", Some(true)),
                ("C6", Some(true)),
                ("C10", Some(true)),
                ("U1", Some(true)),
                ("U3", Some(false)),
                ("V6", Some(true)),
                ("V10", Some(true)),
                ("V30", Some(false)),
                ("V60", None),
                ("V90", None),
            ]
        );
        assert_eq!(best_met(&m), ["C10", "U1", "V10"]);
        // Exactly the minimum meets it.
        let m = judge(30_000_000.0, None, None);
        assert_eq!(best_met(&m), ["C10", "U3", "V30"]);
    }

    #[test]
    fn a_claim_covers_the_smaller_markings_of_its_family() {
        let card = ssr(Some(10), Some(3), Some(30));
        let m = judge(0.0, None, Some(&card));
        let claimed: Vec<&str> = m
            .iter()
            .filter(|m| m.claimed == Some(true))
            .map(|m| m.name.as_str())
            .collect();
        assert_eq!(
            claimed,
            ["C2", "C4", "C6", "C10", "U1", "U3", "V6", "V10", "V30"]
        );
        assert_eq!(best_claimed(&m), ["C10", "U3", "V30"]);
        // A card rated Class 4, no UHS grade, a reserved video value.
        let m = judge(0.0, None, Some(&ssr(Some(4), Some(0), None)));
        let by_name = |n: &str| m.iter().find(|m| m.name == n).unwrap().claimed;
        assert_eq!(by_name("C4"), Some(true));
        assert_eq!(by_name("C6"), Some(false));
        assert_eq!(by_name("U1"), Some(false));
        assert_eq!(by_name("V6"), None);
        assert_eq!(best_claimed(&m), ["C4"]);
    }
}
