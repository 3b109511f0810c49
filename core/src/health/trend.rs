//! How a drive's speed now compares with its first tests: the newest finished run against the
//! first runs (up to [`FIRST_RUNS`]) of the same profile in the history, on the two figures
//! that fall as flash wears, random 4K writes (IOPS) and sequential writes (bytes/s). A fall
//! of [`MARKED_DECLINE`](crate::history::trend::MARKED_DECLINE) (20 %) or more below the first
//! runs' median marks the drive worn. Pure: the runs come from the history.

use serde::{Deserialize, Serialize};

use crate::figure::{StandardPhase, Unit};
use crate::history::trend::MARKED_DECLINE;
use crate::history::{format_figure, phase_label, Outcome, RunSummary};
use crate::i18n::{fill, gettext};

/// How many of a drive's first runs make its baseline: 3.
pub const FIRST_RUNS: usize = 3;

/// One figure now against the first runs (JSON: an item of `trend.figures`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FigureChange {
    /// The fio job name, `rand-4k-write` or `seq-write`.
    pub phase: String,
    /// Bytes per second or IOPS (JSON: `bytes_per_second`, `iops`).
    #[serde(with = "crate::figure::unit::snake_case")]
    pub unit: Unit,
    /// The newest run's figure, in `unit`.
    pub now: f64,
    /// The median of the first runs' figures, in `unit`.
    pub first: f64,
    /// `now / first − 1` (−0.4: 40 % below).
    pub change_ratio: f64,
    /// True when `change_ratio` is −0.20 or lower.
    pub marked_decline: bool,
}

/// The newest run against the first ones (JSON: the `trend` object).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpeedTrend {
    /// The profile both were measured with.
    pub profile: String,
    /// The newest run's id and start (RFC 3339).
    pub latest_run: String,
    /// Its start.
    pub latest_started: String,
    /// The first runs' ids, oldest first.
    pub first_runs: Vec<String>,
    /// The first of them's start (RFC 3339).
    pub first_started: String,
    /// The figures both have.
    pub figures: Vec<FigureChange>,
}

impl SpeedTrend {
    /// True when a figure fell by a marked decline.
    pub fn declined(&self) -> bool {
        self.figures.iter().any(|f| f.marked_decline)
    }

    /// For people, a line a figure: `Random 4K write: 40 % below this drive's first tests
    /// (2026-03-02)`, or `… as fast as in this drive's first tests …` (within 20 %).
    pub fn describe(&self) -> Vec<String> {
        let date = self.first_started.get(..10).unwrap_or(&self.first_started);
        self.figures
            .iter()
            .map(|f| {
                let values = format!(
                    "{} → {}",
                    format_figure(f.first, f.unit),
                    format_figure(f.now, f.unit)
                );
                if f.change_ratio < 0.0 {
                    let pct = (-f.change_ratio * 100.0).round();
                    fill(
                        // xgettext:no-c-format
                        &gettext("{figure}: {percent} % below this drive's first tests ({date}): {values}"),
                        &[
                            ("figure", &phase_label(&f.phase)),
                            ("percent", &pct),
                            ("date", &date),
                            ("values", &values),
                        ],
                    )
                } else {
                    fill(
                        &gettext("{figure}: as fast as in this drive's first tests ({date}): {values}"),
                        &[
                            ("figure", &phase_label(&f.phase)),
                            ("date", &date),
                            ("values", &values),
                        ],
                    )
                }
            })
            .collect()
    }
}

