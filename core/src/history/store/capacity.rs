//! Capacity checks in the history: recording one (and marking its drive when it was found fake
//! or losing data — the mark stays whatever later checks say), listing a drive's checks or all,
//! one stored report, and the drives known only from capacity checks.

use rusqlite::{params, OptionalExtension};

use super::History;
use crate::capacity::{CapacityReport, Mode};
use crate::drive::{DriveId, IdentityBasis};
use crate::history::error::{from_sqlite, HistoryError};
use crate::history::records::{started_key, CapacitySummary, CheckedDrive};

/// Bytes as SQLite stores them (i64; no drive is 8 EiB).
fn sql_bytes(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// The label of a check's drive: its model and kind, else the disk and kind.
pub(crate) fn check_label(r: &CapacityReport) -> String {
    let kind = r.drive.transport.as_str();
    match &r.drive.model {
        Some(m) => format!("{} ({kind})", m.trim_end_matches(['\0', ' '])),
        None => format!("{} ({kind})", r.drive.disk),
    }
}

fn summary(
    r: &CapacityReport,
    names: &std::collections::HashMap<String, String>,
) -> CapacitySummary {
    let drive = r.identity.as_ref().map(|d| d.id.clone());
    let name = drive.as_ref().and_then(|d| names.get(d.as_str()).cloned());
    CapacitySummary {
        check: r.check_id.clone(),
        started: r.started.clone(),
        drive_label: name.clone().unwrap_or_else(|| check_label(r)),
        drive,
        drive_name: name,
        mode: r.mode,
        verdict: r.verdict,
        claimed_bytes: r.claimed_bytes,
        verified_bytes: r.verified_bytes,
        real_bytes: r.real_bytes,
    }
}

impl History {
    /// Stores the capacity check `report` (once: a check the history has is left as it is).
    /// A check of an identified drive adds the drive; a verdict of fake or loses data marks it
    /// ([`History::found_fake`]) for good.
    ///
    /// Errors: [`HistoryError::Malformed`] for a check id that is not 32 lowercase hex digits,
    /// and the database's ([`HistoryError::Locked`], [`HistoryError::ReadOnly`],
    /// [`HistoryError::Full`], …).
    pub fn record_capacity(&mut self, report: &CapacityReport) -> Result<(), HistoryError> {
        let id = &report.check_id;
        if id.len() != 32
            || !id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(HistoryError::Malformed {
                file: "capacity check".into(),
                reason: format!("check_id {id:?} is not 32 lowercase hex digits"),
            });
        }
        let json = serde_json::to_string(report)
            .map_err(|e| HistoryError::Sqlite(format!("the check cannot be stored: {e}")))?;
        let err = |e| from_sqlite(&self.path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let drive = report.identity.as_ref();
        if let Some(d) = drive {
            tx.execute(
                "INSERT OR IGNORE INTO drives (drive_id, basis) VALUES (?1, ?2)",
                params![d.id.as_str(), d.basis.as_str()],
            )
            .map_err(err)?;
        }
        tx.execute(
            "INSERT OR IGNORE INTO capacity_checks (check_id, drive_id, started, started_unix, \
             mode, verdict, verified_bytes, claimed_bytes, real_bytes, document) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                id,
                drive.map(|d| d.id.to_string()),
                report.started,
                started_key(&report.started),
                report.mode.as_str(),
                report.verdict.as_str(),
                sql_bytes(report.verified_bytes),
                sql_bytes(report.claimed_bytes),
                report.real_bytes.map(sql_bytes),
                json,
            ],
        )
        .map_err(err)?;
        if let (Some(d), true) = (drive, report.verdict.is_bad()) {
            tx.execute(
                "UPDATE drives SET found_fake = coalesce(found_fake, ?2) WHERE drive_id = ?1",
                params![d.id.as_str(), id],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// The id of the first check that found the drive `drive` fake or losing data, if any
    /// (the mark stays after later checks).
    pub fn found_fake(&self, drive: &DriveId) -> Result<Option<String>, HistoryError> {
        self.conn
            .query_row(
                "SELECT found_fake FROM drives WHERE drive_id = ?1",
                [drive.as_str()],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()
            .map(Option::flatten)
            .map_err(|e| self.err(e))
    }

    /// The capacity checks, newest first: of the drive `drive` names (id, unique prefix or
    /// name) or of every drive.
    ///
    /// Errors: `NotFound` or `Ambiguous` for `drive`, and the database's.
    pub fn capacity_checks(
        &self,
        drive: Option<&str>,
    ) -> Result<Vec<CapacitySummary>, HistoryError> {
        let drive = match drive {
            Some(d) => Some(self.resolve_drive(d)?.to_string()),
            None => None,
        };
        let names = self.names()?;
        Ok(self
            .capacity_documents(drive.as_deref())?
            .iter()
            .map(|r| summary(r, &names))
            .collect())
    }

    /// The stored reports of the capacity checks of `drive` (or all), newest first.
    fn capacity_documents(&self, drive: Option<&str>) -> Result<Vec<CapacityReport>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT check_id, document FROM capacity_checks WHERE (?1 IS NULL OR drive_id = ?1) \
                 ORDER BY started_unix DESC, rowid DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([drive], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(id, doc)| {
                serde_json::from_str(&doc).map_err(|e| {
                    HistoryError::Sqlite(format!("the stored check {id} cannot be read: {e}"))
                })
            })
            .collect()
    }

    /// The stored report of the check `check` names: its id or a unique prefix of at least
    /// [`super::MIN_PREFIX`] hex digits.
    ///
    /// Errors: `NotFound`, `Ambiguous`, and the database's.
    pub fn capacity_report(&self, check: &str) -> Result<CapacityReport, HistoryError> {
        let prefix = check.to_ascii_lowercase();
        if prefix.is_empty() || !prefix.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(HistoryError::NotFound(check.to_owned()));
        }
        if prefix.len() < super::MIN_PREFIX {
            return Err(HistoryError::Ambiguous(check.to_owned()));
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT check_id, document FROM capacity_checks \
                 WHERE substr(check_id, 1, length(?1)) = ?1 LIMIT 2",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([&prefix], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        match &rows[..] {
            [] => Err(HistoryError::NotFound(check.to_owned())),
            [(id, doc)] => serde_json::from_str(doc).map_err(|e| {
                HistoryError::Sqlite(format!("the stored check {id} cannot be read: {e}"))
            }),
            _ => Err(HistoryError::Ambiguous(check.to_owned())),
        }
    }

    /// The latest capacity check of `drive` and whether it was ever found fake, for
    /// [`History::drives`].
    pub(super) fn capacity_of(
        &self,
        drive: &str,
        names: &std::collections::HashMap<String, String>,
    ) -> Result<(Option<CapacitySummary>, bool), HistoryError> {
        let last = self
            .capacity_documents(Some(drive))?
            .first()
            .map(|r| summary(r, names));
        let fake = self.found_fake(&DriveId::from_stored(drive))?.is_some();
        Ok((last, fake))
    }

    /// The drives known only from capacity checks (no test run), the most recently checked
    /// first.
    pub fn checked_only_drives(&self) -> Result<Vec<CheckedDrive>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT d.drive_id, d.basis, d.name, d.found_fake, count(c.check_id) \
                 FROM drives d JOIN capacity_checks c ON c.drive_id = d.drive_id \
                 WHERE d.drive_id NOT IN (SELECT drive_id FROM runs WHERE drive_id IS NOT NULL) \
                 GROUP BY d.drive_id ORDER BY max(c.started_unix) DESC",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, u32>(4)?,
                ))
            })
            .map_err(|e| self.err(e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.err(e))?;
        let names = self.names()?;
        let mut out = Vec::new();
        for (id, basis, name, fake, checks) in rows {
            let Some(last) = self
                .capacity_documents(Some(&id))?
                .first()
                .map(|r| summary(r, &names))
            else {
                continue;
            };
            out.push(CheckedDrive {
                id: DriveId::from_stored(&id),
                basis: IdentityBasis::parse(&basis).unwrap_or(IdentityBasis::FilesystemUuid),
                label: last.drive_label.clone(),
                name,
                found_fake: fake.is_some(),
                checks,
                last,
            });
        }
        Ok(out)
    }
}

impl Mode {
    /// Parses [`Mode::as_str`].
    pub fn parse(s: &str) -> Option<Mode> {
        [Mode::Mounted, Mode::Device]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}
