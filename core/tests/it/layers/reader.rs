//! Rust source read as text: its code without comments and literals, its test modules left
//! out, the module paths it names, and its functions.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The code of `text` line by line, with comments and the contents of string and character
/// literals blanked out (line numbers kept).
pub fn code_lines(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let after_ident = i > 0 && is_ident(chars[i - 1]);
        i = match c {
            '/' if next == Some('/') => line_comment(&chars, i),
            '/' if next == Some('*') => block_comment(&chars, i, &mut out),
            'r' if matches!(next, Some('"' | '#')) && !after_ident => {
                raw_string(&chars, i, &mut out).unwrap_or_else(|| {
                    out.push(c);
                    i + 1
                })
            }
            '"' => string(&chars, i, &mut out),
            '\'' => char_literal(&chars, i, &mut out),
            _ => {
                out.push(c);
                i + 1
            }
        };
    }
    out.split('\n').map(str::to_owned).collect()
}

/// Past the `//` comment at `i`, to its line's end (the newline kept).
fn line_comment(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i] != '\n' {
        i += 1;
    }
    i
}

/// Past the `/* … */` comment at `i` (nested ones too), its newlines kept in `out`.
fn block_comment(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let mut depth = 0usize;
    while i < chars.len() {
        let pair = (chars[i], chars.get(i + 1).copied());
        if pair == ('/', Some('*')) {
            depth += 1;
            i += 2;
        } else if pair == ('*', Some('/')) {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            if chars[i] == '\n' {
                out.push('\n');
            }
            i += 1;
        }
    }
    i
}

/// Past the raw string `r"…"` or `r#"…"#` at `i`, written `""` with its newlines kept; `None`
/// when `r` begins no raw string there.
fn raw_string(chars: &[char], i: usize, out: &mut String) -> Option<usize> {
    let mut j = i + 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    out.push_str("\"\"");
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        if chars[j] == '\n' {
            out.push('\n');
        }
        j += 1;
    }
    Some(j)
}

/// Past the string at `i`, written `""` with its newlines kept.
fn string(chars: &[char], mut i: usize, out: &mut String) -> usize {
    out.push_str("\"\"");
    i += 1;
    while i < chars.len() && chars[i] != '"' {
        if chars[i] == '\\' {
            i += 1;
        }
        if chars.get(i) == Some(&'\n') {
            out.push('\n');
        }
        i += 1;
    }
    i + 1
}

/// Past the character literal at `i` ('x', '\n', '\u{7f}'), written `' '`; a lifetime (`'a`)
/// is code.
fn char_literal(chars: &[char], i: usize, out: &mut String) -> usize {
    let end = match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), _) => chars[i + 2..]
            .iter()
            .position(|&c| c == '\'')
            .map(|p| i + 3 + p),
        (Some(_), Some('\'')) => Some(i + 3),
        _ => None,
    };
    match end {
        Some(e) => {
            out.push_str("' '");
            e
        }
        None => {
            out.push('\'');
            i + 1
        }
    }
}

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// One Rust file of a crate: its path, its module path from the crate root, and its code
/// (comments and strings blanked) without test modules.
pub struct Source {
    pub path: PathBuf,
    pub module: Vec<String>,
    pub lines: Vec<String>,
    /// Modules this file declares under `#[cfg(test)]` (`mod tests;`): test code.
    pub test_children: Vec<String>,
}

/// The module path of `file` under the crate root `root`: `capacity/device.rs` is
/// `["capacity", "device"]`, `capacity/mod.rs` is `["capacity"]`, `lib.rs` is `[]`.
pub fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).expect("under the root");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    let root_file = parts.is_empty() && matches!(stem, "lib" | "main");
    if stem != "mod" && !root_file {
        parts.push(stem.to_owned());
    }
    parts
}

