//! The sustained write test's data, written through its own code to a real file with O_DIRECT
//! on ext4 (a scratch folder under /var/tmp), then changed behind its back: a damaged block, a
//! block of zeros and a block moved to another address (a misdirected write) are each counted
//! as corrupt, exactly; a file that ends early counts its missing blocks; an untouched file
//! checks clean.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;
use std::sync::atomic::AtomicBool;

use agnostics_core::engine::testfile::TestFile;
use agnostics_core::engine::{Event, RunContext};
use agnostics_core::sustained::measure::{self, Written};
use agnostics_core::sustained::verify::{self, Verified};
use agnostics_core::sustained::Plan;
use agnostics_testkit::{scratch_dir, Ran};

const MIB: u64 = 1 << 20;
const BLOCK: u64 = 4096;

/// Writes a plan of `bytes` (1 MiB units) for run `key` to a new test file on disk, lets
/// `change` alter the file through a second descriptor of its own, then reads it back.
fn write_change_verify(
    bytes: u64,
    key: u64,
    change: impl Fn(&std::fs::File),
) -> (Written, Verified) {
    let dir = scratch_dir();
    let file = TestFile::create(dir.path(), true, "ext4").expect("test file");
    let plan = Plan {
        unit_bytes: MIB,
        unit_from_card: false,
        request_bytes: MIB,
        max_bytes: bytes,
    };
    let cancel = AtomicBool::new(false);
    let events = std::sync::Mutex::new(Vec::new());
    let sink = |e: Event| events.lock().unwrap().push(e);
    let ctx = RunContext {
        run: 1,
        cancel: &cancel,
        on_event: &sink,
    };
    let handle = file.open(true).expect("open with O_DIRECT");
    let written = measure::write(&handle, &plan, key, &ctx, 0).expect("written");
    let behind = OpenOptions::new()
        .read(true)
        .write(true)
        .open(file.path())
        .expect("a second descriptor");
    change(&behind);
    behind.sync_all().unwrap();
    let verified =
        verify::verify(&handle, written.bytes, plan.request_bytes, key, &ctx, 1).expect("read");
    let finished = events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, Event::PhaseFinished { .. }))
        .count();
    assert_eq!(finished, 2);
    file.remove().unwrap();
    (written, verified)
}

fn untouched_data_checks_clean() -> Ran {
    let (w, v) = write_change_verify(8 * MIB, 7, |_| {});
    assert_eq!(w.bytes, 8 * MIB);
    assert_eq!(w.units.len(), 8);
    assert_eq!(w.latencies_us.len(), 8);
    assert_eq!(
        (v.bytes, v.corrupt_blocks, v.first_corrupt),
        (8 * MIB, 0, None)
    );
    assert_eq!((w.phase.bytes, w.phase.ios), (8 * MIB, 8));
    // The last sample is taken at the end, whatever the time.
    assert_eq!(w.samples.last().map(|s| s.bytes), Some(8 * MIB));
    assert_eq!((v.phase.bytes, v.phase.ios), (8 * MIB, 8));
    Ok(())
}

fn damaged_zeroed_and_moved_blocks_are_each_caught() -> Ran {
    let (w, v) = write_change_verify(8 * MIB, 99, |f| {
        // One bit flipped in the block at 1 MiB + 8 KiB.
        let at = MIB + 2 * BLOCK;
        let mut b = [0u8; 1];
        f.read_exact_at(&mut b, at + 100).unwrap();
        f.write_all_at(&[b[0] ^ 0x10], at + 100).unwrap();
        // The block at 3 MiB zeroed (a drive that dropped the write).
        f.write_all_at(&[0u8; BLOCK as usize], 3 * MIB).unwrap();
        // The block at 5 MiB replaced by the one written at 6 MiB: a valid block of this run
        // at the wrong address.
        let mut moved = vec![0u8; BLOCK as usize];
        f.read_exact_at(&mut moved, 6 * MIB).unwrap();
        f.write_all_at(&moved, 5 * MIB).unwrap();
    });
    assert_eq!(w.bytes, 8 * MIB);
    assert_eq!(v.corrupt_blocks, 3);
    assert_eq!(v.first_corrupt, Some(MIB + 2 * BLOCK));
    assert_eq!(v.bytes, 8 * MIB - 3 * BLOCK);
    Ok(())
}

fn a_file_that_ends_early_counts_its_missing_blocks() -> Ran {
    let (_, v) = write_change_verify(4 * MIB, 5, |f| {
        // The last 2 MiB gone: 512 blocks missing.
        f.set_len(2 * MIB).unwrap();
    });
    assert_eq!((v.corrupt_blocks, v.first_corrupt), (512, Some(2 * MIB)));
    assert_eq!(v.bytes, 2 * MIB);
    Ok(())
}

agnostics_testkit::test_list!(
    untouched_data_checks_clean,
    damaged_zeroed_and_moved_blocks_are_each_caught,
    a_file_that_ends_early_counts_its_missing_blocks,
);