/// The figure of `phase` in a run summary.
fn figure_of(r: &RunSummary, phase: StandardPhase) -> Option<f64> {
    match phase {
        StandardPhase::Rand4kWrite => r.rand_write_iops,
        StandardPhase::SeqWrite => r.seq_write_bw,
        _ => None,
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The trend of a drive's runs `runs` (as the history lists them, any order): the newest
/// finished run against the first [`FIRST_RUNS`] finished runs of the same profile before it.
/// `None` with fewer than two such runs or no figure in common.
pub fn speed_trend(runs: &[RunSummary]) -> Option<SpeedTrend> {
    let mut finished: Vec<&RunSummary> = runs
        .iter()
        .filter(|r| r.outcome == Outcome::Finished)
        .collect();
    finished.sort_by(|a, b| a.started.cmp(&b.started));
    let latest = *finished.last()?;
    let first: Vec<&RunSummary> = finished
        .iter()
        .filter(|r| r.profile == latest.profile && r.run != latest.run)
        .take(FIRST_RUNS)
        .copied()
        .collect();
    let figures: Vec<FigureChange> = [StandardPhase::Rand4kWrite, StandardPhase::SeqWrite]
        .into_iter()
        .filter_map(|phase| {
            let now = figure_of(latest, phase)?;
            let before = median(first.iter().filter_map(|r| figure_of(r, phase)).collect())?;
            let change_ratio = now / before - 1.0;
            Some(FigureChange {
                phase: phase.job_name().to_owned(),
                unit: phase.unit()?,
                now,
                first: before,
                change_ratio,
                marked_decline: change_ratio <= -MARKED_DECLINE,
            })
        })
        .collect();
    (!figures.is_empty()).then(|| SpeedTrend {
        profile: latest.profile.clone(),
        latest_run: latest.run.0.clone(),
        latest_started: latest.started.clone(),
        first_runs: first.iter().map(|r| r.run.0.clone()).collect(),
        first_started: first[0].started.clone(),
        figures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::RunId;

    fn run(id: &str, started: &str, profile: &str, iops: f64, bw: f64) -> RunSummary {
        serde_json::from_value(serde_json::json!({
            "run": id, "started": started, "drive": null, "drive_name": null,
            "drive_label": "SD", "profile": profile, "engine": "native",
            "verdict": "PASS", "a2_verdict": "FAIL", "outcome": "finished",
            "seq_write_bw": bw, "seq_read_bw": null, "rand_write_iops": iops,
            "rand_read_iops": null,
        }))
        .unwrap()
    }

    #[test]
    fn random_writes_forty_percent_below_the_first_tests() {
        let runs = vec![
            run("c", "2026-12-07T10:00:00Z", "sd_bench", 300.0, 9.0e6),
            run("a", "2026-03-02T10:00:00Z", "sd_bench", 500.0, 10.0e6),
            run("b", "2026-04-02T10:00:00Z", "sd_bench", 500.0, 10.0e6),
            run("x", "2026-05-02T10:00:00Z", "quick", 5.0, 1.0),
        ];
        let t = speed_trend(&runs).unwrap();
        assert_eq!(t.latest_run, "c");
        assert_eq!(t.first_runs, ["a", "b"]);
        assert_eq!(t.figures.len(), 2);
        assert_eq!(t.figures[0].phase, "rand-4k-write");
        assert!((t.figures[0].change_ratio + 0.4).abs() < 1e-12);
        assert!(t.figures[0].marked_decline);
        assert!((t.figures[1].change_ratio + 0.1).abs() < 1e-12);
        assert!(!t.figures[1].marked_decline);
        assert!(t.declined());
        let lines = t.describe();
        assert!(
            lines[0]
                .starts_with("Random 4K write: 40 % below this drive's first tests (2026-03-02)"),
            "{lines:?}"
        );
        assert!(
            lines[1].starts_with("Sequential write: 10 % below"),
            "{lines:?}"
        );
    }

    #[test]
    fn one_run_or_only_failed_ones_make_no_trend() {
        let one = vec![run("a", "2026-03-02T10:00:00Z", "sd_bench", 500.0, 1e7)];
        assert_eq!(speed_trend(&one), None);
        let mut failed = run("b", "2026-04-02T10:00:00Z", "sd_bench", 100.0, 1e6);
        failed.outcome = Outcome::Failed;
        assert_eq!(speed_trend(&[one[0].clone(), failed]), None);
        assert_eq!(speed_trend(&[]), None);
        let _ = RunId("unused".into());
    }

    #[test]
    fn the_baseline_is_the_median_of_the_first_three() {
        let runs = vec![
            run("a", "2026-01-01T00:00:00Z", "p", 100.0, 1e7),
            run("b", "2026-02-01T00:00:00Z", "p", 900.0, 1e7),
            run("c", "2026-03-01T00:00:00Z", "p", 400.0, 1e7),
            run("d", "2026-04-01T00:00:00Z", "p", 1.0, 1e7),
            run("e", "2026-05-01T00:00:00Z", "p", 400.0, 1e7),
        ];
        let t = speed_trend(&runs).unwrap();
        assert_eq!(t.first_runs, ["a", "b", "c"]);
        assert_eq!(t.figures[0].first, 400.0);
        assert_eq!(t.figures[0].change_ratio, 0.0);
        assert!(!t.declined());
        assert!(t.describe()[0].contains("as fast as in this drive's first tests"));
    }
}
