//! The thread-pool path, where io_uring is refused: `iodepth` threads, each doing blocking
//! `pread`/`pwrite` on its own slot, so that up to `iodepth` requests are in flight. The
//! threads report completions over a channel; the engine's thread counts them and sends the
//! events. Short transfers continue where they stopped; a zero-length one is an error.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::plan::OffsetPlan;
use super::stats::Meter;
use super::{Ending, Failure, PhaseIo};
use crate::engine::EngineError;

/// How long the engine's thread waits for a completion before it looks at cancel, runtime
/// and the clock again.
const WAIT: Duration = Duration::from_millis(100);
/// While completions keep coming, the engine's thread sleeps this long and then takes every
/// report that arrived, instead of being woken by each one: a wake-up per request cost the
/// workers a futex call and the engine's thread a context switch for every I/O. The reports
/// carry the workers' own time stamps, so this delays only the counting, never a latency.
const POLL: Duration = Duration::from_millis(1);

/// What a worker thread reports.
enum Report {
    /// A request of `bs` bytes finished at `at` after `latency`.
    Done { at: Instant, latency: Duration },
    /// A request failed.
    Failed(io::Error),
}

/// Runs one phase on `io.depth` threads: each takes the next offset from the plan, does its
/// request, and reports; the threads stop taking offsets once the plan is done or the
/// engine's thread says stop (runtime, cancel, an error), and the phase ends when every thread
/// has finished its request in flight.
pub fn run_phase(
    io: &PhaseIo<'_>,
    plan: &mut OffsetPlan,
    meter: &mut Meter<'_>,
) -> Result<Ending, Failure> {
    let depth = io.depth.max(1);
    let plan = Mutex::new(plan);
    let halt = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Report>();
    let start = meter.start();
    let mut stop: Option<Ending> = None;
    let mut failure: Option<EngineError> = None;
    let op = if io.write { "write" } else { "read" };

    std::thread::scope(|scope| {
        for slot in 0..depth {
            let tx = tx.clone();
            let (plan, halt) = (&plan, &halt);
            scope.spawn(move || worker(io, slot, plan, halt, &tx));
        }
        drop(tx);
        let mut busy = false;
        loop {
            let received = if busy {
                std::thread::sleep(POLL);
                rx.try_recv().map_err(|e| match e {
                    mpsc::TryRecvError::Empty => mpsc::RecvTimeoutError::Timeout,
                    mpsc::TryRecvError::Disconnected => mpsc::RecvTimeoutError::Disconnected,
                })
            } else {
                rx.recv_timeout(WAIT)
            };
            let now = Instant::now();
            let mut take = |report: Report| match report {
                Report::Done { at, latency } => meter.complete(at, io.bs, latency),
                Report::Failed(e) => {
                    if failure.is_none() {
                        failure = Some(EngineError::from_io(io.name, op, e));
                    }
                    stop = Some(Ending::Failed);
                    halt.store(true, Ordering::SeqCst);
                }
            };
            match received {
                Ok(report) => {
                    take(report);
                    rx.try_iter().for_each(&mut take);
                    busy = true;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => busy = false,
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if stop.is_none() {
                if let Some(reason) = io.stop_reason(start, now) {
                    stop = Some(reason);
                    halt.store(true, Ordering::SeqCst);
                }
            }
            meter.tick(now);
        }
    });
    match failure {
        Some(error) => Err(Failure {
            error,
            abandoned: false,
        }),
        None => Ok(stop.unwrap_or(Ending::Done)),
    }
}

fn worker(
    io: &PhaseIo<'_>,
    slot: usize,
    plan: &Mutex<&mut OffsetPlan>,
    halt: &AtomicBool,
    tx: &mpsc::Sender<Report>,
) {
    let mut rng = io.rng();
    loop {
        if halt.load(Ordering::SeqCst) {
            return;
        }
        let next = match plan.lock() {
            Ok(mut p) => p.next_request(),
            Err(_) => None,
        };
        let Some((_, offset)) = next else {
            return;
        };
        let ptr = io.buffers.prepare(slot, &mut rng);
        let submitted = Instant::now();
        let report = match transfer(io, ptr, offset) {
            Ok(()) => {
                let at = Instant::now();
                Report::Done {
                    at,
                    latency: at.duration_since(submitted),
                }
            }
            Err(e) => Report::Failed(e),
        };
        let failed = matches!(report, Report::Failed(_));
        if tx.send(report).is_err() || failed {
            return;
        }
    }
}

/// Moves `io.bs` bytes between `ptr` and the file at `offset`, continuing after short
/// transfers and retrying on EINTR.
fn transfer(io: &PhaseIo<'_>, ptr: *mut u8, offset: u64) -> io::Result<()> {
    let mut done = 0u64;
    while done < io.bs {
        let rest = (io.bs - done) as usize;
        let at =
            i64::try_from(offset + done).map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?;
        // SAFETY: `ptr` covers `bs` bytes of a buffer that lives for the whole phase; the
        // kernel reads (pwrite) or fills (pread) it; we never read it back. The 64-bit
        // variants: on 32-bit targets plain pread/pwrite take a 32-bit off_t.
        let n = unsafe {
            let p = ptr.add(done as usize);
            if io.write {
                libc::pwrite64(io.fd, p as *const libc::c_void, rest, at)
            } else {
                libc::pread64(io.fd, p as *mut libc::c_void, rest, at)
            }
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(io::Error::new(
                if io.write {
                    io::ErrorKind::WriteZero
                } else {
                    io::ErrorKind::UnexpectedEof
                },
                format!("transfer of 0 bytes at offset {}", offset + done),
            ));
        }
        done += n as u64;
    }
    Ok(())
}
