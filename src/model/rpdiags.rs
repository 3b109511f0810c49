//! The `~/rpdiags.txt` log of the desktop app, in one place: every session (one **Run Tests**,
//! or one **Run SD Card Test**) rewrites it from the start, as upstream does. `$AGNOSTICS_LOG`
//! names another file, as for `agnostics-cli run`. The format is the core's
//! ([`agnostics_core::scripts::log`]); no GTK here.

use std::path::{Path, PathBuf};

use agnostics_core::report::Report;
use agnostics_core::scripts::{self, LogWriter, ScriptError};

/// Where the log goes: `$AGNOSTICS_LOG`, else `~/rpdiags.txt`.
///
/// Errors: [`ScriptError::NoHome`] when neither is known.
pub fn path() -> Result<PathBuf, ScriptError> {
    scripts::log_path()
}

/// Starts a session's log: the header, then the built-in SD card test's result when it ran
/// (`sd`), under upstream's `Test : SD Card Speed Test`. Scripts follow with the same writer.
///
/// Errors: the file cannot be created ([`ScriptError::LogCreate`]).
pub fn open(path: &Path, sd: Option<&Report>) -> Result<LogWriter, ScriptError> {
    let mut log = LogWriter::create(path)?;
    if let Some(report) = sd {
        scripts::log_sd_test(&mut log, report);
    }
    Ok(log)
}

/// Rewrites the log with the SD card test's result alone (the **Run SD Card Test** flow).
/// Returns the file written.
///
/// Errors: no home folder ([`ScriptError::NoHome`]), as [`open`], or a write that failed
/// part-way ([`ScriptError::LogWrite`]).
pub fn write_sd_test(report: &Report) -> Result<PathBuf, ScriptError> {
    open(&path()?, Some(report))?.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agnostics_core::scripts::log::SD_TEST_NAME;

    #[test]
    fn an_sd_test_rewrites_the_log_under_upstreams_name() {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        let file = dir.path().join("rpdiags.txt");
        std::fs::write(&file, "an older session\n").unwrap();
        let missing = dir.path().join("no such folder");
        let report = agnostics_core::sdtest::run(
            &agnostics_core::sdtest::TestOptions::standard(missing),
            &std::sync::atomic::AtomicBool::new(false),
            &|_| {},
        );
        assert_eq!(open(&file, Some(&report)).unwrap().finish().unwrap(), file);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("an older session"), "{text}");
        assert!(text.contains(&format!("Test : {SD_TEST_NAME}\n")), "{text}");
        assert!(text.contains("Test FAIL\n"), "{text}");
    }
}
