//! A report's drive in a few words, as the history's lists and the Markdown report name it.

use super::Report;

/// The label of a report's drive: model and kind, else the device, else `?`.
pub fn drive_label(r: &Report) -> String {
    let kind = r
        .card
        .as_ref()
        .map(|c| c.kind)
        .or(r.target.as_ref().map(|t| t.transport));
    let model = r
        .card
        .as_ref()
        .and_then(|c| c.model.clone())
        .or_else(|| r.target.as_ref().and_then(|t| t.model.clone()));
    let device = r.target.as_ref().and_then(|t| t.device.clone());
    match (model, kind) {
        (Some(m), Some(k)) => format!("{} ({})", m.trim_end_matches(['\0', ' ']), k.as_str()),
        (Some(m), None) => m,
        (None, Some(k)) => match device {
            Some(d) => format!("{d} ({})", k.as_str()),
            None => k.as_str().to_owned(),
        },
        (None, None) => device.unwrap_or_else(|| "?".to_owned()),
    }
}
