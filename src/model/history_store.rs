//! The app's one bridge to the run history (`agnostics_core::history`, an SQLite file): each
//! function opens the store, does one thing and closes it, and is meant to run off the main
//! loop (on the test's worker thread, or in `gio::spawn_blocking`), so that a slow or locked
//! database never freezes the window. Errors come back as sentences for people.

use std::path::{Path, PathBuf};

use agnostics_core::history::{
    self, CheckedDrive, Comparison, DriveId, DriveSummary, History, HistoryError, Recorded,
    RunFilter, RunSummary, SeriesPoint,
};

use crate::model::capacity_history::{self, DriveChecks};
use agnostics_core::headline::CapacityKnown;
use agnostics_core::report::Report;
use agnostics_core::target_dir::Transport;

/// Where the history is: `$AGNOSTICS_HISTORY`, else the user's state folder.
pub fn default_path() -> PathBuf {
    History::default_path()
}

/// What recording a finished run gave.
#[derive(Debug, Clone)]
pub enum RecordOutcome {
    /// Stored; with the trend against the drive's earlier runs of the same profile, a
    /// warning when the history file was damaged and a new one started, and what the drive's
    /// capacity checks say of it (for the results' headline).
    Recorded(Recorded, Option<String>, CapacityKnown),
    /// Not a run the history keeps (refused before it measured anything).
    NotHistory,
    /// The store failed: the sentence says what happened (the result is still shown).
    Failed(String),
}

/// Records `report` in the history at `path` (on the caller's thread: the test's worker).
/// A run that measured nothing is not opened for (so a refused test never creates the file).
pub fn record(path: &Path, report: &Report) -> RecordOutcome {
    if report.runs.is_empty() {
        return RecordOutcome::NotHistory;
    }
    let outcome = History::open(path).and_then(|mut h| {
        let warning = h.moved_aside().map(HistoryError::warning);
        let recorded = h.record(report)?;
        Ok((recorded, warning, capacity_of(&h, report)))
    });
    match outcome {
        Ok((recorded, warning, capacity)) => RecordOutcome::Recorded(recorded, warning, capacity),
        Err(HistoryError::NotHistory(_)) => RecordOutcome::NotHistory,
        Err(e) => RecordOutcome::Failed(e.warning()),
    }
}

/// What the capacity checks in `h` say of the drive of `report` (nothing for a drive not
/// identified, or when the history cannot be read: the speed verdict then stands alone).
fn capacity_of(h: &History, report: &Report) -> CapacityKnown {
    report
        .drive
        .as_ref()
        .and_then(|d| CapacityKnown::of(h, &d.id).ok())
        .unwrap_or_default()
}

fn open(path: &Path) -> Result<Option<History>, String> {
    if !path.exists() {
        return Ok(None);
    }
    History::open_read_only(path)
        .map(Some)
        .map_err(|e| e.to_string())
}

fn open_rw(path: &Path) -> Result<History, String> {
    History::open(path).map_err(|e| e.to_string())
}

/// Which drive's page the History page shows: a drive the history identified, or the runs
/// whose drive could not be identified (listed together as one "drive").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriveKey {
    /// A drive of the history, by its id.
    Identified(DriveId),
    /// The runs of drives not identified.
    Unidentified,
}

impl From<Option<DriveId>> for DriveKey {
    /// A run's or page's drive: [`DriveKey::Unidentified`] when it has none.
    fn from(id: Option<DriveId>) -> DriveKey {
        id.map_or(DriveKey::Unidentified, DriveKey::Identified)
    }
}

/// What the History page lists: the drives, and the runs whose drive is not known.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The drives, newest run first.
    pub drives: Vec<DriveSummary>,
    /// Runs without a drive identity (no CID, USB/NVMe serial or filesystem UUID), newest
    /// first.
    pub unidentified: Vec<RunSummary>,
    /// The drives known only from capacity checks (no test ran on them), newest check first.
    pub checked_only: Vec<CheckedDrive>,
    /// What the capacity checks say of each drive in `drives` that had one.
    pub capacity: Vec<(DriveId, CapacityKnown)>,
}

