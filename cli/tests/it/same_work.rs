//! Same work as fio, by the drive's own counters: the standard test (on a smaller file), quick,
//! qd1 and matrix, run by both engines on one loop-device ext4 that nothing else uses, ask
//! the device for the same work in every phase. A phase that ends after its work: the device
//! moved the same bytes (within 2 %) in the same number of requests (within 2 %). A phase
//! its runtime stopped (on either engine) moved as much as the machine let it, so what must
//! agree is the shape of the work: bytes per request, and the device's bytes per byte the
//! engine counted (each within 2 %).
//!
//! The one documented difference: a block larger than the device's `max_segments` pages
//! (here 128 × 4 KiB = 512 KiB: the standard test's 4 MiB, matrix's 1 MiB) is split into as
//! many requests as its pages' physical layout gives, for either engine: each bio of at most
//! 256 pages (1 MiB) is one request when its pages lie mostly next to each other, more when
//! they are scattered. That depends on what the kernel's page allocator handed out, not on
//! the engine. For such blocks the bytes must agree and each engine's request count must lie
//! between what contiguous pages give (the bytes in requests of the device's
//! `max_sectors_kb`) and what scattered ones give; and where the kernel gives huge pages and
//! the native engine's buffers hold at least one, its count is exact: one request per block
//! (per `max_sectors_kb`), as the profile asks.

use crate::support;

use std::path::{Path, PathBuf};

use agnostics_testkit::{require_program, require_root, LoopFs, Ran};
use serde_json::Value;
use support::{cli, json};

/// Largest difference allowed between the engines, as a fraction of fio's figure.
const TOLERANCE: f64 = 0.02;

/// A built-in profile's job file with its file `size` replaced by `size` (e.g. `64m`).
fn scaled_profile(dir: &Path, name: &str, size: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../data/profiles/{name}.fio"));
    let text = std::fs::read_to_string(&source).unwrap();
    let scaled: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("size=") {
                format!("size={size}")
            } else {
                l.to_owned()
            }
        })
        .collect();
    let path = dir.join(format!("{name}.fio"));
    std::fs::write(&path, scaled.join("\n") + "\n").unwrap();
    path
}

/// The phases of one run of `profile` on `target` with `engine`.
fn phases(engine: &str, target: &Path, profile: &Path) -> Vec<Value> {
    let out = cli()
        .args([
            "run", "--json", "--runs", "1", "--engine", engine, "--target",
        ])
        .arg(target)
        .arg("--profile")
        .arg(profile)
        .output()
        .unwrap();
    let doc = json(&out);
    assert!(doc["error"].is_null(), "{engine}: {doc:#}");
    doc["runs"][0]["phases"].as_array().unwrap().clone()
}

/// What the device did in the phase's direction: (bytes, requests).
fn device_work(phase: &Value) -> (u64, u64) {
    let io = &phase["device_io"];
    let (bytes, requests) = if phase["rw"].as_str().unwrap().contains("write") {
        (&io["written_bytes"], &io["writes"])
    } else {
        (&io["read_bytes"], &io["reads"])
    };
    (bytes.as_u64().unwrap(), requests.as_u64().unwrap())
}

/// Panics unless `native` is within [`TOLERANCE`] of `fio`.
fn assert_close(what: &str, native: f64, fio: f64) {
    assert!(
        (native - fio).abs() <= fio.abs() * TOLERANCE,
        "{what}: native {native}, fio {fio}"
    );
}

/// Page size the test assumes (this machine's).
const PAGE: u64 = 4096;
/// Pages the kernel pins into one bio for a plain address range (`BIO_MAX_VECS`).
const BIO_PAGES: u64 = 256;
/// Requests the filesystem may add to a writing phase (journal commits at the fsync).
const METADATA_REQUESTS: u64 = 8;

/// The device's request limits, from `/sys/block/DEV/queue`.
#[derive(Debug, Clone, Copy)]
struct Limits {
    /// `max_segments`.
    segments: u64,
    /// `max_sectors_kb`, bytes.
    max_request: u64,
}

impl Limits {
    fn of(device: &str) -> Limits {
        let name = device.rsplit('/').next().unwrap();
        let read = |file: &str| -> u64 {
            let path = format!("/sys/block/{name}/queue/{file}");
            std::fs::read_to_string(&path)
                .unwrap()
                .trim()
                .parse()
                .unwrap()
        };
        Limits {
            segments: read("max_segments"),
            max_request: read("max_sectors_kb") * 1024,
        }
    }

