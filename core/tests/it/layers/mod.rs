//! The house rules a machine can check, read from the source text itself:
//!
//! - **Floors.** [`CORE_FLOORS`] and [`APP_FLOORS`] list the rooms of `core/src` and of the
//!   app's `src` (a room is a top-level module: a file or a folder) from the bottom floor up.
//!   A room names only rooms on floors below its own: every `crate::…` path (in a `use` or in
//!   the code, grouped `use crate::{a, b::c}` included) of a room's code must lead to a lower
//!   floor or stay in the room. Rooms on one floor never name each other, so no two rooms can
//!   name each other in a circle. The arrows that still run up are listed with their reason
//!   in [`KNOWN_UPWARD`], and the list fails when one of them is gone.
//! - **No circles inside a room.** No files of `core/src`, `src` or `cli/src` name each other
//!   in a circle, by `crate::…`, `super::…` or `self::…` paths. A file naming its own parent
//!   module (`super::Options` in a child of `mod.rs`) is not counted: the parent declares its
//!   children, and what it defines is theirs to use.
//! - **Sizes.** No `.rs` file of the sources or the tests is over [`MAX_FILE_LINES`] lines, and
//!   no function is over [`MAX_FN_LINES`] lines (its `fn` line to its closing brace), outside
//!   widget construction: a function of the app (`src/`, `tests/`) whose name begins with
//!   `build`, `setup` or `construct` (`constructed` included), or which returns a `gtk::…`
//!   or `adw::…` type, lays widgets out one after another and is read top to bottom like a
//!   `.ui` file. Checked in `core/src`, `core/tests`, `cli/src`, `cli/tests`, `src`, `tests`
//!   and `testkit/src` ([`CHECKED_DIRS`]).
//! - **The app makes no system call.** Nothing in `src/` names `nix::`, `rustix::`,
//!   `std::os::unix`, `std::os::linux`, `std::os::fd` or `std::process::Command`, or an item
//!   of `libc::` other than the dynamic linker's look-up of a GTK function by name
//!   ([`LIBC_ALLOWED`]); it asks the core. (Files are read and written through `std::fs`,
//!   which is portable and not a system call of the app's own.)
//!
//! Test code (`#[cfg(test)]` modules and the files they load) is not held to the floors and
//! circles: a test may use what it tests from any floor. Paths are read as text, after
//! comments and string literals are taken out; a path through a re-export counts where it
//! names, so an arrow hidden behind `pub use` in a parent is not seen.

mod circles;
mod reader;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use circles::circles;
use reader::{
    code_lines, crate_sources, file_of, functions, is_ident, named_paths, rust_files, Source,
};

/// The floors of `core/src`, from the bottom up: each room names only rooms on floors below.
const CORE_FLOORS: &[&[&str]] = &[
    // The ground: words, the kernel's files, processes and signals.
    &[
        "i18n",
        "error_kind",
        "sysfs",
        "process_group",
        "signals",
        "lock_dir",
        "usage",
    ],
    // The units of figures, and how a command ends.
    &["units", "exit_code"],
    &["advice"],
    // What a test runs: fio job files, the target directory and its device stack.
    &["profile", "target_dir"],
    // Measuring, and the locks of drives in use.
    &["engine", "drive_lock"],
    // The units, phases and rounding of figures.
    &["figure"],
    // The words of a verdict and the standards' minimums.
    &["verdict"],
    // The card's or drive's registers, and which drive a run was on.
    &["card"],
    &["drive"],
    // "Is my card genuine?": the capacity check, whose blocks carry their own address and
    // checksum.
    &["capacity"],
    // The sustained write test: its plan, measuring, read-back (in the capacity check's
    // blocks), cliff, markings and its one judge.
    &["sustained"],
    // The report: the data of a test and its text, table and JSON forms. It judges nothing.
    &["report"],
    // Published figures beside a report (they read it).
    &["references"],
    // The judge of the SD card test: every rule that makes a run PASS, FAIL, ERROR or
    // NOT_GRADED, for a live test and a stored one alike.
    &["judge"],
    // The stored runs, judged again through the judge; upstream's test scripts and log.
    &["history", "scripts"],
    // The standard test from start to verdict, the headline, card health; the test samples.
    &["sdtest", "headline", "health", "sample", "first_look"],
];

/// The floors of the app's `src`, from the bottom up. `lib.rs` and `main.rs` are the roots
/// that declare the rooms and are not rooms themselves.
const APP_FLOORS: &[&[&str]] = &[
    &["config", "resources", "palette", "settings"],
    &["theme", "format", "a11y", "focus_ring"],
    // State objects and the workers that run the core on a thread.
    &["model"],
    // Leaf widgets the pages share.
    &["widgets"],
    // One widget per page.
    &["pages"],
    // The shell that wires pages and models together.
    &["window"],
    // The window's probes: the tests' door and the benchmark's.
    &["testing", "bench_probe"],
    &["application"],
];

