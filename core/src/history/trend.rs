//! How a run compares with the same drive's earlier runs of the same profile, figure by
//! figure, and what to do about a marked decline. The rule is in the [module
//! docs](super#when-a-figure-has-changed).

use serde::{Deserialize, Serialize};

use super::figures::{figures, format_figure, is_graded_phase, phase_label, Figure};
use super::records::started_key;
use crate::figure::Unit;
use crate::i18n::{fill, gettext, ngettext};
use crate::report::Report;

/// The share a graded figure must fall by (as well as leave its runs' spread) to be a marked
/// decline: 20 %.
pub const MARKED_DECLINE: f64 = 0.20;

/// The smallest noise floor, as a share of the earlier runs' median: 5 %.
pub const NOISE_SHARE: f64 = 0.05;

/// Earlier runs whose highest figure is more than this many times their lowest disagree too
/// much to be a spread: the figure is compared with the latest of them alone.
pub const SPREAD_FACTOR: f64 = 2.0;

/// A fall to less than this share of the latest earlier figure is said as a fraction of it
/// ("down to 1/36 of …"), not as a percentage that rounds to 100 %.
pub const FRACTION_BELOW: f64 = 0.1;

/// How a figure compares with the earlier runs. JSON: `down`, `up`, `same`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Below the earlier runs' range widened by the noise floor.
    Down,
    /// Above it.
    Up,
    /// Within it: no change beyond the drive's own spread.
    Same,
}

/// One figure against the earlier runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureTrend {
    /// The fio job name (`seq-write`).
    pub phase: String,
    /// Bytes per second or IOPS (JSON: `bytes_per_second`, `iops`).
    #[serde(with = "crate::figure::unit::snake_case")]
    pub unit: Unit,
    /// This run's value, in `unit`.
    pub now: f64,
    /// The latest earlier run's value, in `unit`.
    pub before: f64,
    /// The latest earlier run's start, RFC 3339.
    pub before_started: String,
    /// How many earlier runs have this figure.
    pub earlier_runs: u32,
    /// `now / before − 1` (−0.5: half of before).
    pub change_ratio: f64,
    /// Whether it changed, by the rule.
    pub change: Change,
}

/// A run against the earlier runs of the same drive and profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    /// Each figure of the run that earlier runs also have, in the run's phase order.
    pub figures: Vec<FigureTrend>,
    /// How many earlier runs were compared.
    pub earlier_runs: u32,
    /// True when a graded figure is down by the rule and by at least [`MARKED_DECLINE`].
    pub decline: bool,
}

/// True when `earlier` may be compared with `now`: a test that finished without an error, of
/// the same profile (same contents hash when both documents have one, else same name), and
/// not the same run.
fn comparable(now: &Report, earlier: &Report) -> bool {
    if earlier.error.is_some() || earlier.run_id == now.run_id {
        return false;
    }
    match (&now.measured_with, &earlier.measured_with) {
        (Some(a), Some(b)) => a.profile_hash == b.profile_hash,
        _ => now.profile.name == earlier.profile.name,
    }
}

/// The trend of `now` against `earlier` (the same drive's runs, any order; those that are not
/// comparable — failed, cancelled, another profile, `now` itself — are left out). `None` when
/// `now` has an error or no earlier run shares a figure with it. Pure: no I/O.
pub fn trend(now: &Report, earlier: &[Report]) -> Option<Trend> {
    if now.error.is_some() {
        return None;
    }
    let mut earlier: Vec<&Report> = earlier.iter().filter(|e| comparable(now, e)).collect();
    earlier.sort_by_key(|r| started_key(&r.started));
    let earlier_figs: Vec<(&Report, Vec<Figure>)> =
        earlier.iter().map(|r| (*r, figures(r))).collect();
    let mut out = Vec::new();
    for (phase, unit, value) in figures(now) {
        let series: Vec<(&Report, f64)> = earlier_figs
            .iter()
            .filter_map(|(r, figs)| {
                figs.iter()
                    .find(|(p, u, _)| *p == phase && *u == unit)
                    .map(|(_, _, v)| (*r, *v))
            })
            .collect();
        let Some((last, before)) = series.last().copied() else {
            continue;
        };
        let values: Vec<f64> = series.iter().map(|(_, v)| *v).collect();
        out.push(FigureTrend {
            change: change(value, &values),
            change_ratio: value / before - 1.0,
            phase,
            unit,
            now: value,
            before,
            before_started: last.started.clone(),
            earlier_runs: values.len() as u32,
        });
    }
    if out.is_empty() {
        return None;
    }
    let decline = out.iter().any(|f| {
        is_graded_phase(&f.phase) && f.change == Change::Down && f.change_ratio <= -MARKED_DECLINE
    });
    Some(Trend {
        figures: out,
        earlier_runs: earlier_figs.iter().filter(|(_, f)| !f.is_empty()).count() as u32,
        decline,
    })
}

