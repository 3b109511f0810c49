//! eMMC wear (JEDEC JESD84-B51, EXT_CSD `DEVICE_LIFE_TIME_EST_TYP_A` [268],
//! `DEVICE_LIFE_TIME_EST_TYP_B` [269] and `PRE_EOL_INFO` [267]), as Linux shows them without
//! root: `device/life_time` (`0x01 0x02`, types A and B) and `device/pre_eol_info` (`0x01`).
//!
//! Life time estimates: 0x00 not defined, 0x01 0–10 % of the device's life used, 0x02
//! 10–20 %, … 0x0A 90–100 %, 0x0B beyond its estimated life. Types A and B are the two kinds
//! of flash the device reports on (as its maker defines them; typically its SLC and MLC
//! areas). Pre-EOL: 0x01 normal, 0x02 warning (80 % of the reserved blocks consumed), 0x03
//! urgent (90 % consumed).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext};
use crate::sysfs::parse_num;
use crate::sysfs::read_attr;

/// The eMMC's own wear estimates (JSON: the `card.emmc_wear` object); each field null when
/// sysfs does not have it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmmcWear {
    /// `DEVICE_LIFE_TIME_EST_TYP_A`, raw (0x01…0x0B).
    pub life_time_a: Option<u8>,
    /// `DEVICE_LIFE_TIME_EST_TYP_B`, raw.
    pub life_time_b: Option<u8>,
    /// `PRE_EOL_INFO`, raw (0x01 normal, 0x02 warning, 0x03 urgent).
    pub pre_eol_info: Option<u8>,
}

fn byte(text: &str) -> Option<u8> {
    parse_num(text).and_then(|v| u8::try_from(v).ok())
}

/// Reads `life_time` and `pre_eol_info` from the card's sysfs directory `dev`; `None` when
/// neither is there.
pub fn read(dev: &Path) -> Option<EmmcWear> {
    let life = read_attr(&dev.join("life_time"));
    let mut values = life.as_deref().unwrap_or("").split_whitespace();
    let (a, b) = (values.next().and_then(byte), values.next().and_then(byte));
    let pre_eol = read_attr(&dev.join("pre_eol_info"))
        .as_deref()
        .and_then(byte);
    (a.is_some() || b.is_some() || pre_eol.is_some()).then_some(EmmcWear {
        life_time_a: a,
        life_time_b: b,
        pre_eol_info: pre_eol,
    })
}

/// A life time estimate in words: `10–20 % of its life used`.
pub fn life_text(value: u8) -> String {
    match value {
        0 => gettext("not reported"),
        1..=10 => fill(
            // xgettext:no-c-format
            &gettext("{low}–{high} % of its life used"),
            &[
                ("low", &(u32::from(value - 1) * 10)),
                ("high", &(u32::from(value) * 10)),
            ],
        ),
        11 => gettext("past its estimated life"),
        v => fill(
            &gettext("a reserved value (0x{value})"),
            &[("value", &format!("{v:02X}"))],
        ),
    }
}

/// The pre-end-of-life state in words.
pub fn pre_eol_text(value: u8) -> String {
    match value {
        0 => gettext("not reported"),
        1 => gettext("normal"),
        // xgettext:no-c-format
        2 => gettext("warning (80 % used)"),
        // xgettext:no-c-format
        3 => gettext("urgent (90 % used)"),
        v => fill(
            &gettext("a reserved value (0x{value})"),
            &[("value", &format!("{v:02X}"))],
        ),
    }
}

impl EmmcWear {
    /// For people: `type A: 0–10 % of its life used; type B: 10–20 % of its life used;
    /// reserved blocks: normal`, the parts sysfs has.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = self.life_time_a {
            parts.push(fill(&gettext("type A: {life}"), &[("life", &life_text(a))]));
        }
        if let Some(b) = self.life_time_b {
            parts.push(fill(&gettext("type B: {life}"), &[("life", &life_text(b))]));
        }
        if let Some(p) = self.pre_eol_info {
            parts.push(fill(
                &gettext("reserved blocks: {state}"),
                &[("state", &pre_eol_text(p))],
            ));
        }
        parts.join("; ")
    }

    /// True when the device is near or past the end of its life: an estimate of 80 % or more
    /// (0x09 and above, reserved values aside) or a pre-EOL warning or urgent.
    pub fn is_worn(&self) -> bool {
        let life_worn = |v: Option<u8>| v.is_some_and(|v| (9..=11).contains(&v));
        life_worn(self.life_time_a)
            || life_worn(self.life_time_b)
            || self.pre_eol_info.is_some_and(|p| p == 2 || p == 3)
    }

    /// The finding's text for a worn device.
    pub fn worn_text(&self) -> String {
        fill(
            &gettext("The eMMC reports its wear as {wear}. It is near the end of its life: back up what is on it, and expect writes to slow down and then fail."),
            &[("wear", &self.describe())],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_step_in_words() {
        assert_eq!(life_text(1), "0–10 % of its life used");
        assert_eq!(life_text(2), "10–20 % of its life used");
        assert_eq!(life_text(10), "90–100 % of its life used");
        assert_eq!(life_text(11), "past its estimated life");
        assert_eq!(life_text(0), "not reported");
        assert_eq!(life_text(0x0c), "a reserved value (0x0C)");
        assert_eq!(pre_eol_text(1), "normal");
        assert_eq!(pre_eol_text(2), "warning (80 % used)");
        assert_eq!(pre_eol_text(3), "urgent (90 % used)");
    }

    #[test]
    fn reads_the_kernels_format() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("life_time"), "0x01 0x02\n").unwrap();
        std::fs::write(d.path().join("pre_eol_info"), "0x01\n").unwrap();
        let w = read(d.path()).unwrap();
        assert_eq!(
            (w.life_time_a, w.life_time_b, w.pre_eol_info),
            (Some(1), Some(2), Some(1))
        );
        assert_eq!(
            w.describe(),
            "type A: 0–10 % of its life used; type B: 10–20 % of its life used; reserved blocks: normal"
        );
        assert!(!w.is_worn());
        std::fs::write(d.path().join("pre_eol_info"), "0x02\n").unwrap();
        assert!(read(d.path()).unwrap().is_worn());
        assert!(read(tempfile::tempdir().unwrap().path()).is_none());
    }
}
