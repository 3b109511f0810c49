//! How much the sustained write test writes, in what units, and what it says before it
//! starts.
//!
//! The rule: the card's allocation unit (the SD Status's AU_SIZE, at least 512 KiB; 4 MiB when
//! the card reports none or is not an SD card) is the unit the test writes, whole and aligned,
//! in requests of at most 4 MiB (the memory the test keeps: two such buffers); it writes at
//! most 4 GiB or half the free space, whichever is smaller, rounded down to whole units, and
//! stops early once the speed has fallen and stayed down for [`SETTLE_SAMPLES`] one-second
//! samples. The cap can be lowered (never raised past half the free space) with the
//! environment variable [`MAX_ENV`] (a fio size of at least [`MIN_CAP_BYTES`], e.g. `64m`), for
//! tests and shorter runs; any other value refuses the test before a byte is written
//! ([`refusal`]).

use crate::units::{GIB, KIB, MIB};

/// The most the test writes, bytes: 4 GiB, more than the write cache of the cards people
/// use in a Pi.
pub const CAP_BYTES: u64 = 4 * GIB;
/// The unit when the card reports no allocation unit, bytes: 4 MiB, the AU of most SDHC
/// cards.
pub const DEFAULT_UNIT_BYTES: u64 = 4 * MIB;
/// The smallest unit, bytes: smaller allocation units (old cards) are written 512 KiB at a
/// time, a whole number of their units.
pub const MIN_UNIT_BYTES: u64 = 512 * KIB;
/// The largest request, bytes: a larger unit is written in requests of this size.
pub const MAX_REQUEST_BYTES: u64 = 4 * MIB;
/// One-second samples the speed must stay down after a fall before the test stops early.
pub const SETTLE_SAMPLES: usize = 30;
/// The environment variable that lowers [`CAP_BYTES`] (a fio size such as `64m`).
pub const MAX_ENV: &str = "AGNOSTICS_SUSTAINED_MAX";
/// The smallest cap [`MAX_ENV`] may give, bytes: 8 MiB, two units of [`DEFAULT_UNIT_BYTES`]
/// (a card with a larger allocation unit still writes two of its units).
pub const MIN_CAP_BYTES: u64 = 2 * DEFAULT_UNIT_BYTES;
/// The speed the announced time assumes for writing, bytes per second: Class 10's 10 MB/s.
pub const ASSUMED_WRITE: f64 = 10_000_000.0;
/// The speed the announced time assumes for reading back, bytes per second.
pub const ASSUMED_READ: f64 = 20_000_000.0;

/// What the test will write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The unit written whole and timed on its own, bytes.
    pub unit_bytes: u64,
    /// Whether the unit is the card's own allocation unit (else [`DEFAULT_UNIT_BYTES`]).
    pub unit_from_card: bool,
    /// The size of each write and read request, bytes (divides `unit_bytes`).
    pub request_bytes: u64,
    /// The most it writes, bytes: a whole number of units.
    pub max_bytes: u64,
}

impl Plan {
    /// The plan for `free_bytes` free before the test, the card's allocation unit `au_bytes`
    /// (SD Status AU_SIZE, when reported) and a cap (`CAP_BYTES` or what [`MAX_ENV`] says;
    /// a cap below two units counts as two). `None` when half the free space does not hold
    /// two units.
    pub fn new(free_bytes: u64, au_bytes: Option<u64>, cap_bytes: u64) -> Option<Plan> {
        let unit_bytes = au_bytes
            .filter(|&au| {
                au > 0
                    && au % (4 * KIB) == 0
                    && au <= 64 * MIB
                    && (au <= MAX_REQUEST_BYTES || au % MAX_REQUEST_BYTES == 0)
            })
            .map_or(DEFAULT_UNIT_BYTES, |au| au.max(MIN_UNIT_BYTES));
        // Every AU above 4 MiB is a multiple of it (8, 12, 16, 24, 32, 64 MiB).
        let request_bytes = unit_bytes.min(MAX_REQUEST_BYTES);
        let most = cap_bytes.max(2 * unit_bytes).min(free_bytes / 2);
        let max_bytes = most / unit_bytes * unit_bytes;
        (max_bytes >= 2 * unit_bytes).then_some(Plan {
            unit_bytes,
            unit_from_card: au_bytes.is_some_and(|au| au == unit_bytes),
            request_bytes,
            max_bytes,
        })
    }

