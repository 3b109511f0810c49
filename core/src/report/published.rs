//! Published figures as the report carries them (JSON: the report's `references`): one
//! figure a source published beside the card's own figure for the same job, and how the source
//! measured. Which rows stand beside a test is [`crate::references`]'s to say.

use serde::{Deserialize, Serialize};

use crate::figure::{down_text, nearest_text, Unit};
use crate::i18n::{fill, gettext};

/// How a source measured its figures, and so which profile's run they stand beside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The standard test's random 4 KiB phases (`rand-4k-read`, `rand-4k-write`, IOPS).
    Standard,
    /// 4 KiB random at queue depth 1 (the `qd1` profile's `rand-4k-*-qd1` jobs, MB/s).
    Qd1,
}

impl Method {
    /// `standard` or `qd1`, as the files and the JSON spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Standard => "standard",
            Method::Qd1 => "qd1",
        }
    }
}

/// One published figure beside the card's own (JSON: an element of the report's
/// `references`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferenceLine {
    /// The device as the source names it, e.g. `Samsung Evo+`.
    pub device: String,
    /// Its capacity as the source writes it, e.g. `32GB`.
    pub capacity: String,
    /// The Raspberry Pi model of the published figure, e.g. `Raspberry Pi 4`.
    pub pi_model: String,
    /// The fio job both figures come from, e.g. `rand-4k-read`.
    pub phase: String,
    /// The unit of both figures: `IOPS` or `MB/s`.
    pub unit: Unit,
    /// The published figure.
    pub published: f64,
    /// The card's own figure for the job, as measured (in `unit`).
    pub measured: f64,
    /// How the source measured: `standard` or `qd1`.
    pub method: Method,
    /// Who published it.
    pub publisher: String,
    /// The publication's host, e.g. `raspberrypi.com`.
    pub short: String,
    /// The year (or `YYYY-MM`) of publication.
    pub date: String,
    /// The publication's address.
    pub url: String,
}

impl ReferenceLine {
    /// The line for people, translated, with its conclusion first: "2400 IOPS random 4K read:
    /// slower than Raspberry Pi SD Card (A2) 32GB, 64GB, 128GB on a Raspberry Pi 4 (about
    /// 3200; raspberrypi.com, 2024)". Within [`SAME_SHARE`] of the published figure is "about
    /// the same as". The drive's figure is rounded down ([`down_text`]), the published one as
    /// published. It names no kind of drive: the test may have run on a USB drive.
    pub fn text(&self) -> String {
        let decimals = if self.unit == Unit::Iops { 0 } else { 2 };
        let template = if self.side() == Side::Same {
            // Translators: a published figure beside the drive's own, never a grade. {what}
            // is e.g. "random 4K read"; {device} a card's name and capacity; {model} e.g.
            // "Raspberry Pi 4"; {source} the publication's web site; {date} its year.
            gettext(
                "{measured} {unit} {what}: about the same as {device} on a {model} (about {published}; {source}, {date})",
            )
        } else if self.side() == Side::Faster {
            // Translators: as "{measured} {unit} {what}: about the same as …".
            gettext(
                "{measured} {unit} {what}: faster than {device} on a {model} (about {published}; {source}, {date})",
            )
        } else {
            // Translators: as "{measured} {unit} {what}: about the same as …".
            gettext(
                "{measured} {unit} {what}: slower than {device} on a {model} (about {published}; {source}, {date})",
            )
        };
        fill(
            &template,
            &[
                ("measured", &down_text(self.measured, decimals)),
                ("unit", &self.unit.as_str()),
                ("what", &what(&self.phase)),
                ("device", &format!("{} {}", self.device, self.capacity)),
                ("published", &nearest_text(self.published, decimals)),
                ("model", &self.pi_model),
                ("source", &self.short),
                ("date", &self.date),
            ],
        )
    }
}

