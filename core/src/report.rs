//! The report: the one result type of a test, from the engine to the CLI's text and JSON, the
//! desktop app's rows and the `rpdiags.txt` log.
//!
//! JSON shape (`serde_json::to_string(&report)`): `verdict`, `a2_verdict`, `engine`, `io_path`,
//! `profile`, `target` {`path`, `device`, `transport`, `fs_type`, …}, `card`, `runs` [ {`run`,
//! `verdict`, `a2_verdict`, `phases` [ {`name`, `bytes`, `ios`, `seconds`, `bw_bytes`, `iops`,
//! `lat_us` {`p50`, `p99`, `max`}, `samples`, …} ], `checks` [ {`name`, `standard`, `value`,
//! `unit`, `target`, `verdict`, `reason`} ] } ], `error` (null or {`kind`, `message`, `hint`}),
//! `warnings`, `advice`, `findings` (the card's claims against the measurement).

use serde::{Deserialize, Serialize};

use crate::advice::Advice;
use crate::card::CardInfo;
use crate::engine::{EngineKind, IoPath, PhaseResult};
use crate::target_dir::{TargetInfo, Transport};
use crate::verdict::{Check, Metric, Standard, Verdict};

/// Which profile ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileInfo {
    /// Short name (`sd_bench` for the built-in one).
    pub name: String,
    /// The job file, `None` for the built-in profile.
    pub source: Option<String>,
    /// Size of the test file, bytes.
    pub size_bytes: u64,
}

/// Where the test ran, as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetReport {
    /// The target directory.
    pub path: String,
    /// The disk that did the I/O (e.g. `mmcblk0`), or null when there is none.
    pub device: Option<String>,
    /// The filesystem's own device (e.g. `mmcblk0p2`, `dm-0`).
    pub partition: Option<String>,
    /// How the disk is attached.
    pub transport: Transport,
    /// The filesystem type.
    pub fs_type: String,
    /// Vendor/model from sysfs, when known.
    pub model: Option<String>,
    /// Bytes free before the test.
    pub free_bytes: u64,
}

impl TargetReport {
    /// The report's view of a checked target.
    pub fn from_info(info: &TargetInfo) -> TargetReport {
        TargetReport {
            path: info.path.display().to_string(),
            device: info.device.as_ref().map(|d| d.disk.clone()),
            partition: info.device.as_ref().map(|d| d.name.clone()),
            transport: info.transport,
            fs_type: info.fs_type.clone(),
            model: info.device.as_ref().and_then(|d| d.model.clone()),
            free_bytes: info.free_bytes,
        }
    }
}

/// One run of the whole profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// 1-based run number.
    pub run: u32,
    /// The A1 verdict of this run (upstream's verdict).
    pub verdict: Verdict,
    /// The A2 verdict of this run.
    pub a2_verdict: Verdict,
    /// One result per phase, in profile order.
    pub phases: Vec<PhaseResult>,
    /// A1 checks then A2 checks.
    pub checks: Vec<Check>,
}

impl RunReport {
    /// Grades `phases` and builds the run's report.
    pub fn grade(run: u32, phases: Vec<PhaseResult>) -> RunReport {
        let a1 = crate::verdict::checks(&phases, Standard::A1);
        let a2 = crate::verdict::checks(&phases, Standard::A2);
        let verdict = Verdict::all(a1.iter().map(|c| c.verdict));
        let a2_verdict = Verdict::all(a2.iter().map(|c| c.verdict));
        let mut checks = a1;
        checks.extend(a2);
        RunReport {
            run,
            verdict,
            a2_verdict,
            phases,
            checks,
        }
    }

    /// Grades `phases` as the test does: like [`RunReport::grade`], but a check whose job in
    /// `profile` is not what the check claims (direction, pattern, block size, `direct=1`) is
    /// ERROR with the reason (see [`crate::verdict::job_problem`]).
    pub fn grade_profile(
        run: u32,
        phases: Vec<PhaseResult>,
        profile: &crate::profile::Profile,
    ) -> RunReport {
        let a1 = crate::verdict::checks_for(&phases, profile, Standard::A1);
        let a2 = crate::verdict::checks_for(&phases, profile, Standard::A2);
        let verdict = Verdict::all(a1.iter().map(|c| c.verdict));
        let a2_verdict = Verdict::all(a2.iter().map(|c| c.verdict));
        let mut checks = a1;
        checks.extend(a2);
        RunReport {
            run,
            verdict,
            a2_verdict,
            phases,
            checks,
        }
    }

