//! The SQLite file: opening (rollback journal, busy timeout, migrations, a damaged file moved
//! aside),
//! recording, listing, naming, importing, exporting and forgetting runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::error::from_sqlite;
use super::recover::{
    create_exclusively, foreign_bytes, identity, io_error, is_corrupt, move_aside,
    owned_or_missing, quick_check, regular_or_missing, OpenLock,
};
use super::{
    figures, schema, DriveId, DriveSummary, HistoryError, IdentityBasis, ImportOutcome, Outcome,
    RunFilter, RunId, RunSummary, SeriesPoint, Trend,
};
use crate::report::Report;
use crate::target_dir::Transport;

/// How long a write waits for another program's write to finish before it is
/// [`HistoryError::Locked`]: 5 s.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The shortest prefix of a run or drive id that names it: 6 hex digits.
pub const MIN_PREFIX: usize = 6;

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

/// One open history file.
#[derive(Debug)]
pub struct History {
    conn: Connection,
    path: PathBuf,
    moved_aside: Option<HistoryError>,
    busy_timeout: Duration,
}

/// The sort key of an RFC 3339 time: seconds since 1970 (UTC), 0 when it cannot be read.
pub(crate) fn started_key(started: &str) -> i64 {
    chrono::DateTime::parse_from_rfc3339(started).map_or(0, |t| t.timestamp())
}

/// A refused name as it can be shown in a message: control characters escaped (`\u{1b}`),
/// cut to its first 40 characters (with `…`).
fn shown_name(name: &str) -> String {
    let mut out = crate::report::visible(&name.chars().take(40).collect::<String>());
    if name.chars().count() > 40 {
        out.push('…');
    }
    out
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
    super::identity::hex(&sha2::Sha256::digest(json.as_bytes())[..16])
}