    /// About how long the whole test takes at most, seconds: writing `max_bytes` at
    /// [`ASSUMED_WRITE`] and reading them back at [`ASSUMED_READ`].
    pub fn estimate_seconds(&self) -> u64 {
        let b = self.max_bytes as f64;
        (b / ASSUMED_WRITE + b / ASSUMED_READ).ceil() as u64
    }

    /// What the test will do, one line for people (translated): the most it writes, in what
    /// unit, and about how long it takes.
    pub fn announce(&self) -> String {
        use crate::i18n::{fill, gettext};
        use crate::units::human_bytes;
        let minutes = self.estimate_seconds().div_ceil(60);
        fill(
            &gettext(
                "Sustained write: writes at most {bytes} in units of {unit}, stopping early once \
                 the speed has settled after a fall, then reads it all back to check it; at most \
                 about {minutes} min on a card that writes 10 MB/s.",
            ),
            &[
                ("bytes", &human_bytes(self.max_bytes)),
                ("unit", &human_bytes(self.unit_bytes)),
                ("minutes", &minutes),
            ],
        )
    }
    /// [`Plan::announce`] for fio, which writes the whole plan (it cannot stop once the speed
    /// has settled): the bytes it writes and about how long that takes at 10 MB/s, translated.
    pub fn announce_whole(&self) -> String {
        use crate::i18n::{fill, gettext};
        use crate::units::human_bytes;
        let minutes = self.estimate_seconds().div_ceil(60);
        fill(
            &gettext(
                "Sustained write with fio: writes all of {bytes} in units of {unit}, then reads \
                 it all back to check it; about {minutes} min on a card that writes 10 MB/s.",
            ),
            &[
                ("bytes", &human_bytes(self.max_bytes)),
                ("unit", &human_bytes(self.unit_bytes)),
                ("minutes", &minutes),
            ],
        )
    }
}

/// A value of [`MAX_ENV`] the test cannot use: not a size, or smaller than
/// [`MIN_CAP_BYTES`] (`0`, `-5`, `12q`, `banana`, `1k`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{MAX_ENV}={value}: not a size of at least 8 MiB ({reason})")]
pub struct BadCap {
    /// The variable's value as set.
    pub value: String,
    /// Why, in English (for logs): the size parser's reason, or "too small".
    pub reason: String,
}

impl BadCap {
    /// What is wrong, for people (translated).
    pub fn message(&self) -> String {
        use crate::i18n::{fill, gettext};
        fill(
            &gettext(
                // Translators: {name} is an environment variable's name, {value} what it was
                // set to.
                "{name} is set to “{value}”, which is not a size the sustained write test can use",
            ),
            &[("name", &MAX_ENV), ("value", &self.value)],
        )
    }

    /// Which values are accepted, for people (translated).
    pub fn hint(&self) -> String {
        use crate::i18n::{fill, gettext};
        fill(
            // Translators: {name} is an environment variable's name; 64m and 1g are sizes as
            // fio writes them, not translated.
            &gettext("Set {name} to a size of at least 8 MiB, such as 64m or 1g (more than 4 GiB counts as 4 GiB), or unset it for the full test. Nothing was written."),
            &[("name", &MAX_ENV)],
        )
    }
}

/// The cap from `value`, [`MAX_ENV`]'s value when it is set: [`CAP_BYTES`] without one, or
/// the smaller size it gives. Err when it is set but is not a size of at least
/// [`MIN_CAP_BYTES`].
pub fn cap_from(value: Option<&str>) -> Result<u64, BadCap> {
    let Some(text) = value else {
        return Ok(CAP_BYTES);
    };
    let bad = |reason: String| BadCap {
        value: text.to_owned(),
        reason,
    };
    match crate::units::parse_size(text) {
        Ok(b) if b >= MIN_CAP_BYTES => Ok(b.min(CAP_BYTES)),
        Ok(_) => Err(bad("too small".to_owned())),
        Err(e) => Err(bad(e)),
    }
}

