//! A benchmark-only probe of the main loop, off unless [`ENV`] names a file: a timeout every
//! [`PERIOD`] records how late it fires (how long the main loop was kept from running it),
//! and the CPU time of the main thread and of the whole process is read when a test starts
//! and when it ends. When the first test of the session has ended, one line of `key=value`
//! pairs is written to the file and the app quits, so that `tools/bench-app` can start the
//! app with `--run` and wait for it:
//!
//! `ticks=N max_late_ms=F p99_late_ms=F over_16ms=N over_50ms=N run_s=F main_cpu_s=F
//! process_cpu_s=F hwm_before_mib=F hwm_after_mib=F`
//!
//! - `max_late_ms`, `p99_late_ms`: the largest and the 99th percentile lateness of a tick
//!   during the test, milliseconds; `over_16ms`, `over_50ms`: how many ticks were later than
//!   that.
//! - `run_s`: the test's wall-clock time, seconds; `main_cpu_s`: the main thread's user +
//!   system time during it (the UI's cost); `process_cpu_s`: the whole process's (the engine
//!   thread's I/O too).
//! - `hwm_before_mib`, `hwm_after_mib`: the process's peak RSS (`VmHWM`) when the test
//!   started (the window as shown, drives listed) and when it ended, MiB.

use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use adw::prelude::*;
use agnostics_core::usage::{cpu_seconds, peak_rss_kib, Who};
use gtk::glib;

use crate::window::Window;

/// Environment variable naming the file the probe writes its line to.
pub const ENV: &str = "AGNOSTICS_BENCH_MAINLOOP";
/// How often the probe's timeout asks to run.
pub const PERIOD: Duration = Duration::from_millis(5);

/// What the probe has seen so far.
#[derive(Debug, Default)]
struct Record {
    /// Lateness of each tick during the test, microseconds.
    late_us: Vec<u32>,
    /// When the test was first seen running, with the main thread's and the process's CPU
    /// time then, seconds.
    started: Option<(Instant, f64, f64)>,
    /// Peak RSS then, KiB.
    hwm_before_kib: u64,
}

/// Whether any window of `app` runs a test.
fn busy(app: &gtk::Application) -> bool {
    app.windows()
        .into_iter()
        .filter_map(|w| w.downcast::<Window>().ok())
        .any(|w| w.is_busy())
}

/// Starts the probe when [`ENV`] is set (call once, on startup); does nothing otherwise.
pub fn install(app: &gtk::Application) {
    let Some(path) = std::env::var_os(ENV).map(PathBuf::from) else {
        return;
    };
    let record = Rc::new(RefCell::new(Record::default()));
    let app = app.downgrade();
    let mut due = Instant::now() + PERIOD;
    glib::timeout_add_local(PERIOD, move || {
        let Some(app) = app.upgrade() else {
            return glib::ControlFlow::Break;
        };
        let now = Instant::now();
        let late = now.saturating_duration_since(due);
        // glib schedules the next tick a period after this one ran.
        due = now + PERIOD;
        let running = busy(&app);
        let mut record = record.borrow_mut();
        match (record.started, running) {
            (None, true) => {
                record.hwm_before_kib = peak_rss_kib();
                record.started = Some((now, cpu_seconds(Who::Thread), cpu_seconds(Who::Process)));
            }
            (Some(_), true) => {
                record
                    .late_us
                    .push(u32::try_from(late.as_micros()).unwrap_or(u32::MAX));
            }
            (Some(started), false) => {
                let hwm_before = record.hwm_before_kib;
                let line = summary(&mut record.late_us, now, started, hwm_before);
                if let Err(e) = std::fs::File::create(&path)
                    .and_then(|mut f| f.write_all(format!("{line}\n").as_bytes()))
                {
                    eprintln!("agnostics: cannot write {}: {e}", path.display());
                }
                app.quit();
                return glib::ControlFlow::Break;
            }
            (None, false) => {}
        }
        glib::ControlFlow::Continue
    });
}

/// The probe's line for a test that ran from `started` (instant, main thread's CPU time,
/// process's CPU time) to `now`, with the ticks' lateness `late_us` (sorted here) and the
/// peak RSS when it started, `hwm_before` KiB.
fn summary(
    late_us: &mut [u32],
    now: Instant,
    started: (Instant, f64, f64),
    hwm_before: u64,
) -> String {
    late_us.sort_unstable();
    let ms = |us: u32| f64::from(us) / 1000.0;
    let max = late_us.last().copied().unwrap_or(0);
    let p99 = if late_us.is_empty() {
        0
    } else {
        late_us[(late_us.len() * 99).div_ceil(100).max(1) - 1]
    };
    let over = |limit_ms: u32| late_us.iter().filter(|&&us| us > limit_ms * 1000).count();
    format!(
        "ticks={} max_late_ms={:.1} p99_late_ms={:.1} over_16ms={} over_50ms={} run_s={:.2} \
         main_cpu_s={:.3} process_cpu_s={:.3} hwm_before_mib={:.1} hwm_after_mib={:.1}",
        late_us.len(),
        ms(max),
        ms(p99),
        over(16),
        over(50),
        now.duration_since(started.0).as_secs_f64(),
        cpu_seconds(Who::Thread) - started.1,
        cpu_seconds(Who::Process) - started.2,
        hwm_before as f64 / 1024.0,
        peak_rss_kib() as f64 / 1024.0,
    )
}
