//! UI tests of the drive facts followed while the app runs, on a real display (run under
//! `xvfb-run -a cargo test -p agnostics --test ui_live`), with real loop-mounted ext4s: a
//! drive mounted after launch appears in the chooser, an unmounted one goes (a chosen one is
//! said to be gone, and another chosen), and the free space is followed as a file fills the
//! drive and is deleted: **Run** goes off, and on again, with no other drive chosen between.
//! A drive of the history mounted after launch has History's **Check Capacity…** turn on.
//!
//! `AGNOSTICS_SCREENSHOTS=DIR` also renders the ready page after a full drive's space was
//! freed, at 800×480 and 360×480, to `DIR/ready-freed{,-360}-LANG.png`, LANG from `LANGUAGE`.

#[path = "ui_support/mod.rs"]
mod support;

use adw::prelude::*;
use agnostics::testing::WindowProbe;
use agnostics::{Application, Window};
use agnostics_core::target_dir::Transport;
use agnostics_testkit::{LoopFs, Ran};

use support::*;

fn main() {
    let scratch = scratch_dir();
    std::env::set_var("AGNOSTICS_LOG", scratch.path().join("rpdiags.txt"));
    std::env::set_var("AGNOSTICS_HISTORY", scratch.path().join("history.sqlite3"));
    let mut tests = crate::ui_tests![
        a_drive_mounted_after_launch_appears_and_goes_when_unmounted,
        run_follows_the_free_space_as_a_file_fills_and_frees_the_drive,
        history_s_check_capacity_turns_on_for_a_drive_mounted_after_launch,
    ];
    if std::env::var_os("AGNOSTICS_SCREENSHOTS").is_some() {
        tests.extend(crate::ui_tests![renders_freed_space_screenshots]);
    }
    let conclusion = agnostics_testkit::harness::conclude_on_this_thread(tests);
    drop(scratch);
    conclusion.exit()
}

/// The chooser's entry on the loop device `fs`, if listed.
fn entry_of(window: &Window, fs: &LoopFs) -> Option<usize> {
    let disk = fs.loop_name();
    window.drive_row().choices().iter().position(|c| {
        c.info
            .as_ref()
            .and_then(|i| i.device.as_ref())
            .is_some_and(|d| d.disk == disk)
    })
}

/// Finding: a drive mounted after launch never appeared in the chooser, and one removed while
/// the app ran stayed offered with Run on. Now the chooser follows the mount table: the new
/// drive appears (and can be chosen), and once unmounted it goes, the page says so, and the
/// folder it left behind (on another disk) is not what Run would write to.
fn a_drive_mounted_after_launch_appears_and_goes_when_unmounted(app: &Application) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let window = new_window(app);
    let fs = LoopFs::builder(64).no_reserved_blocks().mount();
    settle(
        &window,
        "the drive mounted after launch in the chooser",
        || entry_of(&window, &fs).is_some(),
    );
    let index = entry_of(&window, &fs).expect("listed");
    let row = window.drive_row();
    row.set_selected(index as u32);
    let label = row.selected_choice().expect("chosen").label;
    assert!(label.contains(&fs.loop_name()), "{label:?}");
    settle(&window, "Run on for the new drive", || {
        window.run_button().is_sensitive() && window.ready_problem().is_none()
    });
    window.dismiss_toasts();

    let unmounted = std::process::Command::new("umount")
        .arg(&fs.mount)
        .status()
        .is_ok_and(|s| s.success());
    assert!(unmounted, "umount {}", fs.mount.display());
    settle(&window, "the unmounted drive gone from the chooser", || {
        entry_of(&window, &fs).is_none()
    });
    let chosen = row.selected_choice().expect("another drive chosen");
    assert_ne!(chosen.dir, fs.mount, "the folder left behind is not chosen");
    let told = format!("{label} is no longer connected");
    settle(&window, "the toast saying the drive is gone", || {
        window.toast_titles().contains(&told)
    });
    assert!(
        !row.choices().iter().any(|c| c.dir == fs.mount),
        "the folder left behind is not offered: {:?}",
        row.choices()
    );
    Ok(())
}

/// Finding: after the card was filled (Run off) and then space freed, the page still said
/// the old free space, and Run stayed off until another drive was chosen and back. Now the
/// free space is followed while the page is shown: filling the drive turns Run off with the
/// free space said, freeing it turns Run on, and the chooser shows the free space now.
fn run_follows_the_free_space_as_a_file_fills_and_frees_the_drive(app: &Application) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let fs = LoopFs::builder(64).no_reserved_blocks().mount();
    let profiles = scratch_dir();
    let profile = profile_file(profiles.path(), "small.fio", SMALL_PROFILE);
    let window = new_window(app);
    aim(&window, &fs.mount, Some(profile));
    settle(&window, "Run on", || {
        window.run_button().is_sensitive() && window.ready_problem().is_none()
    });
    let before = window.drive_row().selected_choice().expect("chosen").label;

    // Leave 8 MiB free: far less than the small profile's file needs (8 MiB + 10 % + 32 MiB).
    let free = free_bytes(&fs);
    let filler = fs.mount.join("filler");
    write_zeros(&filler, free - (8 << 20));
    settle(&window, "Run off once the drive is full", || {
        !window.run_button().is_sensitive()
            && window
                .ready_problem()
                .is_some_and(|p| p.starts_with("Not enough free space"))
    });
    let full = window.drive_row().selected_choice().expect("chosen");
    assert_eq!(full.dir, fs.mount, "the same drive stays chosen");
    assert_ne!(full.label, before, "the chooser shows the free space now");

    std::fs::remove_file(&filler).expect("removing the filler");
    settle(&window, "Run on once space is freed", || {
        window.run_button().is_sensitive() && window.ready_problem().is_none()
    });
    settle(&window, "the chooser's free space back", || {
        window.drive_row().selected_choice().map(|c| c.label) == Some(before.clone())
    });
    Ok(())
}

