//! Finding test scripts and reading their `#NAME=` / `#DESC=` lines (docs/design.md,
//! "Upstream's script protocol").
//!
//! Upstream looks in one folder, `$prefix/share/agnostics`; we look in `agnostics/` under each
//! of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`), after any folders the caller
//! names. A file name found in two folders is listed once, from the first folder (XDG
//! precedence). Only `*.sh` files directly in those folders count (not recursive).
//!
//! A script is a test when a line starting at column 0 with `#NAME=` names it and one with
//! `#DESC=` describes it; the last of each wins. As upstream, only the description has its C
//! escapes (`\n`, `\t`, `\\`, octal …) expanded: the name is one line, because the log writes
//! it as `Test : NAME`. Both are trimmed of surrounding white space and a CR (files saved with
//! CRLF line endings work). Both are plain text: `<b>&</b>` is a name, not markup.
//!
//! Upstream's own SD card test (`sdtest.sh`, or any test whose name contains "SD Card Speed")
//! is recognised and not listed: the built-in SD card test replaces it.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext};

/// The folder under each data directory that holds the scripts.
pub const SCRIPTS_SUBDIR: &str = "agnostics";

/// `$XDG_DATA_DIRS` when it is unset or empty (XDG Base Directory specification).
pub const DEFAULT_DATA_DIRS: &str = "/usr/local/share:/usr/share";

/// The file name of upstream's SD card test script.
pub const UPSTREAM_SDTEST_FILE: &str = "sdtest.sh";

/// A test script found on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptTest {
    /// Its `#NAME=`, plain text, one line.
    pub name: String,
    /// Its `#DESC=` with escapes expanded, plain text, may hold newlines.
    pub description: String,
    /// The script file.
    pub file: PathBuf,
}

/// Why a `*.sh` file is not listed as a test. JSON: `{"kind": "no_description"}`,
/// `{"kind": "shadowed", "by": "/usr/local/share/agnostics/x.sh"}`, …
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SkipReason {
    /// No `#NAME=` line, or an empty one.
    NoName,
    /// No `#DESC=` line, or an empty one.
    NoDescription,
    /// Neither line.
    NoNameOrDescription,
    /// A directory, device or FIFO named `*.sh`.
    NotAFile,
    /// It (or its folder) could not be read.
    Unreadable {
        /// The OS error text.
        message: String,
    },
    /// A file of the same name in an earlier folder is listed instead.
    Shadowed {
        /// The file that is listed.
        by: PathBuf,
    },
    /// Upstream's SD card test: the built-in SD card test replaces it.
    BuiltIn,
}

/// A `*.sh` file (or a folder) that discovery passed over, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// The file (or folder, for an unreadable folder).
    pub file: PathBuf,
    /// Why.
    #[serde(flatten)]
    pub reason: SkipReason,
}

impl Skipped {
    /// The reason as a sentence for people (translated), without the file name.
    pub fn message(&self) -> String {
        match &self.reason {
            SkipReason::NoName => gettext("it has no #NAME= line"),
            SkipReason::NoDescription => gettext("it has no #DESC= line"),
            SkipReason::NoNameOrDescription => gettext("it has no #NAME= or #DESC= line"),
            SkipReason::NotAFile => gettext("it is not a regular file"),
            SkipReason::Unreadable { message } => fill(
                &gettext("it cannot be read: {error}"),
                &[("error", message)],
            ),
            SkipReason::Shadowed { by } => fill(
                &gettext("{file} has the same name and comes first"),
                &[("file", &by.display())],
            ),
            // Translators: Raspberry Pi Diagnostics' own sdtest.sh was found; this program's
            // SD card test replaces it.
            SkipReason::BuiltIn => gettext(
                "it is Raspberry Pi Diagnostics' SD card test, which this program has built in",
            ),
        }
    }
}

/// Everything discovery found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// The tests, sorted by name (case-insensitively, then exactly, then by file).
    pub tests: Vec<ScriptTest>,
    /// Files passed over, in the order found, with the reason (log them).
    pub skipped: Vec<Skipped>,
}

impl Discovery {
    /// The upstream SD card test script that was recognised (and not listed), if any.
    pub fn replaced_sdtest(&self) -> Option<&Path> {
        self.skipped
            .iter()
            .find(|s| s.reason == SkipReason::BuiltIn)
            .map(|s| s.file.as_path())
    }
}

