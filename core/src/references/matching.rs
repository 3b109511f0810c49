//! The published figures beside a finished test: the rows whose method is the one the test's
//! profile measures and whose Raspberry Pi model is the one the test ran on, each figure with
//! the card's own figure for the same job. Facts side by side, never a grade.

use serde::{Deserialize, Serialize};

use super::load::{sources, Method, Row, Source};
use crate::figure::{down_text, nearest_text, Unit};
use crate::i18n::{fill, gettext};
use crate::report::Report;

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
        let template = if (self.measured - self.published).abs() <= SAME_SHARE * self.published {
            // Translators: a published figure beside the drive's own, never a grade. {what}
            // is e.g. "random 4K read"; {device} a card's name and capacity; {model} e.g.
            // "Raspberry Pi 4"; {source} the publication's web site; {date} its year.
            gettext(
                "{measured} {unit} {what}: about the same as {device} on a {model} (about {published}; {source}, {date})",
            )
        } else if self.measured > self.published {
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

/// True when `model` (as the kernel names it) is the row's model: equal, or the row's model
/// followed by a space (`Raspberry Pi 4 Model B Rev 1.4` is a `Raspberry Pi 4`; a
/// `Raspberry Pi 400` is not).
pub fn model_matches(row: &Row, model: &str) -> bool {
    model == row.pi_model
        || model
            .strip_prefix(row.pi_model.as_str())
            .is_some_and(|rest| rest.starts_with(' '))
}

/// The method a report's profile measures: the built-in standard test is [`Method::Standard`],
/// the built-in `qd1` profile [`Method::Qd1`]; any other profile (quick, matrix, a job file
/// of one's own) none.
pub fn method_of(report: &Report) -> Option<Method> {
    if report.profile.source.is_some() {
        return None;
    }
    match report.profile.name.as_str() {
        "sd_bench" | "standard" if report.graded => Some(Method::Standard),
        "qd1" => Some(Method::Qd1),
        _ => None,
    }
}

/// The published figures beside `report`: for each shipped row of the report's method and
/// of its Raspberry Pi model (`measured_with.pi_model`: `/proc/device-tree/model`), each figure whose job the deciding run
/// measured. Empty for other profiles, other machines, a report without a model, or a run
/// that measured nothing.
pub fn beside(report: &Report) -> Vec<ReferenceLine> {
    let model = report
        .measured_with
        .as_ref()
        .and_then(|m| m.pi_model.as_deref());
    let (Some(method), Some(model), Some(run)) = (method_of(report), model, report.deciding_run())
    else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for Source { source, rows } in sources().iter().filter(|s| s.source.method == method) {
        for row in rows.iter().filter(|r| model_matches(r, model)) {
            for f in &row.figures {
                let Some(phase) = run.phase(&f.phase) else {
                    continue;
                };
                lines.push(ReferenceLine {
                    device: row.device.clone(),
                    capacity: row.capacity.clone(),
                    pi_model: row.pi_model.clone(),
                    phase: f.phase.clone(),
                    unit: f.unit,
                    published: f.value,
                    measured: f.unit.of_phase(phase),
                    method,
                    publisher: source.publisher.clone(),
                    short: source.short.clone(),
                    date: source.date.clone(),
                    url: source.url.clone(),
                });
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_board_matches_its_family_and_no_other() {
        let row = &sources()[0].rows[0];
        assert_eq!(row.pi_model, "Raspberry Pi 4");
        assert!(model_matches(row, "Raspberry Pi 4 Model B Rev 1.4"));
        assert!(model_matches(row, "Raspberry Pi 4"));
        assert!(!model_matches(row, "Raspberry Pi 400 Rev 1.0"));
        assert!(!model_matches(row, "Raspberry Pi 5 Model B Rev 1.0"));
        assert!(!model_matches(row, "Raspberry Pi Compute Module 4 Rev 1.0"));
    }
}
