//! Sysfs trees of SD cards for tests, from the published register dumps in
//! `testkit/fixtures/cards/*.json` (each with a `sysfs` object of file name → contents).

use std::path::{Path, PathBuf};

/// `testkit/fixtures/cards`: the published register dumps, kept in the repository so that a
/// fresh clone runs the card tests.
pub fn card_fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cards")
}

/// Writes each `(name, contents)` as `root/block/mmcblk0/device/<name>`, with sysfs' trailing
/// newline, and returns that `device` folder.
///
/// # Panics
/// When a folder or file cannot be written.
pub fn write_card_tree(root: &Path, files: &[(&str, &str)]) -> PathBuf {
    let device = root.join("block/mmcblk0/device");
    std::fs::create_dir_all(&device).expect("the fixture tree");
    for (key, value) in files {
        std::fs::write(device.join(key), format!("{value}\n")).expect("a fixture file");
    }
    device
}

/// A sysfs tree under `root` for the card in fixture file `name` (in [`card_fixtures_dir`]):
/// each of its `sysfs` keys as `root/block/mmcblk0/device/<key>`, except those in `without`;
/// those in `zeroed` are written as all zeros of the same length. Returns `root`.
///
/// # Panics
/// When the fixture cannot be read or is not the expected JSON, or the tree cannot be written.
pub fn card_sysfs(root: &Path, name: &str, without: &[&str], zeroed: &[&str]) -> PathBuf {
    let text = std::fs::read_to_string(card_fixtures_dir().join(name))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("fixture JSON");
    let keys = fixture["sysfs"].as_object().expect("a sysfs object");
    let files: Vec<(&str, String)> = keys
        .iter()
        .filter(|(key, _)| !without.contains(&key.as_str()))
        .map(|(key, value)| {
            let value = value.as_str().expect("text");
            if zeroed.contains(&key.as_str()) {
                (key.as_str(), "0".repeat(value.len()))
            } else {
                (key.as_str(), value.to_owned())
            }
        })
        .collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(k, v)| (*k, v.as_str())).collect();
    write_card_tree(root, &refs);
    root.to_path_buf()
}

/// fio's example job files (`examples/*.fio` of fio's source; GPL, so kept outside this
/// repository) in `shared/fixtures/fio-jobs` beside the checkout: `<checkout>/../shared` for
/// a clone (CI's, or `/work/main`), `<checkout>/../../shared` for a worktree
/// (`/work/wt/<name>`). `None` when neither is there.
pub fn fio_jobs_dir() -> Option<PathBuf> {
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        checkout.join("../shared/fixtures/fio-jobs"),
        checkout.join("../../shared/fixtures/fio-jobs"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}