/// The data directories named by `value` (the text of `$XDG_DATA_DIRS`): `:`-separated
/// absolute paths; relative entries are ignored (XDG spec); unset or empty means
/// [`DEFAULT_DATA_DIRS`].
pub fn data_dirs_from(value: Option<&OsStr>) -> Vec<PathBuf> {
    let value = match value {
        Some(v) if !v.is_empty() => v,
        _ => OsStr::new(DEFAULT_DATA_DIRS),
    };
    value
        .as_bytes()
        .split(|&b| b == b':')
        .map(|part| PathBuf::from(OsStr::from_bytes(part)))
        .filter(|p| p.is_absolute())
        .collect()
}

/// The folders to search, in precedence order: each of `extra` as given, then `agnostics/`
/// under each of `$XDG_DATA_DIRS`. A folder named twice is searched once.
pub fn script_dirs(extra: &[PathBuf]) -> Vec<PathBuf> {
    let xdg = data_dirs_from(std::env::var_os("XDG_DATA_DIRS").as_deref());
    let mut dirs: Vec<PathBuf> = Vec::new();
    for dir in extra
        .iter()
        .cloned()
        .chain(xdg.into_iter().map(|d| d.join(SCRIPTS_SUBDIR)))
    {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Finds the tests in `dirs` (see [`script_dirs`]), in precedence order. A folder that does
/// not exist is passed over silently (most systems have no `/usr/local/share/agnostics`); one
/// that cannot be read is reported in [`Discovery::skipped`]. Never fails.
pub fn discover(dirs: &[PathBuf]) -> Discovery {
    let mut found = Discovery::default();
    let mut first_by_name: HashMap<OsString, PathBuf> = HashMap::new();
    for dir in dirs {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                found.skipped.push(Skipped {
                    file: dir.clone(),
                    reason: SkipReason::Unreadable {
                        message: e.to_string(),
                    },
                });
                continue;
            }
        };
        let mut names: Vec<OsString> = entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name())
            .filter(|n| n.len() > 3 && n.as_bytes().ends_with(b".sh"))
            .collect();
        names.sort();
        for file_name in names {
            let file = dir.join(&file_name);
            if let Some(first) = first_by_name.get(&file_name) {
                found.skipped.push(Skipped {
                    file,
                    reason: SkipReason::Shadowed { by: first.clone() },
                });
                continue;
            }
            first_by_name.insert(file_name.clone(), file.clone());
            match examine(&file, &file_name) {
                Ok(test) => found.tests.push(test),
                Err(reason) => found.skipped.push(Skipped { file, reason }),
            }
        }
    }
    found.tests.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.file.cmp(&b.file))
    });
    found
}

/// One candidate file: upstream's SD test, not a file, unreadable, not a test, or a test.
fn examine(file: &Path, file_name: &OsStr) -> Result<ScriptTest, SkipReason> {
    if file_name == UPSTREAM_SDTEST_FILE {
        return Err(SkipReason::BuiltIn);
    }
    let unreadable = |e: std::io::Error| SkipReason::Unreadable {
        message: e.to_string(),
    };
    let meta = std::fs::metadata(file).map_err(unreadable)?;
    if !meta.is_file() {
        return Err(SkipReason::NotAFile);
    }
    let reader = BufReader::new(std::fs::File::open(file).map_err(unreadable)?);
    let (name, description) = parse_header(reader).map_err(unreadable)??;
    if is_upstream_sdtest_name(&name) {
        return Err(SkipReason::BuiltIn);
    }
    Ok(ScriptTest {
        name,
        description,
        file: file.to_path_buf(),
    })
}

/// True for the name of upstream's SD card test ("SD Card Speed Test"): any name containing
/// "SD Card Speed", ignoring case.
pub fn is_upstream_sdtest_name(name: &str) -> bool {
    name.to_lowercase().contains("sd card speed")
}

/// Reads a script's `#NAME=` and `#DESC=` lines (column 0, case as written, the last of each
/// wins) and returns (name, description), or why it is not a test.
///
/// Invalid UTF-8 in either is replaced by U+FFFD. Errors: the read's I/O error.
pub fn parse_header(reader: impl BufRead) -> std::io::Result<Result<(String, String), SkipReason>> {
    let mut name: Option<Vec<u8>> = None;
    let mut desc: Option<Vec<u8>> = None;
    for line in reader.split(b'\n') {
        let line = line?;
        if let Some(rest) = line.strip_prefix(b"#NAME=") {
            name = Some(rest.to_vec());
        } else if let Some(rest) = line.strip_prefix(b"#DESC=") {
            desc = Some(rest.to_vec());
        }
    }
    let name = name
        .map(|n| String::from_utf8_lossy(n.trim_ascii()).into_owned())
        .filter(|n| !n.is_empty());
    let desc = desc
        .map(|d| String::from_utf8_lossy(&expand_escapes(d.trim_ascii())).into_owned())
        .filter(|d| !d.is_empty());
    Ok(match (name, desc) {
        (Some(n), Some(d)) => Ok((n, d)),
        (Some(_), None) => Err(SkipReason::NoDescription),
        (None, Some(_)) => Err(SkipReason::NoName),
        (None, None) => Err(SkipReason::NoNameOrDescription),
    })
}