    /// Makes the whole run ungraded: every check and both verdicts ERROR, with `reason` on
    /// each check that has none yet; the phases and measured values are kept.
    pub fn not_graded(&mut self, reason: &str) {
        for c in &mut self.checks {
            c.not_graded(reason);
        }
        self.verdict = Verdict::Error;
        self.a2_verdict = Verdict::Error;
    }

    /// The check of `metric` against `standard`.
    pub fn check(&self, metric: Metric, standard: Standard) -> Option<&Check> {
        self.checks
            .iter()
            .find(|c| c.metric == metric && c.standard == standard)
    }

    /// The result of the phase named `name`.
    pub fn phase(&self, name: &str) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.name == name)
    }
}

/// What kind of error stopped the test: one name per cause, the same in the JSON report
/// (`error.kind`, the snake_case name listed on each variant, [`ErrorKind::as_str`]), the log
/// and the app's dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `missing`: the target folder does not exist.
    Missing,
    /// `not_a_directory`: the target is not a folder.
    NotADirectory,
    /// `not_writable`: the program may not write in the target folder.
    NotWritable,
    /// `read_only`: the drive is, or became, read-only.
    ReadOnly,
    /// `memory`: the target is in memory (tmpfs, ramfs, zram), not on a drive.
    Memory,
    /// `not_storage`: the target is not on storage that can be measured (e.g. /proc).
    NotStorage,
    /// `no_space`: not enough free space, before or during the test.
    NoSpace,
    /// `inspect`: the target could not be inspected.
    Inspect,
    /// `io`: a read, write, fsync or open failed.
    Io,
    /// `test_file_gone`: the test file was removed or replaced while the test ran.
    TestFileGone,
    /// `direct_io_refused`: the filesystem does not accept O_DIRECT.
    DirectIoRefused,
    /// `fio_missing`: fio is not installed.
    FioMissing,
    /// `fio_hung`: fio stopped responding and was stopped.
    FioHung,
    /// `fio_failed`: fio failed.
    FioFailed,
    /// `cancelled`: the user (or a signal) stopped the test.
    Cancelled,
    /// `cached`: a layer answered from memory; the run is shown, never graded.
    Cached,
    /// `implausible`: a figure the link to the drive cannot carry.
    Implausible,
    /// `profile`: the profile (job file) could not be loaded.
    Profile,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 18] = [
        ErrorKind::Missing,
        ErrorKind::NotADirectory,
        ErrorKind::NotWritable,
        ErrorKind::ReadOnly,
        ErrorKind::Memory,
        ErrorKind::NotStorage,
        ErrorKind::NoSpace,
        ErrorKind::Inspect,
        ErrorKind::Io,
        ErrorKind::TestFileGone,
        ErrorKind::DirectIoRefused,
        ErrorKind::FioMissing,
        ErrorKind::FioHung,
        ErrorKind::FioFailed,
        ErrorKind::Cancelled,
        ErrorKind::Cached,
        ErrorKind::Implausible,
        ErrorKind::Profile,
    ];

    /// The JSON name, e.g. `test_file_gone` (untranslated: scripts read it). The one place
    /// each name is spelled: serialising and parsing use it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Missing => "missing",
            ErrorKind::NotADirectory => "not_a_directory",
            ErrorKind::NotWritable => "not_writable",
            ErrorKind::ReadOnly => "read_only",
            ErrorKind::Memory => "memory",
            ErrorKind::NotStorage => "not_storage",
            ErrorKind::NoSpace => "no_space",
            ErrorKind::Inspect => "inspect",
            ErrorKind::Io => "io",
            ErrorKind::TestFileGone => "test_file_gone",
            ErrorKind::DirectIoRefused => "direct_io_refused",
            ErrorKind::FioMissing => "fio_missing",
            ErrorKind::FioHung => "fio_hung",
            ErrorKind::FioFailed => "fio_failed",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Cached => "cached",
            ErrorKind::Implausible => "implausible",
            ErrorKind::Profile => "profile",
        }
    }
}

