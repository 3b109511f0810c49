//! The io_uring path: one ring, up to `iodepth` reads or writes in flight, submitted and reaped
//! on the engine's thread. Short transfers are resubmitted for the rest; a zero-length
//! transfer is an error, never a silent miscount.

use std::io;
use std::time::{Duration, Instant};

use io_uring::{opcode, register, types, IoUring};
use rand::rngs::SmallRng;

use super::plan::OffsetPlan;
use super::stats::Meter;
use super::{Ending, Failure, PhaseIo};
use crate::engine::EngineError;

/// How long one wait for completions may block, so that cancel, runtime and the per-second
/// samples are looked at even when the device stalls.
const WAIT: Duration = Duration::from_millis(100);
/// Failed waits in a row after which the requests in flight are given up on.
const MAX_WAIT_FAILURES: u32 = 500;

/// Whether this build has the io_uring path (false where the io-uring crate has no bindings:
/// 32-bit arm and x86, whose native engine measures with the pool of threads).
pub const BUILT: bool = true;

/// An io_uring instance that accepts reads and writes.
pub struct Uring {
    ring: IoUring,
    timed_wait: bool,
    /// The phase's file is registered as fixed file 0.
    fixed_file: bool,
    /// The phase's buffers are registered, numbered as [`super::buffers::IoBuffers::index_of`] says.
    fixed_buffers: bool,
}

impl std::fmt::Debug for Uring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Uring")
            .field("timed_wait", &self.timed_wait)
            .finish_non_exhaustive()
    }
}

impl Uring {
    /// Sets up a ring for `entries` requests in flight and checks that the kernel supports
    /// `IORING_OP_READ`/`WRITE` (Linux 5.6).
    ///
    /// Errors: the kernel refuses io_uring (ENOSYS, EPERM with `kernel.io_uring_disabled`,
    /// EACCES, ENOMEM from the memlock limit) or lacks the opcodes (EOPNOTSUPP).
    pub fn new(entries: u32) -> io::Result<Uring> {
        let ring = IoUring::new(entries.max(1))?;
        let mut probe = register::Probe::new();
        ring.submitter().register_probe(&mut probe)?;
        if !probe.is_supported(opcode::Read::CODE) || !probe.is_supported(opcode::Write::CODE) {
            return Err(io::Error::from_raw_os_error(libc::EOPNOTSUPP));
        }
        let timed_wait = ring.params().is_feature_ext_arg();
        Ok(Uring {
            ring,
            timed_wait,
            fixed_file: false,
            fixed_buffers: false,
        })
    }

    /// How many requests the ring holds at once.
    pub fn capacity(&self) -> usize {
        self.ring.params().sq_entries() as usize
    }

    /// Runs one phase: keeps up to `io.depth` requests in flight until the plan is done, the
    /// runtime is over or cancel is set, then waits for every request in flight.
    pub fn run_phase(
        &mut self,
        io: &PhaseIo<'_>,
        plan: &mut OffsetPlan,
        meter: &mut Meter<'_>,
    ) -> Result<Ending, Failure> {
        let depth = io.depth.min(self.capacity()).max(1);
        self.register(io);
        let outcome = self.run_registered(io, depth, plan, meter);
        self.unregister();
        outcome
    }

    /// Registers the phase's file and buffers with the ring, so that a request neither looks
    /// up the file nor pins its buffer's pages (fio's `registerfiles` and `fixedbufs`). Either
    /// may be refused (an old kernel, buffers beyond the memlock limit): requests then name
    /// the descriptor and plain addresses. Buffers are registered only for blocks of at most
    /// [`fixed_buffer_max`] bytes: see there.
    fn register(&mut self, io: &PhaseIo<'_>) {
        let submitter = self.ring.submitter();
        self.fixed_file = submitter.register_files(&[io.fd]).is_ok();
        if io.bs > fixed_buffer_max() {
            self.fixed_buffers = false;
            return;
        }
        let iovecs: Vec<libc::iovec> = io
            .buffers
            .regions()
            .into_iter()
            .map(|(ptr, len)| libc::iovec {
                iov_base: ptr.cast(),
                iov_len: len,
            })
            .collect();
        // SAFETY: the buffers outlive the registration: they live for the whole phase, and
        // run_phase unregisters them before it returns (and a phase that abandons requests
        // in flight never frees its buffers).
        self.fixed_buffers = u16::try_from(iovecs.len()).is_ok()
            && unsafe { submitter.register_buffers(&iovecs) }.is_ok();
    }

    /// Undoes [`Uring::register`].
    fn unregister(&mut self) {
        let submitter = self.ring.submitter();
        if self.fixed_buffers {
            let _ = submitter.unregister_buffers();
        }
        if self.fixed_file {
            let _ = submitter.unregister_files();
        }
        self.fixed_file = false;
        self.fixed_buffers = false;
    }

