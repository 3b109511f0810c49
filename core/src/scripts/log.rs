//! The `~/rpdiags.txt` log in upstream agnostics' format (docs/design.md,
//! "Upstream's script protocol"). English on purpose, like upstream's: people paste it on forums and
//! scripts read it.
//!
//! As upstream, each session (one press of **Run Tests**, one `agnostics-cli scripts`)
//! rewrites the file from the start:
//!
//! ```text
//! Raspberry Pi Diagnostics - version 0.1.0 (agnostics-rs)
//! Thu Jun  5 14:03:09 2025
//!
//! Test : NAME
//! …every byte the script wrote…
//! Test PASS
//!
//! Test : OTHER
//! …
//! Exit status 3
//! Test FAIL
//!
//! ```
//!
//! The second line is the local time in C's `asctime` form. The endings are upstream's
//! `Test PASS`, `Test FAIL` and `Test aborted`, and `Test NOT GRADED` for the built-in SD card
//! test run with a profile that only measures; each is followed by an empty line. Unlike
//! upstream, the ending always starts on a line of its own (a newline is added after output
//! that lacks one), and a FAIL is preceded by its reason: `Exit status N`, `Killed by SIGNAME`,
//! `Timed out after N s` (a TIMEOUT is a `Test FAIL` in the log) or `Error: …`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::{RunOptions, ScriptError, ScriptResult, ScriptVerdict};
use crate::report::{compat_lines, Report};
use crate::verdict::Verdict;

/// The log's file name in the home folder.
pub const LOG_FILE_NAME: &str = "rpdiags.txt";

/// The program's name in the log's header, as upstream writes it.
pub const LOG_TITLE: &str = "Raspberry Pi Diagnostics";

/// The name upstream's SD card test script gives itself; the built-in test logs under it.
pub const SD_TEST_NAME: &str = "SD Card Speed Test";

/// `~/rpdiags.txt`: `$HOME`, or the home folder in the password database when `HOME` is unset
/// or empty. Errors: [`ScriptError::NoHome`] when neither gives one.
pub fn default_log_path() -> Result<PathBuf, ScriptError> {
    let home = match std::env::var_os("HOME") {
        Some(h) if !h.is_empty() => PathBuf::from(h),
        _ => nix::unistd::User::from_uid(nix::unistd::getuid())
            .ok()
            .flatten()
            .map(|u| u.dir)
            .filter(|d| !d.as_os_str().is_empty())
            .ok_or(ScriptError::NoHome)?,
    };
    Ok(home.join(LOG_FILE_NAME))
}

/// The log the programs write: `$AGNOSTICS_LOG` when it is set and not empty (tests and
/// people who keep the log elsewhere), else [`default_log_path`]. The desktop app and
/// `agnostics-cli run` use it. Errors: [`ScriptError::NoHome`].
pub fn log_path() -> Result<PathBuf, ScriptError> {
    match std::env::var_os("AGNOSTICS_LOG") {
        Some(p) if !p.is_empty() => Ok(PathBuf::from(p)),
        _ => default_log_path(),
    }
}

/// The header upstream writes at the top of the log: title and version, the date in
/// `asctime` form, an empty line.
pub fn header(version: &str, when: chrono::NaiveDateTime) -> String {
    format!(
        "{LOG_TITLE} - version {version} (agnostics-rs)\n{}\n\n",
        when.format("%a %b %e %H:%M:%S %Y")
    )
}

/// The log of one session, written as it goes (no buffering: `tail -f` shows a test's output
/// as it comes, and a crash loses nothing).
///
/// A write error does not stop the tests: the first one is kept, later writes are skipped,
/// and [`LogWriter::finish`] returns it.
#[derive(Debug)]
pub struct LogWriter {
    path: PathBuf,
    file: Option<File>,
    error: Option<std::io::Error>,
    at_line_start: bool,
}

impl LogWriter {
    /// Creates (or empties) the log at `path` and writes the header with this program's
    /// version and the local time. Errors: [`ScriptError::LogCreate`].
    pub fn create(path: &Path) -> Result<LogWriter, ScriptError> {
        LogWriter::create_with_header(
            path,
            &header(crate::VERSION, chrono::Local::now().naive_local()),
        )
    }

