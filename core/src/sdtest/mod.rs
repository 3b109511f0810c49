//! The standard test, end to end: pre-flight, up to N runs of the profile on the program's own
//! test file, grading, advice, and the [`Report`]. Both user interfaces call [`run`].

mod advise;
mod counters;
mod preflight;
mod settle;
mod sharing;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::drive_lock;
use crate::engine::device_io::BlockDevice;
use crate::engine::testfile::TestFile;
use crate::engine::{self, EngineError, EngineKind, Event};
use crate::judge::{counters_short, not_graded_shared};
use crate::profile::Profile;
use crate::report::{ErrorReport, ProfileInfo, Report, RunReport};
use crate::target_dir;
use crate::verdict::Verdict;

pub use preflight::advice_for_target;

use counters::uncounted;
use preflight::{check_profile, prepare_target, sweep_leftovers};
use settle::finish;
pub use sharing::drives;
use sharing::watch_drives;

/// How many times the standard test runs at most, as upstream agnostics runs it: it stops at
/// the first run that passes A1 (the CLI's `--runs` default, the app's test).
pub const UPSTREAM_RUNS: u32 = 3;

/// What to run.
#[derive(Debug, Clone)]
pub struct TestOptions {
    /// The directory to test in.
    pub target: PathBuf,
    /// The profile (usually [`Profile::sd_bench`]).
    pub profile: Profile,
    /// The engine.
    pub engine: EngineKind,
    /// How many runs at most ([`UPSTREAM_RUNS`] for the standard test); the test stops at the
    /// first run that passes A1.
    pub runs: u32,
    /// Where sysfs is (`/sys`; a fixture tree in tests).
    pub sysfs_root: PathBuf,
    /// Where the drives' lock files are, by which tests on one drive know of each other
    /// ([`drive_lock::default_dir`]: `/run/lock`; a test's own directory in this program's
    /// tests).
    pub lock_dir: PathBuf,
}

impl TestOptions {
    /// The standard test in `target` with the native engine, up to [`UPSTREAM_RUNS`] runs,
    /// real sysfs.
    pub fn standard(target: PathBuf) -> TestOptions {
        TestOptions {
            target,
            profile: Profile::sd_bench(),
            engine: EngineKind::Native,
            runs: UPSTREAM_RUNS,
            sysfs_root: PathBuf::from("/sys"),
            lock_dir: drive_lock::default_dir(),
        }
    }
}

/// Runs the test and returns its report; never panics on bad input and never reports PASS
/// without a measurement. `cancel` may be set from another thread or a signal handler: the test
/// stops, its file is removed and the report's error is `cancelled`. `on_event` is called on
/// this thread.
pub fn run(opts: &TestOptions, cancel: &AtomicBool, on_event: &(dyn Fn(Event) + Sync)) -> Report {
    let mut report = new_report(opts);
    // Refused before a byte is written: a cap on the sustained test that is not a size.
    if let Some((message, hint)) = crate::sustained::plan::refusal(&opts.profile) {
        report.error = Some(ErrorReport::new(
            crate::error_kind::ErrorKind::Profile,
            message,
            hint,
        ));
        report.graded = false;
        return report;
    }
    // A profile that only measures is not held against A1/A2: no graded jobs to check.
    report.graded = opts.profile.graded();
    let gradable = !report.graded || check_profile(opts, &mut report);
    sweep_leftovers(opts, &mut report);
    let prepared = prepare_target(opts, &mut report);
    identify_run(opts, &mut report);
    let Some(info) = prepared else {
        return report;
    };
    let watch = watch_drives(opts, &info, &mut report);
    // A layer that answers from memory: the run is shown, never graded.
    let mut cached = target_dir::cached_reason(&info, &opts.sysfs_root);

    // When no run can pass (a graded job missing or not what its check claims, or a cache
    // answering), repeating it would only wear the card.
    // A profile that only measures runs once: there is no pass to wait for.
    let runs = if report.graded && gradable && cached.is_none() {
        opts.runs.max(1)
    } else {
        1
    };
    // Each run that shared its drive with another test, and what it says.
    let mut shared = Vec::new();
    for run in 1..=runs {
        if cancel.load(Ordering::SeqCst) {
            set_engine_error(&mut report, &EngineError::Cancelled);
            break;
        }
        let again = why_again(run, shared.last().map(|(r, _)| *r));
        on_event(Event::RunStarted { run, runs, again });
        let ctx = engine::RunContext {
            run,
            cancel,
            on_event,
        };
        watch.begin();
        let next = run_once(opts, &info, &ctx, &mut report);
        if let Some(drive) = watch.end() {
            shared.push((run, not_graded_shared(&mut report, run, &drive)));
        }
        // A figure the drive's own counters do not account for was answered from memory:
        // no run can pass, and repeating it would only wear the card.
        if let Some(reason) = report.runs.last().and_then(|r| counters_short(&r.phases)) {
            cached.get_or_insert(reason);
            break;
        }
        if next == Next::Stop {
            break;
        }
    }
    drop(watch);
    if let Some(warning) = uncounted(&report, &info) {
        report.warnings.push(warning);
    }
    let system = target_dir::is_system_drive(&info, &opts.sysfs_root);
    let deciding = report.deciding_run().map(|r| r.run);
    let shared = shared
        .into_iter()
        .find(|(run, _)| Some(*run) == deciding)
        .map(|(_, reason)| reason);
    finish(&mut report, &info, cached, shared, system);
    report
}