impl Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        ErrorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown error kind {name:?}")))
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error that stopped the test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorReport {
    /// Machine-readable kind (JSON: its snake_case name, e.g. `no_space`).
    pub kind: ErrorKind,
    /// What happened, for people: at most [`SHORT_MESSAGE_CHARS`] characters on one line
    /// (a longer text is cut at its first line or sentence, or at a word, with `…`).
    pub message: String,
    /// What to do, for people.
    pub hint: String,
    /// The whole text when `message` had to be shortened (fio's error lines can run to
    /// hundreds of characters), else `None` (`null` in JSON).
    #[serde(default)]
    pub details: Option<String>,
}

/// The longest [`ErrorReport::message`], in characters.
pub const SHORT_MESSAGE_CHARS: usize = 160;

impl ErrorReport {
    /// The report of an error of `kind` whose whole text is `text`: `message` is the text
    /// shortened by [`shorten`], `details` the whole text when that shortened it.
    pub fn new(kind: ErrorKind, text: String, hint: String) -> ErrorReport {
        let (message, details) = match shorten(&text, SHORT_MESSAGE_CHARS) {
            Some(short) => (short, Some(text)),
            None => (text, None),
        };
        ErrorReport {
            kind,
            message,
            hint,
            details,
        }
    }

    /// The report of an engine error: its kind, translated message and advice.
    pub fn from_engine(e: &crate::engine::EngineError) -> ErrorReport {
        ErrorReport::new(e.kind(), e.message(), e.advice().text())
    }

    /// True when the user (or a signal) stopped the test.
    pub fn is_cancelled(&self) -> bool {
        self.kind == ErrorKind::Cancelled
    }
}

/// `text` cut for people to at most `max` characters (`…` included), or `None` when it is one
/// line that fits. The cut keeps the first line; if that is still too long, as many of its
/// sentences or clauses (ending in `.`, `;` or `:` and a space) as fit, when that is at least a
/// third of `max`, else as many whole words; `…` marks what was left out.
pub fn shorten(text: &str, max: usize) -> Option<String> {
    let text = text.trim();
    let first = text.lines().next().unwrap_or("").trim_end();
    if first.len() == text.len() && first.chars().count() <= max {
        return None;
    }
    // Room for the ellipsis.
    let room = max.saturating_sub(1);
    if first.chars().count() <= room {
        return Some(format!("{first}…"));
    }
    let head: String = first.chars().take(room).collect();
    let sentence_end = head
        .match_indices(['.', ';', ':'])
        .map(|(i, _)| i)
        .rfind(|&i| head[i + 1..].starts_with(' ') && head[..i].chars().count() >= max / 3);
    let cut = match sentence_end {
        Some(i) => &head[..i],
        None => match head.rfind(' ') {
            Some(i) if head[..i].chars().count() >= max / 3 => &head[..i],
            _ => head.as_str(),
        },
    };
    Some(format!("{}…", cut.trim_end()))
}

/// The whole result of a test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The program and version, e.g. `agnostics 0.1.0`.
    pub program: String,
    /// Local start time, RFC 3339.
    pub started: String,
    /// Overall verdict: A1, like upstream. PASS when a run passed; ERROR when a test error
    /// stopped it or nothing was measured.
    pub verdict: Verdict,
    /// The A2 verdict of the same run.
    pub a2_verdict: Verdict,
    /// True when the device is an SD card, so the SD targets rate it; false: reference only.
    pub sd_graded: bool,
    /// The engine.
    pub engine: EngineKind,
    /// The I/O path the engine used (JSON `io_uring`, `threads`, `fio libaio`, …; `""` when
    /// nothing ran).
    #[serde(with = "io_path_or_empty")]
    pub io_path: Option<IoPath>,
    /// The profile.
    pub profile: ProfileInfo,
    /// Where it ran; `None` only when the target could not even be inspected.
    pub target: Option<TargetReport>,
    /// The card or drive, when identified.
    pub card: Option<CardInfo>,
    /// Each run, in order.
    pub runs: Vec<RunReport>,
    /// The error that stopped the test, or null.
    pub error: Option<ErrorReport>,
    /// Warnings for people (caching filesystem, ignored profile keys, thread-pool fallback).
    pub warnings: Vec<String>,
    /// Advice, most important first.
    pub advice: Vec<Advice>,
    /// What the card claims against what was measured, and figures the link cannot carry
    /// (see [`crate::card::claims`]).
    #[serde(default)]
    pub findings: Vec<crate::card::Finding>,
}

