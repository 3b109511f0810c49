//! The test profiles several crates' tests share, as job-file text (this crate does not
//! depend on the engine; parse them with `Profile::parse` or write them to a file): the
//! standard test scaled down, and the throttled card's profile with the throttle it runs
//! under, and the assertion that a measured figure is paced by that throttle.

use crate::Throttle;

/// The standard test's five phases, small: `size` (fio's notation, such as `"8m"`) written by
/// `prepare-file` in blocks of `prepare_bs` (the standard's `512k`, or `1m`), iodepth 8,
/// 1 MiB sequential blocks, 4 KiB random blocks limited to `runtime_s` seconds.
pub fn small_standard(size: &str, prepare_bs: &str, runtime_s: u32) -> String {
    format!(
        "[global]\nioengine=libaio\ndirect=1\niodepth=8\nsize={size}\nend_fsync=1\n\n\
         [prepare-file]\nrw=write\nbs={prepare_bs}\nstonewall\n\n\
         [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime={runtime_s}\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime={runtime_s}\nstonewall\n"
    )
}

/// The throttled test's profile: the standard test's shape at 64 MiB, 5 s random phases.
pub const THROTTLED_PROFILE: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=32
size=64m
end_fsync=1

[prepare-file]
rw=write
bs=512k
stonewall

[seq-write]
rw=write
bs=4m
stonewall

[seq-read]
rw=read
bs=4m
stonewall

[rand-4k-write]
rw=randwrite
bs=4k
runtime=5
stonewall

[rand-4k-read]
rw=randread
bs=4k
runtime=5
stonewall
";

/// The throttled card's write limit, operations per second.
pub const WRITE_IOPS: u64 = 400;
/// The throttled card's read limit, operations per second.
pub const READ_IOPS: u64 = 1200;
/// The throttled card's write limit, bytes per second (12 MiB/s).
pub const WRITE_BPS: u64 = 12 << 20;

/// [`WRITE_IOPS`], [`READ_IOPS`] and [`WRITE_BPS`] as a blkio throttle (reads unlimited in
/// bytes).
pub const THROTTLE: Throttle = Throttle {
    write_bps: WRITE_BPS,
    read_bps: 0,
    write_iops: WRITE_IOPS,
    read_iops: READ_IOPS,
};

/// Panics unless `measured` (a rate: IOPS or bytes per second, f64) is a figure the throttle
/// `limit` (same unit) allows: positive and at most `limit` + 10 % (blkio's accounting slices
/// let a short burst through).
///
/// The throttle is a ceiling: no engine can measure more than the device allows, however busy
/// the machine, so a figure above it is a wrong measurement. There is no floor: a machine
/// whose cores are busy with other work slows a run by any amount (a queue depth 1 write ran
/// at 26 % of its limit beside two `yes` loops and two compilers).
pub fn assert_paced_by_throttle(what: &str, measured: f64, limit: f64) {
    assert!(
        measured <= limit * 1.10,
        "{what}: measured {measured:.1}, faster than the throttle {limit:.1} allows"
    );
    assert!(measured > 0.0, "{what}: measured {measured}");
}

/// How long blk-throttle's accounting slice is, seconds: at the start of a slice a throttled
/// group may dispatch a whole slice's allowance at once (the kernel's `throtl_slice`, 100 ms).
pub const THROTTLE_SLICE_SECONDS: f64 = 0.1;

/// Panics unless `done` (bytes, or I/O operations; f64) in `seconds` is an amount the throttle
/// `limit` (bytes or operations per second) lets through: positive and at most
/// [`assert_paced_by_throttle`]'s 10 % over `limit` × `seconds`, plus one
/// [`THROTTLE_SLICE_SECONDS`]' allowance and `request` (in the same unit as `done`: the
/// requests in flight when the clock started).
///
/// For phases too short for the 10 % alone: on a 16 MiB write at 12 MiB/s, one slice's burst
/// is 9 % of the phase.
pub fn assert_amount_paced_by_throttle(
    what: &str,
    done: f64,
    seconds: f64,
    limit: f64,
    request: f64,
) {
    let allowed = limit * (seconds * 1.10 + THROTTLE_SLICE_SECONDS) + request;
    assert!(
        done <= allowed,
        "{what}: {done:.1} done in {seconds:.3} s, more than the throttle {limit:.1} per second \
         lets through ({allowed:.1})"
    );
    assert!(done > 0.0 && seconds > 0.0, "{what}: {done} in {seconds} s");
}
