//! The unit of a figure: bytes per second as measured, KiB/s and MB/s as the checks state their
//! targets, or I/O operations per second.

use serde::{Deserialize, Serialize};

use crate::engine::PhaseResult;
use crate::profile::Rw;

/// The unit of a figure. JSON (a check's `unit`): `B/s`, `KiB/s`, `MB/s`, `IOPS`; the history's
/// figures are written `bytes_per_second` and `iops` (see [`snake_case`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Unit {
    /// Bandwidth in bytes per second, as measured (a phase's `bw_bytes`); the default.
    #[default]
    #[serde(rename = "B/s")]
    BytesPerSecond,
    /// KiB per second (1024 bytes), upstream's "KB/sec".
    #[serde(rename = "KiB/s")]
    KibPerS,
    /// MB per second (1 000 000 bytes), the SD Association's unit.
    #[serde(rename = "MB/s")]
    MbPerS,
    /// I/O operations per second.
    #[serde(rename = "IOPS")]
    Iops,
}

impl Unit {
    /// The unit as printed: `B/s`, `KiB/s`, `MB/s` or `IOPS` (untranslated, as in the JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::BytesPerSecond => "B/s",
            Unit::KibPerS => "KiB/s",
            Unit::MbPerS => "MB/s",
            Unit::Iops => "IOPS",
        }
    }

    /// The unit a phase of pattern `rw` is judged by, as measured: IOPS for random patterns,
    /// bytes per second for sequential ones.
    pub fn judging(rw: Rw) -> Unit {
        if rw.is_random() {
            Unit::Iops
        } else {
            Unit::BytesPerSecond
        }
    }

    /// True for the bandwidth units (bytes/s, KiB/s, MB/s).
    pub fn is_bandwidth(self) -> bool {
        self != Unit::Iops
    }

    /// A phase's figure in this unit: its bandwidth (`bw_bytes`, bytes per second) as is, in
    /// KiB/s or MB/s ([`crate::units::kib_per_s`], [`crate::units::mb_per_s`]), or its IOPS.
    pub fn of_phase(self, phase: &PhaseResult) -> f64 {
        match self {
            Unit::BytesPerSecond => phase.bw_bytes,
            Unit::KibPerS => crate::units::kib_per_s(phase.bw_bytes),
            Unit::MbPerS => crate::units::mb_per_s(phase.bw_bytes),
            Unit::Iops => phase.iops,
        }
    }

    /// A value in this unit as the phase figure it compares with: bytes per second for the
    /// bandwidth units, IOPS as they are (the inverse of [`Unit::of_phase`]).
    pub fn to_phase_figure(self, value: f64) -> f64 {
        match self {
            Unit::BytesPerSecond => value,
            Unit::KibPerS => value * crate::units::KIB as f64,
            Unit::MbPerS => value * crate::units::MB,
            Unit::Iops => value,
        }
    }
}

/// The history's spelling of a [`Unit`], for `#[serde(with = "crate::figure::unit::snake_case")]`:
/// `bytes_per_second`, `kib_per_s`, `mb_per_s`, `iops`. The history's JSON (`history series`,
/// `compare`) has always written its figures' units so.
pub mod snake_case {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Unit;

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Snake {
        BytesPerSecond,
        KibPerS,
        MbPerS,
        Iops,
    }

    /// Writes `unit` as `bytes_per_second`, `kib_per_s`, `mb_per_s` or `iops`.
    pub fn serialize<S: Serializer>(unit: &Unit, s: S) -> Result<S::Ok, S::Error> {
        match unit {
            Unit::BytesPerSecond => Snake::BytesPerSecond,
            Unit::KibPerS => Snake::KibPerS,
            Unit::MbPerS => Snake::MbPerS,
            Unit::Iops => Snake::Iops,
        }
        .serialize(s)
    }

    /// Reads the spellings [`serialize`] writes; errors on any other.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Unit, D::Error> {
        Ok(match Snake::deserialize(d)? {
            Snake::BytesPerSecond => Unit::BytesPerSecond,
            Snake::KibPerS => Unit::KibPerS,
            Snake::MbPerS => Unit::MbPerS,
            Snake::Iops => Unit::Iops,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Stored {
        #[serde(with = "snake_case")]
        unit: Unit,
    }

    #[test]
    fn the_two_json_spellings_stay_as_they_were() {
        let check = |u: Unit| serde_json::to_string(&u).unwrap();
        assert_eq!(check(Unit::KibPerS), "\"KiB/s\"");
        assert_eq!(check(Unit::MbPerS), "\"MB/s\"");
        assert_eq!(check(Unit::Iops), "\"IOPS\"");
        let stored = |unit| serde_json::to_string(&Stored { unit }).unwrap();
        assert_eq!(
            stored(Unit::BytesPerSecond),
            r#"{"unit":"bytes_per_second"}"#
        );
        assert_eq!(stored(Unit::Iops), r#"{"unit":"iops"}"#);
        let back: Stored = serde_json::from_str(r#"{"unit":"iops"}"#).unwrap();
        assert_eq!(back.unit, Unit::Iops);
        assert!(serde_json::from_str::<Stored>(r#"{"unit":"IOPS"}"#).is_err());
    }

    #[test]
    fn a_phase_is_read_in_each_unit() {
        let p = crate::sample::phase("seq-write")
            .bw_bytes(10_240_000.0)
            .iops(2.5)
            .build();
        assert_eq!(Unit::BytesPerSecond.of_phase(&p), 10_240_000.0);
        assert_eq!(Unit::KibPerS.of_phase(&p), 10_000.0);
        assert_eq!(Unit::MbPerS.of_phase(&p), 10.24);
        assert_eq!(Unit::Iops.of_phase(&p), 2.5);
        for u in [Unit::BytesPerSecond, Unit::KibPerS, Unit::MbPerS] {
            assert_eq!(u.to_phase_figure(u.of_phase(&p)), 10_240_000.0);
        }
        assert_eq!(Unit::judging(Rw::RandRead), Unit::Iops);
        assert_eq!(Unit::judging(Rw::Write), Unit::BytesPerSecond);
    }
}
