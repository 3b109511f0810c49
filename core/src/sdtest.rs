//! The standard test, end to end: pre-flight, up to N runs of the profile on the program's own
//! test file, grading, advice, and the [`Report`]. Both user interfaces call [`run`].

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::advice::Advice;
use crate::drive_lock::{self, DriveLock, ShareWatch};
use crate::engine::device_io::BlockDevice;
use crate::engine::testfile::TestFile;
use crate::engine::{self, EngineError, EngineKind, Event};
use crate::profile::Profile;
use crate::report::{ErrorKind, ErrorReport, ProfileInfo, Report, RunReport, TargetReport};
use crate::target_dir::{self, TargetError, Transport};
use crate::verdict::Verdict;

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
        on_event(Event::RunStarted { run, runs });
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

/// Takes the locks of the drives the test uses and starts watching them for other tests. A
/// lock that cannot be taken is a warning: the test runs, but cannot tell.
fn watch_drives(
    opts: &TestOptions,
    info: &target_dir::TargetInfo,
    report: &mut Report,
) -> ShareWatch {
    let (lock, errors) =
        DriveLock::take(&opts.lock_dir, &drive_lock::drives(info, &opts.sysfs_root));
    for e in &errors {
        report.warnings.push(crate::i18n::fill(
            // Translators: {error} names the lock file and what the system said.
            &crate::i18n::gettext(
                "could not tell whether another test uses this drive at the same time: {error}",
            ),
            &[("error", &e)],
        ));
    }
    ShareWatch::start(lock)
}

/// What a run that shared `drive` with another test says.
fn shared_reason(drive: &drive_lock::Drive) -> String {
    crate::i18n::fill(
        // Translators: {drive} is a kernel device name such as "mmcblk0" or "sda".
        &crate::i18n::gettext(
            "another test used this drive ({drive}) while this one measured: the two shared its \
             speed, so these figures are lower than the drive's own and are not graded",
        ),
        &[("drive", &drive.name)],
    )
}

/// Run `run` shared `drive` with another test: its checks are not graded, each saying why; a
/// profile that only measures has no checks, so its report says it once as a warning. What
/// the run says.
fn not_graded_shared(report: &mut Report, run: u32, drive: &drive_lock::Drive) -> String {
    let reason = shared_reason(drive);
    if let Some(r) = report.runs.iter_mut().find(|r| r.run == run) {
        r.not_graded(&reason);
    }
    if !report.graded && !report.warnings.contains(&reason) {
        report.warnings.push(reason.clone());
    }
    reason
}

