//! Why an engine stopped without a full result ([`EngineError`]): one variant per cause, each
//! with its report kind, its message for people and its advice, and the mapping from an OS
//! error (errno) during a phase to the variant that names its cause.

use crate::error_kind::ErrorKind;

/// Why an engine stopped without a full result. Each cause has its own [`EngineError::kind`]
/// and its own advice ([`EngineError::advice`]).
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The filesystem filled up (ENOSPC, EDQUOT) during `phase`.
    #[error("the drive is full (no space left while running {phase})")]
    NoSpace {
        /// The job that was running.
        phase: String,
    },
    /// A read or write failed during `phase`: EIO, ENODEV, ENXIO (often a card or USB drive
    /// that was pulled out or is failing), or another OS error not listed elsewhere. fio
    /// reports the same errnos as a job's `error`; they become this variant too.
    #[error("{op} failed during {phase}: {source}")]
    Io {
        /// The job that was running.
        phase: String,
        /// `read`, `write`, `fsync`, `open`, …
        op: &'static str,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The filesystem became read-only while the test ran (EROFS): the kernel remounts a
    /// filesystem read-only after errors, and worn-out cards turn themselves read-only.
    #[error("the drive became read-only during {phase} ({op} refused)")]
    ReadOnly {
        /// The job that was running.
        phase: String,
        /// `read`, `write`, `fsync`, `open`, …
        op: &'static str,
    },
    /// The test file was removed or replaced by something else while the test ran (ENOENT,
    /// ELOOP through a symlink put in its place, ESTALE, or another file at its path).
    #[error("the test file was removed or replaced during {phase}")]
    TestFileGone {
        /// The job that was running (or `open` between jobs).
        phase: String,
    },
    /// The filesystem does not accept O_DIRECT.
    #[error("the filesystem ({fs_type}) does not allow direct I/O (O_DIRECT)")]
    DirectIoRefused {
        /// Filesystem type name, e.g. `tmpfs`.
        fs_type: String,
    },
    /// The cancel flag was set.
    #[error("stopped before the end")]
    Cancelled,
    /// `fio` is not installed.
    #[error("fio is not installed (looked for `{program}`)")]
    FioMissing {
        /// The program name or path looked for.
        program: String,
    },
    /// fio printed nothing for `silent_s` seconds although its `--status-interval=1` makes a
    /// healthy fio print every second: it was stuck (fio 3.33 can deadlock when one of its job
    /// processes is killed, e.g. by the OOM killer) and was stopped.
    #[error("fio stopped responding: nothing from it for {silent_s} s, so it was stopped")]
    FioHung {
        /// Seconds of silence after which the watchdog stopped fio.
        silent_s: u64,
    },
    /// This process was stopped (SIGSTOP, Ctrl+Z, a suspended machine) for `stopped_s`
    /// seconds while `phase` measured ([`crate::engine::pause`]): the phase's time includes
    /// seconds without I/O, so its figures are not the drive's.
    #[error("the test was paused for {stopped_s} s during {phase}: a paused test has not measured the drive")]
    Paused {
        /// The job that was running.
        phase: String,
        /// Whole seconds the process was stopped (at least 5).
        stopped_s: u64,
    },
    /// The job `phase` did all its work within its `ramp_time` (`ramp_ms` milliseconds):
    /// nothing completed after the ramp, so there is no figure to give (fio's own output then
    /// lacks its latency percentiles).
    #[error("{phase} ended inside its ramp_time ({ramp_ms} ms): nothing was measured after it")]
    EndedInRamp {
        /// The job.
        phase: String,
        /// Its `ramp_time`, milliseconds.
        ramp_ms: u64,
    },
    /// fio failed: non-zero exit, a job's `error` not covered above, missing job or value, or
    /// unparsable output.
    #[error("fio failed: {message}")]
    FioFailed {
        /// fio's own message, or what was missing.
        message: String,
    },
}

