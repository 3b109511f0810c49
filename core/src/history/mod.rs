//! The run history: every finished test (CLI and app, either engine, any profile) in a local
//! SQLite database, `$XDG_STATE_HOME/agnostics/history.sqlite3` ([`History::default_path`];
//! `AGNOSTICS_HISTORY` names another file).
//!
//! Each run is stored as its whole [`Report`](crate::report::Report) document ([`Report::redacted`](crate::report::Report::redacted): no serial
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
//! is 5 % of it; nor have earlier runs whose highest figure is more than twice their lowest
//! (they disagree: something else differed), so the figure is then compared with the latest
//! of them alone. A fall to under a tenth is said as a fraction ("down to 1/36 of …"). A *marked decline* is a graded figure (sequential write, random 4K read or
//! write) that is down by this rule and by at least 20 %; it comes with advice
//! ([`decline_advice`]): back up now, check the card, replace it when the decline persists.

pub mod compare;
mod error;
mod figures;
pub mod import;
mod records;
mod recover;
pub mod schema;
mod store;
pub mod trend;

pub use crate::drive::{
    identify, identity, provenance, DriveId, DriveIdentity, IdentityBasis, Provenance,
};
pub use compare::{
    compare, comparison_markdown, comparison_text, ComparedFigure, Comparison, LinkCeiling, Side,
};
pub use error::HistoryError;
pub use store::{derived_run_id, History, Recorded, BUSY_TIMEOUT, MIN_PREFIX};
pub use trend::{decline_advice, describe, trend, Change, FigureTrend, Trend};

pub use figures::{figures, format_figure, is_graded_phase, phase_label, Figure};
pub use records::{
    CapacitySummary, CheckedDrive, DriveSummary, ImportOutcome, Outcome, RunFilter, RunId,
    RunSummary, SeriesPoint,
};
