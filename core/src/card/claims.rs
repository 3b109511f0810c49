//! Claims against measurements: what the card says it is (its SD Status ratings) next to what
//! a run measured, and figures the link cannot carry.
//!
//! - Application Performance Class (SD Physical Layer Simplified Specification,
//!   "Application Performance Class"): the random 4 KiB read and write minimums of A1 and A2
//!   ([`crate::verdict::class_iops`]: 1500/500 and 4000/2000 IOPS), against the
//!   `rand-4k-read` and `rand-4k-write` phases.
//! - Speed Class, UHS Speed Grade and Video Speed Class (minimum sustained sequential write:
//!   Class 2/4/6/10 = 2/4/6/10 MB/s, U1 = 10, U3 = 30, V6/V10/V30/V60/V90 = 6/10/30/60/90 MB/s)
//!   against the `seq-write` phase; the strongest claim is compared.
//! - A phase faster than the link's ceiling ([`super::link`]) cannot be the device's own
//!   speed: it is flagged, and the test must not be graded PASS on it.
//! - Without a measurement, from the card's own state: a partition that does not start on an
//!   erase-block boundary ([`super::alignment`]), an eMMC near the end of its life
//!   ([`super::wear`]).

use serde::{Deserialize, Serialize};

use super::CardInfo;
use crate::engine::PhaseResult;
use crate::figure::{down_text, nearest_text};
use crate::i18n::{fill, gettext};
use crate::target_dir::Transport;
use crate::units::{mb_per_s, MB};
use crate::verdict::{class_iops, Metric, Standard};

/// How a measurement compares with a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// At or above the claim.
    Meets,
    /// Below the claim (for A2: below A2 but at least A1).
    BelowClaim,
    /// Below even A1 (Application Performance Class only).
    BelowA1,
}

/// One comparison of a claim with a measurement, or an implausible figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Finding {
    /// The card's A1/A2 rating against the random 4 KiB phases.
    AppPerfClass {
        /// `A1` or `A2`.
        claimed: String,
        /// The class's random read minimum, IOPS.
        claimed_read_iops: f64,
        /// The class's random write minimum, IOPS.
        claimed_write_iops: f64,
        /// Measured random 4 KiB read, IOPS.
        measured_read_iops: f64,
        /// Measured random 4 KiB write, IOPS.
        measured_write_iops: f64,
        /// The comparison.
        outcome: Outcome,
    },
    /// The card's Speed Class / UHS grade / Video class against the sequential write.
    SpeedRating {
        /// Every sequential-write rating the card claims, e.g. `["Class 10", "U3", "V30"]`.
        claimed: Vec<String>,
        /// The strongest of them, bytes per second (MB/s × 10⁶).
        claimed_bw_bytes: f64,
        /// Measured sequential write, bytes per second.
        measured_bw_bytes: f64,
        /// [`Outcome::Meets`] or [`Outcome::BelowClaim`].
        outcome: Outcome,
    },
    /// A partition of the card that does not start on an erase-block boundary.
    MisalignedPartition {
        /// The partition, e.g. `mmcblk0p2`.
        partition: String,
        /// Where it starts, bytes.
        start_bytes: u64,
        /// The boundary it should start on, bytes (erase size and AU).
        boundary_bytes: u64,
        /// How far past a boundary it starts, bytes.
        offset_bytes: u64,
        /// The card's preferred erase size, bytes, when known.
        erase_bytes: Option<u64>,
        /// The card's allocation unit (SD Status), bytes, when known.
        au_bytes: Option<u64>,
    },
    /// An eMMC near or past the end of its life, by its own estimates.
    EmmcWorn {
        /// `DEVICE_LIFE_TIME_EST_TYP_A`, raw.
        life_time_a: Option<u8>,
        /// `DEVICE_LIFE_TIME_EST_TYP_B`, raw.
        life_time_b: Option<u8>,
        /// `PRE_EOL_INFO`, raw.
        pre_eol_info: Option<u8>,
    },
    /// A phase measured faster than the link can carry: the figure cannot be real.
    Implausible {
        /// The phase, e.g. `seq-read`.
        phase: String,
        /// Its bandwidth, bytes per second.
        measured_bw_bytes: f64,
        /// The link, e.g. `USB 2.0 high-speed (480 Mbit/s)`.
        link: String,
        /// The link's ceiling, bytes per second.
        link_bw_bytes: f64,
    },
}

