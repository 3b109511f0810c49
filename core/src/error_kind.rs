//! [`ErrorKind`]: what stopped a test, one snake_case name per cause. It sits below every
//! layer that can fail (the target checks, the engines, the report, the history), so each
//! names its errors without importing the others.

use serde::{Deserialize, Serialize};

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
    /// `paused`: the program was stopped (Ctrl+Z, SIGSTOP, a suspended machine) while it
    /// measured; the run is shown, never graded.
    Paused,
    /// `shared_drive`: another test (either program, any user) used the same drive while the
    /// deciding run measured; the run is shown, never graded.
    SharedDrive,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 20] = [
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
        ErrorKind::Paused,
        ErrorKind::SharedDrive,
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
            ErrorKind::Paused => "paused",
            ErrorKind::SharedDrive => "shared_drive",
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
