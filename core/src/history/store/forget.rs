//! Forgetting runs and capacity checks: one run, one check, every run of a drive (and its
//! name), or everything.

use super::History;
use crate::capacity::CapacityReport;
use crate::history::error::from_sqlite;
use crate::history::error::HistoryError;

impl History {
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
            "DELETE FROM drives WHERE name IS NULL AND found_fake IS NULL AND drive_id NOT IN \
             (SELECT drive_id FROM runs WHERE drive_id IS NOT NULL) AND drive_id NOT IN \
             (SELECT drive_id FROM capacity_checks WHERE drive_id IS NOT NULL)",
            [],
        )
        .map_err(|e| from_sqlite(&self.path, e))?;
        tx.commit().map_err(|e| from_sqlite(&self.path, e))?;
        Ok(n)
    }

    /// Deletes the capacity check `check` names (its id or a unique prefix, as
    /// [`History::capacity_report`] takes); returns its report, which
    /// [`History::record_capacity`] puts back as it was. When this check marked its drive
    /// found fake, the mark passes to the drive's earliest other check that found it fake or
    /// losing data, or goes; a drive left with no run, check, name or mark goes too.
    ///
    /// Errors: `NotFound`, `Ambiguous`, and the database's.
    pub fn forget_capacity(&mut self, check: &str) -> Result<CapacityReport, HistoryError> {
        let report = self.capacity_report(check)?;
        let err = |e| from_sqlite(&self.path, e);
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let id = report.check_id.as_str();
        tx.execute("DELETE FROM capacity_checks WHERE check_id = ?1", [id])
            .map_err(err)?;
        tx.execute(
            "UPDATE drives SET found_fake = (SELECT c.check_id FROM capacity_checks c \
             WHERE c.drive_id = drives.drive_id AND c.verdict IN ('fake', 'loses_data') \
             ORDER BY c.started_unix, c.check_id LIMIT 1) WHERE found_fake = ?1",
            [id],
        )
        .map_err(err)?;
        tx.execute(
            "DELETE FROM drives WHERE name IS NULL AND found_fake IS NULL AND drive_id NOT IN \
             (SELECT drive_id FROM runs WHERE drive_id IS NOT NULL) AND drive_id NOT IN \
             (SELECT drive_id FROM capacity_checks WHERE drive_id IS NOT NULL)",
            [],
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(report)
    }

    /// Deletes every run and capacity check of the drive `drive` names, its name and its mark of
    /// a fake; the number of runs deleted.
    pub fn forget_drive(&mut self, drive: &str) -> Result<usize, HistoryError> {
        let id = self.resolve_drive(drive)?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| from_sqlite(&self.path, e))?;
        let n = tx
            .execute("DELETE FROM runs WHERE drive_id = ?1", [id.as_str()])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.execute(
            "DELETE FROM capacity_checks WHERE drive_id = ?1",
            [id.as_str()],
        )
        .map_err(|e| from_sqlite(&self.path, e))?;
        tx.execute("DELETE FROM drives WHERE drive_id = ?1", [id.as_str()])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.commit().map_err(|e| from_sqlite(&self.path, e))?;
        Ok(n)
    }

    /// Deletes every run, every capacity check and every drive (names and marks); the number of
    /// runs deleted.
    pub fn forget_all(&mut self) -> Result<usize, HistoryError> {
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| from_sqlite(&self.path, e))?;
        let n = tx
            .execute("DELETE FROM runs", [])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.execute("DELETE FROM capacity_checks", [])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.execute("DELETE FROM drives", [])
            .map_err(|e| from_sqlite(&self.path, e))?;
        tx.commit().map_err(|e| from_sqlite(&self.path, e))?;
        Ok(n)
    }
}