/// Why run `run` follows the one before it, given the last run another test shared the drive
/// with (`last_shared`): a run after one that was spoiled is not run because it failed.
fn why_again(run: u32, last_shared: Option<u32>) -> Option<engine::Rerun> {
    (run > 1).then(|| {
        if last_shared == Some(run - 1) {
            engine::Rerun::Shared
        } else {
            engine::Rerun::Failed
        }
    })
}

/// An empty report for `opts`: the engine, the profile and the profile's warnings.
fn new_report(opts: &TestOptions) -> Report {
    Report::new(
        opts.engine,
        ProfileInfo::of(&opts.profile, opts.profile.file_size_bytes()),
        opts.profile.warnings.clone(),
    )
}

/// The drive's identity and how the test is measured, into the report: the kernel from the
/// running system's `/proc`, everything else under `opts.sysfs_root`.
fn identify_run(opts: &TestOptions, report: &mut Report) {
    if let Some(target) = &report.target {
        report.drive = crate::drive::identify(report.card.as_ref(), target, &opts.sysfs_root);
    }
    let roots = crate::drive::provenance::Roots {
        proc_root: std::path::Path::new("/proc"),
        sysfs_root: &opts.sysfs_root,
    };
    report.measured_with = Some(crate::drive::provenance::collect(
        &roots,
        opts.engine,
        &opts.profile,
        report.card.as_ref(),
    ));
}

/// Whether another run follows.
#[derive(Debug, PartialEq, Eq)]
enum Next {
    /// The run did not pass A1: another may follow.
    Again,
    /// The run passed, or the test stopped with an error.
    Stop,
}

/// One run of the profile on a new test file, removed afterwards: its graded result, or the
/// error that ends the test, into the report.
fn run_once(
    opts: &TestOptions,
    info: &target_dir::TargetInfo,
    ctx: &engine::RunContext<'_>,
    report: &mut Report,
) -> Next {
    let mut file = match TestFile::create(
        &info.path,
        opts.profile.jobs.iter().any(|j| j.direct),
        &info.fs_type,
    ) {
        Ok(f) => f,
        Err(e) => {
            set_engine_error(report, &e);
            return Next::Stop;
        }
    };
    // The counters are the running system's: a device found in another sysfs tree is not.
    if opts.sysfs_root == Path::new("/sys") {
        let dev = info.device.as_ref().map(|d| d.dev.as_str());
        file.count_on(dev.and_then(|d| BlockDevice::of_maj_min(d, &opts.sysfs_root)));
    }
    let card = report.card.as_ref();
    let (done, sustained) = if crate::sustained::is_sustained(&opts.profile) {
        match opts.engine {
            EngineKind::Native => crate::sustained::run(&file, info.free_bytes, card, ctx),
            EngineKind::Fio => crate::sustained::fio::run(&file, info.free_bytes, card, ctx),
        }
    } else {
        (
            engine::run_profile(opts.engine, &opts.profile, &file, ctx),
            None,
        )
    };
    let removed = file.remove();
    if done.io_path.is_some() {
        report.io_path = done.io_path;
    }
    if let Err(e) = removed {
        report.warnings.push(crate::i18n::fill(
            // Translators: {error} names each path left behind and why.
            &crate::i18n::gettext("could not remove the test file: {error}"),
            &[("error", &e)],
        ));
    }
    match done.phases {
        Ok(phases) if !report.graded => {
            report.runs.push(match sustained {
                Some(result) => RunReport::sustained(ctx.run, phases, result),
                None => RunReport::measured(ctx.run, phases),
            });
            Next::Stop
        }
        Ok(phases) => {
            let graded = RunReport::grade_profile(ctx.run, phases, &opts.profile);
            let passed = graded.verdict == Verdict::Pass;
            report.runs.push(graded);
            if passed {
                Next::Stop
            } else {
                Next::Again
            }
        }
        Err(e) => {
            set_engine_error(report, &e);
            Next::Stop
        }
    }
}

fn set_engine_error(report: &mut Report, e: &EngineError) {
    report.error = Some(ErrorReport::from_engine(e));
    report.advice.push(e.advice());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{run_line, Rerun};

    #[test]
    fn a_run_after_one_another_test_spoiled_says_so_not_that_it_failed() {
        assert_eq!(why_again(1, None), None);
        assert_eq!(why_again(2, None), Some(Rerun::Failed));
        assert_eq!(why_again(2, Some(1)), Some(Rerun::Shared));
        assert_eq!(why_again(3, Some(1)), Some(Rerun::Failed));
        assert_eq!(why_again(3, Some(2)), Some(Rerun::Shared));
        let line = run_line(2, 3, why_again(2, Some(1)));
        assert_eq!(
            line,
            "Run 2 of up to 3: another test used the drive during the run before, so that run \
             was not graded and is run again"
        );
        assert!(!line.contains("fail"), "{line}");
        assert_eq!(
            run_line(2, 3, why_again(2, None)),
            "Run 2 of up to 3: a test that fails is run again, as Raspberry Pi Diagnostics does"
        );
        assert_eq!(run_line(1, 3, why_again(1, None)), "Run 1 of up to 3");
    }
}