    /// The fewest and most requests `ios` blocks of `bs` bytes (`bytes` on the device) can
    /// reach the device as: all pages neighbours (requests of `max_sectors_kb`), or none
    /// (every bio of up to 256 pages split at `max_segments` pages).
    fn requests_for(&self, ios: u64, bs: u64, bytes: u64) -> (u64, u64) {
        let bio = bs.min(BIO_PAGES * PAGE);
        let per_bio = bio.div_ceil(self.segments * PAGE);
        let high = ios * bs.div_ceil(bio) * per_bio + METADATA_REQUESTS;
        (bytes / self.max_request, high)
    }
}

/// The kernel's transparent huge page size, bytes, when the system's THP mode lets a program
/// ask for them (`always` or `madvise`); `None` otherwise.
fn huge_pages() -> Option<u64> {
    let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
    if mode.contains("[never]") {
        return None;
    }
    let size = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    size.ok()?.trim().parse().ok()
}

/// The requests the native engine's `ios` blocks of `bs` bytes (`iodepth` in flight) reach
/// the device as when its buffers are in huge pages: a region of `iodepth` blocks holds at
/// least one `huge` page, so each block is whole huge pages' worth of segments and becomes
/// `⌈bs / max_sectors_kb⌉` requests. `None` when the region is smaller than a huge page.
fn huge_page_requests(limits: Limits, huge: u64, ios: u64, bs: u64, depth: u64) -> Option<u64> {
    (depth * bs >= huge).then(|| ios * bs.div_ceil(limits.max_request))
}

/// Runs `name` (its file scaled to `size`) on both engines on `fs` and compares every phase.
fn same_work(fs: &LoopFs, name: &str, size: &str) {
    let limits = Limits::of(&fs.device);
    let dir = support::scratch();
    let profile = scaled_profile(dir.path(), name, size);
    let native = phases("native", &fs.mount, &profile);
    let fio = phases("fio", &fs.mount, &profile);
    assert_eq!(native.len(), fio.len(), "{name}");
    for (n, f) in native.iter().zip(&fio) {
        let phase = format!("{name} {}", n["name"].as_str().unwrap());
        assert_eq!(n["name"], f["name"]);
        let ((n_bytes, n_reqs), (f_bytes, f_reqs)) = (device_work(n), device_work(f));
        eprintln!(
            "{phase}: device {n_bytes} B in {n_reqs} requests (native), \
             {f_bytes} B in {f_reqs} (fio)"
        );
        let timed = n["stopped_by_runtime"] == true || f["stopped_by_runtime"] == true;
        if timed {
            let per_request = |bytes: u64, requests: u64| bytes as f64 / requests.max(1) as f64;
            assert_close(
                &format!("{phase}: bytes per request"),
                per_request(n_bytes, n_reqs),
                per_request(f_bytes, f_reqs),
            );
            let engine_bytes = |p: &Value| p["bytes"].as_u64().unwrap().max(1) as f64;
            assert_close(
                &format!("{phase}: device bytes per engine byte"),
                n_bytes as f64 / engine_bytes(n),
                f_bytes as f64 / engine_bytes(f),
            );
        } else {
            assert_eq!(n["bytes"], f["bytes"], "{phase}: the engines' own bytes");
            assert_close(
                &format!("{phase}: device bytes"),
                n_bytes as f64,
                f_bytes as f64,
            );
            let bs = n["bs"].as_u64().unwrap();
            if bs <= limits.segments * PAGE && bs <= limits.max_request {
                assert_close(
                    &format!("{phase}: device requests"),
                    n_reqs as f64,
                    f_reqs as f64,
                );
            } else {
                let ios = n["ios"].as_u64().unwrap();
                let depth = n["iodepth"].as_u64().unwrap();
                let huge = huge_pages().and_then(|h| huge_page_requests(limits, h, ios, bs, depth));
                if let Some(expected) = huge {
                    // One request per block (per `max_sectors_kb`), and the filesystem's few.
                    assert!(
                        (expected..=expected + METADATA_REQUESTS).contains(&n_reqs),
                        "{phase}: native {n_reqs} requests for {ios} blocks in huge pages, \
                         not {expected}..={}",
                        expected + METADATA_REQUESTS
                    );
                }
                for (engine, bytes, requests) in
                    [("native", n_bytes, n_reqs), ("fio", f_bytes, f_reqs)]
                {
                    let (low, high) = limits.requests_for(ios, bs, bytes);
                    assert!(
                        (low..=high).contains(&requests),
                        "{phase}: {engine} {requests} requests, not within {low}..={high}"
                    );
                }
            }
        }
    }
}

fn both_engines_ask_the_device_for_the_same_work() -> Ran {
    require_root("a loop device")?;
    require_program("fio")?;
    let fs = LoopFs::new(160);
    for (name, size) in [
        ("standard", "64m"),
        ("quick", "32m"),
        ("qd1", "48m"),
        ("matrix", "32m"),
    ] {
        same_work(&fs, name, size);
    }
    Ok(())
}

agnostics_testkit::test_list!(both_engines_ask_the_device_for_the_same_work,);
