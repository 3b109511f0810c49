//! Recovering a damaged history: the checks made before SQLite opens the file (a regular
//! file or nothing, SQLite's header), moving a damaged file aside, and the lock beside the
//! history (`<history>.lock`, `flock`) that every opener for writing holds while it decides and
//! moves, so that only one program moves a damaged file and none moves another's new, healthy
//! database.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rusqlite::Connection;

use super::error::from_sqlite;
use super::error::HistoryError;

const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

pub(super) fn io_error(path: &Path, e: std::io::Error) -> HistoryError {
    if write_refused(&e) {
        return HistoryError::ReadOnly {
            path: path.to_path_buf(),
        };
    }
    match e.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => HistoryError::Full {
            path: path.to_path_buf(),
        },
        _ => HistoryError::Io {
            path: path.to_path_buf(),
            source: e,
        },
    }
}

/// The file at `path` (symlinks not followed) as `(st_dev, st_ino)`; `None` when there is none.
pub(super) fn identity(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

fn changed(path: &Path) -> HistoryError {
    HistoryError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(
            "the damaged history was replaced by another program while being moved aside; nothing was moved, run again",
        ),
    }
}

/// Moves `path` (and its `-journal`, `-wal` and `-shm` files) aside to `<path>.corrupt-<UTC time>` (with
/// `-1`, `-2`, … when that exists): never over an existing file, and only while the file there
/// is still `expected` (`(st_dev, st_ino)`, as [`identity`] gave when it was found damaged).
/// The new name of `path`. Call it holding [`OpenLock`].
pub(super) fn move_aside(
    path: &Path,
    expected: Option<(u64, u64)>,
) -> Result<PathBuf, HistoryError> {
    if identity(path) != expected {
        return Err(changed(path));
    }
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    for n in 0u32..1000 {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".corrupt-{stamp}"));
        if n > 0 {
            name.push(format!("-{n}"));
        }
        let to = PathBuf::from(name);
        match std::fs::hard_link(path, &to) {
            Ok(()) => {
                if identity(&to) != expected {
                    let _ = std::fs::remove_file(&to);
                    return Err(changed(path));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) if !to.exists() => {
                // A filesystem without hard links: rename, having checked the name is free.
                std::fs::rename(path, &to).map_err(|e| io_error(path, e))?;
                move_companions(path, &to);
                return Ok(to);
            }
            Err(e) => return Err(io_error(path, e)),
        }
        std::fs::remove_file(path).map_err(|e| io_error(path, e))?;
        move_companions(path, &to);
        return Ok(to);
    }
    Err(HistoryError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "too many damaged copies next to it",
        ),
    })
}

/// The `-journal` (a rollback journal left by a crash belongs to the file it rolls back) and,
/// from histories of earlier versions, `-wal` and `-shm` files of `path` follow it to `to`
/// (when there are any and their names are free).
fn move_companions(path: &Path, to: &Path) {
    for suffix in ["-journal", "-wal", "-shm"] {
        let mut from = path.as_os_str().to_owned();
        from.push(suffix);
        let mut dest = to.as_os_str().to_owned();
        dest.push(suffix);
        let (from, dest) = (PathBuf::from(from), PathBuf::from(dest));
        if from.exists() && !dest.exists() {
            let _ = std::fs::rename(&from, &dest);
        }
    }
}

/// Refuses to write the history at `path` through a symbolic link or into a file another
/// user owns: `path` and its rollback journal (`-journal`, which SQLite creates and follows)
/// must each be missing or a regular file of the effective user's own. Errors:
/// [`HistoryError::Symlink`], [`HistoryError::NotOwned`].
pub(super) fn owned_or_missing(path: &Path) -> Result<(), HistoryError> {
    use std::os::unix::fs::MetadataExt;
    let mut journal = path.as_os_str().to_owned();
    journal.push("-journal");
    for p in [path, Path::new(&journal)] {
        let Ok(m) = std::fs::symlink_metadata(p) else {
            continue;
        };
        if m.file_type().is_symlink() {
            return Err(HistoryError::Symlink {
                path: p.to_path_buf(),
            });
        }
        let me = nix::unistd::geteuid();
        if m.uid() != me.as_raw() {
            return Err(HistoryError::NotOwned {
                path: p.to_path_buf(),
                owner: user_name(m.uid()),
                user: user_name(me.as_raw()),
            });
        }
    }
    Ok(())
}