impl Report {
    /// The report of a test of `profile` with `engine` that has not measured anything yet:
    /// verdict ERROR, no target, no runs, no error, the profile's warnings.
    pub fn new(engine: EngineKind, profile: ProfileInfo, warnings: Vec<String>) -> Report {
        Report {
            program: format!("agnostics {}", crate::VERSION),
            started: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            verdict: Verdict::Error,
            a2_verdict: Verdict::Error,
            sd_graded: false,
            engine,
            io_path: None,
            profile,
            target: None,
            card: None,
            runs: Vec::new(),
            error: None,
            warnings,
            advice: Vec::new(),
            findings: Vec::new(),
        }
    }

    /// The report of a test refused before it started (e.g. a profile that cannot be read):
    /// a document with every field of a measured one, verdict ERROR, no runs, `error` set and
    /// `advice` the one piece given.
    pub fn refused(
        engine: EngineKind,
        profile: ProfileInfo,
        error: ErrorReport,
        advice: Advice,
    ) -> Report {
        let mut report = Report::new(engine, profile, Vec::new());
        report.error = Some(error);
        report.advice.push(advice);
        report
    }

    /// The run the overall verdict comes from: the first that passed, else the last.
    pub fn deciding_run(&self) -> Option<&RunReport> {
        self.runs
            .iter()
            .find(|r| r.verdict == Verdict::Pass)
            .or_else(|| self.runs.last())
    }

    /// The process exit status for this report: 0 PASS, 1 FAIL, 2 ERROR, 130 cancelled.
    pub fn exit_code(&self) -> i32 {
        if self.error.as_ref().is_some_and(ErrorReport::is_cancelled) {
            return 130;
        }
        match self.verdict {
            Verdict::Pass => 0,
            Verdict::Fail => 1,
            Verdict::Error => 2,
        }
    }
}

/// `Report::io_path` in JSON: the path's name, or `""` when there is none (the document's
/// shape from before the field was typed).
mod io_path_or_empty {
    use super::IoPath;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(path: &Option<IoPath>, s: S) -> Result<S::Ok, S::Error> {
        match path {
            Some(p) => p.serialize(s),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<IoPath>, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        IoPath::parse(&text)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown I/O path {text:?}")))
    }
}

/// Upstream agnostics' result lines for one run, exactly as upstream prints them (English on
/// purpose: scripts parse them): `Sequential write speed N KB/sec (target 10000) - PASS`,
/// `Random write speed N IOPS (target 500) - FAIL`, `Random read speed N IOPS (target 1500) -
/// PASS`, and after a sequential-write FAIL upstream's reformatting note. Values are whole
/// numbers rounded down ([`whole`], as the text report's table), so a shown value never reaches
/// the target of a FAIL (KB/sec is KiB/s). A check without a value prints `ERROR` in place of
/// the number; a check that could not be graded prints its value and `ERROR`.
pub fn compat_lines(run: &RunReport) -> Vec<String> {
    let mut lines = Vec::new();
    let fmt = |c: Option<&Check>, what: &str, unit: &str| -> String {
        match c {
            Some(c) => {
                let value = c
                    .value
                    .map(|v| format!("{}", whole(v) as u64))
                    .unwrap_or_else(|| "ERROR".into());
                format!(
                    "{what} {value} {unit} (target {}) - {}",
                    c.target as u64, c.verdict
                )
            }
            None => format!("{what} ERROR {unit} - ERROR"),
        }
    };
    let seq = run.check(Metric::SeqWrite, Standard::A1);
    lines.push(fmt(seq, "Sequential write speed", "KB/sec"));
    lines.push(fmt(
        run.check(Metric::RandWrite, Standard::A1),
        "Random write speed",
        "IOPS",
    ));
    lines.push(fmt(
        run.check(Metric::RandRead, Standard::A1),
        "Random read speed",
        "IOPS",
    ));
    if seq.map(|c| c.verdict) == Some(Verdict::Fail) {
        lines.push(
            "Note that sequential write speed declines over time as a card is used - your card may require reformatting"
                .into(),
        );
    }
    lines
}

/// A figure as a whole number the way every report shows it: rounded down (9999.6 KiB/s
/// against a 10000 target shows 9999, never the target it missed). Negative, NaN → 0.
pub fn whole(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v.floor()
    } else {
        0.0
    }
}

