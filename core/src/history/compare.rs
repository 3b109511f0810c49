//! Two runs (or the latest runs of two drives) side by side, figure by figure, with the
//! ratio, and each side's link ceiling where known (a USB 2.0 port carries at most about
//! 40 MB/s in practice; an SD bus in high-speed mode 25 MB/s). Text and Markdown forms for
//! people and forums: no serial numbers, no home paths.

use serde::{Deserialize, Serialize};

pub use super::records::drive_label;

use super::figures::{figures, format_figure, phase_label, Figure};
use super::records::RunId;
use crate::figure::{nearest_text, Unit};
use crate::i18n::{fill, gettext};
use crate::report::Report;
use crate::verdict::Verdict;

/// The most the link between host and drive carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkCeiling {
    /// For people: `USB 2.0 high-speed (480 Mbit/s)`, `SD high speed (4-bit, 50 MHz)`.
    pub description: String,
    /// The ceiling, bytes per second (signalling rate less line coding).
    pub bytes_per_second: f64,
    /// What the link carries in practice when that is well below the ceiling, bytes per
    /// second: about 40 MB/s on USB 2.0 high-speed (protocol overhead,
    /// [`crate::card::LinkInfo::practical_bw_bytes`]); null otherwise.
    pub practical_bytes_per_second: Option<f64>,
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// The run.
    pub run: RunId,
    /// For people: the drive's model and kind (`SD64G (SD)`), or its device; a name given to
    /// the drive replaces it where the caller knows one.
    pub label: String,
    /// Start time, RFC 3339.
    pub started: String,
    /// The profile's name.
    pub profile: String,
    /// The link's ceiling, when known.
    pub link: Option<LinkCeiling>,
    /// The run's verdict (PASS, FAIL, ERROR or NOT GRADED); absent in comparisons written
    /// before it was kept, read as NOT GRADED.
    #[serde(default = "not_graded")]
    pub verdict: Verdict,
}

fn not_graded() -> Verdict {
    Verdict::NotGraded
}

/// One figure on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparedFigure {
    /// The fio job name.
    pub phase: String,
    /// Bytes per second or IOPS (JSON: `bytes_per_second`, `iops`).
    #[serde(with = "crate::figure::unit::snake_case")]
    pub unit: Unit,
    /// The left run's value, when it has the figure.
    pub left: Option<f64>,
    /// The right run's value.
    pub right: Option<f64>,
    /// `right / left` when both are known and left is not 0.
    pub ratio: Option<f64>,
}

/// Two runs side by side (JSON: this structure).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The first run.
    pub left: Side,
    /// The second run.
    pub right: Side,
    /// Every figure either run has: the left run's in its order, then the right's others.
    pub figures: Vec<ComparedFigure>,
    /// True when the two runs used different profile contents (or engines): the figures are
    /// not like for like.
    pub different_measurement: bool,
}

fn side(r: &Report) -> Side {
    Side {
        run: RunId(r.run_id.clone()),
        label: drive_label(r),
        started: r.started.clone(),
        profile: r.profile.name.clone(),
        verdict: r.verdict,
        link: r
            .card
            .as_ref()
            .and_then(|c| c.link.as_ref())
            .map(|l| LinkCeiling {
                description: l.name.clone(),
                bytes_per_second: l.max_bw_bytes,
                practical_bytes_per_second: l.practical_bw_bytes,
            }),
    }
}

/// `left` and `right` side by side. Pure.
pub fn compare(left: &Report, right: &Report) -> Comparison {
    let lf = figures(left);
    let rf = figures(right);
    let mut out: Vec<ComparedFigure> = Vec::new();
    for (phase, unit, _) in lf.iter().chain(rf.iter()) {
        if out.iter().any(|f| f.phase == *phase && f.unit == *unit) {
            continue;
        }
        let get = |figs: &[Figure]| {
            figs.iter()
                .find(|(p, u, _)| p == phase && u == unit)
                .map(|(_, _, v)| *v)
        };
        let (l, r) = (get(&lf), get(&rf));
        out.push(ComparedFigure {
            phase: phase.clone(),
            unit: *unit,
            left: l,
            right: r,
            ratio: match (l, r) {
                (Some(l), Some(r)) if l > 0.0 => Some(r / l),
                _ => None,
            },
        });
    }
    let different_measurement = match (&left.measured_with, &right.measured_with) {
        (Some(a), Some(b)) => a.profile_hash != b.profile_hash || a.engine != b.engine,
        _ => left.profile.name != right.profile.name || left.engine != right.engine,
    };
    Comparison {
        left: side(left),
        right: side(right),
        figures: out,
        different_measurement,
    }
}