/// Measurements within this factor of the ceiling are accepted (clock and timer rounding).
const LINK_TOLERANCE: f64 = 1.02;

/// A measured rate in MB/s, one decimal, rounded down as every measured figure is.
fn mb(bytes_per_s: f64) -> String {
    down_text(mb_per_s(bytes_per_s), 1)
}

impl Finding {
    /// True for a figure that cannot be real.
    pub fn is_implausible(&self) -> bool {
        matches!(self, Finding::Implausible { .. })
    }

    /// The finding for people, translated.
    pub fn text(&self) -> String {
        match self {
            Finding::AppPerfClass {
                claimed,
                claimed_read_iops,
                claimed_write_iops,
                measured_read_iops,
                measured_write_iops,
                outcome,
            } => app_perf_text(
                claimed,
                (*claimed_read_iops, *claimed_write_iops),
                (*measured_read_iops, *measured_write_iops),
                *outcome,
            ),
            Finding::SpeedRating {
                claimed,
                claimed_bw_bytes,
                measured_bw_bytes,
                outcome,
            } => speed_rating_text(claimed, *claimed_bw_bytes, *measured_bw_bytes, *outcome),
            Finding::MisalignedPartition {
                partition,
                start_bytes,
                boundary_bytes,
                offset_bytes,
                erase_bytes,
                au_bytes,
            } => super::alignment::misaligned_text(
                &super::PartitionAlignment {
                    name: partition.clone(),
                    number: 0,
                    start_bytes: *start_bytes,
                    boundary_bytes: Some(*boundary_bytes),
                    offset_bytes: Some(*offset_bytes),
                    aligned: Some(false),
                },
                *erase_bytes,
                *au_bytes,
            ),
            Finding::EmmcWorn {
                life_time_a,
                life_time_b,
                pre_eol_info,
            } => super::EmmcWear {
                life_time_a: *life_time_a,
                life_time_b: *life_time_b,
                pre_eol_info: *pre_eol_info,
            }
            .worn_text(),
            Finding::Implausible {
                phase,
                measured_bw_bytes,
                link,
                link_bw_bytes,
            } => implausible_text(phase, *measured_bw_bytes, link, *link_bw_bytes),
        }
    }
}

/// [`Finding::AppPerfClass`] for people: the class's (read, write) minimums and the measured
/// (read, write) IOPS.
fn app_perf_text(
    claimed: &str,
    class: (f64, f64),
    measured: (f64, f64),
    outcome: Outcome,
) -> String {
    let template = match outcome {
        // Translators: {class} is A1 or A2; IOPS figures are read / write.
        Outcome::Meets => gettext("Card reports {class} ({read}/{write} IOPS); measured {mread} / {mwrite} IOPS: meets its class."),
        Outcome::BelowClaim => gettext("Card reports {class} ({read}/{write} IOPS); measured {mread} / {mwrite} IOPS: below {class}, but meets A1. A2 speeds need a host with command queueing, such as a Raspberry Pi 5."),
        Outcome::BelowA1 => gettext("Card reports {class} ({read}/{write} IOPS); measured {mread} / {mwrite} IOPS: below A1."),
    };
    fill(
        &template,
        &[
            ("class", &claimed),
            ("read", &nearest_text(class.0, 0)),
            ("write", &nearest_text(class.1, 0)),
            ("mread", &down_text(measured.0, 0)),
            ("mwrite", &down_text(measured.1, 0)),
        ],
    )
}

/// [`Finding::SpeedRating`] for people: the ratings, the strongest one's and the measured
/// sequential write, bytes per second.
fn speed_rating_text(
    claimed: &[String],
    claimed_bw_bytes: f64,
    measured_bw_bytes: f64,
    outcome: Outcome,
) -> String {
    let template = match outcome {
        Outcome::Meets => gettext("Card reports {claims} (sustained sequential write of at least {claimed} MB/s); measured {measured} MB/s: meets it."),
        _ => gettext("Card reports {claims} (sustained sequential write of at least {claimed} MB/s); measured {measured} MB/s: below its rating. Speed classes are rated on a freshly formatted card; a well-used card can be slower."),
    };
    fill(
        &template,
        &[
            ("claims", &claimed.join(", ")),
            ("claimed", &nearest_text(mb_per_s(claimed_bw_bytes), 0)),
            ("measured", &mb(measured_bw_bytes)),
        ],
    )
}

