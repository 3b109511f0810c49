//! Opening the file: for writing (created 0600 without following a link, migrated, a damaged
//! file moved aside, a WAL history switched back to a rollback journal) or for reading only.

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use super::{History, BUSY_TIMEOUT};
use crate::history::error::from_sqlite;
use crate::history::error::HistoryError;
use crate::history::recover::{
    create_exclusively, foreign_bytes, identity, io_error, is_corrupt, move_aside,
    owned_or_missing, quick_check, regular_or_missing, OpenLock,
};
use crate::history::schema;

impl History {
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
