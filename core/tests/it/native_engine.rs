//! The native engine on real files on disk: every phase measured and consistent, random I/O
//! covering the file, reads never on holes, cancel, a full filesystem, both I/O paths.

use crate::common;

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};

use agnostics_core::engine::native::{self, IoChoice};
use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{EngineError, EngineKind, Event, PhaseResult, RunContext};
use agnostics_core::profile::Profile;
use common::*;

/// Ran only where this build has the io_uring path (not on 32-bit arm and x86, where the
/// native engine measures with its pool of threads).
fn require_uring() -> agnostics_testkit::Ran {
    agnostics_testkit::require(
        native::uring::BUILT,
        format!(
            "this build has no io_uring path on {} (the pool of threads is tested)",
            std::env::consts::ARCH
        ),
    )
}

fn run_native(choice: IoChoice, profile: &Profile, file: &TestFile) -> Outcome {
    let recorder = Recorder::default();
    let cancel = AtomicBool::new(false);
    let sink = |e: Event| recorder.push(e);
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &sink,
    };
    let done = native::run_profile_with(choice, profile, file, &ctx);
    Outcome {
        result: done.phases,
        events: recorder.take(),
        io_path: done.io_path.map(|p| p.to_string()).unwrap_or_default(),
    }
}

fn assert_consistent(phases: &[PhaseResult], profile: &Profile) {
    let names: Vec<&str> = phases.iter().map(|p| p.name.as_str()).collect();
    let expected: Vec<&str> = profile.jobs.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, expected);
    for (p, job) in phases.iter().zip(&profile.jobs) {
        assert!(p.ios > 0, "{}: no I/O", p.name);
        assert_eq!(p.bytes, p.ios * job.bs, "{}: bytes == ios × bs", p.name);
        assert!(p.bytes <= job.size_bytes, "{}", p.name);
        if !p.stopped_by_runtime {
            assert_eq!(
                p.bytes,
                job.size_bytes / job.bs * job.bs,
                "{}: whole size",
                p.name
            );
        }
        assert!(p.seconds > 0.0, "{}", p.name);
        let bw = p.bytes as f64 / p.seconds;
        assert!(
            (p.bw_bytes - bw).abs() <= bw * 1e-9,
            "{}: bw = bytes / s",
            p.name
        );
        assert!((p.iops - p.ios as f64 / p.seconds).abs() < 1e-6 * p.iops.max(1.0));
        assert!(!p.samples.is_empty(), "{}: samples", p.name);
        assert!(
            p.lat_us.p50 > 0.0 && p.lat_us.p50 <= p.lat_us.p99,
            "{}",
            p.name
        );
        assert!(p.lat_us.p99 <= p.lat_us.max, "{}: {:?}", p.name, p.lat_us);
        assert_eq!(p.rw, job.rw);
        assert_eq!(p.bs, job.bs);
    }
}

fn assert_events_follow_phases(events: &[Event], count: usize) {
    let started: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::PhaseStarted {
                index, count: c, ..
            } => {
                assert_eq!(*c, count);
                Some(*index)
            }
            _ => None,
        })
        .collect();
    let finished: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::PhaseFinished { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(started, (0..count).collect::<Vec<_>>());
    assert_eq!(finished, (0..count).collect::<Vec<_>>());
    // At most ten progress events a second, per phase.
    for e in events {
        if let Event::PhaseFinished { index, result, .. } = e {
            let progress = events
                .iter()
                .filter(|e| matches!(e, Event::Progress { index: i, .. } if i == index))
                .count();
            assert!(
                progress as f64 <= result.seconds * 10.0 + 1.0,
                "{progress} progress events in {} s",
                result.seconds
            );
            let samples = events
                .iter()
                .filter(|e| matches!(e, Event::Sample { index: i, .. } if i == index))
                .count();
            assert_eq!(samples, result.samples.len());
        }
    }
}

fn runs_the_small_standard_test(choice: IoChoice, expected_path: &str) {
    let dir = scratch_dir();
    let profile = small_standard("32m", 2);
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let out = run_native(choice, &profile, &file);
    let phases = out.result.expect("the native engine measures every phase");
    assert_eq!(out.io_path, expected_path);
    assert_consistent(&phases, &profile);
    assert_events_follow_phases(&out.events, profile.jobs.len());
    assert_eq!(std::fs::metadata(file.path()).unwrap().len(), 32 << 20);
    file.remove().unwrap();
    assert!(entries(dir.path()).is_empty(), "file removed");
}

