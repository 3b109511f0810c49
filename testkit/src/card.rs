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

/// The sysfs files of the card in fixture file `name` (in [`card_fixtures_dir`]): its `sysfs`
/// object as (file name, contents) pairs, in the file's order.
///
/// # Panics
/// When the fixture cannot be read or is not the expected JSON.
pub fn fixture_files(name: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(card_fixtures_dir().join(name))
        .unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("fixture JSON");
    fixture["sysfs"]
        .as_object()
        .expect("a sysfs object")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().expect("text").to_owned()))
        .collect()
}

/// The host side of an SD/eMMC slot for [`mmc_host_tree`].
#[derive(Debug, Clone, Default)]
pub struct MmcHost<'a> {
    /// The block queue's depth, written as `mmcblk0/mq/0/nr_tags` (none when `None`).
    pub nr_tags: Option<&'a str>,
    /// Partitions as (number, first 512-byte sector): `mmcblk0p<N>/{partition,start}`.
    pub partitions: &'a [(u32, u64)],
    /// The host's debugfs `ios`, written as `kernel/debug/mmc0/ios`.
    pub ios: Option<&'a str>,
    /// Writes the device tree's `compatible` of a Raspberry Pi 5.
    pub raspberry_pi_5: bool,
}

/// Writes the board model `fixtures/pi-models/<name>` (e.g. `raspberry-pi-4-model-b-rev-1.4`:
/// the text the kernel prints, NUL-terminated) as `ROOT/firmware/devicetree/base/model`, where
/// `/proc/device-tree/model` points. Returns `root`.
///
/// # Panics
/// When the fixture cannot be read or the file cannot be written.
pub fn pi_model_tree(root: &Path, name: &str) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/pi-models")
        .join(name);
    let model = std::fs::read(&fixture).expect("the Pi model fixture");
    let path = root.join("firmware/devicetree/base/model");
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("the device tree");
    std::fs::write(path, model).expect("the model file");
    root.to_path_buf()
}

/// The mmc host's card directory in [`mmc_host_tree`], relative to the root.
pub const MMC_CARD_DIR: &str = "devices/platform/axi/1000fff000.mmc/mmc_host/mmc0/mmc0:aaaa";

/// A sysfs tree under `root` laid out as the kernel does for a card in a Raspberry Pi's slot:
/// the card's files (`card`, e.g. from [`fixture_files`]) in [`MMC_CARD_DIR`], its disk
/// `mmcblk0` below it (with `device` linking back, so the host `mmc0` can be found),
/// `block/mmcblk0` and `class/block/<partition>` links, and what `host` adds. Returns `root`.
///
/// # Panics
/// When the tree cannot be written.
pub fn mmc_host_tree(root: &Path, card: &[(String, String)], host: &MmcHost<'_>) -> PathBuf {
    use std::os::unix::fs::symlink;
    let write = |path: PathBuf, value: &str| {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("the fixture tree");
        std::fs::write(path, format!("{value}\n")).expect("a fixture file");
    };
    let card_dir = root.join(MMC_CARD_DIR);
    std::fs::create_dir_all(&card_dir).expect("the fixture tree");
    for (name, value) in card {
        write(card_dir.join(name), value);
    }
    let disk = card_dir.join("block/mmcblk0");
    std::fs::create_dir_all(&disk).expect("the fixture tree");
    write(disk.join("size"), "124735488");
    symlink("../../../mmc0:aaaa", disk.join("device")).expect("the device link");
    if let Some(tags) = host.nr_tags {
        write(disk.join("mq/0/nr_tags"), tags);
    }
    std::fs::create_dir_all(root.join("block")).expect("the fixture tree");
    std::fs::create_dir_all(root.join("class/block")).expect("the fixture tree");
    symlink(
        format!("../{MMC_CARD_DIR}/block/mmcblk0"),
        root.join("block/mmcblk0"),
    )
    .expect("the block link");
    for (number, start) in host.partitions {
        let name = format!("mmcblk0p{number}");
        write(disk.join(&name).join("partition"), &number.to_string());
        write(disk.join(&name).join("start"), &start.to_string());
        symlink(
            format!("../../{MMC_CARD_DIR}/block/mmcblk0/{name}"),
            root.join("class/block").join(&name),
        )
        .expect("the class link");
    }
    if let Some(ios) = host.ios {
        let path = root.join("kernel/debug/mmc0/ios");
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("the debugfs tree");
        std::fs::write(path, ios).expect("the ios file");
    }
    if host.raspberry_pi_5 {
        let path = root.join("firmware/devicetree/base/compatible");
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("the device tree");
        std::fs::write(path, b"raspberrypi,5-model-b\0brcm,bcm2712\0").expect("compatible");
    }
    root.to_path_buf()
}

/// An mmc host's debugfs `ios` in `fixtures/mmc-host/<name>` (e.g. `ios-sd-high-speed`).
///
/// # Panics
/// When the file cannot be read.
pub fn ios_fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/mmc-host")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