/// Reads `file`, blanking the code after a `#[cfg(test)]` module (to its closing brace) and
/// noting `#[cfg(test)] mod name;` declarations.
pub fn read_source(root: &Path, file: &Path) -> Source {
    let text = std::fs::read_to_string(file).expect("readable source");
    let mut lines = code_lines(&text);
    let mut test_children = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "#[cfg(test)]" {
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().starts_with("#[") {
                j += 1;
            }
            let decl = lines
                .get(j)
                .map(|l| l.trim().to_owned())
                .unwrap_or_default();
            let decl = decl.strip_prefix("pub ").unwrap_or(&decl).to_owned();
            if let Some(rest) = decl.strip_prefix("mod ") {
                if let Some(name) = rest.strip_suffix(';') {
                    test_children.push(name.trim().to_owned());
                    i = j + 1;
                    continue;
                }
                // An inline test module: blank it to its closing brace.
                let mut depth = 0i64;
                let mut k = j;
                while k < lines.len() {
                    depth += lines[k].matches('{').count() as i64;
                    depth -= lines[k].matches('}').count() as i64;
                    let opened = depth > 0 || lines[k].contains('{');
                    lines[k].clear();
                    if opened && depth <= 0 {
                        break;
                    }
                    k += 1;
                }
                i = k + 1;
                continue;
            }
            // A single item under #[cfg(test)] (a `use`, a function): blank its line.
            if let Some(l) = lines.get_mut(j) {
                if l.trim_end().ends_with(';') {
                    l.clear();
                }
            }
        }
        i += 1;
    }
    Source {
        path: file.to_path_buf(),
        module: module_of(root, file),
        lines,
        test_children,
    }
}

/// The sources of the crate rooted at `root`, test files (declared `#[cfg(test)] mod x;`)
/// left out.
pub fn crate_sources(root: &Path) -> Vec<Source> {
    let all: Vec<Source> = rust_files(root)
        .iter()
        .map(|f| read_source(root, f))
        .collect();
    let mut tests: BTreeSet<Vec<String>> = BTreeSet::new();
    for s in &all {
        for child in &s.test_children {
            let mut m = s.module.clone();
            m.push(child.clone());
            tests.insert(m);
        }
    }
    all.into_iter()
        .filter(|s| !tests.iter().any(|t| s.module.starts_with(t)))
        .collect()
}

/// One path a file names: the line (1-based) and the module path it leads to.
pub struct Named {
    pub line: usize,
    pub path: Vec<String>,
}

/// Reads a path of identifiers from `s` at `at`: `a::b::{c, d::e}` gives `a::b::c` and
/// `a::b::d::e`; `self` in a group stands for its prefix, `*` for the prefix itself.
fn use_tree(s: &[char], at: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let skip_ws = |at: &mut usize| {
        while *at < s.len() && s[*at].is_whitespace() {
            *at += 1;
        }
    };
    let mut path = prefix;
    loop {
        skip_ws(at);
        if s.get(*at) == Some(&'{') {
            *at += 1;
            loop {
                skip_ws(at);
                match s.get(*at) {
                    Some('}') => {
                        *at += 1;
                        return;
                    }
                    Some(',') => *at += 1,
                    None => return,
                    _ => {
                        let before = *at;
                        use_tree(s, at, path.clone(), out);
                        if *at == before {
                            *at += 1;
                        }
                    }
                }
            }
        }
        if s.get(*at) == Some(&'*') {
            *at += 1;
            out.push(path);
            return;
        }
        let start = *at;
        while *at < s.len() && is_ident(s[*at]) {
            *at += 1;
        }
        let ident: String = s[start..*at].iter().collect();
        if ident.is_empty() {
            out.push(path);
            return;
        }
        if ident != "self" {
            path.push(ident);
        }
        if s.get(*at) == Some(&':') && s.get(*at + 1) == Some(&':') {
            *at += 2;
            continue;
        }
        out.push(path);
        return;
    }
}

