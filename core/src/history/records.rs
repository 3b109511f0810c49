//! What the history holds and lists: run ids, how a run ended, the filter of a listing, the
//! summaries of runs and drives, series points, what an import did; and how a stored run's
//! drive is labelled and its start time ordered.

use serde::{Deserialize, Serialize};

use crate::capacity::{CapacityVerdict, Mode};
use crate::drive::{DriveId, IdentityBasis};
use crate::engine::EngineKind;
use crate::figure::Unit;
use crate::report::{ErrorKind, Report};

pub use crate::report::drive_label;
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

/// How a stored run ended. JSON: `finished`, `shared`, `failed`, `cancelled`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The test ran to its end (its verdict may still be FAIL or ERROR, e.g. a cache answered).
    Finished,
    /// The test ran, but another test used the drive meanwhile: its figures are kept but not
    /// graded, and not compared with the drive's other runs. Nothing failed.
    Shared,
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
            Outcome::Shared => "shared",
            Outcome::Failed => "failed",
            Outcome::Cancelled => "cancelled",
        }
    }

    /// Parses [`Outcome::as_str`].
    pub fn parse(s: &str) -> Option<Outcome> {
        [
            Outcome::Finished,
            Outcome::Shared,
            Outcome::Failed,
            Outcome::Cancelled,
        ]
        .into_iter()
        .find(|o| o.as_str() == s)
    }

    /// How `report` ended, or `Err(reason)` when it is not history: refused before anything
    /// ran (a pre-flight or profile error, nothing measured, no I/O path).
    pub fn of(report: &Report) -> Result<Outcome, String> {
        let shared = report
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::SharedDrive)
            || report.advice.contains(&crate::advice::Advice::SharedDrive);
        if shared && !report.runs.is_empty() {
            return Ok(Outcome::Shared);
        }
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

impl RunSummary {
    /// The verdict a list shows: [`Verdict::NotGraded`] for a run another test spoiled
    /// ([`Outcome::Shared`]: measured, not graded, nothing failed), else [`RunSummary::verdict`].
    pub fn shown_verdict(&self) -> Verdict {
        if self.outcome == Outcome::Shared {
            Verdict::NotGraded
        } else {
            self.verdict
        }
    }
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
    /// Its latest graded run (verdict PASS or FAIL), which may be older than `last` (a Quick
    /// check or an error since); `None` when no stored run of it was graded.
    #[serde(default)]
    pub last_graded: Option<RunSummary>,
    /// Its latest capacity check (`agnostics-cli capacity`), if any.
    #[serde(default)]
    pub last_capacity: Option<CapacitySummary>,
    /// True when a capacity check once found it fake or losing data (the mark stays).
    #[serde(default)]
    pub found_fake: bool,
}

/// One stored capacity check, for lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacitySummary {
    /// The check's id, 32 hex digits.
    pub check: String,
    /// When it started, RFC 3339.
    pub started: String,
    /// The drive, when it was identified.
    pub drive: Option<DriveId>,
    /// The name the user gave the drive.
    pub drive_name: Option<String>,
    /// For people: the drive's name, else its model (or disk) and kind.
    pub drive_label: String,
    /// Mounted or device mode.
    pub mode: Mode,
    /// The verdict.
    pub verdict: CapacityVerdict,
    /// The size the drive claims, bytes.
    pub claimed_bytes: u64,
    /// The size verified, bytes.
    pub verified_bytes: u64,
    /// For a fake: its real size, bytes.
    pub real_bytes: Option<u64>,
}

/// A drive known only from capacity checks (no test run on it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CheckedDrive {
    /// The drive's id.
    pub id: DriveId,
    /// What the id was made from.
    pub basis: IdentityBasis,
    /// The name the user gave it.
    pub name: Option<String>,
    /// For people: the name, else model (or disk) and kind.
    pub label: String,
    /// True when a capacity check once found it fake or losing data.
    pub found_fake: bool,
    /// Its stored checks.
    pub checks: u32,
    /// Its latest check.
    pub last: CapacitySummary,
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
    /// Bytes per second or IOPS (JSON: `bytes_per_second`, `iops`).
    #[serde(with = "crate::figure::unit::snake_case")]
    pub unit: Unit,
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

/// The sort key of an RFC 3339 time: seconds since 1970 (UTC), 0 when it cannot be read.
pub(super) fn started_key(started: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(started).map_or(0, |t| t.timestamp())
}
