//! The run history: every finished test (CLI and app, either engine, any profile) in a local
//! SQLite database, `$XDG_STATE_HOME/agnostics/history.sqlite3` ([`History::default_path`];
//! `AGNOSTICS_HISTORY` names another file).
//!
//! Each run is stored as its whole [`Report`] document ([`Report::redacted`]: no serial
//! numbers) with indexed columns for the drive, profile, start time and verdict. Tests refused
//! before they started are not history ([`HistoryError::NotHistory`]); failed and cancelled
//! runs are stored as such ([`Outcome`]). The database keeps a rollback journal (not WAL, whose
//! memory-mapped `-shm` index turns a full disk into SIGBUS and cannot be read without write
//! access to the folder) and a busy timeout, so a CLI run and the app recording at the same
//! time both land, and a reader needs only read access to the file; its schema is versioned
//! (`PRAGMA user_version`) and migrated in order inside a transaction ([`schema`]).
//!
//! The history never costs a result: a locked, read-only, full or damaged database is a
//! [`HistoryError`] whose [`HistoryError::warning`] the caller shows while still reporting and
//! logging the run. A damaged file is never overwritten: it is renamed to
//! `history.sqlite3.corrupt-<timestamp>` and a new history started.
//!
//! Drives are known by [`DriveId`] (a hash, see [`crate::drive::identity`]) and can be given a name
//! ([`History::name_drive`]). Runs are compared only with runs of the same drive and the same
//! profile contents ([`Provenance::profile_hash`]).
//!
//! # When a figure has changed
//! A figure (a phase's bandwidth or IOPS) of the new run is compared with the same figure of
//! the drive's earlier runs of the same profile. It has changed only when it lies outside the
//! range of those earlier figures (lowest to highest) widened on each side by a noise floor:
//! the larger of 5 % of their median and half their spread (highest − lowest). Below that
//! range it is down, above it up, else the same. One earlier run has no spread, so the floor
//! is 5 % of it. A *marked decline* is a graded figure (sequential write, random 4K read or
//! write) that is down by this rule and by at least 20 %; it comes with advice
//! ([`decline_advice`]): back up now, check the card, replace it when the decline persists.

pub mod compare;
mod error;
pub mod import;
mod recover;
pub mod schema;
mod store;
pub mod trend;

use serde::{Deserialize, Serialize};

pub use crate::drive::{
    identify, identity, provenance, DriveId, DriveIdentity, IdentityBasis, Provenance,
};
pub use compare::{
    compare, comparison_markdown, comparison_text, ComparedFigure, Comparison, LinkCeiling, Side,
};
pub use error::HistoryError;
pub use store::{derived_run_id, History, Recorded, BUSY_TIMEOUT, MIN_PREFIX};
pub use trend::{decline_advice, describe, trend, Change, FigureTrend, Trend};

use crate::engine::{EngineKind, PhaseResult};
use crate::report::{ErrorKind, Report};
use crate::target_dir::Transport;
use crate::verdict::Verdict;

/// A run's id: [`Report::run_id`], 32 lowercase hex digits. JSON: the string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub String);

