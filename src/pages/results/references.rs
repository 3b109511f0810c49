//! The results page's "Published figures" group: the published figures beside the card's own
//! ([`Report::references`]), their conclusion in words, then a row each with the source's
//! site as a link. Facts side by side, never a grade; no group when there are none.

use adw::prelude::*;
use agnostics_core::i18n::gettext;
use agnostics_core::report::{published, Report};

use crate::widgets::results_rows::group;

/// The group and what each row shows: (the line, the source's address). `None` when the
/// report has no published figures beside it.
pub fn references_group(report: &Report) -> Option<(adw::PreferencesGroup, Vec<(String, String)>)> {
    if report.references.is_empty() {
        return None;
    }
    // The conclusion first, in words; then what the figures are.
    let conclusion = published::conclusion(&report.references).unwrap_or_default();
    let about = gettext(
        "What others published for cards on this Raspberry Pi model, for the figures this test \
         measures. For comparison, not a grade.",
    );
    let figures = group(
        &gettext("Published figures"),
        Some(&format!("{conclusion} {about}")),
    );
    let mut shown = Vec::new();
    for line in &report.references {
        let text = line.text();
        let row = adw::ActionRow::builder()
            .title(text.as_str())
            .use_markup(false)
            .title_lines(0)
            .build();
        let link = gtk::LinkButton::with_label(&line.url, &line.short);
        link.set_valign(gtk::Align::Center);
        link.set_tooltip_text(Some(&line.url));
        row.add_suffix(&link);
        figures.add(&row);
        shown.push((text, line.url.clone()));
    }
    Some((figures, shown))
}
