//! The fake drive ([`agnostics_testkit::FakeDrive`]) on this machine's kernel: FUSE, loop
//! devices, ext4 and the cgroup throttle. Run as root; elsewhere the tests that need the
//! kernel are reported as ignored with the reason.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use agnostics_testkit::{run, serve_child, Behaviour, FakeDrive, Ran, Throttle, FAKE_BLOCK};

const MIB: u64 = 1 << 20;

/// One block, aligned for O_DIRECT.
#[repr(C, align(4096))]
struct Block([u8; FAKE_BLOCK as usize]);

/// A block whose bytes say `tag` and their place in it (no two tags give the same block).
fn pattern(tag: u64) -> Block {
    let mut block = Block([0; FAKE_BLOCK as usize]);
    for (i, chunk) in block.0.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(tag << 16 | i as u64).to_le_bytes());
    }
    block
}

fn open_direct(device: &Path) -> File {
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(device)
        .unwrap_or_else(|e| panic!("{}: {e}", device.display()))
}

/// Writes `block` at `offset` with O_DIRECT, and syncs.
fn write_direct(device: &Path, offset: u64, block: &Block) {
    let file = open_direct(device);
    file.write_all_at(&block.0, offset).unwrap();
    file.sync_all().unwrap();
}

/// Reads one block at `offset` with O_DIRECT.
fn read_direct(device: &Path, offset: u64) -> Block {
    let mut block = Block([0; FAKE_BLOCK as usize]);
    open_direct(device)
        .read_exact_at(&mut block.0, offset)
        .unwrap();
    block
}

fn device_size(device: &Path) -> u64 {
    run(std::process::Command::new("blockdev")
        .arg("--getsize64")
        .arg(device))
    .parse()
    .unwrap()
}

/// Which blocks a lossy drive loses depends on the seed and on nothing else, and is near the
/// fraction asked for.
fn lossy_blocks_are_deterministic() {
    let lossy = |seed| Behaviour::Lossy {
        seed,
        lost_per_million: 100_000,
    };
    let lost = lossy(7).lost_blocks(64 * MIB);
    assert_eq!(lost, lossy(7).lost_blocks(64 * MIB));
    assert_ne!(lost, lossy(8).lost_blocks(64 * MIB));
    let total = 64 * MIB / FAKE_BLOCK;
    assert!(lost.len() as u64 > total / 20 && (lost.len() as u64) < total / 5);
    assert!(Behaviour::Genuine.lost_blocks(MIB).is_empty());
    assert_eq!(
        Behaviour::Wrap {
            real_bytes: 8 * MIB
        }
        .physical_offset(19 * MIB + 5),
        3 * MIB + 5
    );
}

/// A genuine drive is a block device of its size whose blocks land where they were written.
fn genuine_round_trip() -> Ran {
    let drive = FakeDrive::new(16 * MIB, Behaviour::Genuine)?;
    assert_eq!(device_size(drive.device()), 16 * MIB);
    assert_eq!(drive.real_bytes(), 16 * MIB);
    assert_eq!(
        std::fs::metadata(drive.backing_path()).unwrap().len(),
        16 * MIB
    );
    for (i, offset) in [0, 5 * MIB + 4096, 16 * MIB - 4096].into_iter().enumerate() {
        let block = pattern(i as u64 + 1);
        write_direct(drive.device(), offset, &block);
        assert!(read_direct(drive.device(), offset).0 == block.0);
        assert!(drive.read_backing(offset, 4096) == block.0);
    }
    // A write that spans two blocks and starts mid-block, through the FUSE file itself.
    let fuse = OpenOptions::new()
        .write(true)
        .open(drive.fuse_file())
        .unwrap();
    fuse.write_all_at(&[0xa5; 6000], MIB + 1000).unwrap();
    assert_eq!(drive.read_backing(MIB + 1000, 6000), vec![0xa5; 6000]);
    assert_eq!(drive.read_backing(MIB + 999, 1), [0]);
    let served = drive.served();
    assert!(served.written_bytes >= 3 * 4096 + 6000, "{served:?}");
    assert_eq!(served.dropped_bytes, 0);
    Ok(())
}

