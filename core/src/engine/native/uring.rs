//! The io_uring path: one ring, up to `iodepth` reads or writes in flight, submitted and reaped
//! on the engine's thread. Short transfers are resubmitted for the rest; a zero-length
//! transfer is an error, never a silent miscount.

use std::io;
use std::time::{Duration, Instant};

use io_uring::{opcode, register, types, IoUring};

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
        Ok(Uring { ring, timed_wait })
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
        let op = if io.write { "write" } else { "read" };
        let mut slots = vec![Slot::default(); depth];
        let mut free: Vec<usize> = (0..depth).rev().collect();
        let mut in_flight = 0usize;
        let mut stop: Option<Ending> = None;
        let mut failure: Option<EngineError> = None;
        let mut rng = io.rng();
        let mut reaped: Vec<(u64, i32)> = Vec::with_capacity(depth);
        let start = meter.start();
        let mut wait_failures = 0u32;

        loop {
            if stop.is_none() {
                stop = io.stop_reason(start, Instant::now());
            }
            while stop.is_none() && !free.is_empty() {
                let Some((seq, offset)) = plan.next_request() else {
                    break;
                };
                let index = free.pop().expect("a free slot");
                let slot = &mut slots[index];
                *slot = Slot {
                    ptr: io.buffers.prepare(index, seq, &mut rng),
                    offset,
                    done: 0,
                    submitted: Instant::now(),
                };
                self.push(io, index, slot);
                in_flight += 1;
            }
            if in_flight == 0 {
                break;
            }
            if let Err(e) = self.wait() {
                // The ring itself failed (not an I/O error): stop submitting and keep trying
                // to reap what is in flight; give up (leaving the buffers to the kernel) only
                // after many failures in a row.
                if failure.is_none() {
                    failure = Some(EngineError::from_io(io.name, op, e));
                }
                stop = Some(Ending::Failed);
                wait_failures += 1;
                if wait_failures >= MAX_WAIT_FAILURES {
                    return Err(Failure {
                        error: failure.expect("set above"),
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
                let index = user_data as usize;
                let slot = &mut slots[index];
                let outcome = if result < 0 {
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
                };
                match outcome {
                    Ok(n) => {
                        slot.done += n;
                        if slot.done < io.bs {
                            // Short transfer: ask for the rest in the same slot.
                            self.push(io, index, slot);
                            continue;
                        }
                        meter.complete(now, io.bs, now.duration_since(slot.submitted));
                    }
                    Err(e) => {
                        if failure.is_none() {
                            failure = Some(EngineError::from_io(io.name, op, e));
                        }
                        stop = Some(Ending::Failed);
                    }
                }
                in_flight -= 1;
                free.push(index);
            }
            meter.tick(now);
        }
        match failure {
            Some(error) => Err(Failure {
                error,
                abandoned: false,
            }),
            None => Ok(stop.unwrap_or(Ending::Done)),
        }
    }

    /// Queues the rest of `slot`'s request (from `slot.done` on).
    fn push(&mut self, io: &PhaseIo<'_>, index: usize, slot: &Slot) {
        let rest = (io.bs - slot.done) as u32;
        // SAFETY: `done < bs`, and the pointer covers `bs` bytes.
        let ptr = unsafe { slot.ptr.add(slot.done as usize) };
        let fd = types::Fd(io.fd);
        let offset = slot.offset + slot.done;
        let entry = if io.write {
            opcode::Write::new(fd, ptr, rest).offset(offset).build()
        } else {
            opcode::Read::new(fd, ptr, rest).offset(offset).build()
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
