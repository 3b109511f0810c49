//! The 512-bit SD Status (SD Physical Layer Simplified Specification, "SD Status"), as sysfs
//! `ssr` shows it: DAT_BUS_WIDTH `[511:510]`, SECURED_MODE `[509]`, SD_CARD_TYPE `[495:480]`,
//! SIZE_OF_PROTECTED_AREA `[479:448]`, SPEED_CLASS `[447:440]`, PERFORMANCE_MOVE `[439:432]`,
//! AU_SIZE `[431:428]`, ERASE_SIZE `[423:408]`, ERASE_TIMEOUT `[407:402]`, ERASE_OFFSET
//! `[401:400]`, UHS_SPEED_GRADE `[399:396]`, UHS_AU_SIZE `[395:392]`, VIDEO_SPEED_CLASS `[391:384]`,
//! VSC_AU_SIZE `[377:368]`, SUS_ADDR `[367:346]`, APP_PERF_CLASS `[339:336]`,
//! PERFORMANCE_ENHANCE `[335:328]`, DISCARD_SUPPORT `[313]`, FULE_SUPPORT `[312]`.
//!
//! Linux reads the SD Status before switching to the 4-bit bus, so sysfs `ssr` normally
//! starts `00000000` (DAT_BUS_WIDTH 0).

use serde::{Deserialize, Serialize};

use super::regs::Bits;

/// A decoded SD Status. The ratings are `None` when the card reports a reserved value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ssr {
    /// Speed Class: 0, 2, 4, 6 or 10 (MB/s of sustained sequential write; 0 = not rated).
    pub speed_class: Option<u8>,
    /// UHS Speed Grade: 0 (none), 1 (U1, 10 MB/s) or 3 (U3, 30 MB/s).
    pub uhs_grade: Option<u8>,
    /// Video Speed Class: 0 (none), 6, 10, 30, 60 or 90 (MB/s).
    pub video_class: Option<u8>,
    /// Application Performance Class: `A1`, `A2`, or null when not rated.
    pub app_perf_class: Option<String>,
    /// Allocation unit size in bytes; `None` when the card leaves it undefined (code 0).
    pub au_size_bytes: Option<u64>,
    /// The raw fields, for people who want to check.
    pub raw: SsrRaw,
}

/// Every SD Status field, raw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsrRaw {
    /// DAT_BUS_WIDTH: 0 = 1-bit, 2 = 4-bit (when the status was read).
    pub dat_bus_width: u8,
    /// SECURED_MODE.
    pub secured_mode: bool,
    /// SD_CARD_TYPE (0 = regular read/write card).
    pub sd_card_type: u16,
    /// SIZE_OF_PROTECTED_AREA.
    pub size_of_protected_area: u32,
    /// SPEED_CLASS code (0…4).
    pub speed_class: u8,
    /// PERFORMANCE_MOVE, MB/s.
    pub performance_move: u8,
    /// AU_SIZE code.
    pub au_size: u8,
    /// ERASE_SIZE, in AUs.
    pub erase_size: u16,
    /// ERASE_TIMEOUT, seconds.
    pub erase_timeout: u8,
    /// ERASE_OFFSET, seconds.
    pub erase_offset: u8,
    /// UHS_SPEED_GRADE code.
    pub uhs_speed_grade: u8,
    /// UHS_AU_SIZE code.
    pub uhs_au_size: u8,
    /// VIDEO_SPEED_CLASS code.
    pub video_speed_class: u8,
    /// VSC_AU_SIZE, MB.
    pub vsc_au_size: u16,
    /// SUS_ADDR.
    pub sus_addr: u32,
    /// APP_PERF_CLASS code.
    pub app_perf_class: u8,
    /// PERFORMANCE_ENHANCE, raw.
    pub performance_enhance: u8,
    /// Command-queue depth the card supports (PERFORMANCE_ENHANCE bits 7:3, plus 1); 0 when
    /// it has no command queue.
    pub cq_depth: u8,
    /// The card has a cache (PERFORMANCE_ENHANCE bit 2).
    pub cache_support: bool,
    /// DISCARD_SUPPORT.
    pub discard_support: bool,
    /// FULE_SUPPORT (full user-area logical erase).
    pub fule_support: bool,
}

/// AU_SIZE / UHS_AU_SIZE code → bytes (code 0 undefined).
pub fn au_bytes(code: u8) -> Option<u64> {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * 1024;
    match code {
        1..=9 => Some((16 * KIB) << (code - 1)),
        0xa => Some(8 * MIB),
        0xb => Some(12 * MIB),
        0xc => Some(16 * MIB),
        0xd => Some(24 * MIB),
        0xe => Some(32 * MIB),
        0xf => Some(64 * MIB),
        _ => None,
    }
}

/// True when every byte is 0: the card reported nothing.
pub fn is_all_zero(reg: &[u8]) -> bool {
    reg.iter().all(|&b| b == 0)
}