/// `text` with the user's home folder written `~` ([`crate::report::without_home`]).
pub use crate::report::without_home;

fn value(v: Option<f64>, unit: Unit) -> String {
    v.map_or_else(|| "—".to_owned(), |v| format_figure(v, unit))
}

fn ratio(r: Option<f64>) -> String {
    r.map_or_else(|| "—".to_owned(), |r| format!("×{}", nearest_text(r, 2)))
}

fn link(s: &Side) -> String {
    let Some(l) = &s.link else {
        return gettext("unknown");
    };
    let mbps = |b: f64| nearest_text(crate::units::mb_per_s(b), 1);
    let mut text = fill(
        &gettext("{link}: at most {mbps} MB/s"),
        &[
            ("link", &l.description),
            ("mbps", &mbps(l.bytes_per_second)),
        ],
    );
    if let Some(p) = l.practical_bytes_per_second {
        text.push_str(&fill(
            &gettext(" (about {mbps} MB/s in practice)"),
            &[("mbps", &mbps(p))],
        ));
    }
    text
}

/// The heading of a side (text and Markdown): its label, start time to the minute, profile and
/// short run id (`SD64G (SD) · 2026-06-01 14:03 · sd_bench · run 1b2c3d4e`), so that two runs
/// of one day can be told apart and found again with `history show`.
fn text_heading(s: &Side) -> String {
    let when: String = s.started.chars().take(16).collect();
    let run: String = s.run.0.chars().take(8).collect();
    fill(
        &gettext("{drive} · {when} · {profile} · run {run}"),
        &[
            ("drive", &s.label),
            ("when", &when.replacen('T', " ", 1)),
            ("profile", &s.profile),
            ("run", &run),
        ],
    )
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Forum-ready Markdown: a table of figure, left, right, ratio, then each side's link
/// ceiling, and a note when the runs were not measured alike. No serials (documents never
/// hold them in the history) and no home paths (`~`).
pub fn comparison_markdown(c: &Comparison) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "| {} | {} | {} | {} |\n|---|---:|---:|---:|\n",
        md_cell(&gettext("Figure")),
        md_cell(&text_heading(&c.left)),
        md_cell(&text_heading(&c.right)),
        md_cell(&gettext("Ratio"))
    ));
    for f in &c.figures {
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            md_cell(&phase_label(&f.phase)),
            value(f.left, f.unit),
            value(f.right, f.unit),
            ratio(f.ratio)
        ));
    }
    s.push_str(&format!(
        "| {} | {} | {} | |\n",
        md_cell(&gettext("Fastest the connection allows")),
        md_cell(&link(&c.left)),
        md_cell(&link(&c.right))
    ));
    if c.different_measurement {
        s.push('\n');
        s.push_str(&note());
        s.push('\n');
    }
    without_home(&s)
}

fn note() -> String {
    gettext("Note: the two runs were not measured alike (another profile or engine), so their figures are not like for like.")
}

/// Plain text for a terminal: the two sides, then one line per figure with the ratio.
pub fn comparison_text(c: &Comparison) -> String {
    let mut rows: Vec<[String; 4]> = vec![[
        gettext("Figure"),
        gettext("Left"),
        gettext("Right"),
        gettext("Ratio"),
    ]];
    for f in &c.figures {
        rows.push([
            phase_label(&f.phase),
            value(f.left, f.unit),
            value(f.right, f.unit),
            ratio(f.ratio),
        ]);
    }
    let widths: Vec<usize> = (0..4)
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut s = String::new();
    s.push_str(&fill(
        &gettext("Left:  {side}"),
        &[("side", &text_heading(&c.left))],
    ));
    s.push('\n');
    s.push_str(&fill(
        &gettext("Right: {side}"),
        &[("side", &text_heading(&c.right))],
    ));
    s.push_str("\n\n");
    for r in &rows {
        let mut line = String::new();
        for (i, cell) in r.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i == 0 {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str("  ");
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        s.push_str(line.trim_end());
        s.push('\n');
    }
    s.push('\n');
    s.push_str(&fill(
        &gettext("Left link:  {link}"),
        &[("link", &link(&c.left))],
    ));
    s.push('\n');
    s.push_str(&fill(
        &gettext("Right link: {link}"),
        &[("link", &link(&c.right))],
    ));
    s.push('\n');
    if c.different_measurement {
        s.push_str(&note());
        s.push('\n');
    }
    if c.left.run == c.right.run {
        s.push_str(&gettext(
            "Note: both sides are the same run; give two different runs to compare them.",
        ));
        s.push('\n');
    }
    without_home(&s)
}