    /// As [`LogWriter::create`], with the header text given (tests pin the date with it).
    pub fn create_with_header(path: &Path, header: &str) -> Result<LogWriter, ScriptError> {
        let create_error = |source| ScriptError::LogCreate {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::create(path).map_err(create_error)?;
        file.write_all(header.as_bytes()).map_err(create_error)?;
        Ok(LogWriter {
            path: path.to_path_buf(),
            file: Some(file),
            error: None,
            at_line_start: true,
        })
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The first write error so far, if any.
    pub fn error(&self) -> Option<&std::io::Error> {
        self.error.as_ref()
    }

    /// `Test : NAME`: a test begins.
    pub fn begin_test(&mut self, name: &str) {
        self.line(&format!("Test : {name}"));
    }

    /// Bytes of a test's output, as they are (not necessarily UTF-8 nor whole lines).
    pub fn output(&mut self, bytes: &[u8]) {
        if let Some(&last) = bytes.last() {
            self.write(bytes);
            self.at_line_start = last == b'\n';
        }
    }

    /// The end of a script's test: its reason line for a FAIL or TIMEOUT, then `Test PASS`,
    /// `Test FAIL` or `Test aborted`, then an empty line. `opts` gives the timeout for the
    /// `Timed out after N s` line.
    pub fn end_test(&mut self, result: &ScriptResult, opts: &RunOptions) {
        match result.verdict {
            ScriptVerdict::Pass => self.ending("PASS"),
            ScriptVerdict::Fail => {
                match (&result.signal, result.exit_code) {
                    (Some(signal), _) => self.line(&format!("Killed by {signal}")),
                    (None, Some(code)) => self.line(&format!("Exit status {code}")),
                    (None, None) => {}
                }
                self.ending("FAIL");
            }
            ScriptVerdict::Timeout => {
                self.line(&format!("Timed out after {} s", seconds_text(opts.timeout)));
                self.ending("FAIL");
            }
            ScriptVerdict::Aborted => self.ending("aborted"),
        }
    }

    /// The end of a test that could not run: `Error: MESSAGE`, `Test FAIL`, an empty line.
    pub fn end_test_error(&mut self, message: &str) {
        self.line(&format!("Error: {message}"));
        self.ending("FAIL");
    }

    /// Ends the session. Returns the log's path, or the first write error
    /// ([`ScriptError::LogWrite`]).
    pub fn finish(mut self) -> Result<PathBuf, ScriptError> {
        match self.error.take() {
            Some(source) => Err(ScriptError::LogWrite {
                path: self.path,
                source,
            }),
            None => Ok(self.path),
        }
    }

    /// `Test WORD` and the empty line after it.
    fn ending(&mut self, word: &str) {
        self.line(&format!("Test {word}\n"));
    }

    /// `text` on a line of its own.
    fn line(&mut self, text: &str) {
        let mut bytes = Vec::with_capacity(text.len() + 2);
        if !self.at_line_start {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(text.as_bytes());
        bytes.push(b'\n');
        self.write(&bytes);
        self.at_line_start = true;
    }

    fn write(&mut self, bytes: &[u8]) {
        if let Some(file) = &mut self.file {
            if let Err(e) = file.write_all(bytes) {
                self.error = Some(e);
                self.file = None;
            }
        }
    }
}

/// "1800" for 30 minutes, "1.5" for 1500 ms.
fn seconds_text(d: std::time::Duration) -> String {
    if d.subsec_nanos() == 0 {
        d.as_secs().to_string()
    } else {
        format!("{:.1}", d.as_secs_f64())
    }
}

/// Writes the built-in SD card test's result into the log, under upstream's name for it:
/// `Test : SD Card Speed Test`, the target (`Target: PATH on DEVICE (TRANSPORT, FS)`), for each
/// run `Run N` and its [`compat_lines`] (as upstream's `sdtest.sh` printed them), then
/// `Test PASS` or `Test FAIL`. A test error logs `Error: MESSAGE` and `Test FAIL`; a cancelled
/// test logs `Test aborted`. A profile that only measures logs, for its run, a line per job
/// (`NAME X.XX MB/s N IOPS`, no compat lines), then `Profile NAME: measured, not graded against
/// A1/A2` and `Test NOT GRADED` when every job was measured (the verdict the app and the CLI
/// give it).
pub fn log_sd_test(log: &mut LogWriter, report: &Report) {
    log.begin_test(SD_TEST_NAME);
    if let Some(t) = &report.target {
        let transport = t.transport.as_str().to_owned();
        let device = t.device.as_deref().unwrap_or("no block device");
        let mut line = format!(
            "Target: {} on {device} ({transport}, {})",
            t.path, t.fs_type
        );
        if let Some(model) = &t.model {
            line.push_str(&format!(" - {model}"));
        }
        log.line(&line);
    }
    for run in &report.runs {
        log.line(&format!("Run {}", run.run));
        if report.graded {
            for line in compat_lines(run) {
                log.line(&line);
            }
        } else {
            for p in &run.phases {
                log.line(&format!(
                    "{} {} MB/s {} IOPS",
                    p.name,
                    crate::figure::down(crate::units::mb_per_s(p.bw_bytes), 2),
                    crate::figure::whole(p.iops) as u64
                ));
            }
        }
    }
    match &report.error {
        Some(e) if e.is_cancelled() => log.ending("aborted"),
        Some(e) => {
            log.line(&format!("Error: {}", e.message));
            log.ending("FAIL");
        }
        None if report.verdict == Verdict::Pass => log.ending("PASS"),
        // Every job measured, nothing graded: the app's and the CLI's word for it, NOT
        // GRADED, not a PASS that no target was checked for.
        None if report.verdict == Verdict::NotGraded => {
            log.line(&format!(
                "Profile {}: measured, not graded against A1/A2",
                report.profile.name
            ));
            log.ending("NOT GRADED");
        }
        None => log.ending("FAIL"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ErrorKind, ErrorReport, RunReport};

    use crate::sample::measured as phase;

    fn report(runs: Vec<RunReport>, error: Option<ErrorReport>) -> Report {
        let mut report = crate::sample::report();
        for run in runs {
            report = report.run(run);
        }
        if let Some(error) = error {
            report = report.error(error);
        }
        report.build()
    }

    fn logged(report: &Report) -> String {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let path = dir.path().join(LOG_FILE_NAME);
        let mut log = LogWriter::create_with_header(&path, "").unwrap();
        log_sd_test(&mut log, report);
        log.finish().unwrap();
        std::fs::read_to_string(&path).unwrap()
    }

    #[test]
    fn header_is_upstreams_with_asctime_date() {
        let when = chrono::NaiveDate::from_ymd_opt(2025, 1, 2)
            .unwrap()
            .and_hms_opt(3, 4, 5)
            .unwrap();
        assert_eq!(
            header("0.1.0", when),
            "Raspberry Pi Diagnostics - version 0.1.0 (agnostics-rs)\nThu Jan  2 03:04:05 2025\n\n"
        );
    }

    #[test]
    fn sd_test_logs_each_run_under_upstreams_name() {
        let slow = RunReport::grade(
            1,
            vec![
                phase("seq-write", 5251.0 * 1024.0, 1.0),
                phase("rand-4k-write", 0.0, 612.0),
                phase("rand-4k-read", 0.0, 1600.0),
            ],
        );
        let fast = RunReport::grade(
            2,
            vec![
                phase("seq-write", 20000.0 * 1024.0, 1.0),
                phase("rand-4k-write", 0.0, 900.0),
                phase("rand-4k-read", 0.0, 2500.0),
            ],
        );
        assert_eq!(
            logged(&report(vec![slow, fast], None)),
            "Test : SD Card Speed Test\n\
             Target: /var/tmp on mmcblk0 (SD, ext4) - SD64G\n\
             Run 1\n\
             Sequential write speed 5251 KB/sec (target 10000) - FAIL\n\
             Random write speed 612 IOPS (target 500) - PASS\n\
             Random read speed 1600 IOPS (target 1500) - PASS\n\
             Note that sequential write speed declines over time as a card is used - your card may require reformatting\n\
             Run 2\n\
             Sequential write speed 20000 KB/sec (target 10000) - PASS\n\
             Random write speed 900 IOPS (target 500) - PASS\n\
             Random read speed 2500 IOPS (target 1500) - PASS\n\
             Test PASS\n\n"
        );
    }

    #[test]
    fn a_measured_only_run_logs_its_figures_rounded_down_and_exact() {
        let run = RunReport::measured(
            1,
            vec![
                phase("burst", 290_000.0, 612.7),
                phase("slow", 9_996_000.0, 12.0),
                phase("steady", 10_000_000.0, 1.0),
            ],
        );
        let mut r = report(vec![run], None);
        r.graded = false;
        let text = logged(&r);
        assert!(
            text.contains(
                "Run 1\nburst 0.29 MB/s 612 IOPS\nslow 9.99 MB/s 12 IOPS\nsteady 10 MB/s 1 IOPS\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn sd_test_error_is_a_fail_with_its_message() {
        let error = |kind: ErrorKind| crate::sample::error(kind, "the card stopped answering");
        let text = logged(&report(vec![], Some(error(ErrorKind::Io))));
        assert!(
            text.ends_with("\nError: the card stopped answering\nTest FAIL\n\n"),
            "{text}"
        );
        let text = logged(&report(vec![], Some(error(ErrorKind::Cancelled))));
        assert!(
            text.ends_with("(SD, ext4) - SD64G\nTest aborted\n\n"),
            "{text}"
        );
    }
}