/// The rule: `now` against the earlier `values` (oldest first, not empty): outside their range
/// widened by max(5 % of their median, half their spread) is a change. Values that disagree by
/// more than [`SPREAD_FACTOR`] are no spread: `now` is then compared with the latest alone.
pub fn change(now: f64, values: &[f64]) -> Change {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() || !now.is_finite() {
        return Change::Same;
    }
    sorted.sort_by(f64::total_cmp);
    if sorted.len() > 1 && sorted[sorted.len() - 1] > SPREAD_FACTOR * sorted[0].max(0.0) {
        let latest = values.iter().rev().find(|v| v.is_finite()).copied();
        if let Some(latest) = latest {
            return change(now, &[latest]);
        }
    }
    let lo = sorted[0];
    let hi = sorted[sorted.len() - 1];
    let n = sorted.len();
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let floor = (NOISE_SHARE * median.abs()).max((hi - lo) / 2.0);
    if now < lo - floor {
        Change::Down
    } else if now > hi + floor {
        Change::Up
    } else {
        Change::Same
    }
}

/// For people, one line per figure: `Sequential write 6.3 MB/s — down 50 % from 12.6 MB/s on
/// 2026-06-01 (3 earlier runs)`; `… — about the same as 12.6 MB/s on …` when it has not
/// changed by the rule.
pub fn describe(t: &FigureTrend) -> String {
    let runs = ngettext("{n} earlier run", "{n} earlier runs", t.earlier_runs);
    let runs = fill(&runs, &[("n", &t.earlier_runs)]);
    let percent = crate::i18n::number((t.change_ratio * 100.0).abs(), 0);
    let template = match t.change {
        Change::Down if t.now > 0.0 && t.now < FRACTION_BELOW * t.before => {
            // Translators: "Random 4K read 40 IOPS — down to 1/36 of 1,440 IOPS on
            // 2026-06-01 (2 earlier runs)": a fall too large for a percentage.
            gettext("{figure} {now} — down to 1/{factor} of {before} on {date} ({runs})")
        }
        Change::Down => {
            // Translators: "Sequential write 6.3 MB/s — down 50 % from 12.6 MB/s on 2026-06-01 (3 earlier runs)".
            // xgettext:no-c-format
            gettext("{figure} {now} — down {percent} % from {before} on {date} ({runs})")
        }
        Change::Up => {
            // xgettext:no-c-format
            gettext("{figure} {now} — up {percent} % from {before} on {date} ({runs})")
        }
        Change::Same => gettext(
            "{figure} {now} — about the same as {before} on {date} (within the spread of {runs})",
        ),
    };
    fill(
        &template,
        &[
            ("figure", &phase_label(&t.phase)),
            ("now", &format_figure(t.now, t.unit)),
            ("percent", &percent),
            (
                "factor",
                &crate::i18n::number((t.before / t.now).round(), 0),
            ),
            ("before", &format_figure(t.before, t.unit)),
            (
                "date",
                &t.before_started.get(..10).unwrap_or(&t.before_started),
            ),
            ("runs", &runs),
        ],
    )
}

/// What to do about a marked decline ([`Trend::decline`]), most urgent first, for a novice;
/// empty when there is none.
pub fn decline_advice(t: &Trend) -> Vec<String> {
    if !t.decline {
        return Vec::new();
    }
    vec![
        gettext("Back up now: copy the files you care about off this card or drive today. A card that is getting markedly slower can be wearing out, and worn cards can fail without further warning."),
        gettext("Check it: run `agnostics-cli card` to read the card's own details and wear estimates, then reformat it (Raspberry Pi Imager, or the SD Association's SD Memory Card Formatter) and run this test again. A fresh format often restores speed that was lost to a full or fragmented card."),
        gettext("Replace it when the decline persists after reformatting, when it fails the test, or when files go missing or come back damaged. Buy a card from a known brand rated A1 or A2 (application performance class), from a trusted shop."),
    ]
}