/// The arrows that run up today (none), each with why; each must still be in the code (a mended one
/// leaves the list): (file, the room it names above its own, why).
const KNOWN_UPWARD: &[(&str, &str, &str)] = &[];

/// The longest a source or test file may be, in lines.
const MAX_FILE_LINES: usize = 700;

/// The longest a function may be outside widget construction, in lines.
const MAX_FN_LINES: usize = 80;

/// What of `libc` the app may name: `dlsym` with `RTLD_DEFAULT` finds a GTK function that
/// older GTK versions lack, by name, in the program itself; no call into the kernel.
const LIBC_ALLOWED: &[&str] = &["libc::dlsym", "libc::RTLD_DEFAULT", "libc::c_void"];

/// What the app may not name: system calls and the crates that wrap them.
const APP_FORBIDDEN: &[&str] = &[
    "libc::",
    "nix::",
    "rustix::",
    "std::os::unix",
    "std::os::linux",
    "std::os::fd",
    "std::process::Command",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core/ is in the repository")
        .to_path_buf()
}

fn shown(p: &Path) -> String {
    p.strip_prefix(repo()).unwrap_or(p).display().to_string()
}

/// Where the rooms of `floors` name a room above their own or beside it: one line each,
/// naming the file, the line and the two rooms; and each arrow of [`KNOWN_UPWARD`] under
/// `root` that is no longer there.
fn upward_names(root: &Path, floors: &[&[&str]]) -> Vec<String> {
    let floor_of: BTreeMap<&str, usize> = floors
        .iter()
        .enumerate()
        .flat_map(|(n, rooms)| rooms.iter().map(move |r| (*r, n)))
        .collect();
    let mut problems = Vec::new();
    let mut known_seen = BTreeSet::new();
    for src in crate_sources(root) {
        // The crate's root files (`lib.rs`, `main.rs`) declare the rooms.
        let Some(room) = src.module.first() else {
            continue;
        };
        let Some(&here) = floor_of.get(room.as_str()) else {
            problems.push(format!(
                "{}: the room `{room}` is on no floor of the list",
                shown(&src.path)
            ));
            continue;
        };
        for named in named_paths(&src) {
            // An item of the crate root (`crate::VERSION`) is no room.
            let Some((other, &there)) = named
                .path
                .first()
                .and_then(|o| floor_of.get(o.as_str()).map(|f| (o, f)))
            else {
                continue;
            };
            if other == room || there < here {
                continue;
            }
            let file = shown(&src.path);
            if let Some(known) = KNOWN_UPWARD
                .iter()
                .find(|(f, r, _)| *f == file && r == other)
            {
                known_seen.insert(known.0);
                continue;
            }
            let how = if there == here {
                "beside it on its floor"
            } else {
                "above it"
            };
            problems.push(format!(
                "{file}:{}: `{room}` (floor {}) names `{other}` (floor {}), {how}: `crate::{}`",
                named.line,
                here + 1,
                there + 1,
                named.path.join("::"),
            ));
        }
    }
    for (file, room, _) in KNOWN_UPWARD {
        if repo().join(file).starts_with(root) && !known_seen.contains(file) {
            problems.push(format!(
                "{file} no longer names `{room}`: take it off KNOWN_UPWARD"
            ));
        }
    }
    problems
}

/// The circles among the files of the crate rooted at `root`, one line each: the files and,
/// for each arrow, the line that names the next file.
fn file_circles(root: &Path) -> Vec<String> {
    let sources = crate_sources(root);
    let files: BTreeSet<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
    // Arrows: file -> (file it names, first line naming it).
    let mut arrows: BTreeMap<PathBuf, BTreeMap<PathBuf, usize>> = BTreeMap::new();
    for src in &sources {
        for named in named_paths(src) {
            let Some(to) = file_of(root, &files, &named.path) else {
                continue;
            };
            // A file's own module, or a parent module of it (which declares it).
            let to_module = sources
                .iter()
                .find(|s| s.path == to)
                .map(|s| s.module.clone())
                .unwrap_or_default();
            if src.module.starts_with(&to_module) {
                continue;
            }
            arrows
                .entry(src.path.clone())
                .or_default()
                .entry(to)
                .or_insert(named.line);
        }
    }
    circles(&arrows)
        .into_iter()
        .map(|circle| {
            let steps: Vec<String> = circle
                .iter()
                .enumerate()
                .map(|(n, f)| {
                    let next = &circle[(n + 1) % circle.len()];
                    format!("{}:{} -> {}", shown(f), arrows[f][next], shown(next))
                })
                .collect();
            format!("a circle of {} files: {}", circle.len(), steps.join(", "))
        })
        .collect()
}