impl EngineError {
    /// The report's kind of this error: `no_space`, `io`, `read_only`, `test_file_gone`,
    /// `direct_io_refused`, `cancelled`, `fio_missing`, `fio_hung` or `fio_failed`.
    pub fn kind(&self) -> ErrorKind {
        match self {
            EngineError::NoSpace { .. } => ErrorKind::NoSpace,
            EngineError::Io { .. } => ErrorKind::Io,
            EngineError::ReadOnly { .. } => ErrorKind::ReadOnly,
            EngineError::TestFileGone { .. } => ErrorKind::TestFileGone,
            EngineError::DirectIoRefused { .. } => ErrorKind::DirectIoRefused,
            EngineError::Cancelled => ErrorKind::Cancelled,
            EngineError::FioMissing { .. } => ErrorKind::FioMissing,
            EngineError::FioHung { .. } => ErrorKind::FioHung,
            EngineError::Paused { .. } => ErrorKind::Paused,
            EngineError::EndedInRamp { .. } => ErrorKind::Profile,
            EngineError::FioFailed { .. } => ErrorKind::FioFailed,
        }
    }

    /// What the user should do about it: one piece of advice per kind.
    pub fn advice(&self) -> crate::advice::Advice {
        use crate::advice::Advice;
        match self {
            EngineError::NoSpace { .. } => Advice::FreeSomeSpace,
            EngineError::Io { .. } => Advice::CheckTheDevice,
            EngineError::ReadOnly { .. } => Advice::BecameReadOnly,
            EngineError::TestFileGone { .. } => Advice::TestFileGone,
            EngineError::DirectIoRefused { .. } => Advice::DirectIoRefused,
            EngineError::Cancelled => Advice::Cancelled,
            EngineError::FioMissing { .. } => Advice::InstallFio,
            EngineError::FioHung { .. } => Advice::FioHung,
            EngineError::Paused { .. } => Advice::Paused,
            EngineError::EndedInRamp { .. } => Advice::RampLongerThanJob,
            EngineError::FioFailed { .. } => Advice::FioFailed,
        }
    }

    /// What happened, for people, translated (the `Display` form stays English for logs),
    /// each step of the test named by its fio job name (`seq-write`).
    pub fn message(&self) -> String {
        self.message_naming(&|phase| phase.to_owned())
    }

    /// [`EngineError::message`] with each step of the test named by `step` (given the fio
    /// job name; the report names the standard steps as people know them, "“Sequential
    /// write”").
    pub fn message_naming(&self, step: &dyn Fn(&str) -> String) -> String {
        use crate::i18n::{fill, gettext};
        match self {
            EngineError::NoSpace { phase } => fill(
                // Translators: {phase} is a fio job name such as "seq-write".
                &gettext("the drive is full (no space left while running {phase})"),
                &[("phase", &step(phase))],
            ),
            EngineError::Io { phase, op, source } => fill(
                // Translators: {op} is "read", "write", "fsync" or "open"; {error} is the system's message.
                &gettext("{op} failed during {phase}: {error}"),
                &[("op", op), ("phase", &step(phase)), ("error", source)],
            ),
            EngineError::ReadOnly { phase, op } => fill(
                // Translators: {phase} is a fio job name; {op} is "read", "write", "fsync" or "open".
                &gettext("the drive became read-only during {phase} ({op} refused)"),
                &[("phase", &step(phase)), ("op", op)],
            ),
            EngineError::TestFileGone { phase } => fill(
                // Translators: {phase} is a fio job name, or "open" between jobs.
                &gettext("the test file was removed or replaced during {phase}"),
                &[("phase", &step(phase))],
            ),
            EngineError::DirectIoRefused { fs_type } => fill(
                &gettext("the filesystem ({fs_type}) does not allow direct I/O (O_DIRECT)"),
                &[("fs_type", fs_type)],
            ),
            EngineError::Cancelled => gettext("stopped before the end"),
            EngineError::FioMissing { program } => fill(
                &gettext("fio is not installed (looked for “{program}”)"),
                &[("program", program)],
            ),
            EngineError::FioHung { silent_s } => fill(
                &gettext(
                    "fio stopped responding: nothing from it for {seconds} s, so it was stopped",
                ),
                &[("seconds", silent_s)],
            ),
            EngineError::Paused { phase, stopped_s } => fill(
                // Translators: {phase} is a fio job name such as "rand-4k-write".
                &gettext(
                    "the test was paused for {seconds} s during {phase}: a paused test has not measured the drive",
                ),
                &[("seconds", stopped_s), ("phase", &step(phase))],
            ),
            EngineError::EndedInRamp { phase, ramp_ms } => fill(
                // Translators: {phase} is a fio job name; ramp_time is fio's key, not translated.
                &gettext(
                    "{phase} ended inside its ramp_time ({seconds} s): nothing was measured after it",
                ),
                &[("phase", phase), ("seconds", &(*ramp_ms as f64 / 1000.0))],
            ),
            EngineError::FioFailed { message } => {
                fill(&gettext("fio failed: {error}"), &[("error", message)])
            }
        }
    }

