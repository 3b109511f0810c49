//! What the native engine actually writes: read back from the file after a run, no 4 KiB block
//! repeats (a deduplicating drive, controller or filesystem cannot shorten the work) and the
//! data does not compress (a compressing one cannot either). Both I/O paths, the standard
//! test's block sizes, and the layout written before a read phase on a new file.

use std::collections::HashSet;
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;

use agnostics_core::engine::fio;
use agnostics_core::engine::native::{self, IoChoice};
use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{Event, RunContext};
use agnostics_core::profile::Profile;
use agnostics_testkit::{require_program, scratch_dir, Ran};

/// The unit a deduplicating device compares, bytes.
const BLOCK: usize = 4096;

/// Runs `job_file` with the native engine on a fresh test file in a scratch folder on disk and
/// returns the file's contents, read before the file is removed.
fn written_by(choice: IoChoice, job_file: &str) -> Vec<u8> {
    let dir = scratch_dir();
    let profile = Profile::parse(job_file, "write-data.fio", None).expect("valid profile");
    let file = TestFile::create(dir.path(), true, "ext4").expect("test file");
    let cancel = AtomicBool::new(false);
    let sink = |_: Event| {};
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &sink,
    };
    native::run_profile_with(choice, &profile, &file, &ctx)
        .phases
        .expect("the run");
    let data = std::fs::read(file.path()).expect("read the test file back");
    file.remove().expect("remove the test file");
    data
}

/// Runs `job_file` with fio (the program's generated job file) on a fresh test file and
/// returns the file's contents, read before the file is removed.
fn written_by_fio(job_file: &str) -> Vec<u8> {
    let dir = scratch_dir();
    let profile = Profile::parse(job_file, "write-data.fio", None).expect("valid profile");
    let file = TestFile::create(dir.path(), true, "ext4").expect("test file");
    let cancel = AtomicBool::new(false);
    let sink = |_: Event| {};
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &sink,
    };
    fio::run_profile(&profile, &file, &ctx)
        .phases
        .expect("the fio run");
    let data = std::fs::read(file.path()).expect("read the test file back");
    file.remove().expect("remove the test file");
    data
}

/// Fraction of the 4 KiB blocks of `data` that are distinct (1.0: none repeats).
fn distinct_fraction(data: &[u8]) -> f64 {
    let blocks: Vec<&[u8]> = data.chunks(BLOCK).collect();
    let distinct: HashSet<&[u8]> = blocks.iter().copied().collect();
    distinct.len() as f64 / blocks.len() as f64
}

/// Size of `data` after `zstd -3 --long=27` (a 128 MiB match window: finds any repeat in
/// these files), bytes.
fn zstd_size(data: &[u8]) -> usize {
    let mut child = Command::new("zstd")
        .args(["-q", "-3", "--long=27", "-c", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start zstd");
    let mut stdin = child.stdin.take().expect("zstd's stdin");
    let input = data.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("zstd output");
    feeder.join().expect("feeder").expect("feed zstd");
    assert!(out.status.success(), "zstd failed");
    out.stdout.len()
}

fn assert_unshortenable(what: &str, data: &[u8], expected_len: usize) {
    assert_eq!(data.len(), expected_len, "{what}: file length");
    let distinct = distinct_fraction(data);
    assert_eq!(
        distinct,
        1.0,
        "{what}: {:.1} % of the 4 KiB blocks are distinct",
        distinct * 100.0
    );
    let packed = zstd_size(data);
    assert!(
        packed as f64 >= data.len() as f64 * 0.99,
        "{what}: zstd --long shrinks {} bytes to {packed} ({:.1} %)",
        data.len(),
        packed as f64 * 100.0 / data.len() as f64
    );
}

fn write_job(rw: &str, bs: &str) -> String {
    format!("[global]\ndirect=1\niodepth=32\nsize=32m\n\n[w]\nrw={rw}\nbs={bs}\n")
}

fn check_writes(choice: IoChoice) -> Ran {
    require_program("zstd")?;
    for (rw, bs) in [("write", "512k"), ("write", "4m"), ("randwrite", "4k")] {
        let data = written_by(choice, &write_job(rw, bs));
        assert_unshortenable(&format!("{rw} bs={bs} ({choice:?})"), &data, 32 << 20);
    }
    Ok(())
}

fn sequential_and_random_writes_are_distinct_and_incompressible_with_io_uring() -> Ran {
    check_writes(IoChoice::Auto)
}

fn sequential_and_random_writes_are_distinct_and_incompressible_with_threads() -> Ran {
    check_writes(IoChoice::Threads)
}

/// fio, run by the program, writes fresh data too (`refill_buffers`): its default only
/// scrambles a reused buffer, which compresses to 5 % at 4 KiB.
fn fio_writes_are_distinct_and_incompressible() -> Ran {
    require_program("zstd")?;
    require_program("fio")?;
    for (rw, bs) in [("write", "512k"), ("write", "4m"), ("randwrite", "4k")] {
        let data = written_by_fio(&write_job(rw, bs));
        assert_unshortenable(&format!("fio {rw} bs={bs}"), &data, 32 << 20);
    }
    Ok(())
}

/// Every phase of one run writes data no other phase wrote: the standard test's write phases
/// (512 KiB, then 4 MiB, then 4 KiB random), each over a shorter start of the file, so that
/// what each wrote is still there to compare.
fn a_run_of_several_write_phases_leaves_no_repeated_block() -> Ran {
    require_program("zstd")?;
    let job = "[global]\ndirect=1\niodepth=32\n\n\
               [prepare-file]\nrw=write\nbs=512k\nsize=16m\nstonewall\n\n\
               [seq-write]\nrw=write\nbs=4m\nsize=8m\nstonewall\n\n\
               [rand-4k-write]\nrw=randwrite\nbs=4k\nsize=4m\nstonewall\n";
    let data = written_by(IoChoice::Auto, job);
    assert_unshortenable("three write phases", &data, 16 << 20);
    Ok(())
}

/// A read phase on a file nothing has written yet first lays the file out: that data too.
fn the_layout_before_a_read_phase_is_distinct_and_incompressible() -> Ran {
    require_program("zstd")?;
    let job = "[global]\ndirect=1\niodepth=4\nsize=24m\n\n[r]\nrw=read\nbs=1m\n";
    let data = written_by(IoChoice::Auto, job);
    assert_unshortenable("layout", &data, 24 << 20);
    Ok(())
}

agnostics_testkit::test_list!(
    sequential_and_random_writes_are_distinct_and_incompressible_with_io_uring,
    sequential_and_random_writes_are_distinct_and_incompressible_with_threads,
    fio_writes_are_distinct_and_incompressible,
    a_run_of_several_write_phases_leaves_no_repeated_block,
    the_layout_before_a_read_phase_is_distinct_and_incompressible,
);
