//! Reading the history: resolving run and drive ids (or prefixes, or names), listing runs and
//! drives, one stored report, and the series of a drive's figures for trend charts.

use rusqlite::params;

use super::record::stored_report;
use super::{History, MIN_PREFIX};
use crate::drive::{DriveId, IdentityBasis};
use crate::figure::StandardPhase;
use crate::history::error::HistoryError;
use crate::history::figures::figures;
use crate::history::records::drive_label;
use crate::history::records::{DriveSummary, Outcome, RunFilter, RunId, RunSummary, SeriesPoint};
use crate::report::Report;
use crate::target_dir::Transport;
use crate::verdict::Verdict;

impl History {
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

    /// The name the person gave the drive of `report` ([`History::name_drive`]); `None` for a
    /// drive without one, or a report without a drive's identity.
    pub fn drive_name_of(&self, report: &Report) -> Result<Option<String>, HistoryError> {
        let Some(drive) = &report.drive else {
            return Ok(None);
        };
        Ok(self.names()?.remove(drive.id.as_str()))
    }

    pub(super) fn names(&self) -> Result<std::collections::HashMap<String, String>, HistoryError> {
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
    pub(super) fn select(
        &self,
        filter: &RunFilter,
    ) -> Result<Vec<(String, Outcome, Report)>, HistoryError> {
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
            let stored = self.select(&filter)?;
            let Some((_, outcome, last)) = stored.first() else {
                continue;
            };
            let last = summary(last, *outcome, &names);
            let last_graded = stored
                .iter()
                .find(|(_, _, r)| matches!(r.verdict, Verdict::Pass | Verdict::Fail))
                .map(|(_, outcome, r)| summary(r, *outcome, &names));
            let kind = last_kind(&self.report(&last.run.0)?);
            let (last_capacity, found_fake) = self.capacity_of(&id, &names)?;
            out.push(DriveSummary {
                id: DriveId::from_str_unchecked(&id),
                basis: IdentityBasis::parse(&basis).unwrap_or(IdentityBasis::FilesystemUuid),
                label: last.drive_label.clone(),
                name,
                kind,
                runs,
                last,
                last_graded,
                last_capacity,
                found_fake,
            });
        }
        Ok(out)
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
    pub(crate) fn from_stored(s: &str) -> DriveId {
        DriveId::from_str_unchecked(s)
    }

    /// A stored id (16 hex digits, written by this program).
    fn from_str_unchecked(s: &str) -> DriveId {
        s.parse()
            .unwrap_or_else(|_| DriveId::hash(IdentityBasis::FilesystemUuid, &[s]))
    }
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
    let phase = |p: StandardPhase| run.and_then(|run| run.phase(p.job_name()));
    let bw = |p: StandardPhase| phase(p).map(|p| p.bw_bytes).filter(|v| *v > 0.0);
    let iops = |p: StandardPhase| phase(p).map(|p| p.iops).filter(|v| *v > 0.0);
    RunSummary {
        run: RunId(r.run_id.clone()),
        started: r.started.clone(),
        drive_label: drive_name.clone().unwrap_or_else(|| drive_label(r)),
        drive,
        drive_name,
        profile: r.profile.name.clone(),
        engine: r.engine,
        verdict: r.verdict,
        a2_verdict: r.a2_verdict,
        outcome,
        seq_write_bw: bw(StandardPhase::SeqWrite),
        seq_read_bw: bw(StandardPhase::SeqRead),
        rand_write_iops: iops(StandardPhase::Rand4kWrite),
        rand_read_iops: iops(StandardPhase::Rand4kRead),
    }
}