fn io_uring_measures_every_phase_of_a_small_standard_test() -> agnostics_testkit::Ran {
    require_uring()?;
    runs_the_small_standard_test(IoChoice::Uring, "io_uring");
    Ok(())
}

fn thread_pool_measures_every_phase_of_a_small_standard_test() {
    runs_the_small_standard_test(IoChoice::Threads, "threads");
}

fn default_run_profile_uses_io_uring_here() -> agnostics_testkit::Ran {
    require_uring()?;
    let dir = scratch_dir();
    let profile = profile("[one]\nrw=write\nbs=64k\nsize=1m\ndirect=1\niodepth=4\n");
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let out = run_engine(EngineKind::Native, &profile, &file, &cancel, &|_| {});
    assert_eq!(out.result.unwrap()[0].ios, 16);
    assert_eq!(out.io_path, "io_uring");
    Ok(())
}

fn random_write_covers_every_block(choice: IoChoice) {
    let dir = scratch_dir();
    // Only random phases: nothing else writes the file, so every block must come from them.
    let profile = profile(
        "[global]\ndirect=1\niodepth=16\nsize=4m\n\n[rw]\nrw=randwrite\nbs=4k\n\n\
         [rr]\nrw=randread\nbs=4k\nstonewall\n",
    );
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let out = run_native(choice, &profile, &file);
    let phases = out.result.unwrap();
    assert_eq!(phases[0].ios, 1024);
    assert_eq!(phases[1].ios, 1024);
    let mut data = Vec::new();
    std::fs::File::open(file.path())
        .unwrap()
        .read_to_end(&mut data)
        .unwrap();
    assert_eq!(data.len(), 4 << 20);
    let mut blocks = std::collections::HashSet::new();
    for (i, block) in data.chunks(4096).enumerate() {
        assert!(block.iter().any(|&b| b != 0), "block {i} was never written");
        assert!(
            blocks.insert(block.to_vec()),
            "block {i} repeats another block"
        );
    }
}

fn random_write_covers_every_block_with_distinct_data() -> agnostics_testkit::Ran {
    random_write_covers_every_block(IoChoice::Threads);
    require_uring()?;
    random_write_covers_every_block(IoChoice::Uring);
    Ok(())
}

fn reading_a_short_file_lays_it_out_first() -> agnostics_testkit::Ran {
    require_uring()?;
    let dir = scratch_dir();
    let profile = profile("[rr]\nrw=randread\nbs=4k\nsize=2m\ndirect=1\niodepth=8\n");
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let out = run_native(IoChoice::Uring, &profile, &file);
    let phases = out.result.expect("reads on an empty file still work");
    assert_eq!(phases[0].bytes, 2 << 20);
    let data = std::fs::read(file.path()).unwrap();
    assert_eq!(data.len(), 2 << 20);
    assert!(
        data.chunks(4096).all(|b| b.iter().any(|&x| x != 0)),
        "no holes or zero blocks"
    );
    Ok(())
}

fn runtime_limit_stops_a_phase_early() -> agnostics_testkit::Ran {
    require_uring()?;
    let dir = scratch_dir();
    // Half a million 512-byte reads at queue depth 1 take far longer than 1 s on any disk.
    let profile = profile(
        "[prep]\nrw=write\nbs=4m\nsize=256m\ndirect=1\niodepth=8\n\n\
         [rr]\nrw=randread\nbs=512\nsize=256m\ndirect=1\niodepth=1\nruntime=1\nstonewall\n",
    );
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let out = run_native(IoChoice::Uring, &profile, &file);
    let phases = out.result.unwrap();
    let rr = &phases[1];
    assert!(rr.stopped_by_runtime, "{rr:?}");
    assert!(rr.bytes < 256 << 20);
    assert_eq!(rr.bytes, rr.ios * 512);
    Ok(())
}

