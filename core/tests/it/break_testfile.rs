//! The program's folder removed under it: a target deleted with everything in it while the test
//! runs (`rm -rf`) leaves nothing anywhere, so removing the test file afterwards is not a
//! problem to report; a folder moved away is still reported, and left where it is. Two tests
//! in one folder at once: the later one says so (they share the drive) and touches nothing of
//! the other's.

use std::sync::atomic::AtomicBool;

use agnostics_core::engine::testfile::{sweep, TestFile};
use agnostics_core::profile::Profile;
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_testkit::scratch_dir;

fn a_run_folder_deleted_with_its_files_is_no_leftover() {
    let dir = scratch_dir();
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let file = TestFile::create(&target, true, "ext4").unwrap();
    std::fs::write(file.path(), vec![0u8; 4096]).unwrap();
    std::fs::remove_dir_all(&target).unwrap();
    assert!(!target.exists());
    if let Err(e) = file.remove() {
        panic!("nothing is left, yet removing reported: {e}");
    }
}

fn a_run_folder_moved_away_is_reported_and_left() {
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let moved = dir.path().join("moved");
    std::fs::rename(file.run_dir(), &moved).unwrap();
    let e = file.remove().expect_err("the moved folder is named");
    assert!(e.to_string().contains("moved away"), "{e}");
    assert!(moved.is_dir(), "the moved folder is left where it is");
}

fn a_live_run_in_the_same_folder_is_listed_busy_and_kept() {
    let dir = scratch_dir();
    let live = TestFile::create(dir.path(), true, "ext4").unwrap();
    let swept = sweep(dir.path());
    assert_eq!(swept.busy, vec![live.run_dir().to_path_buf()]);
    assert!(
        swept.removed.is_empty() && swept.left.is_empty(),
        "{swept:?}"
    );
    assert!(live.path().exists());
    live.remove().unwrap();
    assert!(sweep(dir.path()).busy.is_empty());
}

fn a_test_started_beside_a_live_one_warns_and_leaves_it_alone() {
    let dir = scratch_dir();
    let live = TestFile::create(dir.path(), true, "ext4").unwrap();
    std::fs::write(live.path(), b"the other run's data").unwrap();
    let profile = Profile::parse(
        "[global]\nsize=1m\ndirect=1\n[prepare-file]\nrw=write\nbs=64k\n",
        "tiny.fio",
        None,
    )
    .unwrap();
    let mut opts = TestOptions::standard(dir.path().to_path_buf());
    opts.profile = profile;
    opts.runs = 1;
    opts.lock_dir =
        agnostics_testkit::private_lock_dir(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")));
    let report = sdtest::run(&opts, &AtomicBool::new(false), &|_| {});
    // Said naming the folder the user chose, not the other run's hidden folder in it.
    let chosen = dir.path().display().to_string();
    let hidden = live.run_dir().display().to_string();
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("nother test is running") && w.contains(&chosen)),
        "{:?}",
        report.warnings
    );
    assert!(
        !report.warnings.iter().any(|w| w.contains(&hidden)),
        "{:?}",
        report.warnings
    );
    assert_eq!(
        std::fs::read(live.path()).unwrap(),
        b"the other run's data",
        "the other run's file is untouched"
    );
    live.remove().unwrap();
}

agnostics_testkit::test_list!(
    a_run_folder_deleted_with_its_files_is_no_leftover,
    a_run_folder_moved_away_is_reported_and_left,
    a_live_run_in_the_same_folder_is_listed_busy_and_kept,
    a_test_started_beside_a_live_one_warns_and_leaves_it_alone,
);
