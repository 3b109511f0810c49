//! The capacity tests' fixtures: a loop-mounted ext4 to check, a window aimed at it with a
//! history of its own, the check's question, a fake card's check as the core stores it (in
//! the History fixture), and the pictures of a window at a given width with a dialog over it.

use std::path::Path;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::{Application, Window};
use agnostics_core::capacity::{
    CapacityReport, CapacityVerdict, Claims, Coverage, DriveFacts, Mode, RegisterFinding,
    SpotCounts,
};
use agnostics_core::history::{History, IdentityBasis};
use agnostics_core::target_dir::Transport;
use agnostics_testkit::LoopFs;

use super::support::history_fixture::*;
use super::support::*;

/// The id of the fake card's stored check.
pub const FAKE_CHECK_ID: &str = "0000000000000000000000000000fa4e";

/// The files in `dir` that are not the filesystem's own (`lost+found`).
pub fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "lost+found")
                .collect()
        })
        .unwrap_or_default()
}

/// A loop-mounted ext4 of `mib` MiB, or the reason there cannot be one here.
pub fn loop_fs(mib: u64) -> Result<LoopFs, agnostics_testkit::Skip> {
    agnostics_testkit::require_root("a loop-mounted ext4 to check")?;
    agnostics_testkit::require_program("mkfs.ext4")?;
    Ok(LoopFs::builder(mib).no_reserved_blocks().mount())
}

/// A window aimed at `dir`, recording in a history of its own (in `history`).
pub fn window_on(app: &Application, dir: &Path, history: &Path) -> Window {
    let window = new_window(app);
    window.set_history_path(history);
    aim(&window, dir, None);
    wait_until("the checks of the drive", || {
        window.capacity_button().is_sensitive()
    });
    window
}

/// Starts the check from **Check Capacity…** and waits for its question.
pub fn ask(window: &Window) -> adw::MessageDialog {
    window.capacity_button().emit_clicked();
    wait_until("the question", || window.capacity_question().is_some());
    window.capacity_question().unwrap()
}

/// The question's text.
pub fn body_of(dialog: &adw::MessageDialog) -> String {
    dialog.body().to_string()
}

/// A fake card's check as the core stores it: claims 32 GB, wraps at 8 GiB.
pub fn fake_check(started: &str) -> CapacityReport {
    let claimed: u64 = 31_914_983_424;
    let real: u64 = 8 << 30;
    CapacityReport {
        check_id: FAKE_CHECK_ID.to_owned(),
        started: started.to_owned(),
        seconds: 94.0,
        mode: Mode::Mounted,
        verdict: CapacityVerdict::Fake,
        drive: DriveFacts {
            disk: "mmcblk0".into(),
            dev: "179:0".into(),
            model: Some("SC32G".into()),
            transport: Transport::Sd,
            partition: Some("mmcblk0p2".into()),
            partition_start: Some(272_629_760),
            target: Some("/home/pi".into()),
            fs_type: Some("ext4".into()),
        },
        identity: Some(drive(IdentityBasis::Cid, CARD)),
        claims: Claims {
            device_bytes: claimed,
            csd_bytes: Some(claimed),
            partitions_end_bytes: Some(claimed),
        },
        claimed_bytes: claimed,
        verified_bytes: real,
        first_bad_address: Some(real),
        real_bytes: Some(real),
        coverage: Coverage {
            bytes: claimed,
            share: 1.0,
        },
        wraps_checked_bytes: 8 << 30,
        powers: vec![1 << 30, 2 << 30, 4 << 30, 8 << 30, 16 << 30],
        spots: SpotCounts {
            total: 1024,
            base: 256,
            intact: 640,
            wrapped: 384,
            ..SpotCounts::default()
        },
        bad_spots: Vec::new(),
        unsure: Vec::new(),
        registers: vec![RegisterFinding::UnknownMaker { mid: 0 }],
        bytes_written: 1024 * 4096,
        bytes_read: 1024 * 4096,
        restore: None,
        recovered: Vec::new(),
    }
}

/// The history fixture with a fake check of the SD card after its runs.
pub fn fake_fixture() -> Fixture {
    let fixture = fixture();
    let mut h = History::open(&fixture.path).unwrap();
    h.record_capacity(&fake_check("2026-07-02T10:00:00+00:00"))
        .expect("the check is kept");
    fixture
}

/// Makes the window's content `width` pixels wide (480 high).
pub fn set_width(window: &Window, width: i32) {
    let content = window.content().expect("content");
    let extra = window.default_size().0 - content.width();
    window.set_default_size(width + extra, window.default_size().1);
    wait_until("the width", || content.width() == width);
    iterate_briefly();
}

/// The window's content with `dialog` drawn over its middle, as the screen shows them.
pub fn save_with_dialog(window: &Window, dialog: &adw::MessageDialog, path: &Path) {
    use gtk::{gdk, graphene};
    let content = window.content().expect("content");
    let (w, h) = (content.width() as f32, content.height() as f32);
    let snapshot = gtk::Snapshot::new();
    #[allow(deprecated)] // StyleContext::lookup_color: the GTK 4.8 way.
    let background = content
        .style_context()
        .lookup_color("window_bg_color")
        .unwrap_or(gdk::RGBA::WHITE);
    let bounds = graphene::Rect::new(0.0, 0.0, w, h);
    snapshot.append_color(&background, &bounds);
    content
        .parent()
        .unwrap()
        .snapshot_child(&content, &snapshot);
    snapshot.append_color(&gdk::RGBA::new(0.0, 0.0, 0.0, 0.3), &bounds);
    // The dialog window as a display without a compositor (VNC, Xvfb) shows it: with its
    // solid frame.
    let paintable = gtk::WidgetPaintable::new(Some(dialog));
    let (dw, dh) = (dialog.width() as f32, dialog.height() as f32);
    snapshot.save();
    snapshot.translate(&graphene::Point::new(
        ((w - dw) / 2.0).max(0.0),
        ((h - dh) / 2.0).max(0.0),
    ));
    paintable.snapshot(&snapshot, f64::from(dw), f64::from(dh));
    snapshot.restore();
    let node = snapshot.to_node().expect("something was drawn");
    let texture = window
        .renderer()
        .expect("realized")
        .render_texture(&node, Some(&bounds));
    texture.save_to_png(path).expect("the PNG");
    println!("  wrote {} ({w}×{h})", path.display());
}