fn cancel_mid_phase(choice: IoChoice) {
    let dir = scratch_dir();
    let profile = small_standard("64m", 10);
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let cancel = AtomicBool::new(false);
    let recorder = Recorder::default();
    let sink = |e: Event| {
        // Cancel while the random-write phase is running.
        if matches!(e, Event::Progress { index: 3, .. }) {
            cancel.store(true, Ordering::SeqCst);
        }
        recorder.push(e);
    };
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &sink,
    };
    let result = native::run_profile_with(choice, &profile, &file, &ctx).phases;
    assert!(matches!(result, Err(EngineError::Cancelled)), "{result:?}");
    let events = recorder.take();
    assert!(!events
        .iter()
        .any(|e| matches!(e, Event::PhaseFinished { index: 3, .. })));
    drop(file);
    assert!(entries(dir.path()).is_empty(), "file removed after cancel");
}

fn cancel_mid_phase_stops_and_the_file_goes() -> agnostics_testkit::Ran {
    cancel_mid_phase(IoChoice::Threads);
    require_uring()?;
    cancel_mid_phase(IoChoice::Uring);
    Ok(())
}

/// The write depth a real run uses is the rule's for what the run measured: the first phase
/// starts lean (nothing measured yet) and, after its first 16 MiB, keeps the lean 16 × 512
/// KiB or continues at the profile's 32 as its own first segment showed the drive; a later
/// phase gets the depth `write_depth` gives for what the run showed and `MemAvailable`, and a
/// phase below its `iodepth` says why. Which way it goes is the drive's (this machine's disk
/// is fast, a card is not: tests/throttled.rs pins the lean case); every way is checked.
fn write_depth_follows_the_rule_on_a_real_file() -> agnostics_testkit::Ran {
    use agnostics_core::engine::native::buffers::{self, write_depth};
    use agnostics_core::engine::{DepthLimit, DepthReason};
    require_uring()?;
    let dir = scratch_dir();
    let profile = profile(
        "[global]\nioengine=libaio\ndirect=1\niodepth=32\nsize=64m\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs=512k\nstonewall\n\n\
         [seq-write]\nrw=write\nbs=4m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=4m\nstonewall\n",
    );
    let file = TestFile::create(dir.path(), true, "ext4").unwrap();
    let phases = run_native(IoChoice::Uring, &profile, &file).result.unwrap();
    let prepare = &phases[0];
    let lean = Some(DepthLimit {
        asked: 32,
        reason: DepthReason::Lean,
        budget_bytes: 8 << 20,
    });
    let grew = match (prepare.iodepth, prepare.depth_limit) {
        (32, None) => true,
        (16, limit) if limit == lean => false,
        other => panic!("prepare-file ran at {other:?}"),
    };
    let mem = buffers::mem_available();
    let full = write_depth(4 << 20, 32, true, mem);
    let seq = &phases[1];
    let depth = (seq.iodepth as usize, seq.depth_limit.map(|l| l.reason));
    if grew || prepare.bw_bytes >= buffers::FAST_BYTES_PER_S {
        // Known fast before it starts: the fast rule from the first request.
        assert_eq!(depth, (full.buffers, full.limited_by), "{full:?}");
    } else {
        // Not known fast: lean, or grown after its own first segment.
        let lean = write_depth(4 << 20, 32, false, mem);
        assert!(
            depth == (lean.buffers, lean.limited_by) || depth == (full.buffers, full.limited_by),
            "seq-write at {depth:?}"
        );
    }
    if let Some(limit) = seq.depth_limit {
        assert_eq!(limit.asked, 32);
    }
    // Every byte written once, whatever the depth: 64 MiB in 128 and 16 requests.
    assert_eq!((prepare.bytes, prepare.ios), (64 << 20, 128));
    assert_eq!((seq.bytes, seq.ios), (64 << 20, 16));
    // Reads are never limited.
    assert_eq!((phases[2].iodepth, phases[2].depth_limit), (32, None));
    eprintln!(
        "prepare-file {:.0} MB/s at iodepth {}; seq-write at iodepth {}",
        prepare.bw_bytes / 1e6,
        prepare.iodepth,
        seq.iodepth
    );
    Ok(())
}

agnostics_testkit::test_list!(
    write_depth_follows_the_rule_on_a_real_file,
    io_uring_measures_every_phase_of_a_small_standard_test,
    thread_pool_measures_every_phase_of_a_small_standard_test,
    default_run_profile_uses_io_uring_here,
    random_write_covers_every_block_with_distinct_data,
    reading_a_short_file_lays_it_out_first,
    runtime_limit_stops_a_phase_early,
    cancel_mid_phase_stops_and_the_file_goes,
);