    /// [`Uring::run_phase`] once its file and buffers are registered (or refused).
    fn run_registered(
        &mut self,
        io: &PhaseIo<'_>,
        depth: usize,
        plan: &mut OffsetPlan,
        meter: &mut Meter<'_>,
    ) -> Result<Ending, Failure> {
        let mut phase = Requests::new(io, depth);
        let mut rng = io.rng();
        let mut reaped: Vec<(u64, i32)> = Vec::with_capacity(depth);
        let start = meter.start();
        let mut wait_failures = 0u32;

        loop {
            if phase.stop.is_none() {
                phase.stop = io.stop_reason(start, Instant::now());
            }
            self.submit_more(&mut phase, plan, &mut rng);
            if phase.in_flight == 0 {
                break;
            }
            if let Err(e) = self.wait() {
                // The ring itself failed (not an I/O error): stop submitting and keep trying
                // to reap what is in flight; give up (leaving the buffers to the kernel) only
                // after many failures in a row.
                phase.fail(e);
                wait_failures += 1;
                if wait_failures >= MAX_WAIT_FAILURES {
                    return Err(Failure {
                        error: phase.failure.expect("set above"),
                        abandoned: true,
                    });
                }
                std::thread::sleep(Duration::from_millis(10));
            } else {
                wait_failures = 0;
            }

            reaped.clear();
            reaped.extend(self.ring.completion().map(|c| (c.user_data(), c.result())));
            let now = Instant::now();
            for &(user_data, result) in &reaped {
                self.complete(&mut phase, user_data as usize, result, now, meter);
            }
            meter.tick(now);
        }
        match phase.failure {
            Some(error) => Err(Failure {
                error,
                abandoned: false,
            }),
            None => Ok(phase.stop.unwrap_or(Ending::Done)),
        }
    }

    /// Fills every free slot with the plan's next request, unless the phase is stopping or
    /// the plan is done.
    ///
    /// Each request goes to the kernel as soon as it is prepared, before the next one's buffer
    /// is filled (fio's default `iodepth_batch_submit=1`); the last one goes with the wait
    /// that follows. Handing the kernel a whole batch at once instead makes the requests
    /// travel in convoys: they reach the device together, complete together and are refilled
    /// together, and on a fast drive the device then idles between convoys (on the virtio disk
    /// of docs/benchmarks.md, 4 KiB random writes at iodepth 32 ran at 0.71 of fio, p50
    /// latency 400 µs against 220 µs when submitted one by one).
    fn submit_more(
        &mut self,
        phase: &mut Requests<'_, '_>,
        plan: &mut OffsetPlan,
        rng: &mut SmallRng,
    ) {
        let mut queued = false;
        while phase.stop.is_none() && !phase.free.is_empty() {
            let Some((_, offset)) = plan.next_request() else {
                break;
            };
            if queued {
                // A failure here is left to the wait that follows, which submits again and
                // reports it.
                let _ = self.ring.submit();
            }
            queued = true;
            let index = phase.free.pop().expect("a free slot");
            let slot = &mut phase.slots[index];
            *slot = Slot {
                ptr: phase.io.buffers.prepare(index, rng),
                offset,
                done: 0,
                submitted: Instant::now(),
            };
            self.push(phase.io, index, slot);
            phase.in_flight += 1;
        }
    }

    /// Handles the completion of slot `index` with the kernel's `result` (bytes, or minus an
    /// errno): a short transfer is queued again for the rest; a whole one is measured; an
    /// error or a zero-length transfer fails the phase. A finished slot is freed.
    fn complete(
        &mut self,
        phase: &mut Requests<'_, '_>,
        index: usize,
        result: i32,
        now: Instant,
        meter: &mut Meter<'_>,
    ) {
        let io = phase.io;
        let slot = &mut phase.slots[index];
        match transferred(io, phase.op, slot, result) {
            Ok(n) => {
                slot.done += n;
                if slot.done < io.bs {
                    // Short transfer: ask for the rest in the same slot.
                    self.push(io, index, slot);
                    return;
                }
                meter.complete(now, io.bs, now.duration_since(slot.submitted));
            }
            Err(e) => phase.fail(e),
        }
        phase.in_flight -= 1;
        phase.free.push(index);
    }

    /// Queues the rest of `slot`'s request (from `slot.done` on).
    fn push(&mut self, io: &PhaseIo<'_>, index: usize, slot: &Slot) {
        let rest = (io.bs - slot.done) as u32;
        // SAFETY: `done < bs`, and the pointer covers `bs` bytes.
        let ptr = unsafe { slot.ptr.add(slot.done as usize) };
        let offset = slot.offset + slot.done;
        // Fits: registering refuses more than u16::MAX buffers.
        let buf = io.buffers.index_of(index) as u16;
        let fixed_buffers = self.fixed_buffers;
        macro_rules! request {
            ($fd:expr) => {
                match (io.write, fixed_buffers) {
                    (true, true) => opcode::WriteFixed::new($fd, ptr, rest, buf)
                        .offset(offset)
                        .build(),
                    (true, false) => opcode::Write::new($fd, ptr, rest).offset(offset).build(),
                    (false, true) => opcode::ReadFixed::new($fd, ptr, rest, buf)
                        .offset(offset)
                        .build(),
                    (false, false) => opcode::Read::new($fd, ptr, rest).offset(offset).build(),
                }
            };
        }
        let entry = if self.fixed_file {
            request!(types::Fixed(0))
        } else {
            request!(types::Fd(io.fd))
        }
        .user_data(index as u64);
        // SAFETY: the buffer outlives the request: buffers live for the whole phase, and
        // run_phase does not return before every request in flight has completed.
        let pushed = unsafe { self.ring.submission().push(&entry) };
        // At most `depth ≤ capacity` requests exist at once and each is queued once, so the
        // queue always has room.
        pushed.expect("submission queue has room for every slot");
    }

