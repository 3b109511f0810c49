//! What is known before a byte is written: the profile's graded jobs, what killed runs left,
//! the target's pre-flight checks and its sectors, and the advice for a refused target.

use crate::advice::Advice;
use crate::engine;
use crate::report::{ErrorKind, ErrorReport, Report, TargetReport};
use crate::target_dir::{self, TargetError, Transport};

use super::TestOptions;

/// Warns of each graded job the profile lacks and each that is not what its check claims;
/// true when neither happens (a run can pass).
pub(super) fn check_profile(opts: &TestOptions, report: &mut Report) -> bool {
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
            .and_then(|j| crate::judge::job_problem(metric, j))
        {
            misfit = true;
            report.warnings.push(why);
        }
    }
    missing.is_empty() && !misfit
}

/// What killed runs left in the target: removed when provably ours and unused, else named;
/// both as warnings. What was removed, and another test running there, name the folder the
/// person chose, not the program's hidden folders in it; what is left names its own path (for
/// the person to delete it).
pub(super) fn sweep_leftovers(opts: &TestOptions, report: &mut Report) {
    let swept = engine::testfile::sweep(&opts.target);
    let folder = opts.target.display();
    if !swept.removed.is_empty() {
        report.warnings.push(crate::i18n::fill(
            &crate::i18n::gettext("removed the test folder left by an earlier run in {folder}"),
            &[("folder", &folder)],
        ));
    }
    report
        .warnings
        .extend(swept.left.iter().map(|left| left.message()));
    // Two tests at once share the drive: each one's figures are a part of what it can do.
    if !swept.busy.is_empty() {
        report.warnings.push(crate::i18n::fill(
            &crate::i18n::gettext(
                "another test is running in {folder} at the same time: both share the drive, so \
                 the figures are lower than the drive's own; run one test at a time",
            ),
            &[("folder", &folder)],
        ));
    }
}

/// The pre-flight checks: the target, its warnings and its card in the report, or `None`
/// with the report's error and advice set (and the target still named when the directory can
/// be inspected at all).
pub(super) fn prepare_target(
    opts: &TestOptions,
    report: &mut Report,
) -> Option<target_dir::TargetInfo> {
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
