//! Errors in the report: [`ErrorReport`], the [`ErrorKind`] (the JSON's `error.kind`), the
//! message, what to do, and the whole text when the message shown is shortened ([`shorten`]).

use serde::{Deserialize, Serialize};

pub use crate::error_kind::ErrorKind;

/// An error that stopped the test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorReport {
    /// Machine-readable kind (JSON: its snake_case name, e.g. `no_space`).
    pub kind: ErrorKind,
    /// What happened, for people: at most [`SHORT_MESSAGE_CHARS`] characters on one line
    /// (a longer text is cut at its first line or sentence, or at a word, with `…`).
    pub message: String,
    /// What to do, for people.
    pub hint: String,
    /// The whole text when `message` had to be shortened (fio's error lines can run to
    /// hundreds of characters), else `None` (`null` in JSON).
    #[serde(default)]
    pub details: Option<String>,
}

/// The longest [`ErrorReport::message`], in characters.
pub const SHORT_MESSAGE_CHARS: usize = 160;

impl ErrorReport {
    /// The report of an error of `kind` whose whole text is `text`: `message` is the text
    /// shortened by [`shorten`], `details` the whole text when that shortened it.
    pub fn new(kind: ErrorKind, text: String, hint: String) -> ErrorReport {
        let (message, details) = match shorten(&text, SHORT_MESSAGE_CHARS) {
            Some(short) => (short, Some(text)),
            None => (text, None),
        };
        ErrorReport {
            kind,
            message,
            hint,
            details,
        }
    }

    /// The report of an engine error: its kind, translated message (each standard step named
    /// as people know it, [`crate::figure::step_name`]) and advice.
    pub fn from_engine(e: &crate::engine::EngineError) -> ErrorReport {
        ErrorReport::new(
            e.kind(),
            e.message_naming(&crate::figure::step_name),
            e.advice().text(),
        )
    }

    /// True when the user (or a signal) stopped the test.
    pub fn is_cancelled(&self) -> bool {
        self.kind == ErrorKind::Cancelled
    }
}

/// `text` cut for people to at most `max` characters (`…` included), or `None` when it is one
/// line that fits. The cut keeps the first line; if that is still too long, as many of its
/// sentences or clauses (ending in `.`, `;` or `:` and a space) as fit, when that is at least a
/// third of `max`, else as many whole words; `…` marks what was left out.
pub fn shorten(text: &str, max: usize) -> Option<String> {
    let text = text.trim();
    let first = text.lines().next().unwrap_or("").trim_end();
    if first.len() == text.len() && first.chars().count() <= max {
        return None;
    }
    // Room for the ellipsis.
    let room = max.saturating_sub(1);
    if first.chars().count() <= room {
        return Some(format!("{first}…"));
    }
    let head: String = first.chars().take(room).collect();
    let sentence_end = head
        .match_indices(['.', ';', ':'])
        .map(|(i, _)| i)
        .rfind(|&i| head[i + 1..].starts_with(' ') && head[..i].chars().count() >= max / 3);
    let cut = match sentence_end {
        Some(i) => &head[..i],
        None => match head.rfind(' ') {
            Some(i) if head[..i].chars().count() >= max / 3 => &head[..i],
            _ => head.as_str(),
        },
    };
    Some(format!("{}…", cut.trim_end()))
}