/// Creates the history file `path` when it is missing: mode 0600, never through a symbolic
/// link and never over a file that appeared meanwhile (O_CREAT | O_EXCL | O_NOFOLLOW); a file
/// another program created first is left to [`owned_or_missing`]. Errors: [`io_error`]'s.
pub(super) fn create_exclusively(path: &Path) -> Result<(), HistoryError> {
    use std::os::unix::fs::OpenOptionsExt;
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io_error(path, e)),
    }
}

/// True when creating or writing a file was refused for want of permission or because the
/// filesystem is read-only (EACCES, EPERM, EROFS).
fn write_refused(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS)
    )
}

/// The name of the user `uid`, or its number when it has none.
fn user_name(uid: u32) -> String {
    nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid))
        .ok()
        .flatten()
        .map_or_else(|| uid.to_string(), |u| u.name)
}

/// `NotAFile` when `path` (its symlinks followed) exists and is not a regular file: SQLite
/// would answer a folder or `/dev/null` with a bare "disk I/O error".
pub(super) fn regular_or_missing(path: &Path) -> Result<(), HistoryError> {
    match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => Err(HistoryError::NotAFile {
            path: path.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// True when the file at `path` exists, is not empty and does not start with SQLite's header.
pub(super) fn foreign_bytes(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0u8; 16];
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(_) => return false,
        }
    }
    got > 0 && (got < 16 || &head != SQLITE_MAGIC)
}

pub(super) fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, rusqlite::ErrorCode::NotADatabase | rusqlite::ErrorCode::DatabaseCorrupt))
}

/// Fails with `Corrupt` (not moved) when `PRAGMA quick_check` finds damage.
pub(super) fn quick_check(conn: &Connection, path: &Path) -> Result<(), HistoryError> {
    let result: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .map_err(|e| from_sqlite(path, e))?;
    if result == "ok" {
        Ok(())
    } else {
        Err(HistoryError::Corrupt {
            path: path.to_path_buf(),
            moved_to: None,
        })
    }
}

/// The lock beside a history, `<history>.lock` (mode 0600, never followed through a symlink),
/// held with `flock(LOCK_EX)` from the first look at the history file until it is open: every
/// program opening the history for writing takes it, so the decision "this file is damaged" and
/// the move are made by one program at a time, about the file that is there. Released on drop.
#[derive(Debug)]
pub(super) struct OpenLock {
    _lock: Option<nix::fcntl::Flock<std::fs::File>>,
}

impl OpenLock {
    /// Takes the lock of the history `path`, waiting while another program holds it. Where
    /// the lock file cannot be made (a read-only folder: nothing can be moved or created
    /// there either) the open goes on without it. Errors: `Io` when the lock path is not a
    /// regular file of its own (a symlink, a folder) or cannot be locked.
    pub(super) fn take(path: &Path) -> Result<OpenLock, HistoryError> {
        use std::os::unix::fs::OpenOptionsExt;
        let mut name = path.as_os_str().to_owned();
        name.push(".lock");
        let lock_path = PathBuf::from(name);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&lock_path);
        let file = match file {
            Ok(f) => f,
            Err(e) if write_refused(&e) => return Ok(OpenLock { _lock: None }),
            Err(e) => return Err(io_error(&lock_path, e)),
        };
        let lock = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive).map_err(
            |(_, errno)| io_error(&lock_path, std::io::Error::from_raw_os_error(errno as i32)),
        )?;
        Ok(OpenLock { _lock: Some(lock) })
    }
}
