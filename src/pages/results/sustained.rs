//! The results page's "Sustained write" group, for a run of the sustained write test: the
//! headline sentence (blocks that read back wrong first), the write speed over the bytes
//! written with the cliff marked, the test's other lines, and each speed marking as a row:
//! its minimum, whether it was kept up with here, and whether the card claims it. An SD card is
//! "this card", any other drive "this drive".

use adw::prelude::*;
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::RunReport;
use agnostics_core::sustained::{text, Marking, SustainedResult};

use crate::widgets::results_rows::{fact_row, group, marked_row};
use crate::widgets::sustained_chart::SustainedChart;

/// What the group shows, read back for tests.
#[derive(Debug, Clone)]
pub struct ShownSustained {
    /// The headline sentence.
    pub headline: String,
    /// One (name, value) per marking row.
    pub markings: Vec<(String, String)>,
    /// The chart.
    pub chart: SustainedChart,
}

/// The groups for `run` (the result, then the markings) and what they show; `None` when the
/// run is not a sustained write test. `sd`: the drive is an SD card (the report's
/// `sd_graded`): "This card …", else "This drive …".
pub fn sustained_groups(
    run: &RunReport,
    sd: bool,
) -> Option<([adw::PreferencesGroup; 2], ShownSustained)> {
    let r = run.sustained.as_deref()?;
    let about = if sd {
        gettext(
            "How fast the card kept writing once its cache was full, and whether it gave back \
             what it was given.",
        )
    } else {
        gettext(
            "How fast the drive kept writing once its cache was full, and whether it gave back \
             what it was given.",
        )
    };
    let sustained = group(&gettext("Sustained write"), Some(&about));
    let headline = text::headline(r, sd);
    let (icon, class) = if r.corrupt_blocks > 0 {
        ("agnostics-warning-symbolic", Some("warning"))
    } else {
        ("agnostics-info-symbolic", None)
    };
    sustained.add(&marked_row(&headline, icon, class));
    let chart = SustainedChart::new(&r.samples, r.cliff_bytes);
    chart.set_margin_top(6);
    chart.set_margin_bottom(6);
    sustained.add(&chart);
    // The latency and the blocks read back (the headline says the speed; the markings are
    // the rows of their own group). The chart goes under the rows.
    for line in text::lines(r, sd).into_iter().skip(1).take(2) {
        let row = marked_row(&line, "agnostics-info-symbolic", None);
        sustained.add(&row);
    }
    let markings = markings_group(r, sd);
    let shown_rows: Vec<(String, String)> = r.markings.iter().map(marking_text).collect();
    for (name, value) in &shown_rows {
        markings.add(&fact_row(name, value));
    }
    Some((
        [sustained, markings],
        ShownSustained {
            headline,
            markings: shown_rows,
            chart,
        },
    ))
}

/// The markings' own group, under the result's; `sd` as for [`sustained_groups`].
fn markings_group(r: &SustainedResult, sd: bool) -> adw::PreferencesGroup {
    let about = if sd {
        gettext(
            "Each marking promises a minimum sustained write speed; this card kept {speed} \
             here. Measured through the file system on this computer, not under the SD \
             Association's test conditions.",
        )
    } else {
        gettext(
            "Each marking promises a minimum sustained write speed; this drive kept {speed} \
             here. Measured through the file system on this computer, not under the SD \
             Association's test conditions.",
        )
    };
    group(
        &gettext("Speed markings"),
        Some(&fill(
            &about,
            &[(
                "speed",
                &crate::format::mb_per_s(r.sustained_bytes_per_second),
            )],
        )),
    )
}

/// A marking's row: its name, and its minimum, whether it was met and whether it is claimed.
fn marking_text(m: &Marking) -> (String, String) {
    let met = match m.met {
        Some(true) => gettext("yes"),
        Some(false) => gettext("no"),
        None => gettext("this computer's link to the card cannot show it"),
    };
    let claimed = match m.claimed {
        Some(true) => gettext("yes"),
        Some(false) => gettext("no"),
        None => gettext("unknown"),
    };
    let value = fill(
        // Translators: a speed marking's row, e.g. "at least 30 MB/s; kept up here: no;
        // claimed by the card: yes".
        &gettext("at least {min} MB/s; kept up here: {met}; claimed by the card: {claimed}"),
        &[
            ("min", &(m.min_bytes_per_second / 1_000_000)),
            ("met", &met),
            ("claimed", &claimed),
        ],
    );
    (m.name.clone(), value)
}
