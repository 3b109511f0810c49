//! The SQLite file: the open [`History`] and its settings. Opening (rollback journal, busy
//! timeout, migrations, a damaged file moved aside), recording, listing, naming, importing and
//! exporting, and forgetting runs each have their own module.

mod capacity;
mod forget;
mod names;
mod open;
mod queries;
mod record;
mod transfer;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

pub use record::{derived_run_id, Recorded};

use super::error::from_sqlite;
use super::error::HistoryError;

/// How long a write waits for another program's write to finish before it is
/// [`HistoryError::Locked`]: 5 s.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The shortest prefix of a run or drive id that names it: 6 hex digits.
pub const MIN_PREFIX: usize = 6;

/// One open history file.
#[derive(Debug)]
pub struct History {
    conn: Connection,
    path: PathBuf,
    moved_aside: Option<HistoryError>,
    busy_timeout: Duration,
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