/// [`Finding::Implausible`] for people: the phase, its bandwidth and the link's ceiling, bytes
/// per second.
fn implausible_text(phase: &str, measured_bw_bytes: f64, link: &str, link_bw_bytes: f64) -> String {
    fill(
        &gettext("{phase}: {measured} MB/s is more than the {link} link can carry (at most {max} MB/s). This figure cannot be real, so the test is not graded: a cache or another device answered instead."),
        &[
            ("phase", &phase),
            ("measured", &mb(measured_bw_bytes)),
            ("link", &link),
            ("max", &nearest_text(mb_per_s(link_bw_bytes), 1)),
        ],
    )
}

/// The sequential-write ratings the card claims and the strongest of them, bytes per second.
fn speed_claims(card: &CardInfo) -> Option<(Vec<String>, f64)> {
    let s = card.ssr.as_ref()?;
    let mut claims = Vec::new();
    let mut best: f64 = 0.0;
    if let Some(c) = s.speed_class.filter(|c| *c > 0) {
        claims.push(format!("Class {c}"));
        best = best.max(f64::from(c));
    }
    if let Some(u) = s.uhs_grade.filter(|u| *u > 0) {
        claims.push(format!("U{u}"));
        best = best.max(if u == 3 { 30.0 } else { 10.0 });
    }
    if let Some(v) = s.video_class.filter(|v| *v > 0) {
        claims.push(format!("V{v}"));
        best = best.max(f64::from(v));
    }
    (!claims.is_empty()).then_some((claims, best * MB))
}

fn usable(p: &PhaseResult) -> bool {
    p.seconds > 0.0 && p.bytes > 0 && p.bw_bytes.is_finite() && p.iops.is_finite()
}

/// Every finding for one run's measured `phases` (looked up by job name, e.g.
/// `rand-4k-read`) on the device `card`: phases faster than the link (any device whose link
/// is known), then for SD cards with an SD Status the Application Performance Class and the
/// strongest sequential-write rating. A claim whose phase is implausible, unmeasured (no
/// bytes, no time) or missing is not compared. No card, no findings.
pub fn findings(card: Option<&CardInfo>, phases: &[PhaseResult]) -> Vec<Finding> {
    let Some(card) = card else {
        return Vec::new();
    };
    let mut out = beyond_the_link(card, phases);
    if card.kind == Transport::Sd {
        out.extend(claims_against(card, phases, &out));
    }
    if matches!(card.kind, Transport::Sd | Transport::Emmc) {
        out.extend(card_state(card));
    }
    out
}

/// What the card's own state says, measured or not: partitions off the erase-block boundary,
/// an eMMC near the end of its life.
fn card_state(card: &CardInfo) -> Vec<Finding> {
    let erase = card
        .sysfs
        .as_ref()
        .and_then(|s| s.preferred_erase_size.as_deref())
        .and_then(crate::sysfs::parse_num)
        .filter(|e| *e > 0);
    let au = card.ssr.as_ref().and_then(|s| s.au_size_bytes);
    let mut out: Vec<Finding> = card
        .partitions
        .iter()
        .filter(|p| p.aligned == Some(false))
        .map(|p| Finding::MisalignedPartition {
            partition: p.name.clone(),
            start_bytes: p.start_bytes,
            boundary_bytes: p.boundary_bytes.unwrap_or(0),
            offset_bytes: p.offset_bytes.unwrap_or(0),
            erase_bytes: erase,
            au_bytes: au,
        })
        .collect();
    if let Some(w) = card.emmc_wear.filter(super::EmmcWear::is_worn) {
        out.push(Finding::EmmcWorn {
            life_time_a: w.life_time_a,
            life_time_b: w.life_time_b,
            pre_eol_info: w.pre_eol_info,
        });
    }
    out
}

