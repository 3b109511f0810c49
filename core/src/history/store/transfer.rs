//! Moving runs between histories: importing a file of reports (each checked as it is read,
//! all stored in one transaction) and exporting the stored reports with their drives' names.

use std::path::Path;

use super::names::{adopt_name, shown_name};
use super::record::{insert, normalised, Inserted};
use super::History;
use crate::history::error::from_sqlite;
use crate::history::error::HistoryError;
use crate::history::records::{ImportOutcome, Outcome, RunFilter, RunId};
use crate::report::Report;

impl History {
    /// Imports `file`: one report (JSON object) or an array of them (the form
    /// [`History::export`] gives; an empty array adds nothing). Every document is checked
    /// first (an Agnostics report, a known schema version, a valid run id, a plausible start
    /// time, a test that ran, verdicts that its own figures give: [`Report::contradictions`];
    /// at most [`crate::history::import::MAX_DOCUMENT_BYTES`] of JSON with bounded strings and arrays)
    /// as it is read, the file once, in the memory of one document; all are stored in one
    /// transaction. A drive's name from an export is given to a
    /// drive that has none here (unless another drive has it). A run already there is left as it is (`already_there`; `conflicting` when
    /// the file's document of that run id differs from the stored one).
    ///
    /// Errors: [`HistoryError::Io`] when the file cannot be read, [`HistoryError::Foreign`]
    /// for JSON that is not an Agnostics report, [`HistoryError::Malformed`] for anything else
    /// wrong (naming the file and, in an array, the document); nothing is stored then.
    pub fn import(&mut self, file: &Path) -> Result<ImportOutcome, HistoryError> {
        // Read before the transaction: a file that cannot be opened holds no lock.
        std::fs::metadata(file).map_err(|e| HistoryError::Io {
            path: file.to_path_buf(),
            source: e,
        })?;
        let db = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| from_sqlite(&db, e))?;
        let mut outcome = ImportOutcome::default();
        // Each document is stored as it is read (the file is read once, a document at a
        // time); an error anywhere rolls every one back.
        crate::history::import::for_each_document(file, &mut |index, item, array| {
            let (doc, kind, name) = checked_document(file, index, item, array)?;
            let inserted = insert(&tx, &doc, kind).map_err(|e| from_sqlite(&db, e))?;
            if let (Some(name), Some(drive)) = (name, &doc.drive) {
                adopt_name(&tx, &drive.id, &name).map_err(|e| from_sqlite(&db, e))?;
            }
            let id = RunId(doc.run_id);
            match inserted {
                Inserted::Added => outcome.added.push(id),
                Inserted::Same => outcome.already_there.push(id),
                Inserted::Different => outcome.conflicting.push(id),
            }
            Ok(())
        })?;
        tx.commit().map_err(|e| from_sqlite(&db, e))?;
        Ok(outcome)
    }

    /// The stored (redacted) reports `filter` selects, oldest first (serialise the vector for
    /// the file [`History::import`] reads), each drive with the name given to it here
    /// (`drive.name`), so that an import elsewhere keeps the names.
    pub fn export(&self, filter: &RunFilter) -> Result<Vec<Report>, HistoryError> {
        let names = self.names()?;
        let mut v: Vec<Report> = self
            .select(filter)?
            .into_iter()
            .map(|(_, _, mut r)| {
                if let Some(drive) = &mut r.drive {
                    drive.name = names.get(drive.id.as_str()).cloned();
                }
                r
            })
            .collect();
        v.reverse();
        Ok(v)
    }
}

/// Document `index` of the import file `file` (`array`: the file holds an array), checked and
/// normalised (without the drive's name), with its outcome and the drive's name an export
/// gave it; else why it cannot be imported, naming the document in an array.
fn checked_document(
    file: &Path,
    index: usize,
    item: serde_json::Value,
    array: bool,
) -> Result<(Report, Outcome, Option<String>), HistoryError> {
    let at = |reason: String| HistoryError::Malformed {
        file: file.to_path_buf(),
        reason: if array {
            format!("document {}: {reason}", index + 1)
        } else {
            reason
        },
    };
    let is_ours = item
        .get("program")
        .and_then(|p| p.as_str())
        .is_some_and(|p| p == "agnostics" || p.starts_with("agnostics "));
    if !is_ours {
        if !array || index == 0 {
            return Err(HistoryError::Foreign {
                file: file.to_path_buf(),
            });
        }
        return Err(at("not an Agnostics report".to_owned()));
    }
    crate::history::import::bounded(&item).map_err(at)?;
    let report: Report = serde_json::from_value(item).map_err(|e| at(e.to_string()))?;
    if report.schema_version > crate::report::SCHEMA_VERSION {
        return Err(at(format!(
            "written by a newer Agnostics (document version {}, this program reads up to {})",
            report.schema_version,
            crate::report::SCHEMA_VERSION
        )));
    }
    if report.schema_version == 0 {
        return Err(at("schema_version 0 does not exist".to_owned()));
    }
    started_plausible(&report.started).map_err(at)?;
    let outcome = Outcome::of(&report).map_err(at)?;
    if let Some(first) = report.contradictions().first() {
        return Err(at(format!(
            "its verdicts contradict its own figures ({first}): the document was edited or \
             damaged"
        )));
    }
    let name = report.drive.as_ref().and_then(|d| d.name.clone());
    let doc = normalised(&report, file)?;
    Ok((doc, outcome, name))
}

/// How far in the future an imported run may have started (another machine's clock ahead
/// of ours, a time zone written wrong): 2 days.
const FUTURE_SLACK_SECONDS: i64 = 2 * 24 * 3600;

/// `Ok` when `started` is an RFC 3339 time no later than [`FUTURE_SLACK_SECONDS`] from now;
/// else the reason, naming the field: a run that starts in the year 9999 would stay its
/// drive's latest run for ever.
fn started_plausible(started: &str) -> Result<(), String> {
    let shown = shown_name(started);
    let t = chrono::DateTime::parse_from_rfc3339(started).map_err(|_| {
        format!("started \"{shown}\" is not an RFC 3339 time (such as 2026-06-01T12:00:00+02:00)")
    })?;
    if t.timestamp() > chrono::Utc::now().timestamp() + FUTURE_SLACK_SECONDS {
        return Err(format!(
            "started \"{shown}\" is in the future (is the clock of the machine that ran it wrong?)"
        ));
    }
    Ok(())
}