/// The drives in the history and the runs of drives not identified; nothing when there is no
/// history yet.
pub fn listing(path: &Path) -> Result<Listing, String> {
    let Some(h) = open(path)? else {
        return Ok(Listing::default());
    };
    let drives = h.drives().map_err(|e| e.to_string())?;
    let unidentified = h
        .runs(&RunFilter::default())
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|r| r.drive.is_none())
        .collect();
    let checked_only = h.checked_only_drives().map_err(|e| e.to_string())?;
    let mut capacity = Vec::new();
    for d in drives
        .iter()
        .filter(|d| d.found_fake || d.last_capacity.is_some())
    {
        capacity.push((
            d.id.clone(),
            CapacityKnown::of(&h, &d.id).map_err(|e| e.to_string())?,
        ));
    }
    Ok(Listing {
        drives,
        unidentified,
        checked_only,
        capacity,
    })
}

/// A drive's page: which drive, its runs (newest first), the profiles it was tested with
/// (newest first) and the series of `profile` (else of its latest run's profile) for the
/// trend chart, oldest first.
#[derive(Debug, Clone)]
pub struct DrivePage {
    /// The drive's id; `None` for the runs of drives not identified.
    pub id: Option<DriveId>,
    /// The drive's name or label for people.
    pub label: String,
    /// The name the user gave it.
    pub name: Option<String>,
    /// How it is attached, when known.
    pub kind: Option<Transport>,
    /// Its runs, newest first.
    pub runs: Vec<RunSummary>,
    /// The profiles of its runs, each once, newest first.
    pub profiles: Vec<String>,
    /// The profile the series is of.
    pub profile: String,
    /// The figures of that profile's runs, oldest first (none for drives not identified: their
    /// runs may be of different drives).
    pub series: Vec<SeriesPoint>,
    /// Its capacity checks and whether one found it fake.
    pub checks: DriveChecks,
}

impl DrivePage {
    /// Which drive the page is of.
    pub fn key(&self) -> DriveKey {
        self.id.clone().into()
    }
}

/// Loads the page of drive `key`: an identified drive's, or that of the runs of drives not
/// identified. The error names the drive when the history has no such drive.
pub fn drive_page(path: &Path, key: &DriveKey, profile: Option<&str>) -> Result<DrivePage, String> {
    let not_found = || {
        let name = match key {
            DriveKey::Identified(id) => id.to_string(),
            // The word the error has always named these runs by.
            DriveKey::Unidentified => "unidentified".to_owned(),
        };
        HistoryError::NotFound(name).to_string()
    };
    let h = open(path)?.ok_or_else(not_found)?;
    let DriveKey::Identified(id) = key else {
        let runs: Vec<RunSummary> = h
            .runs(&RunFilter::default())
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter(|r| r.drive.is_none())
            .collect();
        let profiles = profiles_of(&runs);
        return Ok(DrivePage {
            id: None,
            label: unidentified_label(),
            name: None,
            kind: None,
            runs,
            profile: profiles.first().cloned().unwrap_or_default(),
            profiles,
            series: Vec::new(),
            checks: DriveChecks::default(),
        });
    };
    let checks = capacity_history::checks_of(&h, id)?;
    let Some(drive) = h
        .drives()
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|d| d.id == *id)
    else {
        return checked_only_page(&h, id, checks)?.ok_or_else(not_found);
    };
    let runs = h
        .runs(&RunFilter {
            drive: Some(drive.id.to_string()),
            profile: None,
        })
        .map_err(|e| e.to_string())?;
    let profiles = profiles_of(&runs);
    let profile = profile
        .filter(|p| profiles.iter().any(|q| q == p))
        .map(str::to_owned)
        .or_else(|| profiles.first().cloned())
        .unwrap_or_default();
    let series = h.series(&drive.id, &profile).map_err(|e| e.to_string())?;
    Ok(DrivePage {
        id: Some(drive.id),
        label: drive.label,
        name: drive.name,
        kind: Some(drive.kind),
        runs,
        profiles,
        profile,
        series,
        checks,
    })
}

