//! Forgetting runs: one run, every run of a drive (and its name), or everything.

use super::History;
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
