//! Every file a document names exists: the repository paths in `README.md`, `CONTRIBUTING.md`
//! and `docs/*.md`, written in backquotes (`core/src/profile/`, `tools/test-pi`) or as relative
//! Markdown links and images (`(docs/arm.md)`, `(screenshots/ready.png)`), and every
//! `#anchor` of a relative link names a heading of its target (GitHub's heading ids).
//!
//! A backquoted word is a repository path only when it starts with one of the repository's
//! top-level folders or files ([`TOP_LEVEL`]); paths on the machine the program runs on
//! (`/usr/share/agnostics/`, `~/rpdiags.txt`) and build output (`target/deb/`) are not. An
//! upper-case word in a path that does not exist as written is a placeholder
//! (`testkit/fixtures/emulated-pi/MACHINE-card.json`), as is `*`: some entry of the folder must
//! then match. The test fails listing every missing path and anchor.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's top-level folders (with their slash) and files a path may start with.
const TOP_LEVEL: &[&str] = &[
    ".ci/",
    "build-aux/",
    "cli/",
    "core/",
    "data/",
    "debian/",
    "docs/",
    "po/",
    "src/",
    "testkit/",
    "tests/",
    "tools/",
    "Cargo.lock",
    "Cargo.toml",
    "CONTRIBUTING.md",
    "LICENSE",
    "README.md",
    "meson.build",
    "meson_options.txt",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core/ has a parent folder")
        .to_path_buf()
}

/// The documents checked, as paths relative to the repository's root.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![PathBuf::from("README.md"), PathBuf::from("CONTRIBUTING.md")];
    let mut in_docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("reading docs/")
        .map(|e| e.expect("an entry of docs/").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| Path::new("docs").join(p.file_name().expect("a file name")))
        .collect();
    in_docs.sort();
    docs.extend(in_docs);
    docs
}

/// The text outside fenced code blocks (```), line by line.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The contents of the inline code spans (`…`) of `prose`, and the text outside them.
fn split_code(prose: &str) -> (Vec<String>, String) {
    let mut spans = Vec::new();
    let mut outside = String::new();
    for (i, piece) in prose.split('`').enumerate() {
        if i % 2 == 1 {
            spans.push(piece.replace('\n', " "));
        } else {
            outside.push_str(piece);
        }
    }
    (spans, outside)
}

/// The words of a code span that are repository paths.
fn repo_paths(span: &str) -> Vec<String> {
    span.split_whitespace()
        .map(|w| w.trim_end_matches([',', ';', ')']))
        .filter(|w| {
            TOP_LEVEL.iter().any(|top| {
                if top.ends_with('/') {
                    w.starts_with(top)
                } else {
                    w == top
                }
            })
        })
        .map(str::to_owned)
        .collect()
}

/// The targets of the Markdown links and images in `outside` (text outside code spans).
fn link_targets(outside: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = outside;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let end = after.find([')', ' ', '\n']).unwrap_or(after.len());
        targets.push(after[..end].to_owned());
        rest = &after[end..];
    }
    targets
}

/// The pieces of `pattern` between its placeholders (`*` and upper-case words of two letters
/// or more), or None when it has none.
fn placeholder_pieces(pattern: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = pattern.chars().collect();
    let (mut pieces, mut piece, mut found, mut i) = (Vec::new(), String::new(), false, 0);
    while i < chars.len() {
        let run = chars[i..]
            .iter()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || **c == '_')
            .count();
        if chars[i] == '*' || (chars[i].is_ascii_uppercase() && run >= 2) {
            pieces.push(std::mem::take(&mut piece));
            found = true;
            i += if chars[i] == '*' { 1 } else { run };
        } else {
            piece.push(chars[i]);
            i += 1;
        }
    }
    pieces.push(piece);
    found.then_some(pieces)
}

/// Whether `name` matches the pieces of a placeholder pattern, in order, anchored at both ends.
fn matches(name: &str, pieces: &[String]) -> bool {
    let (first, last) = (&pieces[0], &pieces[pieces.len() - 1]);
    if !name.starts_with(first.as_str()) || name.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    if !name.ends_with(last.as_str()) {
        return false;
    }
    for middle in &pieces[1..pieces.len() - 1] {
        match rest.find(middle.as_str()) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `rel` (a path relative to `base`) names something that exists, its placeholders
/// matching some entry; a `{` ends what can be checked.
fn exists(base: &Path, rel: &str) -> bool {
    let mut here = base.to_path_buf();
    for part in rel.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part.contains('{') {
            return here.exists();
        }
        if part == ".." {
            here.pop();
            continue;
        }
        if here.join(part).exists() {
            here.push(part);
            continue;
        }
        let Some(pieces) = placeholder_pieces(part) else {
            return false;
        };
        let found = fs::read_dir(&here).ok().and_then(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|name| matches(name, &pieces))
        });
        match found {
            Some(name) => here.push(name),
            None => return false,
        }
    }
    here.exists()
}

