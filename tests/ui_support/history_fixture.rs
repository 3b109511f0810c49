//! The History tests' fixture: a real SQLite history file in a scratch folder with sample
//! runs of an SD card and a USB stick (`History::record`), a window showing it, and the checks
//! of saved pictures.

use std::path::{Path, PathBuf};

use agnostics::model::history_store::DriveKey;
use agnostics::testing::WindowProbe;
use agnostics::window::Tab;
use agnostics::{Application, Window};
use agnostics_core::history::{DriveId, DriveIdentity, History, IdentityBasis};
use agnostics_core::report::Report;
use agnostics_core::sample;
use agnostics_core::target_dir::Transport;
use agnostics_core::verdict::Verdict;

use super::*;

/// The SD card of the sample reports and a USB stick, by identity.
pub fn drive(basis: IdentityBasis, hex: &str) -> DriveIdentity {
    DriveIdentity {
        id: hex.parse::<DriveId>().expect("16 hex digits"),
        basis,
        name: None,
    }
}

pub const CARD: &str = "0123456789abcdef";
pub const STICK: &str = "fedcba9876543210";

/// The History page's key of the drive with id `id`.
pub fn key(id: &str) -> DriveKey {
    DriveKey::Identified(id.parse::<DriveId>().unwrap())
}

/// A standard-profile sample report of `drive` at `started` with these figures (sequential
/// write and read in bytes per second, random write and read IOPS).
pub fn report_of(
    drive: &DriveIdentity,
    run_id: &str,
    started: &str,
    figures: (f64, f64, f64, f64),
    transport: Transport,
) -> Report {
    let (sw, sr, rw, rr) = figures;
    let run = sample::run(
        1,
        [
            sample::phase("prepare-file")
                .bw_bytes(sw)
                .iops(sw / 1048576.0),
            sample::phase("seq-write").bw_bytes(sw).iops(sw / 1048576.0),
            sample::phase("seq-read").bw_bytes(sr).iops(sr / 1048576.0),
            sample::phase("rand-4k-write")
                .iops(rw)
                .bw_bytes(rw * 4096.0),
            sample::phase("rand-4k-read").iops(rr).bw_bytes(rr * 4096.0),
        ],
    );
    sample::report()
        .run(run)
        .run_id(run_id)
        .started(started)
        .drive(drive.clone())
        .target(Some(
            sample::target()
                .transport(transport)
                .model(Some(if transport == Transport::Usb {
                    "Flash Drive"
                } else {
                    "SC32G"
                }))
                .build(),
        ))
        .build()
}

/// A history file in a fresh scratch folder with three runs of the SD card (the sequential
/// write halving between the second and the third) and one of the USB stick.
pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub path: PathBuf,
}

pub fn fixture() -> Fixture {
    let dir = scratch_dir();
    let path = dir.path().join("history.sqlite3");
    let mut h = History::open(&path).expect("a new history");
    let card = drive(IdentityBasis::Cid, CARD);
    let stick = drive(IdentityBasis::Usb, STICK);
    for (i, (started, sw)) in [
        ("2026-05-01T09:00:00+00:00", 12.6e6),
        ("2026-06-01T09:00:00+00:00", 12.4e6),
        ("2026-07-01T09:00:00+00:00", 6.3e6),
    ]
    .into_iter()
    .enumerate()
    {
        let report = report_of(
            &card,
            &format!("{:032x}", 0xc0de_0000_usize + i),
            started,
            (sw, 40e6, 900.0, 2000.0),
            Transport::Sd,
        );
        h.record(&report).expect("recorded");
    }
    let report = report_of(
        &stick,
        &format!("{:032x}", 0x5717_0000_u32),
        "2026-06-15T18:30:00+00:00",
        (25e6, 90e6, 300.0, 1500.0),
        Transport::Usb,
    );
    h.record(&report).expect("recorded");
    drop(h);
    Fixture { _dir: dir, path }
}

/// A window at 800×480 showing the History page of `path`, its drives listed.
pub fn history_window(app: &Application, path: &Path) -> Window {
    let window = new_window(app);
    window.set_history_path(path);
    window.set_tab(Tab::History);
    settle(&window);
    window
}

/// Waits until the History page has what it asked the history for.
pub fn settle(window: &Window) {
    let view = window.history_view();
    wait_until("the history", || !view.is_loading());
    iterate_briefly();
}

/// Opens the card's history and compares two of its runs, ticking `first` and then `second`
/// (indices into its run rows, newest first; the comparison shows the older on the left),
/// ending on the Compare page. Returns the card's run rows (id, title, subtitle).
pub fn compare_card_runs(
    window: &Window,
    first: usize,
    second: usize,
) -> Vec<(String, String, String)> {
    let view = window.history_view();
    view.open_drive(&key(CARD));
    settle(window);
    let runs = view.run_rows();
    view.choose(&runs[first].0, "ticked first", true);
    view.choose(&runs[second].0, "ticked second", true);
    view.compare_chosen();
    settle(window);
    assert_eq!(
        view.visible_page(),
        agnostics::pages::HistoryPage::Compare,
        "the comparison is shown"
    );
    runs
}

/// Checks a PNG file: its signature, and a width and height of at least 200 pixels.
pub fn assert_png(path: &Path) {
    let bytes = std::fs::read(path).expect("the PNG file");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG signature");
    assert_eq!(&bytes[12..16], b"IHDR");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert!(
        (200..10_000).contains(&width) && (200..50_000).contains(&height),
        "{width}×{height}"
    );
}

/// A Quick check of the SD card at `started` (not graded: no checks, every verdict NOT
/// GRADED), with the run id `run_id`.
pub fn quick_check_of(run_id: &str, started: &str) -> Report {
    let mut quick = report_of(
        &drive(IdentityBasis::Cid, CARD),
        run_id,
        started,
        (20e6, 40e6, 900.0, 2000.0),
        Transport::Sd,
    );
    let size_bytes = quick.profile.size_bytes;
    quick.profile = agnostics_core::report::ProfileInfo::new("quick".to_owned(), None, size_bytes);
    quick.graded = false;
    quick.verdict = Verdict::NotGraded;
    quick.a2_verdict = Verdict::NotGraded;
    for run in &mut quick.runs {
        run.checks.clear();
        run.verdict = Verdict::NotGraded;
        run.a2_verdict = Verdict::NotGraded;
    }
    quick
}

/// For the results page: a trend of the random 4K read against one earlier run, about the same.
pub fn one_earlier_run() -> agnostics_core::history::trend::Trend {
    use agnostics_core::history::trend::{Change, FigureTrend, Trend};
    Trend {
        figures: vec![FigureTrend {
            phase: "rand-4k-read".into(),
            unit: agnostics_core::figure::Unit::Iops,
            now: 2400.0,
            before: 2400.0,
            before_started: "2026-12-01T05:15:00+00:00".into(),
            earlier_runs: 1,
            change_ratio: 0.0,
            change: Change::Same,
        }],
        earlier_runs: 1,
        decline: false,
    }
}
