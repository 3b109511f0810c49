//! A small reader of gettext `.po` files for the tests: entries with their context, msgid,
//! plural msgid, translations and flags. Obsolete (`#~`) entries are skipped.
//!
//! Shared by the catalogue and i18n tests of core, the CLI and the app.

use std::path::{Path, PathBuf};

/// One message of a catalogue.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    /// `msgctxt`, when there is one.
    pub context: Option<String>,
    /// `msgid`; empty for the header.
    pub msgid: String,
    /// `msgid_plural`, for plural messages.
    pub msgid_plural: Option<String>,
    /// `msgstr`, or `msgstr[0]`, `msgstr[1]`, … for plural messages.
    pub msgstr: Vec<String>,
    /// The `#,` flags (`fuzzy`, `c-format`, …).
    pub flags: Vec<String>,
    /// Line of the `msgid` keyword, 1-based.
    pub line: usize,
}

impl Entry {
    /// True when every form is translated and the entry is not fuzzy.
    pub fn is_translated(&self) -> bool {
        !self.flags.iter().any(|f| f == "fuzzy")
            && !self.msgstr.is_empty()
            && self.msgstr.iter().all(|s| !s.is_empty())
    }
}

/// The top of the source tree (the workspace).
pub fn source_root() -> PathBuf {
    // CARGO_MANIFEST_DIR is this crate's folder, testkit/, whose parent is the top.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crate directory has a parent")
        .to_path_buf()
}

/// The `po/` directory.
pub fn po_dir() -> PathBuf {
    source_root().join("po")
}

/// The languages in `po/LINGUAS`, in file order.
pub fn linguas() -> Vec<String> {
    let text = std::fs::read_to_string(po_dir().join("LINGUAS")).expect("read po/LINGUAS");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Reads and parses `path`; panics with the path and line on malformed input.
pub fn read(path: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The translation of `msgid` (no context, singular) in `entries`, if translated.
pub fn lookup<'a>(entries: &'a [Entry], msgid: &str) -> Option<&'a str> {
    entries
        .iter()
        .find(|e| e.context.is_none() && e.msgid == msgid && e.is_translated())
        .map(|e| e.msgstr[0].as_str())
}

#[derive(Clone, Copy, PartialEq)]
enum Field {
    None,
    Context,
    Id,
    IdPlural,
    Str(usize),
}

/// Parses the text of a `.po` file.
pub fn parse(text: &str) -> Result<Vec<Entry>, String> {
    let mut parser = Parser {
        entries: Vec::new(),
        cur: Entry::default(),
        field: Field::None,
        started: false,
    };
    for (n, raw) in text.lines().enumerate() {
        parser.line(n + 1, raw.trim())?;
    }
    parser.push();
    Ok(parser.entries)
}

/// What [`parse`] has read so far: the entries, the one being read and its field.
struct Parser {
    entries: Vec<Entry>,
    cur: Entry,
    field: Field,
    started: bool,
}

impl Parser {
    /// Ends the entry being read (kept if it started) and begins an empty one.
    fn push(&mut self) {
        if self.started {
            self.entries.push(std::mem::take(&mut self.cur));
        }
        self.cur = Entry::default();
        self.started = false;
    }

    /// A `msgctxt` or `msgid` line: a new entry when the one read has its translation.
    fn start(&mut self) {
        if self.started && !self.cur.msgstr.is_empty() {
            self.push();
        }
        self.started = true;
    }

    /// Line `line_no`, trimmed.
    fn line(&mut self, line_no: usize, line: &str) -> Result<(), String> {
        if line.is_empty() {
            self.push();
            self.field = Field::None;
            return Ok(());
        }
        if line.starts_with("#~") {
            return Ok(());
        }
        if let Some(flags) = line.strip_prefix("#,") {
            if self.started && self.field != Field::None && !self.cur.msgstr.is_empty() {
                self.push();
            }
            self.cur
                .flags
                .extend(flags.split(',').map(|f| f.trim().to_owned()));
            return Ok(());
        }
        if line.starts_with('#') {
            return Ok(());
        }
        let (keyword, rest) = match line.find(' ') {
            Some(i) if !line.starts_with('"') => (&line[..i], line[i + 1..].trim()),
            _ => ("", line),
        };
        let value = unquote(rest).map_err(|e| format!("line {line_no}: {e}"))?;
        if keyword.is_empty() {
            self.continued(line_no, &value)
        } else {
            self.keyword(line_no, keyword, value)
        }
    }

    /// A string on a line of its own: more of the field being read.
    fn continued(&mut self, line_no: usize, value: &str) -> Result<(), String> {
        let cur = &mut self.cur;
        match self.field {
            Field::Context => cur.context.get_or_insert_with(String::new).push_str(value),
            Field::Id => cur.msgid.push_str(value),
            Field::IdPlural => cur
                .msgid_plural
                .get_or_insert_with(String::new)
                .push_str(value),
            Field::Str(i) => cur.msgstr[i].push_str(value),
            Field::None => return Err(format!("line {line_no}: string outside an entry")),
        }
        Ok(())
    }

    /// A line starting with `keyword` and its string `value`.
    fn keyword(&mut self, line_no: usize, keyword: &str, value: String) -> Result<(), String> {
        match keyword {
            "msgctxt" => {
                self.start();
                self.cur.context = Some(value);
                self.field = Field::Context;
            }
            "msgid" => {
                self.start();
                self.cur.msgid = value;
                self.cur.line = line_no;
                self.field = Field::Id;
            }
            "msgid_plural" => {
                self.cur.msgid_plural = Some(value);
                self.field = Field::IdPlural;
            }
            "msgstr" => {
                self.cur.msgstr = vec![value];
                self.field = Field::Str(0);
            }
            k if k.starts_with("msgstr[") && k.ends_with(']') => {
                let i: usize = k[7..k.len() - 1]
                    .parse()
                    .map_err(|_| format!("line {line_no}: bad index in {k}"))?;
                if self.cur.msgstr.len() != i {
                    return Err(format!("line {line_no}: {k} out of order"));
                }
                self.cur.msgstr.push(value);
                self.field = Field::Str(i);
            }
            other => return Err(format!("line {line_no}: unknown keyword {other:?}")),
        }
        Ok(())
    }
}

/// The contents of a C-style quoted string, escapes resolved.
fn unquote(s: &str) -> Result<String, String> {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(|| format!("expected a quoted string, found {s:?}"))?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            other => return Err(format!("unknown escape \\{other:?} in {s:?}")),
        }
    }
    Ok(out)
}

/// The `{name}` placeholders in `s` (names of ASCII letters, digits and `_`), sorted, without
/// repeats.
pub fn placeholders(s: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = s;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    found.push(name.to_owned());
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    found.sort();
    found.dedup();
    found
}
