//! Recording a run: the document as stored (redacted, with a valid run id), inserted once and
//! never replaced, and its trend against the drive's earlier runs.

use std::path::Path;
use std::time::Duration;

use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::History;
use crate::history::error::from_sqlite;
use crate::history::error::HistoryError;
use crate::history::records::started_key;
use crate::history::records::{Outcome, RunId};
use crate::history::trend::{trend, Trend};
use crate::report::Report;

/// What [`History::record`] did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    /// The run's id.
    pub run: RunId,
    /// How it compares with the drive's earlier runs of the same profile; `None` when there
    /// are none (or the drive is unknown, or the run did not finish).
    pub trend: Option<Trend>,
    /// True when the history already had this run (nothing changed).
    pub already_there: bool,
}

/// True for 32 lowercase hex digits.
fn is_run_id(s: &str) -> bool {
    s.len() == 32
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The run id of a document without one (a version 1 document): the first 128 bits of
/// SHA-256 of its JSON, so that importing it twice finds it again.
pub fn derived_run_id(report: &Report) -> String {
    use sha2::Digest;
    let json = serde_json::to_string(report).unwrap_or_default();
    crate::drive::identity::hex(&sha2::Sha256::digest(json.as_bytes())[..16])
}

impl History {
    /// Stores `report` ([`Report::redacted`]; a report without a run id gets
    /// [`derived_run_id`]) and returns its trend against the drive's earlier runs of the same
    /// profile. Storing a run the history already has changes nothing (`already_there`).
    ///
    /// Errors: [`HistoryError::NotHistory`] for a test refused before it started (see
    /// [`Outcome::of`]), [`HistoryError::Malformed`] for a run id that is not 32 hex digits,
    /// and the database's errors ([`HistoryError::Locked`], [`HistoryError::ReadOnly`],
    /// [`HistoryError::Full`], …).
    pub fn record(&mut self, report: &Report) -> Result<Recorded, HistoryError> {
        let start = std::time::Instant::now();
        loop {
            match self.record_once(report) {
                Err(HistoryError::Locked { .. }) if start.elapsed() < self.busy_timeout => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => return other,
            }
        }
    }

    fn record_once(&mut self, report: &Report) -> Result<Recorded, HistoryError> {
        let outcome = Outcome::of(report).map_err(HistoryError::NotHistory)?;
        let doc = normalised(report, Path::new("report"))?;
        let trend = if outcome == Outcome::Finished {
            self.trend_for(&doc)?
        } else {
            None
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| from_sqlite(&self.path, e))?;
        let added =
            insert(&tx, &doc, outcome).map_err(|e| from_sqlite(&self.path, e))? == Inserted::Added;
        tx.commit().map_err(|e| from_sqlite(&self.path, e))?;
        Ok(Recorded {
            run: RunId(doc.run_id),
            trend,
            already_there: !added,
        })
    }

    /// The trend of `report` against the finished earlier runs of the same drive with the same
    /// profile contents (this run itself excluded); `None` without a drive or earlier runs.
    pub fn trend_for(&self, report: &Report) -> Result<Option<Trend>, HistoryError> {
        let Some(drive) = &report.drive else {
            return Ok(None);
        };
        let hash = report
            .measured_with
            .as_ref()
            .map(|p| p.profile_hash.clone());
        let mut stmt = self
            .conn
            .prepare(
                "SELECT document FROM runs WHERE drive_id = ?1 AND outcome = 'finished' \
                 AND run_id != ?2 AND (profile_hash = ?3 OR (?3 IS NULL AND profile = ?4) \
                 OR (profile_hash IS NULL AND profile = ?4)) AND started_unix <= ?5 \
                 ORDER BY started_unix, rowid",
            )
            .map_err(|e| self.err(e))?;
        let docs = stmt
            .query_map(
                params![
                    drive.id.as_str(),
                    report.run_id,
                    hash,
                    report.profile.name,
                    started_key(&report.started)
                ],
                |r| r.get::<_, String>(0),
            )
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<String>, _>>()
            .map_err(|e| self.err(e))?;
        let earlier: Vec<Report> = docs.iter().filter_map(|d| stored_report(d).ok()).collect();
        Ok(trend(report, &earlier))
    }
}

/// The document as stored: redacted, with a valid run id (derived when it has none).
/// `Malformed` (naming `file`) for a run id that is not 32 lowercase hex digits.
pub(super) fn normalised(report: &Report, file: &Path) -> Result<Report, HistoryError> {
    let mut doc = report.redacted();
    if doc.run_id.is_empty() {
        doc.run_id = derived_run_id(&doc);
    } else if !is_run_id(&doc.run_id) {
        return Err(HistoryError::Malformed {
            file: file.to_path_buf(),
            reason: format!("run_id {:?} is not 32 lowercase hex digits", doc.run_id),
        });
    }
    Ok(doc)
}

/// What [`insert`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Inserted {
    /// The run was new: stored.
    Added,
    /// The history had this run, with the same contents.
    Same,
    /// The history had this run id with other contents: the stored run is kept.
    Different,
}

/// Inserts `doc` (normalised) unless its run id is there (the stored run is never replaced).
pub(super) fn insert(
    tx: &rusqlite::Transaction<'_>,
    doc: &Report,
    outcome: Outcome,
) -> rusqlite::Result<Inserted> {
    let json = serde_json::to_string(doc)
        .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
    let stored: Option<String> = tx
        .query_row(
            "SELECT document FROM runs WHERE run_id = ?1",
            [&doc.run_id],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(stored) = stored {
        // Compared as reports, so that key order or a field an older program left out
        // does not count as a difference.
        let same = serde_json::from_str::<Report>(&stored)
            .ok()
            .and_then(|r| serde_json::to_value(r).ok())
            == serde_json::to_value(doc).ok();
        return Ok(if same {
            Inserted::Same
        } else {
            Inserted::Different
        });
    }
    if let Some(d) = &doc.drive {
        tx.execute(
            "INSERT OR IGNORE INTO drives (drive_id, basis) VALUES (?1, ?2)",
            params![d.id.as_str(), d.basis.as_str()],
        )?;
    }
    tx.execute(
        "INSERT INTO runs (run_id, started, started_unix, drive_id, profile, profile_hash, \
         engine, verdict, a2_verdict, outcome, document, transport) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            doc.run_id,
            doc.started,
            started_key(&doc.started),
            doc.drive.as_ref().map(|d| d.id.to_string()),
            doc.profile.name,
            doc.measured_with.as_ref().map(|p| p.profile_hash.clone()),
            json_str(&doc.engine),
            json_str(&doc.verdict),
            json_str(&doc.a2_verdict),
            outcome.as_str(),
            json,
            doc.target.as_ref().map(|t| t.transport.as_str()),
        ],
    )?;
    Ok(Inserted::Added)
}

/// A value's JSON string form (`"native"` → `native`).
fn json_str<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// A stored document, graded again from its own figures ([`Report::regraded`]): the history
/// shows, compares and trends no verdict it has not checked.
pub(super) fn stored_report(doc: &str) -> serde_json::Result<Report> {
    serde_json::from_str::<Report>(doc).map(|r| r.regraded())
}