fn no_room_of_the_core_names_one_above_it() {
    let problems = upward_names(&repo().join("core/src"), CORE_FLOORS);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn no_room_of_the_app_names_one_above_it() {
    let problems = upward_names(&repo().join("src"), APP_FLOORS);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn no_files_name_each_other_in_a_circle() {
    let mut problems = Vec::new();
    for root in ["core/src", "src", "cli/src"] {
        problems.extend(file_circles(&repo().join(root)));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Where the crates' sources and tests are.
const CHECKED_DIRS: &[&str] = &[
    "core/src",
    "core/tests",
    "cli/src",
    "cli/tests",
    "src",
    "tests",
    "testkit/src",
];

fn no_file_is_over_700_lines() {
    let mut problems = Vec::new();
    for dir in CHECKED_DIRS {
        for f in rust_files(&repo().join(dir)) {
            let n = std::fs::read_to_string(&f)
                .expect("readable")
                .lines()
                .count();
            if n > MAX_FILE_LINES {
                problems.push(format!("{}: {n} lines", shown(&f)));
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// Widget construction (see the module's rules): a function of the app named `build…`,
/// `setup…`, `construct…`, or one that returns a widget.
fn builds_widgets(name: &str, signature: &str) -> bool {
    let returns = signature.split("->").nth(1).unwrap_or("").trim();
    ["build", "setup", "construct"]
        .iter()
        .any(|w| name.starts_with(w))
        || returns.starts_with("gtk::")
        || returns.starts_with("adw::")
}

fn no_function_is_over_80_lines_outside_widget_construction() {
    let mut problems = Vec::new();
    for dir in CHECKED_DIRS {
        let app = matches!(*dir, "src" | "tests");
        for f in rust_files(&repo().join(dir)) {
            let text = std::fs::read_to_string(&f).expect("readable");
            for (name, line, len, signature) in functions(&code_lines(&text)) {
                if len > MAX_FN_LINES && !(app && builds_widgets(&name, &signature)) {
                    problems.push(format!("{}:{line}: fn {name} is {len} lines", shown(&f)));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn the_app_makes_no_system_call() {
    let mut problems = Vec::new();
    for f in rust_files(&repo().join("src")) {
        let text = std::fs::read_to_string(&f).expect("readable");
        for (n, line) in code_lines(&text).iter().enumerate() {
            for forbidden in APP_FORBIDDEN {
                for (at, _) in line.match_indices(forbidden) {
                    // Only a path that begins there: `glib::unix_signal_add_local` is GLib's.
                    if line[..at].ends_with(|c: char| is_ident(c) || c == ':') {
                        continue;
                    }
                    let item: String = line[at..]
                        .chars()
                        .take_while(|&c| is_ident(c) || c == ':')
                        .collect();
                    if !LIBC_ALLOWED.contains(&item.as_str()) {
                        problems.push(format!("{}:{}: {item}", shown(&f), n + 1));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

fn the_reader_sees_paths_as_the_compiler_does() {
    let src = Source {
        path: PathBuf::from("x.rs"),
        module: vec!["capacity".into(), "device".into()],
        lines: code_lines(
            "use crate::{a::b, c::{self, d}};\n// crate::comment\nlet s = \"crate::string\";\nsuper::recovery::f(crate::e::g);\n",
        ),
        test_children: Vec::new(),
    };
    let named: Vec<(usize, String)> = named_paths(&src)
        .into_iter()
        .map(|n| (n.line, n.path.join("::")))
        .collect();
    assert_eq!(
        named,
        [
            (1, "a::b".to_owned()),
            (1, "c".to_owned()),
            (1, "c::d".to_owned()),
            (4, "capacity::recovery::f".to_owned()),
            (4, "e::g".to_owned()),
        ]
    );
    let f = functions(&code_lines(
        "pub(crate) fn one(x: u8) -> gtk::Box {\n    let y = '{';\n}\nfn two();\n",
    ));
    assert_eq!(
        f,
        [(
            "one".to_owned(),
            1,
            3,
            "fn one(x: u8) -> gtk::Box ".to_owned()
        )]
    );
}

agnostics_testkit::test_list!(
    no_room_of_the_core_names_one_above_it,
    no_room_of_the_app_names_one_above_it,
    no_files_name_each_other_in_a_circle,
    no_file_is_over_700_lines,
    no_function_is_over_80_lines_outside_widget_construction,
    the_app_makes_no_system_call,
    the_reader_sees_paths_as_the_compiler_does,
);