/// On a drive of `real` bytes claiming `claimed`, a block written at `real + x` reads back at
/// `x` and is stored at `x`; nothing else in the backing file changed.
fn wraps(claimed: u64, real: u64) -> Ran {
    let drive = FakeDrive::new(claimed, Behaviour::Wrap { real_bytes: real })?;
    assert_eq!(device_size(drive.device()), claimed);
    assert_eq!(std::fs::metadata(drive.backing_path()).unwrap().len(), real);
    let x = real / 2 + 3 * FAKE_BLOCK;
    let before = drive.read_backing(0, real as usize);
    let block = pattern(42);
    write_direct(drive.device(), real + x, &block);
    assert!(read_direct(drive.device(), x).0 == block.0, "read at x");
    assert!(read_direct(drive.device(), real + x).0 == block.0);
    assert!(drive.read_backing(x, 4096) == block.0, "backing at x");
    // The rest of the backing file is as it was.
    let mut expected = before;
    expected[x as usize..(x + FAKE_BLOCK) as usize].copy_from_slice(&block.0);
    assert!(drive.read_backing(0, real as usize) == expected);
    // The last copy of the address range lands on x too, overwriting the first write.
    let last = claimed - real + x;
    if last != real + x {
        let later = pattern(43);
        write_direct(drive.device(), last, &later);
        assert!(drive.read_backing(x, 4096) == later.0);
        assert!(read_direct(drive.device(), real + x).0 == later.0);
    }
    Ok(())
}

fn wrap_at_an_eighth() -> Ran {
    wraps(64 * MIB, 8 * MIB)
}

fn wrap_at_a_half() -> Ran {
    wraps(32 * MIB, 16 * MIB)
}

/// Discard and write-zeroes on the device zero the backing file where a write would land,
/// and nothing else.
fn discard_zeroes_where_writes_land() -> Ran {
    agnostics_testkit::require_program("blkdiscard")?;
    let real = 8 * MIB;
    let drive = FakeDrive::new(32 * MIB, Behaviour::Wrap { real_bytes: real })?;
    let (x, y) = (MIB, 2 * MIB);
    write_direct(drive.device(), x, &pattern(1));
    write_direct(drive.device(), y, &pattern(2));
    write_direct(drive.device(), y + FAKE_BLOCK, &pattern(3));
    let rest = drive.backing_sha256(3 * MIB..real);
    for (flag, offset) in [("--zeroout", 2 * real + x), ("--force", 3 * real + y)] {
        run(std::process::Command::new("blkdiscard")
            .arg(flag)
            .args(["--offset", &offset.to_string(), "--length", "4096"])
            .arg(drive.device()));
    }
    assert!(
        drive.read_backing(x, 4096) == [0; 4096],
        "write-zeroes at x"
    );
    assert!(drive.read_backing(y, 4096) == [0; 4096], "discard at y");
    assert!(drive.read_backing(y + FAKE_BLOCK, 4096) == pattern(3).0);
    assert_eq!(drive.backing_sha256(3 * MIB..real), rest);
    assert_eq!(drive.served().zeroed_bytes, 2 * FAKE_BLOCK);
    Ok(())
}

/// A lossy drive drops exactly the blocks it says it loses: they read back as the zeros they
/// held, and every other block reads back what was written.
fn lossy_drops_exactly_its_blocks() -> Ran {
    let behaviour = Behaviour::Lossy {
        seed: 2024,
        lost_per_million: 250_000,
    };
    let claimed = 4 * MIB;
    let drive = FakeDrive::new(claimed, behaviour)?;
    let blocks = claimed / FAKE_BLOCK;
    {
        // One pass of O_DIRECT writes over the whole device, 64 KiB at a time: every write
        // spans lost and kept blocks.
        let file = open_direct(drive.device());
        let mut buf: Vec<Block> = (0..16).map(pattern).collect();
        for first in (0..blocks).step_by(16) {
            for (i, b) in buf.iter_mut().enumerate() {
                *b = pattern(first + i as u64 + 1);
            }
            // SAFETY: `buf` holds 16 plain byte arrays, contiguous and aligned to 4096.
            let bytes = unsafe {
                std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), 16 * FAKE_BLOCK as usize)
            };
            file.write_all_at(bytes, first * FAKE_BLOCK).unwrap();
        }
        file.sync_all().unwrap();
    }
    let lost = behaviour.lost_blocks(claimed);
    assert!(!lost.is_empty() && (lost.len() as u64) < blocks);
    for block in 0..blocks {
        let stored = drive.read_backing(block * FAKE_BLOCK, FAKE_BLOCK as usize);
        let read = read_direct(drive.device(), block * FAKE_BLOCK);
        assert!(
            read.0[..] == stored[..],
            "block {block}: device and backing differ"
        );
        if lost.contains(&block) {
            assert!(
                stored.iter().all(|&b| b == 0),
                "lost block {block} was stored"
            );
        } else {
            assert!(
                stored == pattern(block + 1).0,
                "kept block {block} is wrong"
            );
        }
    }
    assert_eq!(drive.served().dropped_bytes, lost.len() as u64 * FAKE_BLOCK);
    Ok(())
}