/// Decodes a 64-byte SD Status. Never panics; reserved rating codes give `None`.
#[allow(clippy::cast_possible_truncation)] // every field is masked to its width first
pub fn decode(reg: &[u8; 64]) -> Ssr {
    let b = Bits(reg);
    let f8 = |hi, lo| b.field(hi, lo) as u8;
    let enhance = f8(335, 328);
    let raw = SsrRaw {
        dat_bus_width: f8(511, 510),
        secured_mode: b.bit(509) == 1,
        sd_card_type: b.field(495, 480) as u16,
        size_of_protected_area: b.field(479, 448) as u32,
        speed_class: f8(447, 440),
        performance_move: f8(439, 432),
        au_size: f8(431, 428),
        erase_size: b.field(423, 408) as u16,
        erase_timeout: f8(407, 402),
        erase_offset: f8(401, 400),
        uhs_speed_grade: f8(399, 396),
        uhs_au_size: f8(395, 392),
        video_speed_class: f8(391, 384),
        vsc_au_size: b.field(377, 368) as u16,
        sus_addr: b.field(367, 346) as u32,
        app_perf_class: f8(339, 336),
        performance_enhance: enhance,
        cq_depth: if enhance >> 3 == 0 {
            0
        } else {
            (enhance >> 3) + 1
        },
        cache_support: enhance & 4 != 0,
        discard_support: b.bit(313) == 1,
        fule_support: b.bit(312) == 1,
    };
    Ssr {
        speed_class: match raw.speed_class {
            0 => Some(0),
            1 => Some(2),
            2 => Some(4),
            3 => Some(6),
            4 => Some(10),
            _ => None,
        },
        uhs_grade: matches!(raw.uhs_speed_grade, 0 | 1 | 3).then_some(raw.uhs_speed_grade),
        video_class: matches!(raw.video_speed_class, 0 | 6 | 10 | 30 | 60 | 90)
            .then_some(raw.video_speed_class),
        app_perf_class: match raw.app_perf_class {
            1 => Some("A1".to_owned()),
            2 => Some("A2".to_owned()),
            _ => None,
        },
        au_size_bytes: au_bytes(raw.au_size),
        raw,
    }
}

impl Ssr {
    /// The codes the card reported that the specification reserves, by field name, so the
    /// report can say so (a null rating otherwise looks like "not rated").
    pub fn reserved_fields(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.speed_class.is_none() {
            v.push("SPEED_CLASS");
        }
        if self.uhs_grade.is_none() {
            v.push("UHS_SPEED_GRADE");
        }
        if self.video_class.is_none() {
            v.push("VIDEO_SPEED_CLASS");
        }
        if self.raw.app_perf_class > 2 {
            v.push("APP_PERF_CLASS");
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::super::regs::parse_hex;
    use super::*;
    use proptest::prelude::*;

    fn ssr(text: &str) -> Ssr {
        let v = parse_hex(text, 64).unwrap();
        let mut a = [0u8; 64];
        a.copy_from_slice(&v);
        decode(&a)
    }

    const KINGSTON: &str = "000000000800000004009000011b391e000800000002ff0003000000000000000000000000000000000000000000000000000000000000000000000000000000";

    #[test]
    fn decodes_an_a2_v30_card() {
        let s = ssr(KINGSTON);
        assert_eq!(s.speed_class, Some(10));
        assert_eq!(s.uhs_grade, Some(3));
        assert_eq!(s.video_class, Some(30));
        assert_eq!(s.app_perf_class.as_deref(), Some("A2"));
        assert_eq!(s.au_size_bytes, Some(4 * 1024 * 1024));
        let r = &s.raw;
        assert_eq!(r.size_of_protected_area, 134_217_728);
        assert_eq!((r.erase_size, r.erase_timeout, r.erase_offset), (1, 6, 3));
        assert_eq!((r.uhs_au_size, r.vsc_au_size, r.sus_addr), (9, 8, 0));
        assert_eq!(
            (r.performance_enhance, r.cq_depth, r.cache_support),
            (0xff, 32, true)
        );
        assert!(r.discard_support && r.fule_support);
        assert!(s.reserved_fields().is_empty());
    }

    #[test]
    fn speed_class_codes_map_to_mb_per_s() {
        let mut reg = [0u8; 64];
        for (code, class) in [
            (0, Some(0)),
            (1, Some(2)),
            (2, Some(4)),
            (3, Some(6)),
            (4, Some(10)),
            (5, None),
        ] {
            reg[8] = code;
            assert_eq!(decode(&reg).speed_class, class, "code {code}");
        }
    }

    #[test]
    fn reserved_ratings_are_null_and_named() {
        let mut reg = [0u8; 64];
        reg[14] = 0x20; // UHS grade 2: reserved
        reg[15] = 7; // video class 7: reserved
        reg[21] = 3; // A-class 3: reserved
        let s = decode(&reg);
        assert_eq!(
            (s.uhs_grade, s.video_class, s.app_perf_class.as_deref()),
            (None, None, None)
        );
        assert_eq!(
            s.reserved_fields(),
            ["UHS_SPEED_GRADE", "VIDEO_SPEED_CLASS", "APP_PERF_CLASS"]
        );
    }

    #[test]
    fn all_zero_status_reports_nothing() {
        let reg = [0u8; 64];
        assert!(is_all_zero(&reg));
        let s = decode(&reg);
        assert_eq!(s.speed_class, Some(0));
        assert_eq!(s.app_perf_class, None);
        assert_eq!(s.au_size_bytes, None);
    }

    #[test]
    fn au_size_table() {
        assert_eq!(au_bytes(1), Some(16 * 1024));
        assert_eq!(au_bytes(9), Some(4 << 20));
        assert_eq!(au_bytes(0xb), Some(12 << 20));
        assert_eq!(au_bytes(0xf), Some(64 << 20));
        assert_eq!(au_bytes(0), None);
        assert_eq!(au_bytes(0x10), None);
    }

    proptest! {
        #[test]
        fn any_status_decodes(bytes in proptest::collection::vec(any::<u8>(), 64)) {
            let mut a = [0u8; 64];
            a.copy_from_slice(&bytes);
            let s = decode(&a);
            let _ = s.reserved_fields();
        }
    }
}