impl ReferenceLine {
    /// Where the drive's figure stands beside the published one.
    pub fn side(&self) -> Side {
        if (self.measured - self.published).abs() <= SAME_SHARE * self.published {
            Side::Same
        } else if self.measured > self.published {
            Side::Faster
        } else {
            Side::Slower
        }
    }
}

/// Where the drive's figure stands beside a published one: within [`SAME_SHARE`] of it is
/// the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Higher by more than [`SAME_SHARE`].
    Faster,
    /// Within [`SAME_SHARE`] either way.
    Same,
    /// Lower by more than [`SAME_SHARE`].
    Slower,
}

/// The published figures' conclusion in one sentence for people, translated, e.g. "Slower
/// than the published figures." (every line slower); `None` without lines. Facts side by side,
/// never a grade.
pub fn conclusion(lines: &[ReferenceLine]) -> Option<String> {
    let has = |side: Side| lines.iter().any(|l| l.side() == side);
    let all = |side: Side| lines.iter().all(|l| l.side() == side);
    if lines.is_empty() {
        return None;
    }
    Some(if all(Side::Faster) {
        gettext("Your drive is faster than the published figures.")
    } else if all(Side::Slower) {
        gettext("Your drive is slower than the published figures.")
    } else if all(Side::Same) {
        gettext("Your drive is about as fast as the published figures.")
    } else if !has(Side::Slower) {
        gettext("Your drive is about as fast as the published figures, or faster.")
    } else if !has(Side::Faster) {
        gettext("Your drive is about as fast as the published figures, or slower.")
    } else {
        gettext("Your drive is faster than some of the published figures and slower than others.")
    })
}

/// A figure within this share of the published one (either way) is "about the same": 10 %.
pub const SAME_SHARE: f64 = 0.10;

/// What a job measures, for people: `random 4K read`, `random 4K write at queue depth 1`.
pub fn what(phase: &str) -> String {
    match phase {
        "rand-4k-read" => gettext("random 4K read"),
        "rand-4k-write" => gettext("random 4K write"),
        "rand-4k-read-qd1" => gettext("random 4K read at queue depth 1"),
        "rand-4k-write-qd1" => gettext("random 4K write at queue depth 1"),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A published figure of 1000 IOPS beside the drive's `measured`.
    fn line(measured: f64) -> ReferenceLine {
        ReferenceLine {
            device: "Card".into(),
            capacity: "32GB".into(),
            pi_model: "Raspberry Pi 4".into(),
            phase: "rand-4k-read".into(),
            unit: Unit::Iops,
            published: 1000.0,
            measured,
            method: Method::Standard,
            publisher: "Someone".into(),
            short: "example.com".into(),
            date: "2024".into(),
            url: "https://example.com/".into(),
        }
    }

    #[test]
    fn the_conclusion_weighs_every_line() {
        let said = |measured: &[f64]| {
            let lines: Vec<ReferenceLine> = measured.iter().copied().map(line).collect();
            conclusion(&lines)
        };
        assert_eq!(said(&[]), None);
        assert_eq!(
            said(&[1101.0, 2000.0]).as_deref(),
            Some("Your drive is faster than the published figures.")
        );
        assert_eq!(
            said(&[899.0, 10.0]).as_deref(),
            Some("Your drive is slower than the published figures.")
        );
        assert_eq!(
            said(&[900.0, 1100.0]).as_deref(),
            Some("Your drive is about as fast as the published figures.")
        );
        assert_eq!(
            said(&[1000.0, 1200.0]).as_deref(),
            Some("Your drive is about as fast as the published figures, or faster.")
        );
        assert_eq!(
            said(&[1000.0, 800.0]).as_deref(),
            Some("Your drive is about as fast as the published figures, or slower.")
        );
        assert_eq!(
            said(&[1200.0, 1000.0, 800.0]).as_deref(),
            Some("Your drive is faster than some of the published figures and slower than others.")
        );
    }
}