/// `v` rounded down to `decimals` places, the way the text table shows MB/s.
fn down(v: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    // The tiny allowance keeps 0.29 (28.999… hundredths in binary) from showing as 0.28.
    whole(v * scale + 1e-7) / scale
}

/// Text from outside (a path, a model name, a filesystem type) made safe for one line:
/// control characters (newline, tab, escape, …) are shown as escapes such as `\n`, `\t` or
/// `\u{1b}`; everything else, including non-ASCII letters, is kept.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// The report as plain text for people (translated), the form the CLI prints and the desktop
/// app's **Copy results** copies: each run's upstream compat lines, then a summary with MB/s and
/// IOPS, the device tested, warnings and advice.
pub fn to_text(report: &Report) -> String {
    use crate::i18n::{fill, gettext, number};
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", report.program, report.started);
    if let Some(t) = &report.target {
        let device = t
            .device
            .clone()
            .unwrap_or_else(|| gettext("no block device"));
        let transport = t.transport.as_str().to_owned();
        let mut line = fill(
            &gettext("Tested: {path} on {device} ({transport}, {fs_type})"),
            &[
                ("path", &visible(&t.path)),
                ("device", &visible(&device)),
                ("transport", &transport),
                ("fs_type", &visible(&t.fs_type)),
            ],
        );
        if let Some(model) = &t.model {
            let _ = write!(line, " — {}", visible(model));
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(card) = report
        .card
        .as_ref()
        .and_then(crate::card::CardInfo::summary)
    {
        let _ = writeln!(out, "{card}");
    }
    let engine = match &report.io_path {
        None => fill(
            &gettext("Engine: {engine}; profile {profile}"),
            &[
                ("engine", &report.engine.as_str()),
                ("profile", &report.profile.name),
            ],
        ),
        Some(io_path) => fill(
            &gettext("Engine: {engine} ({io_path}); profile {profile}"),
            &[
                ("engine", &report.engine.as_str()),
                ("io_path", io_path),
                ("profile", &report.profile.name),
            ],
        ),
    };
    let _ = writeln!(out, "{engine}");
    for run in &report.runs {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", fill(&gettext("Run {run}"), &[("run", &run.run)]));
        for line in compat_lines(run) {
            let _ = writeln!(out, "{line}");
        }
        let mut reasons: Vec<&str> = Vec::new();
        for c in &run.checks {
            if let Some(r) = c.reason.as_deref() {
                if !reasons.contains(&r) {
                    reasons.push(r);
                }
            }
        }
        for r in reasons {
            let _ = writeln!(
                out,
                "{}",
                // Translators: {reason} says why a measured figure is not graded.
                fill(&gettext("Not graded: {reason}"), &[("reason", &r)])
            );
        }
        for p in &run.phases {
            let _ = writeln!(
                out,
                "  {:<14} {:>9} MB/s  {:>9} IOPS  p99 {:>9} µs",
                visible(&p.name),
                number(down(crate::units::mb_per_s(p.bw_bytes), 2), 2),
                number(whole(p.iops), 0),
                number(p.lat_us.p99, 0),
            );
        }
        let _ = writeln!(
            out,
            "{}",
            fill(
                &gettext("A1: {a1}   A2: {a2}"),
                &[
                    ("a1", &run.verdict.as_str()),
                    ("a2", &run.a2_verdict.as_str())
                ]
            )
        );
    }
    let _ = writeln!(out);
    if let Some(e) = &report.error {
        let _ = writeln!(
            out,
            "{}",
            fill(&gettext("Error: {message}"), &[("message", &e.message)])
        );
        if let Some(details) = &e.details {
            let _ = writeln!(
                out,
                "{}",
                // Translators: the whole text of an error message shortened on the line above.
                fill(&gettext("Details: {details}"), &[("details", details)])
            );
        }
    }
    for w in &report.warnings {
        let _ = writeln!(
            out,
            "{}",
            fill(&gettext("Warning: {warning}"), &[("warning", w)])
        );
    }
    for f in &report.findings {
        let _ = writeln!(
            out,
            "{}",
            // Translators: a comparison of the card's claimed ratings with the measurement.
            fill(&gettext("Finding: {finding}"), &[("finding", &f.text())])
        );
    }
    let verdict = if report.sd_graded || report.verdict == Verdict::Error {
        report.verdict.as_str().to_owned()
    } else {
        fill(
            // Translators: the verdict on a drive that is not an SD card; SD targets are a reference.
            &gettext("{verdict} (SD card targets, for reference)"),
            &[("verdict", &report.verdict.as_str())],
        )
    };
    let _ = writeln!(
        out,
        "{}",
        fill(&gettext("Result: {verdict}"), &[("verdict", &verdict)])
    );
    for a in &report.advice {
        let _ = writeln!(out, "• {}", a.text());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn phase(name: &str, bw_bytes: f64, iops: f64) -> PhaseResult {
        crate::sample::phase(name)
            .bw_bytes(bw_bytes)
            .iops(iops)
            .bytes(10)
            .ios(10)
            .build()
    }

    #[test]
    fn compat_lines_match_upstream_form() {
        let run = RunReport::grade(
            1,
            vec![
                phase("seq-write", 5251.0 * 1024.0 + 100.0, 1.0),
                phase("rand-4k-write", 0.0, 612.4),
                phase("rand-4k-read", 0.0, 1200.0),
            ],
        );
        assert_eq!(
            compat_lines(&run),
            [
                "Sequential write speed 5251 KB/sec (target 10000) - FAIL",
                "Random write speed 612 IOPS (target 500) - PASS",
                "Random read speed 1200 IOPS (target 1500) - FAIL",
                "Note that sequential write speed declines over time as a card is used - your card may require reformatting",
            ]
        );
        assert_eq!(run.verdict, Verdict::Fail);
    }

    #[test]
    fn missing_values_print_error_not_pass() {
        let run = RunReport::grade(1, vec![]);
        let lines = compat_lines(&run);
        assert_eq!(
            lines[0],
            "Sequential write speed ERROR KB/sec (target 10000) - ERROR"
        );
        assert_eq!(lines.len(), 3);
        assert_eq!(run.verdict, Verdict::Error);
    }

    #[test]
    fn error_kinds_keep_their_snake_case_names() {
        let names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for kind in ErrorKind::ALL {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
            assert_eq!(serde_json::from_value::<ErrorKind>(json).unwrap(), kind);
            let snake = format!("{kind:?}")
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let sep = (i > 0 && c.is_uppercase()).then_some('_');
                    sep.into_iter().chain(c.to_lowercase())
                })
                .collect::<String>();
            assert_eq!(kind.as_str(), snake);
        }
        assert!(serde_json::from_str::<ErrorKind>(r#""broken""#).is_err());
    }

    #[test]
    fn a_refused_run_has_every_field_of_a_measured_one() {
        let profile = ProfileInfo {
            name: "bad".into(),
            source: Some("/tmp/bad.fio".into()),
            size_bytes: 0,
        };
        let refused = Report::refused(
            EngineKind::Native,
            profile.clone(),
            ErrorReport::new(ErrorKind::Profile, "invalid".into(), "fix it".into()),
            Advice::FixTheProfile,
        );
        assert_eq!(refused.verdict, Verdict::Error);
        assert_eq!(refused.exit_code(), 2);
        let doc = serde_json::to_value(&refused).unwrap();
        let measured =
            serde_json::to_value(Report::new(EngineKind::Native, profile, vec![])).unwrap();
        let keys = |v: &serde_json::Value| -> Vec<String> {
            v.as_object().unwrap().keys().cloned().collect()
        };
        assert_eq!(keys(&doc), keys(&measured));
        assert_eq!(doc["error"]["kind"], "profile");
        assert_eq!(doc["io_path"], "");
        assert_eq!(doc["advice"][0]["kind"], "fix_the_profile");
        let back: Report = serde_json::from_value(doc).unwrap();
        assert_eq!(back.io_path, None);
        assert!(!back.error.unwrap().is_cancelled());
    }
}