    /// Submits what is queued and waits for at least one completion, at most [`WAIT`] when
    /// the kernel supports timed waits.
    fn wait(&mut self) -> io::Result<()> {
        let result = if self.timed_wait {
            let ts = types::Timespec::from(WAIT);
            let args = types::SubmitArgs::new().timespec(&ts);
            self.ring.submitter().submit_with_args(1, &args)
        } else {
            self.ring.submit_and_wait(1)
        };
        match result {
            Ok(_) => Ok(()),
            Err(e)
                if matches!(
                    e.raw_os_error(),
                    Some(libc::ETIME | libc::EINTR | libc::EBUSY | libc::EAGAIN)
                ) =>
            {
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// Pages the kernel puts in one bio when it pins a plain address range for O_DIRECT
/// (`BIO_MAX_VECS`).
const BIO_MAX_PAGES: u64 = 256;

/// Largest block size, bytes, whose buffers are registered: [`BIO_MAX_PAGES`] pages (1 MiB
/// with 4 KiB pages).
///
/// The block layer sees the same requests from a registered buffer and from a plain address
/// up to that size, but not above it: a plain address range is pinned into bios of at most
/// 256 pages each, a registered buffer goes down as one bio for the whole request. Each bio
/// is then split at the device's `max_segments` (one segment per page that is not physically
/// next to the one before). On a virtio disk (`max_segments` 254) a 4 MiB read from a
/// registered buffer reached the device as 4 × 1016 KiB + 32 KiB (5 requests), from a plain
/// address, as fio's libaio sends it, as 4 × (1016 + 8 KiB) (8). Larger blocks therefore
/// use plain addresses like fio: the same requests on every device, for the cost of pinning
/// a request's pages as it is submitted, which fio pays too.
fn fixed_buffer_max() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    BIO_MAX_PAGES * u64::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// One request slot: where its buffer is, what it covers and how much is done.
#[derive(Debug, Clone, Copy)]
struct Slot {
    ptr: *mut u8,
    offset: u64,
    done: u64,
    submitted: Instant,
}

impl Default for Slot {
    fn default() -> Self {
        Slot {
            ptr: std::ptr::null_mut(),
            offset: 0,
            done: 0,
            submitted: Instant::now(),
        }
    }
}

/// The requests of one phase: a slot per request the ring may hold, which slots are free, how
/// many are in flight, and how the phase is ending.
struct Requests<'p, 'a> {
    io: &'p PhaseIo<'a>,
    /// `read` or `write`, for errors.
    op: &'static str,
    slots: Vec<Slot>,
    free: Vec<usize>,
    in_flight: usize,
    stop: Option<Ending>,
    /// The first error; later ones are not kept.
    failure: Option<EngineError>,
}

impl<'p, 'a> Requests<'p, 'a> {
    fn new(io: &'p PhaseIo<'a>, depth: usize) -> Requests<'p, 'a> {
        Requests {
            io,
            op: if io.write { "write" } else { "read" },
            slots: vec![Slot::default(); depth],
            free: (0..depth).rev().collect(),
            in_flight: 0,
            stop: None,
            failure: None,
        }
    }

    /// Fails the phase with `e` (unless it failed before) and stops submitting.
    fn fail(&mut self, e: io::Error) {
        if self.failure.is_none() {
            self.failure = Some(EngineError::from_io(self.io.name, self.op, e));
        }
        self.stop = Some(Ending::Failed);
    }
}

/// The bytes a completion moved, from the kernel's `result`: minus an errno is that error,
/// 0 is an error (a write of 0 bytes, or a read at the end of the file), never a miscount.
fn transferred(io: &PhaseIo<'_>, op: &str, slot: &Slot, result: i32) -> io::Result<u64> {
    if result < 0 {
        Err(io::Error::from_raw_os_error(-result))
    } else if result == 0 {
        Err(io::Error::new(
            if io.write {
                io::ErrorKind::WriteZero
            } else {
                io::ErrorKind::UnexpectedEof
            },
            format!("{op} of 0 bytes at offset {}", slot.offset + slot.done),
        ))
    } else {
        Ok(result as u64)
    }
}