/// An empty report for `opts`: the engine, the profile and the profile's warnings.
fn new_report(opts: &TestOptions) -> Report {
    Report::new(
        opts.engine,
        ProfileInfo {
            name: opts.profile.name.clone(),
            source: opts
                .profile
                .source
                .as_ref()
                .map(|p| p.display().to_string()),
            size_bytes: opts.profile.file_size_bytes(),
        },
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

/// Warns of each graded job the profile lacks and each that is not what its check claims;
/// true when neither happens (a run can pass).
fn check_profile(opts: &TestOptions, report: &mut Report) -> bool {
    let missing: Vec<&str> = crate::verdict::targets(crate::verdict::Standard::A1)
        .iter()
        .map(|(metric, _, _)| metric.phase())
        .filter(|name| opts.profile.job(name).is_none())
        .collect();
    if !missing.is_empty() {
        report.warnings.push(crate::i18n::fill(
            // Translators: {jobs} is a list of fio job names such as "seq-write, rand-4k-read".
            &crate::i18n::gettext("the profile has no job named {jobs}: those checks cannot be graded and count as ERROR"),
            &[("jobs", &missing.join(", "))],
        ));
    }
    // A graded job that is not what its check claims is known before a byte is written.
    let mut misfit = false;
    for (metric, _, _) in crate::verdict::targets(crate::verdict::Standard::A1) {
        if let Some(why) = opts
            .profile
            .job(metric.phase())
            .and_then(|j| crate::verdict::job_problem(metric, j))
        {
            misfit = true;
            report.warnings.push(why);
        }
    }
    missing.is_empty() && !misfit
}

/// What killed runs left in the target: removed when provably ours and unused, else named;
/// both as warnings.
fn sweep_leftovers(opts: &TestOptions, report: &mut Report) {
    let swept = engine::testfile::sweep(&opts.target);
    for path in &swept.removed {
        report.warnings.push(crate::i18n::fill(
            &crate::i18n::gettext("removed the test folder left by an earlier run: {path}"),
            &[("path", &path.display())],
        ));
    }
    report
        .warnings
        .extend(swept.left.iter().map(|left| left.message()));
    // Two tests at once share the drive: each one's figures are a part of what it can do.
    for path in &swept.busy {
        report.warnings.push(crate::i18n::fill(
            &crate::i18n::gettext(
                "another test is running in this folder at the same time ({path}): both share \
                 the drive, so the figures are lower than the drive's own; run one test at a time",
            ),
            &[("path", &path.display())],
        ));
    }
}

/// The pre-flight checks: the target, its warnings and its card in the report, or `None`
/// with the report's error and advice set (and the target still named when the directory can
/// be inspected at all).
fn prepare_target(opts: &TestOptions, report: &mut Report) -> Option<target_dir::TargetInfo> {
    let info = match target_dir::preflight(
        &opts.target,
        opts.profile.file_size_bytes(),
        &opts.sysfs_root,
    ) {
        Ok(info) => info,
        Err(e) => {
            report.target = target_dir::inspect(&opts.target, &opts.sysfs_root)
                .ok()
                .map(|i| TargetReport::from_info(&i));
            report.advice.push(advice_for_target(&e));
            report.error = Some(target_error_report(&e));
            return None;
        }
    };
    report.target = Some(TargetReport::from_info(&info));
    if let Some(error) = sector_problem(opts, &info) {
        report.error = Some(error);
        return None;
    }
    report.sd_graded = info.transport == Transport::Sd;
    report.warnings.extend(info.warnings.iter().cloned());
    if let Some(device) = &info.device {
        report.card = crate::card::identify(&opts.sysfs_root, &device.disk);
    }
    Some(info)
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
    let done = engine::run_profile(opts.engine, &opts.profile, &file, ctx);
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
            report.runs.push(RunReport::measured(ctx.run, phases));
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

/// Settles the verdicts once the runs are done: a cache answering, or another test on the
/// drive during the deciding run (`shared`: what that run says), makes the test an error, an
/// error makes both verdicts ERROR; else the deciding run's verdicts, the card's findings (a
/// run the link cannot carry is not graded, and the test is an error), and the advice. The
/// results table of the profile, when it has one, in every case something was measured.
/// `system`: the target is on the drive the system runs from (see
/// [`target_dir::is_system_drive`]).
fn finish(
    report: &mut Report,
    info: &target_dir::TargetInfo,
    cached: Option<String>,
    shared: Option<String>,
    system: bool,
) {
    settle(report, info, cached, shared, system);
    report.table = crate::report::table::table(report);
}

fn settle(
    report: &mut Report,
    info: &target_dir::TargetInfo,
    cached: Option<String>,
    shared: Option<String>,
    system: bool,
) {
    if let Some(reason) = cached {
        not_graded_cached(report, reason);
    }
    if let (Some(reason), None) = (shared, &report.error) {
        report.error = Some(ErrorReport::new(
            ErrorKind::SharedDrive,
            reason,
            Advice::SharedDrive.text(),
        ));
        report.advice.push(Advice::SharedDrive);
    }
    if report.error.is_some() {
        report.verdict = Verdict::Error;
        report.a2_verdict = Verdict::Error;
        return;
    }
    let Some(run) = report.deciding_run().cloned() else {
        return;
    };
    report.verdict = run.verdict;
    report.a2_verdict = run.a2_verdict;
    // What the card claims against what was measured; a figure the link cannot carry is
    // not graded.
    report.findings = crate::card::findings(report.card.as_ref(), &run.phases);
    if let Some(message) = not_graded_implausible(report) {
        report.verdict = Verdict::Error;
        report.a2_verdict = Verdict::Error;
        report.error = Some(ErrorReport::new(
            ErrorKind::Implausible,
            message,
            Advice::ImplausibleResult.text(),
        ));
        report.advice.push(Advice::ImplausibleResult);
        return;
    }
    if !report.graded {
        // Nothing is graded, so no advice about the grade; a cache in the way still matters.
        if !info.warnings.is_empty() {
            report.advice.push(Advice::CachingFilesystem {
                fs_type: info.fs_type.clone(),
            });
        }
        return;
    }
    // A2 figures need a host that queues commands: without it, A2 is not graded.
    if let Some(reason) = report.card.as_ref().and_then(|c| c.a2_not_graded_reason()) {
        for r in &mut report.runs {
            r.a2_not_graded(&reason);
        }
        report.a2_verdict = Verdict::Error;
    }
    let run = report.deciding_run().cloned().unwrap_or(run);
    advise(report, &run, info, system);
}

/// The warning for a test whose phases all ran without the drive's own counters (a target
/// with no block device behind it), or `None` when any phase was counted or none ran.
fn uncounted(report: &Report, info: &target_dir::TargetInfo) -> Option<String> {
    let mut phases = report.runs.iter().flat_map(|r| &r.phases).peekable();
    phases.peek()?;
    phases.all(|p| p.device_io.is_none()).then(|| {
        crate::i18n::fill(
            &crate::i18n::gettext(
                "the drive's own I/O counters could not be read ({fs_type} at {path} has no \
                 block device the system counts requests for): the figures were not checked \
                 against what the drive did",
            ),
            &[("fs_type", &info.fs_type), ("path", &info.path.display())],
        )
    })
}

/// Share of a phase's bytes the drive's own counters must account for, in tenths: a phase
/// whose device moved less than 9/10 of what the engine says it did was answered, in part,
/// from memory.
const COUNTED_TENTHS: u64 = 9;

/// Why a run's figures are not the drive's, by its own counters: the first phase whose
/// device read (for a reading phase) or wrote (for a writing phase) under 90 % of the bytes
/// the engine moved, with both figures; `None` when every counted phase is accounted for
/// (phases without counters are not judged here).
pub(crate) fn counters_short(phases: &[engine::PhaseResult]) -> Option<String> {
    phases.iter().find_map(|p| {
        let io = p.device_io.as_deref()?;
        let write = p.rw.is_write();
        let device = io.bytes_for(write);
        (u128::from(device) * 10 < u128::from(p.bytes) * u128::from(COUNTED_TENTHS)).then(|| {
            // With the locale's decimal separator, as the text report shows the counters.
            let mib = |b: u64| crate::i18n::number(crate::units::mib(b), 1);
            let text = if write {
                // Translators: {device} is a block device's name such as mmcblk0p2; the
                // figures are MiB with one decimal.
                crate::i18n::gettext(
                    "{phase}: {device} wrote {device_mib} MiB of the {engine_mib} MiB the test \
                     wrote: the rest was answered from memory, not by the drive",
                )
            } else {
                crate::i18n::gettext(
                    "{phase}: {device} read {device_mib} MiB of the {engine_mib} MiB the test \
                     read: the rest was answered from memory, not by the drive",
                )
            };
            crate::i18n::fill(
                &text,
                &[
                    ("phase", &p.name),
                    ("device", &io.device),
                    ("device_mib", &mib(device)),
                    ("engine_mib", &mib(p.bytes)),
                ],
            )
        })
    })
}

/// Every run not graded because a cache answered (`reason`), and, unless another error came
/// first, the test's error.
fn not_graded_cached(report: &mut Report, reason: String) {
    for run in &mut report.runs {
        run.not_graded(&reason);
    }
    if report.error.is_none() {
        report.error = Some(ErrorReport::new(
            ErrorKind::Cached,
            reason,
            Advice::CachedResult.text(),
        ));
        report.advice.push(Advice::CachedResult);
    }
}

/// Every run is checked, not only the deciding one: no run that the link cannot carry keeps a
/// PASS anywhere (its checks, its verdicts, the compat lines, the log). The first such finding,
/// if any.
pub(crate) fn not_graded_implausible(report: &mut Report) -> Option<String> {
    let mut first_implausible = None;
    for r in &mut report.runs {
        let found = crate::card::findings(report.card.as_ref(), &r.phases);
        if let Some(f) = found.iter().find(|f| f.is_implausible()) {
            let text = f.text();
            r.not_graded(&text);
            first_implausible.get_or_insert(text);
        }
    }
    first_implausible
}

/// The advice that follows from the deciding `run` on the target `info` (`system`: the drive
/// the system runs from). A drive that is not an SD card is said so first, beside the
/// verdict, before any advice about the grade; advice that only an SD card can follow (A1 or
/// A2 cards) is given for SD cards only; a slow sequential write says what reformatting means
/// for this drive and how to do it safely.
fn advise(report: &mut Report, run: &RunReport, info: &target_dir::TargetInfo, system: bool) {
    use crate::verdict::{Metric, Standard};
    let failed = |m| run.check(m, Standard::A1).map(|c| c.verdict) == Some(Verdict::Fail);
    let sd = info.transport == Transport::Sd;
    if !sd {
        report.advice.push(Advice::NotAnSdCard {
            transport: info.transport.as_str().to_owned(),
        });
    }
    // "Your card meets A1" only where the SD targets rate the device.
    if run.verdict == Verdict::Pass && sd {
        report.advice.push(Advice::MeetsA1);
        if run.a2_verdict == Verdict::Pass {
            report.advice.push(Advice::MeetsA2);
        }
    }
    if failed(Metric::SeqWrite) {
        report.advice.push(Advice::SeqWriteSlow);
        report.advice.push(Advice::ReformatSafely { system });
    }
    if failed(Metric::RandWrite) || failed(Metric::RandRead) {
        report.advice.push(if sd {
            Advice::RandomIoSlow
        } else {
            Advice::RandomIoSlowDrive
        });
    }
    if !info.warnings.is_empty() {
        report.advice.push(Advice::CachingFilesystem {
            fs_type: info.fs_type.clone(),
        });
    }
}

/// O_DIRECT moves whole sectors: a direct job whose block size is not a multiple of the
/// drive's logical sector would fail with EINVAL at its first request, which reads like a
/// failing drive. Known before a byte is written: the error (kind `profile`) naming the job.
fn sector_problem(opts: &TestOptions, info: &target_dir::TargetInfo) -> Option<ErrorReport> {
    let (device, sector) = info
        .device
        .as_ref()
        .and_then(|d| logical_sector(&opts.sysfs_root, d))?;
    let job = opts
        .profile
        .jobs
        .iter()
        .find(|j| j.direct && j.bs % sector != 0)?;
    let message = crate::i18n::fill(
        &crate::i18n::gettext(
            "job {job} has bs={bs} bytes, but O_DIRECT on {device} needs a multiple of \
             its {sector}-byte sectors",
        ),
        &[
            ("job", &job.name),
            ("bs", &job.bs),
            ("device", &device),
            ("sector", &sector),
        ],
    );
    let hint = crate::i18n::fill(
        &crate::i18n::gettext(
            "Use block sizes that are multiples of {sector} bytes in the profile, or \
             direct=0.",
        ),
        &[("sector", &sector)],
    );
    Some(ErrorReport::new(ErrorKind::Profile, message, hint))
}

/// The largest logical sector size, bytes, of the devices in `device`'s stack that sysfs
/// describes (`<sysfs_root>/block/<name>/queue/logical_block_size`; partitions have none and
/// are skipped), with the device it belongs to; `None` when none is readable, all are 512, or
/// a value is not a power of two from 1 KiB to 64 KiB (the sizes the kernel gives).
fn logical_sector(
    sysfs_root: &std::path::Path,
    device: &crate::target_dir::DeviceInfo,
) -> Option<(String, u64)> {
    device
        .stack
        .iter()
        .filter_map(|name| {
            let path = sysfs_root
                .join("block")
                .join(name)
                .join("queue/logical_block_size");
            let size: u64 = std::fs::read_to_string(path).ok()?.trim().parse().ok()?;
            (size > 512 && size <= 64 * 1024 && size.is_power_of_two())
                .then(|| (name.clone(), size))
        })
        .max_by_key(|(_, size)| *size)
}

fn set_engine_error(report: &mut Report, e: &EngineError) {
    report.error = Some(ErrorReport::from_engine(e));
    report.advice.push(e.advice());
}

/// The advice for a target the pre-flight checks refused (what the error dialog and the ready
/// page say to do).
pub fn advice_for_target(e: &TargetError) -> Advice {
    match e {
        TargetError::Missing { .. }
        | TargetError::NotADirectory { .. }
        | TargetError::NotWritable { .. }
        | TargetError::NotStorage { .. } => Advice::ChooseAnotherFolder,
        TargetError::ReadOnly { .. } => Advice::ReadOnlyTarget,
        TargetError::Memory { .. } => Advice::MemoryTarget,
        TargetError::NoSpace { .. } => Advice::FreeSomeSpace,
        TargetError::Inspect { .. } => Advice::ChooseAnotherFolder,
    }
}

fn target_error_report(e: &TargetError) -> ErrorReport {
    ErrorReport::new(e.kind(), e.message(), advice_for_target(e).text())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    const MIB: u64 = 1 << 20;

    fn nfs() -> target_dir::TargetInfo {
        target_dir::TargetInfo {
            path: PathBuf::from("/mnt/share"),
            fs_type: "nfs4".into(),
            mount_point: PathBuf::from("/mnt/share"),
            device: None,
            transport: Transport::Other,
            free_bytes: 1 << 30,
            total_bytes: 1 << 31,
            read_only: false,
            mount_options: Vec::new(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn a_phase_the_drive_did_nine_tenths_of_is_the_drives() {
        let read = |moved| {
            sample::phase("seq-read")
                .bytes(100 * MIB)
                .device_io("sda1", moved, 25)
                .build()
        };
        assert_eq!(counters_short(&[read(90 * MIB)]), None);
        assert_eq!(
            counters_short(&[read(90 * MIB - 512)]).as_deref(),
            Some(
                "seq-read: sda1 read 90.0 MiB of the 100.0 MiB the test read: the rest was \
                 answered from memory, not by the drive"
            )
        );
        // A write phase is judged by what the drive wrote; reads it did do not count.
        let write = sample::phase("seq-write")
            .bytes(8 * MIB)
            .device_io("sda1", MIB, 1)
            .build();
        assert!(counters_short(&[write])
            .unwrap()
            .starts_with("seq-write: sda1 wrote 1.0 MiB of the 8.0 MiB the test wrote"));
        // Phases without counters are not judged by them.
        assert_eq!(counters_short(&[sample::phase("seq-read").build()]), None);
    }

    #[test]
    fn a_test_without_any_counters_says_so_once() {
        let mut report = sample::report()
            .run(sample::run(1, [sample::phase("seq-write").bw_bytes(1e7)]))
            .build();
        let warning = uncounted(&report, &nfs()).unwrap();
        assert!(
            warning
                .starts_with("the drive's own I/O counters could not be read (nfs4 at /mnt/share"),
            "{warning}"
        );
        // One counted phase is enough; no phase at all says nothing.
        report.runs[0].phases[0].device_io = sample::phase("seq-write")
            .device_io("vda", 1, 1)
            .build()
            .device_io;
        assert_eq!(uncounted(&report, &nfs()), None);
        report.runs.clear();
        assert_eq!(uncounted(&report, &nfs()), None);
    }
}