    /// The error for a test file that is no longer the one the program created (another file
    /// or a symlink now at its path), found while `phase` opened it.
    pub fn test_file_replaced(phase: &str) -> EngineError {
        EngineError::TestFileGone {
            phase: phase.to_owned(),
        }
    }

    /// Maps an OS error during `phase`/`op` to its cause: ENOSPC/EDQUOT →
    /// [`EngineError::NoSpace`]; EROFS → [`EngineError::ReadOnly`]; ENOENT, ELOOP, ESTALE →
    /// [`EngineError::TestFileGone`] (the engines only open the program's own file, with
    /// O_NOFOLLOW, so these mean it was removed or a symlink put in its place; not for phase
    /// `create`, where the folder is what is missing); anything else
    /// (EIO, ENODEV, ENXIO, …) → [`EngineError::Io`].
    pub fn from_io(phase: &str, op: &'static str, source: std::io::Error) -> EngineError {
        match errno_of(&source) {
            Some(libc::ENOSPC | libc::EDQUOT) => EngineError::NoSpace {
                phase: phase.to_owned(),
            },
            Some(libc::EROFS) => EngineError::ReadOnly {
                phase: phase.to_owned(),
                op,
            },
            // Creating the file in a folder that is gone is not the file going missing.
            Some(libc::ENOENT | libc::ELOOP | libc::ESTALE) if phase != "create" => {
                EngineError::TestFileGone {
                    phase: phase.to_owned(),
                }
            }
            _ => EngineError::Io {
                phase: phase.to_owned(),
                op,
                source,
            },
        }
    }

    /// The error for errno `errno` that fio reported as job `phase`'s `error` (the job
    /// `op`s, `read` or `write`), when it has a cause of its own: the errnos
    /// [`EngineError::from_io`] maps, and EIO, ENODEV, ENXIO (the device failed or went away,
    /// as for the native engine). `None` for any other errno (fio's own failure).
    pub fn from_fio_errno(phase: &str, op: &'static str, errno: i32) -> Option<EngineError> {
        match errno {
            libc::ENOSPC
            | libc::EDQUOT
            | libc::EROFS
            | libc::ENOENT
            | libc::ELOOP
            | libc::ESTALE
            | libc::EIO
            | libc::ENODEV
            | libc::ENXIO => Some(EngineError::from_io(
                phase,
                op,
                std::io::Error::from_raw_os_error(errno),
            )),
            _ => None,
        }
    }
}

/// The errno behind `e`: its raw OS error, or, for an error that carries a message instead
/// (a path added for people), the errno its kind stands for.
fn errno_of(e: &std::io::Error) -> Option<i32> {
    use std::io::ErrorKind;
    e.raw_os_error().or(match e.kind() {
        ErrorKind::StorageFull => Some(libc::ENOSPC),
        ErrorKind::QuotaExceeded => Some(libc::EDQUOT),
        ErrorKind::ReadOnlyFilesystem => Some(libc::EROFS),
        ErrorKind::NotFound => Some(libc::ENOENT),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_each_step_as_they_are_told() {
        let full = EngineError::NoSpace {
            phase: "prepare-file".to_owned(),
        };
        assert_eq!(
            full.message_naming(&|p| format!("<{p}>")),
            "the drive is full (no space left while running <prepare-file>)"
        );
        assert_eq!(
            full.message(),
            "the drive is full (no space left while running prepare-file)"
        );
    }
}