/// The cap as [`MAX_ENV`] sets it now ([`cap_from`]); a value that is not Unicode is not a
/// size either.
pub fn cap_bytes() -> Result<u64, BadCap> {
    match std::env::var(MAX_ENV) {
        Ok(text) => cap_from(Some(&text)),
        Err(std::env::VarError::NotPresent) => cap_from(None),
        Err(std::env::VarError::NotUnicode(raw)) => cap_from(Some(&raw.to_string_lossy())),
    }
}

/// Why `profile` cannot run as [`MAX_ENV`] is set: the message and which values are accepted
/// (translated), for the sustained test with a bad cap; `None` otherwise. Asked before
/// anything is written.
pub fn refusal(profile: &crate::profile::Profile) -> Option<(String, String)> {
    if !super::is_sustained(profile) {
        return None;
    }
    cap_bytes().err().map(|bad| (bad.message(), bad.hint()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_gib_or_half_the_free_space_in_whole_units() {
        let p = Plan::new(100 * GIB, None, CAP_BYTES).unwrap();
        assert_eq!(
            (p.unit_bytes, p.request_bytes, p.max_bytes, p.unit_from_card),
            (4 * MIB, 4 * MIB, 4 * GIB, false)
        );
        let p = Plan::new(3 * GIB + 6 * MIB, None, CAP_BYTES).unwrap();
        assert_eq!(p.max_bytes, 1536 * MIB);
        // A 12 MiB AU: three requests of 4 MiB, whole units only.
        let p = Plan::new(GIB, Some(12 * MIB), CAP_BYTES).unwrap();
        assert_eq!(
            (p.unit_bytes, p.request_bytes, p.max_bytes, p.unit_from_card),
            (12 * MIB, 4 * MIB, 504 * MIB, true)
        );
        // A 64 KiB AU is written 512 KiB at a time.
        let p = Plan::new(GIB, Some(64 * KIB), CAP_BYTES).unwrap();
        assert_eq!((p.unit_bytes, p.request_bytes), (512 * KIB, 512 * KIB));
        assert!(!p.unit_from_card);
        assert_eq!(Plan::new(GIB, None, 40 * MIB).unwrap().max_bytes, 40 * MIB);
        assert_eq!(Plan::new(15 * MIB, None, CAP_BYTES), None);
    }

    #[test]
    fn the_cap_is_a_size_of_at_least_8_mib() {
        assert_eq!(cap_from(None), Ok(CAP_BYTES));
        assert_eq!(cap_from(Some("64m")), Ok(64 * MIB));
        assert_eq!(cap_from(Some("8m")), Ok(8 * MIB));
        assert_eq!(cap_from(Some("10g")), Ok(CAP_BYTES));
        for bad in ["banana", "0", "-5", "12q", "", "1k", "8388607"] {
            let e = cap_from(Some(bad)).unwrap_err();
            assert_eq!(e.value, bad);
            assert_eq!(
                e.message(),
                format!(
                    "AGNOSTICS_SUSTAINED_MAX is set to “{bad}”, which is not a size the \
                     sustained write test can use"
                )
            );
            assert!(e.hint().starts_with(
                "Set AGNOSTICS_SUSTAINED_MAX to a size of at least 8 MiB, such as 64m or 1g"
            ));
        }
        // A card whose allocation unit is larger than half the cap still writes two units.
        let p = Plan::new(GIB, Some(16 * MIB), 8 * MIB).unwrap();
        assert_eq!(p.max_bytes, 32 * MIB);
    }

    #[test]
    fn the_estimate_covers_writing_and_reading_back() {
        let p = Plan::new(100 * GIB, None, CAP_BYTES).unwrap();
        // 4 GiB at 10 MB/s and at 20 MB/s.
        assert_eq!(p.estimate_seconds(), 645);
        assert!(p.announce().contains("4.3 GB"), "{}", p.announce());
        assert!(p.announce().contains("11 min"), "{}", p.announce());
    }
}