/// An SD card's claimed ratings against the measured `phases`, skipping phases already found
/// implausible (in `found`).
fn claims_against(card: &CardInfo, phases: &[PhaseResult], found: &[Finding]) -> Vec<Finding> {
    let out = found;
    let implausible = |name: &str| {
        out.iter()
            .any(|f| matches!(f, Finding::Implausible { phase, .. } if phase == name))
    };
    let phase = |m: Metric| {
        phases
            .iter()
            .find(|p| p.name == m.phase())
            .filter(|p| usable(p) && !implausible(m.phase()))
    };
    let mut claims = Vec::new();
    if let (Some(class), Some(r), Some(w)) = (
        card.ssr.as_ref().and_then(|s| s.app_perf_class.clone()),
        phase(Metric::RandRead),
        phase(Metric::RandWrite),
    ) {
        claims.push(app_perf_class(class, r.iops, w.iops));
    }
    if let (Some((claimed, bw)), Some(p)) = (speed_claims(card), phase(Metric::SeqWrite)) {
        claims.push(Finding::SpeedRating {
            claimed,
            claimed_bw_bytes: bw,
            measured_bw_bytes: p.bw_bytes,
            outcome: if p.bw_bytes >= bw {
                Outcome::Meets
            } else {
                Outcome::BelowClaim
            },
        });
    }
    claims
}

/// A finding for each measured phase faster than the card's link can carry (with
/// [`LINK_TOLERANCE`]), when the link is known.
fn beyond_the_link(card: &CardInfo, phases: &[PhaseResult]) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(link) = &card.link {
        for p in phases.iter().filter(|p| usable(p)) {
            if p.bw_bytes > link.max_bw_bytes * LINK_TOLERANCE {
                out.push(Finding::Implausible {
                    phase: p.name.clone(),
                    measured_bw_bytes: p.bw_bytes,
                    link: link.name.clone(),
                    link_bw_bytes: link.max_bw_bytes,
                });
            }
        }
    }
    out
}

/// The claimed Application Performance Class (`A1` or `A2`) against the measured random
/// read and write IOPS: meets it, below it but meeting A1, or below A1.
fn app_perf_class(class: String, read_iops: f64, write_iops: f64) -> Finding {
    let standard = if class == "A2" {
        Standard::A2
    } else {
        Standard::A1
    };
    let (cr, cw) = class_iops(standard);
    let (a1_read, a1_write) = class_iops(Standard::A1);
    let outcome = if read_iops >= cr && write_iops >= cw {
        Outcome::Meets
    } else if read_iops >= a1_read && write_iops >= a1_write {
        Outcome::BelowClaim
    } else {
        Outcome::BelowA1
    };
    Finding::AppPerfClass {
        claimed: class,
        claimed_read_iops: cr,
        claimed_write_iops: cw,
        measured_read_iops: read_iops,
        measured_write_iops: write_iops,
        outcome,
    }
}

#[cfg(test)]
mod tests {
    use super::super::ssr;
    use super::super::LinkInfo;
    use super::*;

    fn phase(name: &str, bw_bytes: f64, iops: f64) -> PhaseResult {
        crate::sample::phase(name)
            .bw_bytes(bw_bytes)
            .iops(iops)
            .bytes(1 << 20)
            .ios(100)
            .build()
    }

    fn run(seq_mb: f64, read_iops: f64, write_iops: f64) -> Vec<PhaseResult> {
        vec![
            phase("seq-write", seq_mb * 1e6, seq_mb),
            phase("seq-read", 40e6, 10.0),
            phase("rand-4k-write", write_iops * 4096.0, write_iops),
            phase("rand-4k-read", read_iops * 4096.0, read_iops),
        ]
    }

    fn sd_card(ssr_hex: &str) -> CardInfo {
        let v = super::super::regs::parse_hex(ssr_hex, 64).unwrap();
        let mut a = [0u8; 64];
        a.copy_from_slice(&v);
        CardInfo {
            device: "mmcblk0".into(),
            kind: Transport::Sd,
            ssr: Some(ssr::decode(&a)),
            ..CardInfo::default()
        }
    }

