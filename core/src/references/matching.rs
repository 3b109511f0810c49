//! The published figures beside a finished test: the rows whose method is the one the test's
//! profile measures and whose Raspberry Pi model is the one the test ran on, each figure with
//! the card's own figure for the same job. Facts side by side, never a grade.

use super::load::{sources, Method, Row, Source};
use crate::report::Report;

pub use crate::report::published::{what, ReferenceLine};

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