/// Every module path `src` names by `crate::`, `super::` or `self::`, resolved from its own
/// module, with the line it is named on.
pub fn named_paths(src: &Source) -> Vec<Named> {
    let mut out = Vec::new();
    // A `use` may span lines: read the file as one text, counting lines.
    let text: Vec<char> = src.lines.join("\n").chars().collect();
    let line_at = |pos: usize| text[..pos].iter().filter(|&&c| c == '\n').count() + 1;
    let mut i = 0;
    while i < text.len() {
        let word_start =
            i == 0 || !(is_ident(text[i - 1]) || text[i - 1] == ':' || text[i - 1] == '$');
        let rest: String = text[i..text.len().min(i + 8)].iter().collect();
        let base = if !word_start {
            None
        } else if rest.starts_with("crate::") {
            Some((7, Vec::new()))
        } else if rest.starts_with("super::") {
            // `super` of a file's own module: its parent (a `mod.rs` is its folder's module).
            let mut m = src.module.clone();
            let mut at = i;
            while text[at..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                m.pop();
                at += 7;
            }
            Some((at - i, m))
        } else if rest.starts_with("self::") {
            Some((6, src.module.clone()))
        } else {
            None
        };
        let Some((skip, prefix)) = base else {
            i += 1;
            continue;
        };
        let line = line_at(i);
        let mut at = i + skip;
        let mut paths = Vec::new();
        use_tree(&text, &mut at, prefix, &mut paths);
        for path in paths {
            out.push(Named { line, path });
        }
        i = at.max(i + 1);
    }
    out
}

/// The file of the crate rooted at `root` that defines the module `path` names: its longest
/// prefix that is a file (`a/b.rs`) or a folder's `a/b/mod.rs`.
pub fn file_of(root: &Path, files: &BTreeSet<PathBuf>, path: &[String]) -> Option<PathBuf> {
    for n in (1..=path.len()).rev() {
        let dir: PathBuf = path[..n].iter().collect();
        for candidate in [
            root.join(&dir).with_extension("rs"),
            root.join(&dir).join("mod.rs"),
        ] {
            if files.contains(&candidate) {
                return Some(candidate);
            }
        }
    }
    None
}

/// The functions of `lines` (code, comments blanked): name, first line (1-based), length
/// in lines, and the text between the name and the body (arguments and return type).
pub fn functions(lines: &[String]) -> Vec<(String, usize, usize, String)> {
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let Some(pos) = fn_keyword(line) else {
            continue;
        };
        let name: String = line[pos + 3..]
            .chars()
            .take_while(|&c| is_ident(c))
            .collect();
        // The signature runs to the first `{` (a body) or `;` (a declaration only).
        let mut signature = String::new();
        let mut depth = 0i64;
        let mut opened = false;
        let mut end = None;
        for (k, l) in lines.iter().enumerate().skip(n) {
            let from = if k == n { pos } else { 0 };
            for c in l[from..].chars() {
                if !opened {
                    if c == ';' && depth == 0 {
                        end = Some(k);
                        break;
                    }
                    if c == '{' {
                        opened = true;
                    } else {
                        signature.push(c);
                        continue;
                    }
                }
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    _ => {}
                }
                if opened && depth == 0 {
                    end = Some(k);
                    break;
                }
            }
            if end.is_some() {
                break;
            }
        }
        if let (Some(end), true) = (end, opened) {
            out.push((name, n + 1, end - n + 1, signature));
        }
    }
    out
}

/// Where `fn ` begins an item on `line`, after its qualifiers.
fn fn_keyword(line: &str) -> Option<usize> {
    let trimmed = line.trim_start();
    let mut rest = trimmed;
    loop {
        let before = rest;
        for q in [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "const ",
            "async ",
            "unsafe ",
            "extern \"\" ",
            "extern ",
        ] {
            rest = rest.strip_prefix(q).unwrap_or(rest);
        }
        if rest == before {
            break;
        }
    }
    rest.starts_with("fn ").then(|| line.len() - rest.len())
}
