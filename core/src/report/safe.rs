//! Text from outside made safe for the report's forms: control and bidirectional characters
//! escaped for one line ([`visible`]) or a terminal ([`terminal_safe`]), and the user's home
//! folder written `~` ([`without_home`]). Shared by the text, the tables and the CLI.

/// Text from outside (a path, a model name, a filesystem type) made safe for one line:
/// control characters (newline, tab, escape, …) are shown as escapes such as `\n`, `\t` or
/// `\u{1b}`; everything else, including non-ASCII letters, is kept.
/// Bidirectional formatting controls (U+202E RIGHT-TO-LEFT OVERRIDE and the others) are
/// escaped the same way: they reorder what the terminal shows.
pub fn visible(text: &str) -> String {
    escaped(text, |_| false)
}

/// True for a bidirectional formatting control: U+061C, U+200E, U+200F, U+202A–U+202E,
/// U+2066–U+2069.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whole lines of text built from documents (a report, a comparison, a CSV table) made safe
/// for a terminal: as [`visible`], but line ends (`\n`) are kept. Every C0 and C1 control,
/// DEL and bidirectional control becomes an escape such as `\u{1b}`, so no document can
/// move the cursor, clear the screen or set the terminal's title.
pub fn terminal_safe(text: &str) -> String {
    escaped(text, |c| c == '\n')
}

fn escaped(text: &str, keep: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if (c.is_control() || is_bidi_control(c)) && !keep(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `text` with the user's home folder (`$HOME`, when it is not `/`) written `~`, only where
/// the whole folder name stands (`/home/pi/x` → `~/x`, `/home/pie` kept): an error names the
/// folder tested, and a document for sharing must not give away the user's name with it.
pub fn without_home(text: &str) -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    let home = home.trim_end_matches('/');
    if home.len() < 2 {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(home) {
        let after = &rest[at + home.len()..];
        // Only the whole folder: `/home/pi` in `/home/pi/x`, not in `/home/pie`.
        let whole = after
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '_' | '-')));
        out.push_str(&rest[..at]);
        out.push_str(if whole { "~" } else { home });
        rest = after;
    }
    out.push_str(rest);
    out
}