/// GitHub's id of a heading: lower case, spaces to hyphens, other punctuation dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The ids of every heading of a Markdown file (a repeated one gets `-1`, `-2`, … as on
/// GitHub).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for line in prose(text).lines() {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..]);
            let mut id = base.clone();
            let mut n = 0;
            while ids.contains(&id) {
                n += 1;
                id = format!("{base}-{n}");
            }
            ids.insert(id);
        }
    }
    ids
}

/// Every problem with the paths and links of one document, and how many it names.
fn problems(root: &Path, doc: &Path) -> (Vec<String>, usize) {
    let text = fs::read_to_string(root.join(doc)).expect("reading a document");
    let (spans, outside) = split_code(&prose(&text));
    let mut found = Vec::new();
    let paths: Vec<String> = spans.iter().flat_map(|s| repo_paths(s)).collect();
    let targets: Vec<String> = link_targets(&outside)
        .into_iter()
        .filter(|t| !(t.contains("://") || t.starts_with("mailto:") || t.starts_with('<')))
        .collect();
    let named = paths.len() + targets.len();
    for path in paths {
        if !exists(root, &path) {
            found.push(format!("{}: `{path}` does not exist", doc.display()));
        }
    }
    let dir = root.join(doc.parent().expect("a document's folder"));
    for target in targets {
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            root.join(doc)
        } else {
            dir.join(path)
        };
        if !path.is_empty() && !exists(&dir, path) {
            found.push(format!(
                "{}: link ({target}) names a missing file",
                doc.display()
            ));
            continue;
        }
        if let Some(anchor) = anchor {
            let ids = fs::read_to_string(&file)
                .map(|t| anchors(&t))
                .unwrap_or_default();
            if !ids.contains(anchor) {
                found.push(format!(
                    "{}: link ({target}) names a missing heading",
                    doc.display()
                ));
            }
        }
    }
    (found, named)
}

fn every_path_and_anchor_the_documents_name_exists() {
    let root = repo_root();
    let docs = documents(&root);
    assert!(
        docs.len() > 3,
        "README.md, CONTRIBUTING.md and docs/*.md: {docs:?}"
    );
    let (mut found, mut named) = (Vec::new(), 0);
    for doc in &docs {
        let (problems, n) = problems(&root, doc);
        found.extend(problems);
        named += n;
    }
    // The documents name hundreds of paths: far fewer means the reading broke, not the docs.
    assert!(
        named > 300,
        "only {named} paths and links found in {docs:?}"
    );
    assert!(
        found.is_empty(),
        "{} missing:\n{}",
        found.len(),
        found.join("\n")
    );
}

fn paths_links_and_slugs_are_read_as_on_github() {
    assert_eq!(
        repo_paths("tools/setup --all && tools/test"),
        ["tools/setup", "tools/test"]
    );
    assert!(repo_paths("/usr/share/agnostics/sd_bench.fio").is_empty());
    assert!(repo_paths("~/rpdiags.txt target/deb/vendor").is_empty());
    assert_eq!(
        link_targets("see [ARM](docs/arm.md#x) and ![a](screenshots/b.png)"),
        ["docs/arm.md#x", "screenshots/b.png"]
    );
    assert_eq!(
        slug(" Is my card genuine? (`agnostics-cli capacity`)"),
        "is-my-card-genuine-agnostics-cli-capacity"
    );
    assert_eq!(
        slug(" The armhf package: ARMv7 app, ARMv6 CLI"),
        "the-armhf-package-armv7-app-armv6-cli"
    );
    let ids = anchors("# A\n```\n# not a heading\n```\n## A\n### B c\n");
    assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["a", "a-1", "b-c"]);
    let root = repo_root();
    assert!(exists(
        &root,
        "testkit/fixtures/emulated-pi/MACHINE-card.json"
    ));
    assert!(exists(&root, "tests/ui_*.rs"));
    assert!(!exists(&root, "tools/no-such-tool"));
}

agnostics_testkit::test_list!(
    every_path_and_anchor_the_documents_name_exists,
    paths_links_and_slugs_are_read_as_on_github,
);