/// Finding: a drive mounted after launch kept **Check Capacity…** off on its History page
/// until the app was started again. It turns on once the drive is mounted.
fn history_s_check_capacity_turns_on_for_a_drive_mounted_after_launch(app: &Application) -> Ran {
    use agnostics::model::history_store::DriveKey;
    use support::history_fixture::report_of;
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let fs = LoopFs::builder(64).no_reserved_blocks().mount();
    // The drive (its filesystem's UUID) in the history, then unmounted before the app starts.
    let sysfs = std::path::Path::new("/sys");
    let info = agnostics_core::target_dir::inspect(&fs.mount, sysfs).expect("inspect");
    let drive = agnostics_core::drive::identify(None, &info, sysfs).expect("its identity");
    let dir = scratch_dir();
    let history = dir.path().join("history.sqlite3");
    let figures = (14.2e6, 42e6, 900.0, 2400.0);
    let run = report_of(
        &drive,
        &format!("{:032x}", 0x11fe),
        "2026-12-01T10:00:00+00:00",
        figures,
        Transport::Usb,
    );
    agnostics_core::history::History::open(&history)
        .and_then(|mut h| h.record(&run))
        .expect("the run is kept");
    let umount = std::process::Command::new("umount").arg(&fs.mount).status();
    assert!(umount.is_ok_and(|s| s.success()), "umount");

    let window = new_window(app);
    window.set_history_path(&history);
    window.set_tab(agnostics::window::Tab::History);
    let view = window.history_view();
    view.open_drive(&DriveKey::Identified(drive.id));
    let button = view.check_capacity_button();
    settle(&window, "the drive's page, not connected", || {
        !view.is_loading() && window.connected_known() && view.drive_title().contains("Flash")
    });
    assert!(!button.is_sensitive(), "off while the drive is not mounted");
    let mount = std::process::Command::new("mount")
        .arg(&fs.device)
        .arg(&fs.mount)
        .status();
    assert!(mount.is_ok_and(|s| s.success()), "mount");
    settle(
        &window,
        "Check Capacity on once the drive is mounted",
        || button.is_sensitive(),
    );
    Ok(())
}

/// With `AGNOSTICS_SCREENSHOTS`: the ready page of a drive filled (Run off) and then freed
/// (Run on again), at both widths.
fn renders_freed_space_screenshots(app: &Application) -> Ran {
    agnostics_testkit::require_root("a loop-mounted ext4")?;
    let (lang, _catalogue) = screenshot_language();
    let fs = LoopFs::builder(64).no_reserved_blocks().mount();
    let profiles = scratch_dir();
    let profile = profile_file(profiles.path(), "small.fio", SMALL_PROFILE);
    let window = new_window(app);
    aim(&window, &fs.mount, Some(profile));
    settle(&window, "Run on", || window.run_button().is_sensitive());
    let filler = fs.mount.join("filler");
    write_zeros(&filler, free_bytes(&fs) - (8 << 20));
    settle(&window, "Run off once the drive is full", || {
        !window.run_button().is_sensitive() && window.ready_problem().is_some()
    });
    std::fs::remove_file(&filler).expect("removing the filler");
    settle(&window, "Run on once space is freed", || {
        window.run_button().is_sensitive() && window.ready_problem().is_none()
    });
    shoot_both_widths(&window, "ready-freed", &lang, |png| save_png(&window, png));
    Ok(())
}

/// Waits for `done()` at most two minutes (the page looks again every few seconds), failing
/// with `what` and what the page says.
fn settle(window: &Window, what: &str, done: impl FnMut() -> bool) {
    let ok = try_wait_until(std::time::Duration::from_secs(120), done);
    assert!(
        ok,
        "gave up waiting for {what}: Run on {}, problem {:?}, chosen {:?}",
        window.run_button().is_sensitive(),
        window.ready_problem(),
        window.drive_row().selected_choice().map(|c| c.label)
    );
}

/// The bytes free on `fs` now, as statvfs says.
fn free_bytes(fs: &LoopFs) -> u64 {
    agnostics_core::target_dir::inspect(&fs.mount, std::path::Path::new("/sys"))
        .expect("inspect")
        .free_bytes
}

/// Writes `bytes` zero bytes to `path` and syncs them (so that the filesystem counts them).
fn write_zeros(path: &std::path::Path, bytes: u64) {
    use std::io::Write;
    let mut file = std::fs::File::create(path).expect("creating the filler");
    let block = vec![0u8; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        file.write_all(&block[..n]).expect("filling");
        left -= n as u64;
    }
    file.sync_all().expect("syncing the filler");
}
