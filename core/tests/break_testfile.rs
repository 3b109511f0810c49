//! The program's folder removed under it: a target deleted with everything in it while the test
//! runs (`rm -rf`) leaves nothing anywhere, so removing the test file afterwards is not a
//! problem to report; a folder moved away is still reported, and left where it is.

use agnostics_core::engine::testfile::TestFile;
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

agnostics_testkit::main!(
    a_run_folder_deleted_with_its_files_is_no_leftover,
    a_run_folder_moved_away_is_reported_and_left,
);
