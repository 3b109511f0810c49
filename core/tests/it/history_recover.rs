//! A damaged history (a valid SQLite header, garbage in every later page) opened by several
//! programs at once: one of them moves it aside and starts a new history, and every run a
//! program reports as stored is in the live history afterwards — never only in a
//! `.corrupt-*` copy, never nowhere. Real SQLite files on `/var/tmp`, real child processes.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agnostics_core::history::{DriveId, DriveIdentity, History, IdentityBasis, RunFilter};
use agnostics_core::report::Report;
use agnostics_core::sample;
use agnostics_testkit::scratch_dir;

const MIB: f64 = 1024.0 * 1024.0;

fn report(run_id: &str) -> Report {
    sample::report()
        .run_id(run_id)
        .drive(DriveIdentity {
            id: "a544bf15e608ae0b".parse::<DriveId>().unwrap(),
            basis: IdentityBasis::Cid,
            name: None,
        })
        .run(sample::run(
            1,
            [
                sample::phase("seq-write").bw_bytes(20.0 * MIB),
                sample::phase("rand-4k-write").iops(900.0),
            ],
        ))
        .build()
}

fn db(dir: &Path) -> PathBuf {
    dir.join("history.sqlite3")
}

/// A history of 40 runs whose first page (SQLite's header and schema) is intact and whose
/// every later page is overwritten with garbage.
fn damaged(path: &Path) {
    {
        let mut h = History::open(path).unwrap();
        for n in 0..40u32 {
            h.record(&report(&format!("{n:032x}"))).unwrap();
        }
    }
    let len = std::fs::metadata(path).unwrap().len();
    assert!(len > 8192, "more than one page: {len}");
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(4096)).unwrap();
    f.write_all(&vec![0xa5; (len - 4096) as usize]).unwrap();
    f.sync_all().unwrap();
}

/// The child side of [`concurrent_openers_of_a_damaged_history_lose_no_run`]: with
/// `AGNOSTICS_TEST_RECOVER_PATH` and `AGNOSTICS_TEST_RECOVER_RUN` set, opens that history,
/// records that run and prints `stored RUN` when the history said it was stored.
fn recover_child() {
    let (Some(path), Ok(run)) = (
        std::env::var_os("AGNOSTICS_TEST_RECOVER_PATH"),
        std::env::var("AGNOSTICS_TEST_RECOVER_RUN"),
    ) else {
        return;
    };
    let stored = History::open(Path::new(&path)).and_then(|mut h| h.record(&report(&run)));
    match stored {
        Ok(r) => println!("stored {}", r.run),
        Err(e) => println!("not stored: {e}"),
    }
}

/// 30 rounds with 2 programs and 20 with 3 on a freshly damaged history each; a round is lost
/// when a run reported as stored is not in the live history.
fn concurrent_openers_of_a_damaged_history_lose_no_run() {
    let exe = std::env::current_exe().unwrap();
    let mut lost = Vec::new();
    let mut reported = 0;
    for (round, programs) in (0..30).map(|_| 2).chain((0..20).map(|_| 3)).enumerate() {
        let dir = scratch_dir();
        let path = db(dir.path());
        damaged(&path);
        let children: Vec<_> = (0..programs)
            .map(|k| {
                Command::new(&exe)
                    .args([
                        "--exact",
                        "history_recover::recover_child",
                        "--test-threads",
                        "1",
                    ])
                    .env("AGNOSTICS_TEST_RECOVER_PATH", &path)
                    .env("AGNOSTICS_TEST_RECOVER_RUN", format!("{:032x}", 0xf000 + k))
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut claimed = Vec::new();
        for c in children {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8_lossy(&out.stdout).into_owned();
            claimed.extend(
                text.lines()
                    .filter_map(|l| {
                        l.split_once("stored ")
                            .filter(|(a, _)| !a.ends_with("not "))
                    })
                    .filter_map(|(_, run)| run.split_whitespace().next().map(str::to_owned)),
            );
        }
        reported += claimed.len();
        let live: Vec<String> = History::open_read_only(&path)
            .and_then(|h| h.runs(&RunFilter::default()))
            .map(|v| v.into_iter().map(|r| r.run.to_string()).collect())
            .unwrap_or_default();
        let missing: Vec<_> = claimed.iter().filter(|c| !live.contains(c)).collect();
        if !missing.is_empty() {
            lost.push(format!("round {round} ({programs} programs): {missing:?}"));
        }
    }
    println!(
        "{reported} runs reported stored; {} rounds lost",
        lost.len()
    );
    assert!(reported > 0, "no program stored its run");
    assert!(lost.is_empty(), "{lost:#?}");
}

agnostics_testkit::test_list!(
    recover_child,
    concurrent_openers_of_a_damaged_history_lose_no_run
);