impl History {
    /// The history file: `$AGNOSTICS_HISTORY` when set and not empty, else
    /// `$XDG_STATE_HOME/agnostics/history.sqlite3` (an absolute `XDG_STATE_HOME`), else
    /// `~/.local/state/agnostics/history.sqlite3`.
    pub fn default_path() -> PathBuf {
        if let Some(p) = std::env::var_os("AGNOSTICS_HISTORY").filter(|p| !p.is_empty()) {
            return PathBuf::from(p);
        }
        let state = std::env::var_os("XDG_STATE_HOME")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| home().join(".local/state"));
        state.join("agnostics").join("history.sqlite3")
    }

    /// Opens (creating the folders, mode 0700, and the file) and migrates the history at
    /// `path`: a rollback journal (`journal_mode = DELETE`; a history in WAL mode, as earlier
    /// versions made it, is switched back), [`BUSY_TIMEOUT`], `secure_delete` (forgotten runs
    /// are overwritten).
    /// A file that is not a readable SQLite database is moved aside (see
    /// [`History::moved_aside`]) and a new history started in its place.
    ///
    /// The file is written only when it is the effective user's own regular file, reached
    /// without a symbolic link (a new one is created 0600 with `O_EXCL | O_NOFOLLOW`).
    ///
    /// Errors: [`HistoryError::Symlink`], [`HistoryError::NotOwned`],
    /// [`HistoryError::NotAFile`] (a folder or a device), [`HistoryError::ReadOnly`],
    /// [`HistoryError::Full`], [`HistoryError::Locked`],
    /// [`HistoryError::NewerSchema`], [`HistoryError::Corrupt`] (when the damaged file cannot
    /// be moved), [`HistoryError::Io`], [`HistoryError::Sqlite`].
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(dir)
                    .map_err(|e| folder_error(dir, e))?;
            }
        }
        owned_or_missing(path)?;
        regular_or_missing(path)?;
        let _lock = OpenLock::take(path)?;
        // Checked again under the lock: another program may have made the file meanwhile.
        owned_or_missing(path)?;
        let mut moved = None;
        if foreign_bytes(path) {
            moved = Some(move_aside(path, identity(path))?);
        }
        let found = identity(path);
        match Self::open_rw(path) {
            Ok(mut h) => {
                h.moved_aside = moved.map(|to| HistoryError::Corrupt {
                    path: path.to_path_buf(),
                    moved_to: Some(to),
                });
                Ok(h)
            }
            Err(HistoryError::Corrupt { .. }) if moved.is_none() => {
                let to = move_aside(path, found)?;
                let mut h = Self::open_rw(path)?;
                h.moved_aside = Some(HistoryError::Corrupt {
                    path: path.to_path_buf(),
                    moved_to: Some(to),
                });
                Ok(h)
            }
            Err(e) => Err(e),
        }
    }

    /// [`History::open_once`], again for up to [`BUSY_TIMEOUT`] while another program holds
    /// the file: switching the journal mode while another connection has the file open is
    /// refused at once, without SQLite's busy handler.
    fn open_rw(path: &Path) -> Result<History, HistoryError> {
        let start = std::time::Instant::now();
        loop {
            match Self::open_once(path) {
                Err(HistoryError::Locked { .. }) if start.elapsed() < BUSY_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                other => return other,
            }
        }
    }

    fn open_once(path: &Path) -> Result<History, HistoryError> {
        let err = |e| from_sqlite(path, e);
        create_exclusively(path)?;
        owned_or_missing(path)?;
        let mut conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX
                | OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )
        .map_err(err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        // SQLite falls back to reading only when the file, its folder or the filesystem is
        // read-only: writing would fail later, with less to say.
        if conn
            .is_readonly(rusqlite::DatabaseName::Main)
            .map_err(err)?
        {
            return Err(HistoryError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        let mode: String = conn
            .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
            .map_err(|e| {
                if is_corrupt(&e) {
                    HistoryError::Corrupt {
                        path: path.to_path_buf(),
                        moved_to: None,
                    }
                } else {
                    err(e)
                }
            })?;
        if !mode.eq_ignore_ascii_case("delete") {
            // WAL kept: another connection has the file open in WAL mode (an earlier version).
            return Err(HistoryError::Locked {
                path: path.to_path_buf(),
            });
        }
        conn.execute_batch("PRAGMA secure_delete = ON; PRAGMA foreign_keys = ON;")
            .map_err(err)?;
        quick_check(&conn, path)?;
        let found = schema::migrate(&mut conn).map_err(err)?;
        if found > schema::VERSION {
            return Err(HistoryError::NewerSchema {
                found,
                known: schema::VERSION,
            });
        }
        Ok(History {
            conn,
            path: path.to_path_buf(),
            moved_aside: None,
            busy_timeout: BUSY_TIMEOUT,
        })
    }

    /// Opens the history at `path` for reading only: nothing is created, migrated or moved.
    /// Errors: [`HistoryError::NoHistory`] when there is no file or it is empty,
    /// [`HistoryError::NotAFile`] for a folder or a device, [`HistoryError::Corrupt`]
    /// (not moved) for a damaged one, [`HistoryError::NewerSchema`], or one older than this
    /// program's schema that was never opened for writing ([`HistoryError::Sqlite`]).
    pub fn open_read_only(path: &Path) -> Result<History, HistoryError> {
        regular_or_missing(path)?;
        // An empty file is a history not started yet (SQLite makes its header on the first
        // write), not one of an older schema.
        if std::fs::metadata(path).map_or(true, |m| m.len() == 0) {
            return Err(HistoryError::NoHistory {
                path: path.to_path_buf(),
            });
        }
        let corrupt = || HistoryError::Corrupt {
            path: path.to_path_buf(),
            moved_to: None,
        };
        if foreign_bytes(path) {
            return Err(corrupt());
        }
        let err = |e| from_sqlite(path, e);
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        let version: u32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| if is_corrupt(&e) { corrupt() } else { err(e) })?;
        quick_check(&conn, path)?;
        if version > schema::VERSION {
            return Err(HistoryError::NewerSchema {
                found: version,
                known: schema::VERSION,
            });
        }
        if version < schema::VERSION {
            return Err(HistoryError::Sqlite(format!(
                "the history is at schema {version}; open it for writing once to update it to {}",
                schema::VERSION
            )));
        }
        Ok(History {
            conn,
            path: path.to_path_buf(),
            moved_aside: None,
            busy_timeout: BUSY_TIMEOUT,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// When [`History::open`] found a damaged file and moved it aside: the
    /// [`HistoryError::Corrupt`] to show as a warning (with where it went).
    pub fn moved_aside(&self) -> Option<&HistoryError> {
        self.moved_aside.as_ref()
    }

    /// Sets how long a write waits for another program's (default [`BUSY_TIMEOUT`]).
    pub fn set_busy_timeout(&mut self, timeout: Duration) -> Result<(), HistoryError> {
        self.busy_timeout = timeout;
        self.conn
            .busy_timeout(timeout)
            .map_err(|e| from_sqlite(&self.path, e))
    }

    fn err(&self, e: rusqlite::Error) -> HistoryError {
        from_sqlite(&self.path, e)
    }

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
        Ok(super::trend(report, &earlier))
    }

    /// The drive `drive` names: its id, a unique prefix of at least [`MIN_PREFIX`] hex digits,
    /// or the name given to it. An id prefix that matches a drive wins over a name (so a
    /// drive's short id, as `history drives` prints it, always selects that drive, whatever
    /// names an older history holds). Errors: `NotFound`, `Ambiguous`.
    pub fn resolve_drive(&self, drive: &str) -> Result<DriveId, HistoryError> {
        let prefix = drive.to_ascii_lowercase();
        let hex = !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_hexdigit());
        if hex && prefix.len() >= MIN_PREFIX {
            let ids = self
                .strings(
                    "SELECT drive_id FROM drives WHERE substr(drive_id, 1, length(?1)) = ?1",
                    &prefix,
                )
                .map_err(|e| self.err(e))?;
            match ids.len() {
                0 => {}
                1 => return Ok(DriveId::from_str_unchecked(&ids[0])),
                _ => return Err(HistoryError::Ambiguous(drive.to_owned())),
            }
        }
        let named: Vec<String> = self
            .strings("SELECT drive_id FROM drives WHERE name = ?1", drive)
            .map_err(|e| self.err(e))?;
        match named.len() {
            1 => Ok(DriveId::from_str_unchecked(&named[0])),
            0 if hex && prefix.len() < MIN_PREFIX => Err(HistoryError::Ambiguous(drive.to_owned())),
            0 => Err(HistoryError::NotFound(drive.to_owned())),
            _ => Err(HistoryError::Ambiguous(drive.to_owned())),
        }
    }

    /// The run `run` names: its id or a unique prefix of at least [`MIN_PREFIX`] hex digits.
    pub fn resolve_run(&self, run: &str) -> Result<RunId, HistoryError> {
        let prefix = run.to_ascii_lowercase();
        if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(HistoryError::NotFound(run.to_owned()));
        }
        if prefix.len() < MIN_PREFIX {
            return Err(HistoryError::Ambiguous(run.to_owned()));
        }
        let ids = self
            .strings(
                "SELECT run_id FROM runs WHERE substr(run_id, 1, length(?1)) = ?1 LIMIT 2",
                &prefix,
            )
            .map_err(|e| self.err(e))?;
        match ids.len() {
            0 => Err(HistoryError::NotFound(run.to_owned())),
            1 => Ok(RunId(ids[0].clone())),
            _ => Err(HistoryError::Ambiguous(run.to_owned())),
        }
    }

    fn strings(&self, sql: &str, arg: &str) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self.conn.prepare(sql)?;
        let rows = stmt.query_map([arg], |r| r.get::<_, String>(0))?;
        rows.collect()
    }

    fn names(&self) -> Result<std::collections::HashMap<String, String>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare("SELECT drive_id, name FROM drives WHERE name IS NOT NULL")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map_err(|e| self.err(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.err(e))
    }

    /// (run id, outcome, document) of the runs `filter` selects, newest first.
    fn select(&self, filter: &RunFilter) -> Result<Vec<(String, Outcome, Report)>, HistoryError> {
        let drive = match &filter.drive {
            Some(d) => Some(self.resolve_drive(d)?.to_string()),
            None => None,
        };
        let mut stmt = self
            .conn
            .prepare(
                "SELECT run_id, outcome, document FROM runs \
                 WHERE (?1 IS NULL OR drive_id = ?1) AND (?2 IS NULL OR profile = ?2) \
                 ORDER BY started_unix DESC, rowid DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![drive, filter.profile], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                ))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (id, outcome, doc) = row.map_err(|e| self.err(e))?;
            let report = stored_report(&doc).map_err(|e| {
                HistoryError::Sqlite(format!("the stored run {id} cannot be read: {e}"))
            })?;
            out.push((
                id,
                Outcome::parse(&outcome).unwrap_or(Outcome::Failed),
                report,
            ));
        }
        Ok(out)
    }

    /// The runs `filter` selects, newest first.
    pub fn runs(&self, filter: &RunFilter) -> Result<Vec<RunSummary>, HistoryError> {
        let names = self.names()?;
        Ok(self
            .select(filter)?
            .into_iter()
            .map(|(_, outcome, r)| summary(&r, outcome, &names))
            .collect())
    }

    /// The stored (redacted) report of the run `run` names (id or unique prefix).
    pub fn report(&self, run: &str) -> Result<Report, HistoryError> {
        let id = self.resolve_run(run)?;
        let doc: String = self
            .conn
            .query_row(
                "SELECT document FROM runs WHERE run_id = ?1",
                [&id.0],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        stored_report(&doc)
            .map_err(|e| HistoryError::Sqlite(format!("the stored run {id} cannot be read: {e}")))
    }

    /// Every drive with stored runs, the most recently tested first.
    pub fn drives(&self) -> Result<Vec<DriveSummary>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT d.drive_id, d.basis, d.name, count(r.run_id), max(r.started_unix) \
                 FROM drives d JOIN runs r ON r.drive_id = d.drive_id \
                 GROUP BY d.drive_id ORDER BY max(r.started_unix) DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, u32>(3)?,
                ))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        let names = self.names()?;
        let mut out = Vec::new();
        for (id, basis, name, runs) in rows {
            let filter = RunFilter {
                drive: Some(id.clone()),
                profile: None,
            };
            let Some((_, outcome, last)) = self.select(&filter)?.into_iter().next() else {
                continue;
            };
            let last = summary(&last, outcome, &names);
            let kind = last_kind(&self.report(&last.run.0)?);
            out.push(DriveSummary {
                id: DriveId::from_str_unchecked(&id),
                basis: IdentityBasis::parse(&basis).unwrap_or(IdentityBasis::FilesystemUuid),
                label: last.drive_label.clone(),
                name,
                kind,
                runs,
                last,
            });
        }
        Ok(out)
    }

    /// Gives the drive `drive` (id, prefix or current name) the name `name` (trimmed; empty
    /// clears it). Errors: `NotFound`, `Ambiguous`, `BadName` (over 100 characters or control
    /// characters), `NameLikeId` (6 or more hex digits and nothing else: it would read as an
    /// id, and could select another drive), `NameTaken` (another drive has that name, in any
    /// case: the name would select neither).
    pub fn name_drive(&mut self, drive: &str, name: &str) -> Result<DriveId, HistoryError> {
        let id = self.resolve_drive(drive)?;
        let name = valid_name(name)?;
        if let Some(name) = name {
            if let Some(other) = name_holder(&self.conn, name, &id).map_err(|e| self.err(e))? {
                return Err(HistoryError::NameTaken {
                    name: shown_name(name),
                    drive: other.chars().take(8).collect(),
                });
            }
        }
        self.conn
            .execute(
                "UPDATE drives SET name = ?1 WHERE drive_id = ?2",
                params![name, id.as_str()],
            )
            .map_err(|e| self.err(e))?;
        Ok(id)
    }

    /// Imports `file`: one report (JSON object) or an array of them (the form
    /// [`History::export`] gives; an empty array adds nothing). Every document is checked
    /// first (an Agnostics report, a known schema version, a valid run id, a plausible start
    /// time, a test that ran, verdicts that its own figures give: [`Report::contradictions`];
    /// at most [`super::import::MAX_DOCUMENT_BYTES`] of JSON with bounded strings and arrays)
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
        super::import::for_each_document(file, &mut |index, item, array| {
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

    /// Deletes the run `run` names; the number of runs deleted (1).
    pub fn forget_run(&mut self, run: &str) -> Result<usize, HistoryError> {
        let id = self.resolve_run(run)?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| from_sqlite(&self.path, e))?;
        let n = tx
            .execute("DELETE FROM runs WHERE run_id = ?1", [&id.0])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.execute(
            "DELETE FROM drives WHERE name IS NULL AND drive_id NOT IN \
             (SELECT drive_id FROM runs WHERE drive_id IS NOT NULL)",
            [],
        )
        .map_err(|e| from_sqlite(&self.path, e))?;
        tx.commit().map_err(|e| from_sqlite(&self.path, e))?;
        Ok(n)
    }

    /// Deletes every run of the drive `drive` names, and its name; the number of runs deleted.
    pub fn forget_drive(&mut self, drive: &str) -> Result<usize, HistoryError> {
        let id = self.resolve_drive(drive)?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| from_sqlite(&self.path, e))?;
        let n = tx
            .execute("DELETE FROM runs WHERE drive_id = ?1", [id.as_str()])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.execute("DELETE FROM drives WHERE drive_id = ?1", [id.as_str()])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.commit().map_err(|e| from_sqlite(&self.path, e))?;
        Ok(n)
    }

    /// Deletes every run and every drive name; the number of runs deleted.
    pub fn forget_all(&mut self) -> Result<usize, HistoryError> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| from_sqlite(&self.path, e))?;
        let n = tx
            .execute("DELETE FROM runs", [])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.execute("DELETE FROM drives", [])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.commit().map_err(|e| from_sqlite(&self.path, e))?;
        Ok(n)
    }

    /// Every figure of the finished runs of `drive` with the profile `profile_name`, oldest
    /// run first (within a run, in phase order), for trend charts.
    pub fn series(
        &self,
        drive: &DriveId,
        profile_name: &str,
    ) -> Result<Vec<SeriesPoint>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT run_id, document FROM runs WHERE drive_id = ?1 AND profile = ?2 \
                 AND outcome = 'finished' ORDER BY started_unix, rowid",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![drive.as_str(), profile_name], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for (id, doc) in rows {
            let Ok(report) = serde_json::from_str::<Report>(&doc) else {
                continue;
            };
            if report.error.is_some() {
                continue;
            }
            for (phase, unit, value) in figures(&report) {
                out.push(SeriesPoint {
                    run: RunId(id.clone()),
                    started: report.started.clone(),
                    phase,
                    value,
                    unit,
                });
            }
        }
        Ok(out)
    }
}