impl std::fmt::Display for RunId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a stored run ended. JSON: `finished`, `failed`, `cancelled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The test ran to its end (its verdict may still be FAIL or ERROR, e.g. a cache answered).
    Finished,
    /// An error stopped the test after it started (I/O error, fio failed, the file vanished).
    Failed,
    /// The user stopped it.
    Cancelled,
}

impl Outcome {
    /// The JSON / database name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Finished => "finished",
            Outcome::Failed => "failed",
            Outcome::Cancelled => "cancelled",
        }
    }

    /// Parses [`Outcome::as_str`].
    pub fn parse(s: &str) -> Option<Outcome> {
        [Outcome::Finished, Outcome::Failed, Outcome::Cancelled]
            .into_iter()
            .find(|o| o.as_str() == s)
    }

    /// How `report` ended, or `Err(reason)` when it is not history: refused before anything
    /// ran (a pre-flight or profile error, nothing measured, no I/O path).
    pub fn of(report: &Report) -> Result<Outcome, String> {
        let Some(error) = &report.error else {
            return if report.runs.is_empty() {
                Err("nothing was measured".to_owned())
            } else {
                Ok(Outcome::Finished)
            };
        };
        if error.is_cancelled() {
            return Ok(Outcome::Cancelled);
        }
        let before_start = matches!(
            error.kind,
            ErrorKind::Missing
                | ErrorKind::NotADirectory
                | ErrorKind::NotWritable
                | ErrorKind::ReadOnly
                | ErrorKind::Memory
                | ErrorKind::NotStorage
                | ErrorKind::NoSpace
                | ErrorKind::Inspect
                | ErrorKind::Profile
                | ErrorKind::FioMissing
        );
        if report.runs.is_empty() && report.io_path.is_none() && before_start {
            return Err(format!("the test was refused ({})", error.kind.as_str()));
        }
        if report.runs.is_empty()
            || !matches!(error.kind, ErrorKind::Cached | ErrorKind::Implausible)
        {
            Ok(Outcome::Failed)
        } else {
            Ok(Outcome::Finished)
        }
    }
}

/// Which runs to list or export: each `None` means any. `drive` is a drive id, a unique
/// prefix of one, or a drive's name; `profile` a profile name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunFilter {
    /// A drive id, unique id prefix (at least 6 hex digits) or the name given to a drive.
    pub drive: Option<String>,
    /// A profile name (`sd_bench`).
    pub profile: Option<String>,
}

/// One stored run, for lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The run's id.
    pub run: RunId,
    /// Start time, RFC 3339.
    pub started: String,
    /// The drive, when it was identified.
    pub drive: Option<DriveId>,
    /// The name the user gave the drive.
    pub drive_name: Option<String>,
    /// For people: the drive's name, else its model and kind (`SD64G (SD)`), else the target
    /// device.
    pub drive_label: String,
    /// The profile's name.
    pub profile: String,
    /// The engine.
    pub engine: EngineKind,
    /// The A1 verdict.
    pub verdict: Verdict,
    /// The A2 verdict.
    pub a2_verdict: Verdict,
    /// How the run ended.
    pub outcome: Outcome,
    /// The deciding run's `seq-write` bandwidth, bytes/s.
    pub seq_write_bw: Option<f64>,
    /// The deciding run's `seq-read` bandwidth, bytes/s.
    pub seq_read_bw: Option<f64>,
    /// The deciding run's `rand-4k-write` IOPS.
    pub rand_write_iops: Option<f64>,
    /// The deciding run's `rand-4k-read` IOPS.
    pub rand_read_iops: Option<f64>,
}

/// One drive of the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriveSummary {
    /// The drive's id.
    pub id: DriveId,
    /// What the id was made from.
    pub basis: IdentityBasis,
    /// The name the user gave it.
    pub name: Option<String>,
    /// For people: the name, else model and kind.
    pub label: String,
    /// How it is attached (as its latest run saw it).
    pub kind: Transport,
    /// Stored runs on it.
    pub runs: u32,
    /// Its latest run.
    pub last: RunSummary,
}

/// One figure of one run, for trend charts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// The run.
    pub run: RunId,
    /// Its start time, RFC 3339.
    pub started: String,
    /// The fio job name (`seq-write`).
    pub phase: String,
    /// The value, in `unit`.
    pub value: f64,
    /// Bytes per second or IOPS.
    pub unit: FigureUnit,
}

/// The unit of a figure. JSON: `bytes_per_second`, `iops`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FigureUnit {
    /// Bandwidth, bytes per second (sequential phases).
    BytesPerSecond,
    /// I/O operations per second (random phases).
    Iops,
}

/// What an import did: the runs added and those already in the history (unchanged).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportOutcome {
    /// Runs new to the history.
    pub added: Vec<RunId>,
    /// Runs it already had (the same run id and contents); nothing of them changed.
    pub already_there: Vec<RunId>,
    /// Runs whose id the history already has with other contents (an edited or forged
    /// document): the stored run is kept unchanged and the file's is not imported.
    #[serde(default)]
    pub conflicting: Vec<RunId>,
}

/// One figure of a run: the fio job name, the unit, the value in that unit.
pub type Figure = (String, FigureUnit, f64);

/// The figures of a report: each phase of its deciding run but `prepare-file`, with the
/// phase's bandwidth (sequential phases, bytes/s) or IOPS (random phases). Phases that moved
/// nothing are left out.
pub fn figures(report: &Report) -> Vec<Figure> {
    let Some(run) = report.deciding_run() else {
        return Vec::new();
    };
    run.phases
        .iter()
        .filter(|p| p.name != "prepare-file" && p.ios > 0)
        .filter_map(|p| {
            let (unit, value) = figure_of(p);
            (value.is_finite() && value > 0.0).then(|| (p.name.clone(), unit, value))
        })
        .collect()
}

fn figure_of(p: &PhaseResult) -> (FigureUnit, f64) {
    if p.rw.is_random() {
        (FigureUnit::Iops, p.iops)
    } else {
        (FigureUnit::BytesPerSecond, p.bw_bytes)
    }
}

/// For people: the figure's name (`Sequential write`, `Random 4K read`), else the job name.
pub fn phase_label(phase: &str) -> String {
    use crate::i18n::gettext;
    match phase {
        "seq-write" => gettext("Sequential write"),
        "seq-read" => gettext("Sequential read"),
        "rand-4k-write" => gettext("Random 4K write"),
        "rand-4k-read" => gettext("Random 4K read"),
        other => other.to_owned(),
    }
}

/// For people: `6.3 MB/s` (MB = 10^6 bytes) or `1,234 IOPS`, with the locale's separators;
/// rounded down like the report's tables (499.7 IOPS is `499 IOPS`), so a figure never shows
/// a target it missed.
pub fn format_figure(value: f64, unit: FigureUnit) -> String {
    use crate::report::whole;
    match unit {
        // The allowance keeps 2.3 (22.999… tenths in binary) from showing as 2.2.
        FigureUnit::BytesPerSecond => format!(
            "{} MB/s",
            crate::i18n::number(whole(crate::units::mb_per_s(value) * 10.0 + 1e-7) / 10.0, 1)
        ),
        FigureUnit::Iops => format!("{} IOPS", crate::i18n::number(whole(value), 0)),
    }
}

/// True for the figures the A1/A2 checks grade (`seq-write`, `rand-4k-write`, `rand-4k-read`).
pub fn is_graded_phase(phase: &str) -> bool {
    matches!(phase, "seq-write" | "rand-4k-write" | "rand-4k-read")
}
