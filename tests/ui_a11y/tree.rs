//! The window's accessibility tree over AT-SPI (read by `tree.py` with pyatspi while this
//! process keeps its main loop turning to answer), and what is wrong in it for a screen
//! reader.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use super::support::{try_wait_until, PATIENCE};

/// One accessible of the tree, as AT-SPI gives it.
#[derive(Debug, Clone)]
pub struct Node {
    pub role: String,
    pub name: String,
    pub focusable: bool,
    /// The state CHECKED (a ticked check box, a row that stands for one).
    pub checked: bool,
}

/// A `dbus-daemon` this process started (none when a session bus was given), stopped when
/// dropped.
pub struct SessionBus(Option<Child>);

impl SessionBus {
    /// Gives the process a session bus (`$DBUS_SESSION_BUS_ADDRESS`) if it has none. Call
    /// before GTK starts.
    pub fn ensure() -> SessionBus {
        if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
            return SessionBus(None);
        }
        let mut child = Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--print-address=1"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("dbus-daemon starts (package dbus)");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("its output");
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .expect("dbus-daemon prints its address");
        std::env::set_var("DBUS_SESSION_BUS_ADDRESS", line.trim());
        SessionBus(Some(child))
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        if let Some(child) = &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// This process's accessibility tree now, depth first.
///
/// # Panics
/// When pyatspi cannot read it (no `python3-pyatspi`, no accessibility bus).
pub fn read() -> Vec<Node> {
    let out = tempfile::NamedTempFile::new().expect("a temporary file");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ui_a11y/tree.py");
    let mut child = Command::new("/usr/bin/python3")
        .arg(script)
        .arg(std::process::id().to_string())
        .stdout(out.reopen().expect("the file"))
        .spawn()
        .expect("python3 starts");
    let mut status = None;
    let done = try_wait_until(PATIENCE, || {
        status = child.try_wait().expect("the reader's status");
        status.is_some()
    });
    if !done {
        let _ = child.kill();
    }
    assert!(
        status.is_some_and(|s| s.success()),
        "tree.py read the tree (install python3-pyatspi): {status:?}"
    );
    std::thread::sleep(Duration::from_millis(1));
    let text = std::fs::read_to_string(out.path()).expect("the tree");
    if let Some(dir) = std::env::var_os("AGNOSTICS_A11Y_TREE") {
        let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        let _ = std::fs::write(
            std::path::Path::new(&dir).join(format!("tree-{n:02}.jsonl")),
            &text,
        );
    }
    text.lines().map(parse).collect()
}

fn parse(line: &str) -> Node {
    let v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    let flag = |k: &str| v[k].as_bool().unwrap_or_default();
    Node {
        role: text("role"),
        name: text("name"),
        focusable: flag("focusable"),
        checked: flag("checked"),
    }
}

/// The names of the focusable accessibles, in order. GTK 4.8 gives no accessible the state
/// SHOWING but its windows: what is in the tree is what a screen reader takes as shown.
pub fn focusable_names(nodes: &[Node]) -> Vec<String> {
    nodes
        .iter()
        .filter(|n| n.focusable)
        .map(|n| format!("{}: {}", n.role, n.name))
        .collect()
}

/// A name that is no name: empty, GTK's type name ("GtkToggleButton"), "(None)".
fn is_placeholder(name: &str) -> bool {
    let name = name.trim();
    name.is_empty()
        || name.contains("(None)")
        || (name.starts_with("Gtk") || name.starts_with("Adw"))
            && name.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Some run of 4 words (numbers left out) said twice in `name` ("Run SD card speed test? SD card speed
/// test").
pub fn doubled(name: &str) -> Option<String> {
    let words: Vec<String> = name
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(char::is_alphabetic))
        .map(str::to_lowercase)
        .collect();
    let n = 4;
    for i in 0..words.len().saturating_sub(n - 1) {
        for j in i + n..words.len().saturating_sub(n - 1) {
            if words[i..i + n] == words[j..j + n] {
                return Some(words[i..i + n].join(" "));
            }
        }
    }
    None
}

/// What a screen reader would be told wrong about `nodes`, one sentence each.
pub fn problems(nodes: &[Node]) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for node in nodes {
        if node.focusable {
            if is_placeholder(&node.name) {
                found.push(format!("a focusable {} named {:?}", node.role, node.name));
            } else if seen.contains(&node.name.as_str()) {
                found.push(format!("two focusable controls named {:?}", node.name));
            } else {
                seen.push(&node.name);
            }
        }
        if let Some(words) = doubled(&node.name).filter(|_| node.focusable) {
            found.push(format!(
                "{} {:?} says {words:?} twice",
                node.role, node.name
            ));
        }
        if (node.role == "image" || node.role == "icon") && is_placeholder(&node.name) {
            found.push(format!(
                "an image named {:?} (decorative: presentation)",
                node.name
            ));
        }
    }
    found
}