impl DriveId {
    /// A stored id (16 hex digits, written by this program).
    fn from_str_unchecked(s: &str) -> DriveId {
        s.parse()
            .unwrap_or_else(|_| DriveId::hash(IdentityBasis::FilesystemUuid, &[s]))
    }
}

/// Why the history's folder `dir` could not be made: a file where a folder must be (`EEXIST`,
/// `ENOTDIR`) is said in words, with what to do; anything else as [`io_error`].
fn folder_error(dir: &Path, e: std::io::Error) -> HistoryError {
    match e.raw_os_error() {
        Some(libc::EEXIST) | Some(libc::ENOTDIR) => HistoryError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other(
                "a file is where the history's folder must be; move that file, or name another history file with AGNOSTICS_HISTORY",
            ),
        },
        _ => io_error(dir, e),
    }
}

fn home() -> PathBuf {
    if let Some(h) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map_or_else(|| PathBuf::from("/"), |u| u.dir)
}

/// The document as stored: redacted, with a valid run id (derived when it has none).
/// `Malformed` (naming `file`) for a run id that is not 32 lowercase hex digits.
fn normalised(report: &Report, file: &Path) -> Result<Report, HistoryError> {
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
enum Inserted {
    /// The run was new: stored.
    Added,
    /// The history had this run, with the same contents.
    Same,
    /// The history had this run id with other contents: the stored run is kept.
    Different,
}

/// Inserts `doc` (normalised) unless its run id is there (the stored run is never replaced).
fn insert(
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
fn stored_report(doc: &str) -> serde_json::Result<Report> {
    serde_json::from_str::<Report>(doc).map(|r| r.regraded())
}

/// `name` trimmed, `None` when empty, or why it cannot be a drive's name: `BadName` (over 100
/// characters, a control or bidirectional control character), `NameLikeId` (6 or more hex
/// digits alone: it would read as an id).
fn valid_name(name: &str) -> Result<Option<&str>, HistoryError> {
    let name = name.trim();
    if name.chars().count() > 100
        || name
            .chars()
            .any(|c| c.is_control() || crate::report::is_bidi_control(c))
    {
        return Err(HistoryError::BadName(shown_name(name)));
    }
    if name.len() >= MIN_PREFIX && name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(HistoryError::NameLikeId(name.to_owned()));
    }
    Ok((!name.is_empty()).then_some(name))
}

/// The drive other than `except` that has the name `name` (in any case), if any.
fn name_holder(
    conn: &Connection,
    name: &str,
    except: &DriveId,
) -> rusqlite::Result<Option<String>> {
    conn.query_row(
        "SELECT drive_id FROM drives WHERE name = ?1 COLLATE NOCASE AND drive_id != ?2",
        params![name, except.as_str()],
        |r| r.get(0),
    )
    .optional()
}

/// Gives the drive `drive` the name an exported document carried, when the drive has none
/// here and the name is one [`History::name_drive`] would accept (valid, and no other drive's):
/// a name given here is never replaced by an imported one.
fn adopt_name(tx: &rusqlite::Transaction<'_>, drive: &DriveId, name: &str) -> rusqlite::Result<()> {
    let Ok(Some(name)) = valid_name(name) else {
        return Ok(());
    };
    if name_holder(tx, name, drive)?.is_some() {
        return Ok(());
    }
    tx.execute(
        "UPDATE drives SET name = ?1 WHERE drive_id = ?2 AND name IS NULL",
        params![name, drive.as_str()],
    )?;
    Ok(())
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
    super::import::bounded(&item).map_err(at)?;
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

/// The kind of drive a report ran on: the card's, else the target's transport.
fn last_kind(r: &Report) -> Transport {
    r.card
        .as_ref()
        .map(|c| c.kind)
        .or(r.target.as_ref().map(|t| t.transport))
        .unwrap_or_default()
}

fn summary(
    r: &Report,
    outcome: Outcome,
    names: &std::collections::HashMap<String, String>,
) -> RunSummary {
    let drive = r.drive.as_ref().map(|d| d.id.clone());
    let drive_name = drive.as_ref().and_then(|d| names.get(d.as_str()).cloned());
    let run = r.deciding_run();
    let phase = |name: &str| run.and_then(|run| run.phase(name));
    let bw = |name: &str| phase(name).map(|p| p.bw_bytes).filter(|v| *v > 0.0);
    let iops = |name: &str| phase(name).map(|p| p.iops).filter(|v| *v > 0.0);
    RunSummary {
        run: RunId(r.run_id.clone()),
        started: r.started.clone(),
        drive_label: drive_name
            .clone()
            .unwrap_or_else(|| super::compare::drive_label(r)),
        drive,
        drive_name,
        profile: r.profile.name.clone(),
        engine: r.engine,
        verdict: r.verdict,
        a2_verdict: r.a2_verdict,
        outcome,
        seq_write_bw: bw("seq-write"),
        seq_read_bw: bw("seq-read"),
        rand_write_iops: iops("rand-4k-write"),
        rand_read_iops: iops("rand-4k-read"),
    }
}