/// The ext4 filesystem of a 1/8 fake mounts, and small files written to it survive a remount;
/// mkfs wrote nothing in the backing file past its first part.
fn mounted_fake_keeps_small_files() -> Ran {
    let claimed = 256 * MIB;
    let real = claimed / 8;
    let drive = FakeDrive::builder(claimed, Behaviour::Wrap { real_bytes: real })
        .mounted()
        .build()?;
    let mut drive = drive;
    let dir = drive.mount_dir().unwrap().to_owned();
    let files: Vec<(String, Vec<u8>)> = (0..5)
        .map(|i| {
            let body = (0..(3000 + 7000 * i)).map(|j| (j * 31 + i) as u8).collect();
            (format!("file-{i}.bin"), body)
        })
        .collect();
    for (name, body) in &files {
        std::fs::write(dir.join(name), body).unwrap();
    }
    run(std::process::Command::new("sync").arg("-f").arg(&dir));
    drive.remount();
    for (name, body) in &files {
        let back = std::fs::read(dir.join(name)).unwrap();
        assert!(&back == body, "{name} changed across the remount");
    }
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    assert!(mounts.contains(&format!(
        "{} {} ext4",
        drive.device().display(),
        dir.display()
    )));
    // Everything mkfs and the files needed is in the first 1/4 of the real size, the part
    // a wrapping write from the claimed range's start would overwrite last.
    let used_end = last_nonzero_block(&drive, real) * FAKE_BLOCK;
    assert!(used_end < real / 4, "data up to {used_end} of {real}");
    Ok(())
}

/// The index of the last block of the backing file with a nonzero byte, plus one.
fn last_nonzero_block(drive: &FakeDrive, real: u64) -> u64 {
    let data = drive.read_backing(0, real as usize);
    data.chunks(FAKE_BLOCK as usize)
        .rposition(|c| c.iter().any(|&b| b != 0))
        .map_or(0, |i| i as u64 + 1)
}

/// What the throttled child reports: the bytes it wrote.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
struct Wrote {
    bytes: u64,
    requests: u64,
}

/// The throttled child's task: 2 MiB of O_DIRECT writes, 64 KiB each, on the device.
fn write_two_mib(device: &Path) -> Wrote {
    let file = open_direct(device);
    let buf: Vec<Block> = (0..16).map(pattern).collect();
    // SAFETY: `buf` holds 16 plain byte arrays, contiguous and aligned to 4096.
    let bytes =
        unsafe { std::slice::from_raw_parts(buf.as_ptr().cast::<u8>(), 16 * FAKE_BLOCK as usize) };
    let mut requests = 0;
    for i in 0..32 {
        file.write_all_at(bytes, i * bytes.len() as u64).unwrap();
        requests += 1;
    }
    file.sync_all().unwrap();
    Wrote {
        bytes: 32 * bytes.len() as u64,
        requests,
    }
}

