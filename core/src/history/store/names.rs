//! Drive names: giving a drive a name (checked: no control characters, not like an id, not
//! another drive's), and adopting the name an export carried.

use rusqlite::{params, Connection, OptionalExtension};

use super::{History, MIN_PREFIX};
use crate::drive::DriveId;
use crate::history::error::HistoryError;

impl History {
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
}

/// A refused name as it can be shown in a message: control characters escaped (`\u{1b}`),
/// cut to its first 40 characters (with `…`).
pub(super) fn shown_name(name: &str) -> String {
    let mut out = crate::report::visible(&name.chars().take(40).collect::<String>());
    if name.chars().count() > 40 {
        out.push('…');
    }
    out
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
pub(super) fn adopt_name(
    tx: &rusqlite::Transaction<'_>,
    drive: &DriveId,
    name: &str,
) -> rusqlite::Result<()> {
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
