//! Why the history could not do what was asked. Each message says what happened and what to
//! do; [`HistoryError::warning`] is the line shown when a finished test could not be stored
//! (the result itself is still reported and logged).

use std::path::PathBuf;

use crate::i18n::{fill, gettext};

/// An error of the run history.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// Another program held the database longer than the busy timeout.
    #[error("{}", fill(&gettext("the history {path} is locked by another program (another Agnostics test or window?); try again when it has finished"), &[("path", &path.display())]))]
    Locked {
        /// The database file.
        path: PathBuf,
    },
    /// The database or its folder cannot be written.
    #[error("{}", fill(&gettext("the history {path} cannot be written (read-only file, folder or filesystem); make it writable or name another file with AGNOSTICS_HISTORY"), &[("path", &path.display())]))]
    ReadOnly {
        /// The database file.
        path: PathBuf,
    },
    /// The path names a folder, a device or anything else but a regular file.
    #[error("{}", fill(&gettext("the history {path} is not a file (a folder or a device); name a file with AGNOSTICS_HISTORY"), &[("path", &path.display())]))]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// The history path (or its journal's) is a symbolic link: writing through it could
    /// overwrite another user's file (as root, a link planted in a user's folder).
    #[error("{}", fill(&gettext("the history {path} is a symbolic link; Agnostics writes no history through a link (it could lead to another user's file): name the file itself with AGNOSTICS_HISTORY"), &[("path", &path.display())]))]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// The history file (or its journal) belongs to another user than the one running.
    #[error("{}", fill(&gettext("the history {path} belongs to {owner}, not to {user} who runs this; Agnostics does not write another user's files: run it as {owner}, or name another file with AGNOSTICS_HISTORY"), &[("path", &path.display()), ("owner", owner), ("user", user)]))]
    NotOwned {
        /// The file.
        path: PathBuf,
        /// Its owner's user name (or number, when it has no name).
        owner: String,
        /// The effective user's name (or number).
        user: String,
    },
    /// The filesystem holding the database is full.
    #[error("{}", fill(&gettext("the disk holding the history {path} is full; free some space and run again"), &[("path", &path.display())]))]
    Full {
        /// The database file.
        path: PathBuf,
    },
    /// The file is not a readable SQLite database; it was renamed to `moved_to` (never
    /// overwritten) and a new history is started on the next open.
    #[error("{}", corrupt_message(path, moved_to.as_ref()))]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// Where the damaged file now is (`history.sqlite3.corrupt-<timestamp>`), or `None`
        /// when it was not moved (opened for reading only).
        moved_to: Option<PathBuf>,
    },
    /// The report is not a test that ran (refused before it started): not stored.
    #[error("{}", fill(&gettext("not stored in the history: {reason}"), &[("reason", .0)]))]
    NotHistory(String),
    /// No run or drive has this id or prefix.
    #[error("{}", fill(&gettext("no run or drive {what} in the history; list them with `agnostics-cli history`"), &[("what", .0)]))]
    NotFound(String),
    /// More than one run or drive starts with this prefix (or it is shorter than 6 digits).
    #[error("{}", ambiguous_message(.0))]
    Ambiguous(String),
    /// There is no history file yet (reading only).
    #[error("{}", fill(&gettext("there is no history at {path} yet: it is made when the first test is stored"), &[("path", &path.display())]))]
    NoHistory {
        /// The database file.
        path: PathBuf,
    },
    /// A name for a drive that is too long (over 100 characters) or has control characters
    /// (the name as shown: escaped and cut to 40 characters).
    #[error("{}", fill(&gettext("“{name}” cannot be a drive's name: at most 100 characters, no control characters"), &[("name", .0)]))]
    BadName(String),
    /// A name for a drive that is 6 or more hex digits and nothing else: it would read as a
    /// run or drive id.
    #[error("{}", fill(&gettext("“{name}” cannot be a drive's name: 6 or more hex digits read as a drive or run id; add a word, such as “Card {name}”"), &[("name", .0)]))]
    NameLikeId(String),
    /// Another drive already has this name: a name must select one drive.
    #[error("{}", fill(&gettext("another drive ({drive}) is already named “{name}”; a name selects one drive: choose another name, or rename that drive first"), &[("name", name), ("drive", drive)]))]
    NameTaken {
        /// The name asked for.
        name: String,
        /// The short id of the drive that has it.
        drive: String,
    },
    /// An imported file is not a valid Agnostics report (or array of them).
    #[error("{}", fill(&gettext("{file}: not a valid Agnostics report: {reason}; nothing was imported from it"), &[("file", &file.display()), ("reason", reason)]))]
    Malformed {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An imported file is JSON but not an Agnostics report (another program's document).
    #[error("{}", fill(&gettext("{file}: this is not an Agnostics report (no `program` \"agnostics …\"); nothing was imported from it"), &[("file", &file.display())]))]
    Foreign {
        /// The file.
        file: PathBuf,
    },
    /// A file or folder could not be read, created or renamed.
    #[error("{}", fill(&gettext("{path}: {error}"), &[("path", &path.display()), ("error", source)]))]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Any other SQLite error, with SQLite's message.
    #[error("{}", fill(&gettext("history database error: {error}"), &[("error", .0)]))]
    Sqlite(String),
    /// The database was written by a newer Agnostics (schema version `found`, this program
    /// knows up to `known`); it is left unchanged.
    #[error("{}", fill(&gettext("the history was written by a newer Agnostics (schema {found}, this program knows {known}); update Agnostics, or name another file with AGNOSTICS_HISTORY"), &[("found", found), ("known", known)]))]
    NewerSchema {
        /// The database's `user_version`.
        found: u32,
        /// The newest version this program knows.
        known: u32,
    },
}

fn ambiguous_message(what: &str) -> String {
    if what.chars().count() < 6 {
        fill(
            &gettext("{what} is too short to name a run or drive: give 6 or more characters of its id (`agnostics-cli history` lists them)"),
            &[("what", &what)],
        )
    } else {
        fill(
            &gettext("{what} names more than one run or drive; give more of the id"),
            &[("what", &what)],
        )
    }
}

fn corrupt_message(path: &std::path::Path, moved_to: Option<&PathBuf>) -> String {
    match moved_to {
        Some(to) => fill(
            &gettext("the history {path} was damaged (not a readable database); it was moved aside to {moved} and a new history is started"),
            &[("path", &path.display()), ("moved", &to.display())],
        ),
        None => fill(
            &gettext("the history {path} is damaged (not a readable database); the next test moves it aside and starts a new history, or move it aside yourself"),
            &[("path", &path.display())],
        ),
    }
}

impl HistoryError {
    /// The line for people when a finished test could not be stored: `history: <what happened
    /// and what to do> — the result above is still reported and logged`.
    pub fn warning(&self) -> String {
        fill(
            &gettext("history: {error} — the result is still reported and logged"),
            &[("error", self)],
        )
    }
}

/// Maps a rusqlite error on the database at `path` to the history's error.
pub(crate) fn from_sqlite(path: &std::path::Path, e: rusqlite::Error) -> HistoryError {
    use rusqlite::ErrorCode;
    if let rusqlite::Error::SqliteFailure(f, _) = &e {
        match f.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => {
                return HistoryError::Locked {
                    path: path.to_path_buf(),
                }
            }
            ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied => {
                return HistoryError::ReadOnly {
                    path: path.to_path_buf(),
                }
            }
            ErrorCode::DiskFull => {
                return HistoryError::Full {
                    path: path.to_path_buf(),
                }
            }
            ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt => {
                return HistoryError::Corrupt {
                    path: path.to_path_buf(),
                    moved_to: None,
                }
            }
            _ => {}
        }
    }
    HistoryError::Sqlite(e.to_string())
}
