//! `agnostics-cli health [--target DIR | --device NAME] [--json]`: how healthy is the drive
//! (by default the one behind the default target)? What the kernel logged about it since
//! boot, its own wear report, its speed against its first tests and a capacity check that
//! found it fake, weighed into one verdict with what to do. Quick and writes nothing. Exit
//! status: 0 healthy or unknown, 1 worn or failing, 2 an error.

use std::fmt::Write;
use std::path::Path;

use agnostics_core::card::{self, CardInfo};
use agnostics_core::drive::identity::Volume;
use agnostics_core::exit_code::ExitCode;
use agnostics_core::health::{self, HealthReport, Sources};
use agnostics_core::i18n::{fill, gettext};
use agnostics_core::report::{terminal_safe, visible};
use agnostics_core::target_dir::{self, TargetInfo};

use crate::args::HealthArgs;
use crate::history_open::{open_for_reading, path};
use crate::output::{emit, To};

/// Says `message` on stderr (and with `--json` as `{"error": {"message": …}}` on stdout);
/// returns 2.
fn fail(args: &HealthArgs, message: &str) -> i32 {
    emit(To::Stderr, format!("agnostics-cli: {message}\n"));
    if args.json {
        let doc = serde_json::json!({ "error": { "message": message } });
        emit(To::Stdout, format!("{doc:#}\n"));
    }
    ExitCode::NoVerdict.code()
}

/// The disk to look at and, when it was found through a folder, that folder's file system.
fn target(args: &HealthArgs) -> Result<(String, Option<TargetInfo>), String> {
    if let Some(d) = &args.device {
        return Ok((d.trim_start_matches("/dev/").to_owned(), None));
    }
    let dir = args
        .target
        .clone()
        .unwrap_or_else(|| target_dir::default_target(&args.sysfs_root));
    let info = target_dir::inspect(&dir, &args.sysfs_root).map_err(|e| e.to_string())?;
    match &info.device {
        Some(d) => Ok((d.disk.clone(), Some(info))),
        None => Err(fill(
            &gettext("{path} is not on a block device ({fs_type}); name one with --device, e.g. --device mmcblk0"),
            &[("path", &dir.display()), ("fs_type", &info.fs_type)],
        )),
    }
}

/// The card or drive named `disk`, or why not.
fn identify(disk: &str, sysfs_root: &Path) -> Result<CardInfo, String> {
    let bad = disk.is_empty()
        || disk == "."
        || disk == ".."
        || disk.contains('/')
        || disk
            .chars()
            .any(|c| c.is_control() || agnostics_core::report::is_bidi_control(c));
    if bad {
        return Err(fill(
            &gettext(
                "“{device}” is not a device name such as mmcblk0 or sda; see `lsblk` for the names",
            ),
            &[("device", &visible(disk))],
        ));
    }
    card::identify(sysfs_root, disk).ok_or_else(|| {
        fill(
            &gettext("unknown device {device}: {root}/block/{device} does not exist; see `lsblk` for the names"),
            &[
                ("device", &visible(disk)),
                ("root", &visible(&sysfs_root.to_string_lossy())),
            ],
        )
    })
}

/// Runs the subcommand; returns the exit status.
pub fn main(args: &HealthArgs) -> i32 {
    let (disk, info) = match target(args) {
        Ok(t) => t,
        Err(e) => return fail(args, &e),
    };
    let card = match identify(&disk, &args.sysfs_root) {
        Ok(c) => c,
        Err(e) => return fail(args, &e),
    };
    let history = match open_for_reading(&path()) {
        Ok(h) => h,
        Err(e) => return fail(args, &e.to_string()),
    };
    let sources = Sources {
        sysfs_root: &args.sysfs_root,
        kernel_log: &args.kernel_log,
        dev_root: Path::new("/dev"),
    };
    let volume = info.as_ref().map(Volume::from);
    let report = match health::check(&card, volume, sources, history.as_ref()) {
        Ok(r) => r,
        Err(e) => return fail(args, &e.to_string()),
    };
    let printed = if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(j) => emit(To::Stdout, format!("{j}\n")),
            Err(e) => return fail(args, &e.to_string()),
        }
    } else {
        emit(To::Stdout, terminal_safe(&to_text(&report)))
    };
    if printed != 0 {
        return printed;
    }
    report.verdict.exit_code()
}

/// Rows of label and value, the labels aligned.
fn rows(out: &mut String, rows: &[(String, Vec<String>)]) {
    let w = rows
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    for (label, values) in rows {
        for (i, v) in values.iter().enumerate() {
            let l = if i == 0 { label.as_str() } else { "" };
            let _ = writeln!(out, "{l:<w$}  {v}");
        }
    }
}

/// The kernel log in a line or a few: what it counted, or why it could not be read.
fn kernel_lines(r: &HealthReport) -> Vec<String> {
    let k = &r.kernel_log;
    if !k.readable {
        return vec![k.reason.clone().unwrap_or_default()];
    }
    let appeared = k.counted_from.is_some();
    let mut out = vec![match (k.lines.is_empty(), appeared) {
        (true, false) => gettext("nothing about this drive since boot"),
        (true, true) => gettext("nothing about this drive since it appeared"),
        (false, false) => fill(
            &gettext("messages about trouble with this drive since boot: {count}; the newest:"),
            &[("count", &total(r))],
        ),
        (false, true) => fill(
            &gettext(
                "messages about trouble with this drive since it appeared: {count}; the newest:",
            ),
            &[("count", &total(r))],
        ),
    }];
    out.extend(
        k.lines
            .iter()
            .rev()
            .take(3)
            .map(|l| format!("  {}", visible(l))),
    );
    if !k.from_boot && !appeared {
        out.push(gettext(
            "(the oldest messages since boot are no longer in the log)",
        ));
    }
    out
}

/// Every message counted about the drive.
fn total(r: &HealthReport) -> u32 {
    let c = &r.kernel_log.counts;
    c.read_only_remounts + c.fs_errors + c.io_errors + c.cqe_recoveries + c.timeouts + c.mmc_errors
}

/// The readable report: the drive, each source, the findings, the verdict and what to do.
pub fn to_text(r: &HealthReport) -> String {
    let mut drive = visible(&r.device);
    if let Some(m) = &r.model {
        let _ = write!(drive, " ({})", visible(m));
    }
    let own = match &r.emmc_wear {
        Some(w) => w.describe(),
        None => r.sd_health.describe(),
    };
    let speed = match &r.trend {
        Some(t) => t.describe(),
        None => vec![fill(
            &gettext("no earlier test of this drive to compare with ({runs} in the history)"),
            &[("runs", &r.history_runs)],
        )],
    };
    let mut out = String::new();
    rows(
        &mut out,
        &[
            (gettext("Drive:"), vec![drive]),
            (gettext("Kernel log:"), kernel_lines(r)),
            (gettext("Own report:"), vec![own]),
            (gettext("Speed:"), speed),
        ],
    );
    out.push('\n');
    for f in &r.findings {
        let _ = writeln!(out, "• {}", f.text);
    }
    let _ = writeln!(
        out,
        "{}\n{}",
        fill(
            &gettext("Health: {verdict}"),
            &[("verdict", &r.verdict.word())]
        ),
        r.advice
    );
    out
}
