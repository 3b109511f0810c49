//! The history as the CLI's commands open and print it: its file, opened read-only, the
//! errors said on stderr, JSON on stdout, and the table's columns, times and ids.

use std::path::{Path, PathBuf};

use agnostics_core::exit_code::ExitCode;
use agnostics_core::history::{History, HistoryError};
use agnostics_core::i18n::{fill, gettext};
use serde::Serialize;

use crate::output::{emit, To};

/// The history file this process uses.
pub(crate) fn path() -> PathBuf {
    History::default_path()
}

/// The history opened read-only, or `None` when the file does not exist yet (nothing has been
/// recorded on this machine).
///
/// Errors: the store's own ([`HistoryError`]: locked, corrupt, a newer schema, …).
pub(crate) fn open_for_reading(path: &Path) -> Result<Option<History>, HistoryError> {
    if !path.exists() {
        return Ok(None);
    }
    match History::open_read_only(path) {
        Ok(h) => Ok(Some(h)),
        // An empty file: nothing recorded yet.
        Err(HistoryError::NoHistory { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Says `e` on stderr (the store's message says what to do) and returns 2.
pub(crate) fn fail(e: &HistoryError) -> i32 {
    emit(To::Stderr, format!("agnostics-cli: {e}\n"));
    ExitCode::NoVerdict.code()
}

/// Says on stderr that `what` (a run or drive id) is not in the history at `path`, which is
/// empty or missing, and returns 2.
pub(crate) fn not_recorded(what: &str, path: &Path) -> i32 {
    let message = fill(
        &gettext(
            "{what} is not in the history: nothing has been recorded in {path} yet \
             (each `agnostics-cli run` adds its result; `history import FILE` adds others').",
        ),
        &[("what", &what), ("path", &path.display())],
    );
    emit(To::Stderr, format!("agnostics-cli: {message}\n"));
    ExitCode::NoVerdict.code()
}

/// Prints `value` as pretty JSON on stdout; returns the exit status.
pub(crate) fn print_json<T: Serialize + ?Sized>(value: &T) -> i32 {
    match serde_json::to_string_pretty(value) {
        Ok(text) => emit(To::Stdout, format!("{text}\n")),
        Err(e) => {
            emit(To::Stderr, format!("agnostics-cli: {e}\n"));
            ExitCode::NoVerdict.code()
        }
    }
}

/// An RFC 3339 time as the table shows it: `2026-06-01 14:03`.
pub(crate) fn short_time(started: &str) -> String {
    let date_time: String = started.chars().take(16).collect();
    date_time.replacen('T', " ", 1)
}

/// The first 8 characters of an id, as the table shows it (any 6 or more select it).
pub(crate) fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

/// `head` and `rows` as columns two spaces apart; columns from `first_right` on are
/// right-aligned (the figures).
pub(crate) fn aligned(head: &[String], rows: &[Vec<String>], first_right: usize) -> String {
    let width = |s: &str| s.chars().count();
    let mut widths: Vec<usize> = head.iter().map(|h| width(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let mut out = String::new();
    for row in std::iter::once(head).chain(rows.iter().map(Vec::as_slice)) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = " ".repeat(w.saturating_sub(width(cell)));
            if i >= first_right {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