/// A throttled fake puts the child's I/O to the device in its cgroup, which holds the limit
/// for this device; the device's own counters show the same writes.
fn throttled_fake_limits_a_child() -> Ran {
    let throttle = Throttle {
        write_bps: 10_000_000,
        ..Throttle::default()
    };
    let drive = FakeDrive::builder(
        64 * MIB,
        Behaviour::Wrap {
            real_bytes: 16 * MIB,
        },
    )
    .throttle(throttle)
    .build()?;
    let group = drive.group().expect("a throttle group");
    let maj_min = drive.maj_min();
    let limit = match &group.hierarchy {
        agnostics_testkit::Hierarchy::V1(_) => {
            std::fs::read_to_string(group.dir.join("blkio.throttle.write_bps_device")).unwrap()
        }
        agnostics_testkit::Hierarchy::V2(_) => {
            std::fs::read_to_string(group.dir.join("io.max")).unwrap()
        }
    };
    assert!(
        limit.contains(&maj_min) && limit.contains("10000000"),
        "{limit}"
    );
    let stat_before = drive.device_stat();
    let group_before = drive.group_io().unwrap();
    let wrote: Wrote = drive.run_child("write-two-mib");
    assert_eq!(wrote.bytes, 2 * MIB);
    let in_group = drive.group_io().unwrap().since(&group_before);
    assert_eq!(in_group.write_bytes, 2 * MIB, "{in_group:?}");
    assert!(in_group.write_ios >= wrote.requests, "{in_group:?}");
    let on_device = drive.device_stat().since(&stat_before);
    assert_eq!(on_device.write_bytes, 2 * MIB, "{on_device:?}");
    // This process is not in the group: its own writes are not accounted there.
    write_direct(drive.device(), 4 * MIB, &pattern(9));
    assert_eq!(
        drive.group_io().unwrap().since(&group_before).write_bytes,
        2 * MIB
    );
    Ok(())
}

/// After the guard's drop, no mount, loop device or FUSE mount of the drive is left.
fn drop_leaves_nothing() -> Ran {
    let drive = FakeDrive::builder(
        64 * MIB,
        Behaviour::Wrap {
            real_bytes: 8 * MIB,
        },
    )
    .mounted()
    .throttle(Throttle {
        write_iops: 1000,
        ..Throttle::default()
    })
    .build()?;
    let device = drive.device().to_owned();
    let fuse_file = drive.fuse_file().to_owned();
    let holder = drive.backing_path().parent().unwrap().to_owned();
    let group = drive.group().unwrap().dir.clone();
    // Something keeps the device open while the guard drops, as a crashed test may.
    let held = File::open(&device).unwrap();
    drop(drive);
    drop(held);
    let holder_text = holder.display().to_string();
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    assert!(!mounts.contains(&holder_text), "{mounts}");
    // The last close of an auto-cleared loop device detaches it; allow the kernel a moment.
    let fuse_text = fuse_file.display().to_string();
    let mut loops = String::new();
    for _ in 0..50 {
        loops = run(std::process::Command::new("losetup").arg("-a"));
        if !loops.contains(&fuse_text) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!loops.contains(&fuse_text), "{loops}");
    assert!(!holder.exists() && !group.exists());
    Ok(())
}

/// A writer in another process killed with SIGKILL halfway leaves the drive serving: what
/// it wrote before is stored, and a later round trip works.
fn killed_writer_leaves_the_drive_working() -> Ran {
    agnostics_testkit::require_program("dd")?;
    let drive = FakeDrive::builder(
        64 * MIB,
        Behaviour::Wrap {
            real_bytes: 16 * MIB,
        },
    )
    .throttle(Throttle {
        write_bps: 1_000_000,
        ..Throttle::default()
    })
    .build()?;
    let mut dd = drive
        .command(Path::new("dd"))
        .arg("if=/dev/zero")
        .arg(format!("of={}", drive.device().display()))
        .args(["bs=64k", "count=1024", "oflag=direct", "status=none"])
        .spawn()
        .unwrap();
    // Wait until it has written something (not how long it takes), then kill it.
    for _ in 0..600 {
        if drive.served().writes > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(drive.served().writes > 0, "dd wrote nothing");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(dd.id() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let status = dd.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL)
    );
    let block = pattern(77);
    write_direct(drive.device(), 40 * MIB, &block);
    assert!(read_direct(drive.device(), 8 * MIB).0 == block.0);
    assert!(drive.read_backing(8 * MIB, 4096) == block.0);
    Ok(())
}

fn main() {
    if serve_child(|task, dir| match task {
        "write-two-mib" => write_two_mib(dir),
        other => panic!("unknown task {other}"),
    }) {
        return;
    }
    agnostics_testkit::harness::run(agnostics_testkit::tests![
        lossy_blocks_are_deterministic,
        genuine_round_trip,
        wrap_at_an_eighth,
        wrap_at_a_half,
        lossy_drops_exactly_its_blocks,
        discard_zeroes_where_writes_land,
        mounted_fake_keeps_small_files,
        throttled_fake_limits_a_child,
        drop_leaves_nothing,
        killed_writer_leaves_the_drive_working,
    ]);
}