/// The page of drive `id` when only capacity checks ran on it (`None` when it is not such a
/// drive either).
fn checked_only_page(
    h: &History,
    id: &DriveId,
    checks: DriveChecks,
) -> Result<Option<DrivePage>, String> {
    let checked = h.checked_only_drives().map_err(|e| e.to_string())?;
    Ok(checked
        .into_iter()
        .find(|d| d.id == *id)
        .map(|d| DrivePage {
            id: Some(d.id),
            label: d.label,
            name: d.name,
            kind: None,
            runs: Vec::new(),
            profiles: Vec::new(),
            profile: String::new(),
            series: Vec::new(),
            checks,
        }))
}

/// The name of the runs of drives not identified, for people.
pub fn unidentified_label() -> String {
    agnostics_core::i18n::gettext("Drives not identified")
}

fn profiles_of(runs: &[RunSummary]) -> Vec<String> {
    let mut profiles: Vec<String> = Vec::new();
    for run in runs {
        if !profiles.contains(&run.profile) {
            profiles.push(run.profile.clone());
        }
    }
    profiles
}

/// The stored report of `run` (id or unique prefix), without serial numbers.
pub fn report(path: &Path, run: &str) -> Result<Report, String> {
    let h = open(path)?.ok_or_else(|| HistoryError::NotFound(run.to_owned()).to_string())?;
    h.report(run).map_err(|e| e.to_string())
}

/// [`report`], with what the capacity checks of its drive say of it (for its headline).
pub fn report_with_capacity(path: &Path, run: &str) -> Result<(Report, CapacityKnown), String> {
    let h = open(path)?.ok_or_else(|| HistoryError::NotFound(run.to_owned()).to_string())?;
    let report = h.report(run).map_err(|e| e.to_string())?;
    let capacity = capacity_of(&h, &report);
    Ok((report, capacity))
}

/// The name the person gave the drive of `report` in the history at `path`; `None` without
/// one (or without a history, or when it cannot be read: the report then names the drive by
/// its model).
pub fn drive_name(path: &Path, report: &Report) -> Option<String> {
    open(path).ok()??.drive_name_of(report).ok()?
}

/// Names drive `id`; an empty name clears it.
pub fn rename(path: &Path, id: &str, name: &str) -> Result<(), String> {
    open_rw(path)?
        .name_drive(id, name.trim())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Removes `run` from the history; returns the report it held, as stored, so that
/// [`restore_run`] can put it back.
pub fn forget_run(path: &Path, run: &str) -> Result<Report, String> {
    let mut h = open_rw(path)?;
    let report = h.report(run).map_err(|e| e.to_string())?;
    h.forget_run(run).map_err(|e| e.to_string())?;
    Ok(report)
}

/// Puts back a run [`forget_run`] removed: the same document under the same run id, so its
/// drive's list and chart are as they were (the drive's name was never removed).
pub fn restore_run(path: &Path, report: &Report) -> Result<(), String> {
    open_rw(path)?
        .record(report)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Compares the stored runs `left` and `right`.
pub fn compare(path: &Path, left: &str, right: &str) -> Result<Comparison, String> {
    compare_in(path, left, right, false)
}

/// Compares the stored runs `a` and `b`, the older on the left (runs ticked in any order), so
/// that each ratio reads forward in time.
pub fn compare_by_date(path: &Path, a: &str, b: &str) -> Result<Comparison, String> {
    compare_in(path, a, b, true)
}

fn compare_in(path: &Path, left: &str, right: &str, by_date: bool) -> Result<Comparison, String> {
    let h = open(path)?.ok_or_else(|| HistoryError::NotFound(left.to_owned()).to_string())?;
    let mut a = h.report(left).map_err(|e| e.to_string())?;
    let mut b = h.report(right).map_err(|e| e.to_string())?;
    let when = |r: &Report| chrono::DateTime::parse_from_rfc3339(&r.started).ok();
    if by_date && when(&b) < when(&a) {
        std::mem::swap(&mut a, &mut b);
    }
    let mut comparison = history::compare::compare(&a, &b);
    // The names people gave their drives are the history's, not the reports'.
    let drives = h.drives().map_err(|e| e.to_string())?;
    let name_of = |r: &Report| {
        let id = r.drive.as_ref()?.id.clone();
        drives.iter().find(|d| d.id == id)?.name.clone()
    };
    if let Some(name) = name_of(&a) {
        comparison.left.label = name;
    }
    if let Some(name) = name_of(&b) {
        comparison.right.label = name;
    }
    Ok(comparison)
}