/// Expands C escapes as upstream's description does (GLib's `g_strcompress` rules): `\n`,
/// `\t`, `\r`, `\b`, `\f`, `\v`, one to three octal digits, and `\` before any other byte
/// stands for that byte (`\\`, `\"`). A lone `\` at the end stays.
pub fn expand_escapes(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        i += 1;
        if b != b'\\' {
            out.push(b);
            continue;
        }
        let Some(&e) = text.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'v' => out.push(0x0b),
            b'0'..=b'7' => {
                let mut value = u32::from(e - b'0');
                let mut digits = 1;
                while digits < 3 {
                    match text.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            value = value * 8 + u32::from(d - b'0');
                            i += 1;
                            digits += 1;
                        }
                        _ => break,
                    }
                }
                out.push((value & 0xff) as u8);
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<(String, String), SkipReason> {
        parse_header(text.as_bytes()).unwrap()
    }

    #[test]
    fn last_name_and_description_win() {
        let got = parse("#NAME=One\n#DESC=First\necho\n#NAME=Two\n#DESC=Second\n");
        assert_eq!(got, Ok(("Two".into(), "Second".into())));
    }

    #[test]
    fn only_column_zero_counts() {
        let got = parse(" #NAME=Indented\n#NAME=Real\n#DESC=d\n  #DESC=not this\n");
        assert_eq!(got, Ok(("Real".into(), "d".into())));
    }

    #[test]
    fn description_escapes_expand_but_name_stays_one_line() {
        let got = parse("#NAME=A\\nB\n#DESC=Line one\\n\\nLine \\\"two\\\"\\t\\101\\\\\n");
        assert_eq!(
            got,
            Ok(("A\\nB".into(), "Line one\n\nLine \"two\"\tA\\".into()))
        );
    }

    #[test]
    fn crlf_lines_lose_their_cr() {
        let got = parse("#NAME=Windows\r\n#DESC=Saved on Windows\\nok\r\n");
        assert_eq!(got, Ok(("Windows".into(), "Saved on Windows\nok".into())));
    }

    #[test]
    fn last_line_without_newline_keeps_its_last_character() {
        assert_eq!(parse("#DESC=d\n#NAME=abc"), Ok(("abc".into(), "d".into())));
    }

    #[test]
    fn markup_characters_are_kept_as_text() {
        let got = parse("#NAME=<b>&</b>\n#DESC=a < b && c\n");
        assert_eq!(got, Ok(("<b>&</b>".into(), "a < b && c".into())));
    }

    #[test]
    fn missing_lines_say_which() {
        assert_eq!(parse("#NAME=x\n"), Err(SkipReason::NoDescription));
        assert_eq!(parse("#DESC=x\n"), Err(SkipReason::NoName));
        assert_eq!(parse("echo\n"), Err(SkipReason::NoNameOrDescription));
        assert_eq!(parse("#NAME=  \r\n#DESC=x\n"), Err(SkipReason::NoName));
    }

    #[test]
    fn invalid_utf8_in_a_name_is_replaced() {
        let got = parse_header(&b"#NAME=caf\xe9\n#DESC=d\n"[..]).unwrap();
        assert_eq!(got, Ok(("caf\u{FFFD}".into(), "d".into())));
    }

    #[test]
    fn lone_backslash_at_the_end_stays() {
        assert_eq!(expand_escapes(b"a\\"), b"a\\");
        assert_eq!(expand_escapes(b"\\0x"), b"\0x");
        assert_eq!(expand_escapes(b"\\1234"), b"S4");
    }

    #[test]
    fn xdg_data_dirs_default_and_relative_entries() {
        assert_eq!(
            data_dirs_from(None),
            [
                PathBuf::from("/usr/local/share"),
                PathBuf::from("/usr/share")
            ]
        );
        assert_eq!(data_dirs_from(Some(OsStr::new(""))).len(), 2);
        assert_eq!(
            data_dirs_from(Some(OsStr::new("/opt/share:relative::/usr/share"))),
            [PathBuf::from("/opt/share"), PathBuf::from("/usr/share")]
        );
    }

    #[test]
    fn upstream_sd_test_is_recognised_by_name() {
        assert!(is_upstream_sdtest_name("SD Card Speed Test"));
        assert!(is_upstream_sdtest_name("sd card speed test (old)"));
        assert!(!is_upstream_sdtest_name("SD Card Registers"));
    }
}