    const A2_U3_V30: &str = "000000000800000004009000011b391e000800000002ff0003000000000000000000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn a2_card_measured_below_a1() {
        let card = sd_card(A2_U3_V30);
        let f = findings(Some(&card), &run(12.0, 1210.0, 350.0));
        assert_eq!(f.len(), 2);
        match &f[0] {
            Finding::AppPerfClass {
                claimed, outcome, ..
            } => {
                assert_eq!((claimed.as_str(), *outcome), ("A2", Outcome::BelowA1));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            f[0].text(),
            "Card reports A2 (4000/2000 IOPS); measured 1210 / 350 IOPS: below A1."
        );
        match &f[1] {
            Finding::SpeedRating {
                claimed,
                claimed_bw_bytes,
                outcome,
                ..
            } => {
                assert_eq!(claimed, &["Class 10", "U3", "V30"]);
                assert_eq!(*claimed_bw_bytes, 30e6);
                assert_eq!(*outcome, Outcome::BelowClaim);
            }
            other => panic!("{other:?}"),
        }
        assert!(f[1].text().contains("measured 12.0 MB/s: below its rating"));
    }

    #[test]
    fn a2_card_between_a1_and_a2_and_one_that_meets_it() {
        let card = sd_card(A2_U3_V30);
        let f = findings(Some(&card), &run(35.0, 2500.0, 900.0));
        assert!(matches!(
            f[0],
            Finding::AppPerfClass {
                outcome: Outcome::BelowClaim,
                ..
            }
        ));
        assert!(f[0].text().contains("meets A1"));
        assert!(matches!(
            f[1],
            Finding::SpeedRating {
                outcome: Outcome::Meets,
                ..
            }
        ));
        let f = findings(Some(&card), &run(35.0, 4000.0, 2000.0));
        assert!(matches!(
            f[0],
            Finding::AppPerfClass {
                outcome: Outcome::Meets,
                ..
            }
        ));
    }

    #[test]
    fn speed_class_thresholds() {
        // Class 4, no UHS, no video, no A-class (Panasonic 8 GB).
        let card = sd_card("80000000030000000202900008070000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000");
        let f = findings(Some(&card), &run(4.0, 100.0, 10.0));
        assert_eq!(f.len(), 1);
        match &f[0] {
            Finding::SpeedRating {
                claimed,
                claimed_bw_bytes,
                outcome,
                ..
            } => {
                assert_eq!(claimed, &["Class 4"]);
                assert_eq!(*claimed_bw_bytes, 4e6);
                assert_eq!(*outcome, Outcome::Meets);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn faster_than_usb_2_cannot_be_real() {
        let card = CardInfo {
            device: "sda".into(),
            kind: Transport::Usb,
            link: super::super::link::usb(480.0),
            ..CardInfo::default()
        };
        let f = findings(Some(&card), &run(95.0, 1000.0, 1000.0));
        assert_eq!(f.len(), 1);
        assert!(f[0].is_implausible());
        assert!(f[0].text().contains("cannot be real"), "{}", f[0].text());
        // 40 MB/s over USB 2.0 is real.
        assert!(findings(Some(&card), &run(40.0, 1000.0, 1000.0)).is_empty());
    }

    #[test]
    fn an_implausible_phase_is_not_compared_with_the_claim() {
        let mut card = sd_card(A2_U3_V30);
        card.link = Some(LinkInfo {
            name: "SD high speed".into(),
            max_bw_bytes: 25e6,
            basis: String::new(),
            practical_bw_bytes: None,
        });
        let f = findings(Some(&card), &run(80.0, 5000.0, 3000.0));
        assert!(f[0].is_implausible());
        assert!(f.iter().all(|x| !matches!(x, Finding::SpeedRating { .. })));
        assert!(f.iter().any(|x| matches!(x, Finding::AppPerfClass { .. })));
    }

    #[test]
    fn nothing_without_a_card_or_ratings() {
        assert!(findings(None, &run(10.0, 1.0, 1.0)).is_empty());
        let card = CardInfo {
            kind: Transport::Sd,
            ..CardInfo::default()
        };
        assert!(findings(Some(&card), &run(10.0, 1.0, 1.0)).is_empty());
        assert!(findings(Some(&sd_card(A2_U3_V30)), &[]).is_empty());
    }

    #[test]
    fn findings_round_trip_through_json() {
        let card = sd_card(A2_U3_V30);
        let f = findings(Some(&card), &run(12.0, 1210.0, 350.0));
        let json = serde_json::to_string(&f).unwrap();
        assert!(json.contains("\"kind\":\"app_perf_class\""));
        assert!(json.contains("\"outcome\":\"below_a1\""));
        let back: Vec<Finding> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
    }
}
