//! Agnostics core: the measuring engine behind the desktop app and `agnostics-cli`.
//!
//! Nothing here knows of GTK. Every module, roughly from the foundations to what the user
//! interfaces call (the floors are listed once, and checked, in `core/tests/it/layers/mod.rs`):
//!
//! - [`units`]: fio's size and time suffixes and the conversions between bytes per second,
//!   KiB/s and MB/s.
//! - [`i18n`]: gettext with named placeholders, shared by the CLI and the app.
//! - [`error_kind`]: what stopped a test, one snake_case name per cause.
//! - [`sysfs`]: bounded reads of sysfs attributes under a caller-given root.
//! - [`process_group`]: child processes (fio, test scripts) that lead their own process group,
//!   started and stopped with everything they start.
//! - [`signals`]: the signals that stop a run (SIGINT, SIGTERM, SIGHUP).
//! - [`usage`]: this process's own CPU time and peak memory (`getrusage`), for benchmarks.
//! - [`exit_code`]: how every command ends, one [`exit_code::ExitCode`] (0 passed, 1 failed,
//!   2 no verdict, 128 + the signal's number when stopped).
//! - [`profile`]: the subset of fio's job-file format that Agnostics runs, and the built-in
//!   profiles.
//! - [`target_dir`]: the target directory: pre-flight checks, the filesystem and the
//!   block-device stack behind it, caches that answer from memory.
//! - [`card`]: an SD card's or eMMC's registers (CID, CSD, SCR, SD Status), USB and NVMe
//!   identity, the link's ceiling, and the card's claims against what was measured.
//! - [`drive`]: the drive under test: its identity (a stable hash) and the provenance of a
//!   measurement.
//! - [`drive_lock`]: telling that two tests share one drive (a shared lock per whole disk).
//! - [`lock_dir`]: where the drive locks' files go when the system's lock folder is missing.
//! - [`engine`]: the native and fio engines, which run a profile's jobs on the program's own
//!   test file and measure each phase.
//! - [`capacity`]: "is my card genuine?": the capacity check, in mounted and device modes.
//! - [`sustained`]: the sustained write test: how fast a drive keeps writing once its cache is
//!   full (the cliff), every block read back, and the speed markings it meets.
//! - [`figure`]: the units of measured figures, the standard test's phases and how figures are
//!   rounded for people.
//! - [`verdict`]: the words of a verdict and the SD Association's A1/A2 minimums.
//! - [`advice`]: what the user should make of a result, as an enum with translated text.
//! - [`references`]: published figures shipped with the program, and the cards whose command
//!   queueing Linux keeps off (data in `data/references/`).
//! - [`report`]: the one result type of a test, with its text, table and JSON forms; it judges
//!   nothing.
//! - [`judge`]: every rule of the SD test's verdicts: the checks against A1/A2, a profile's
//!   grade, not graded and why, and judging a stored run again.
//! - [`sdtest`]: the standard test end to end: pre-flight, up to N runs, grading, advice and
//!   the report. Both user interfaces call [`sdtest::run`].
//! - [`scripts`]: upstream agnostics' test scripts and the `~/rpdiags.txt` log.
//! - [`history`]: the SQLite store of runs and capacity checks, their trend and comparison.
//! - [`health`]: how healthy a drive is: its kernel log, error counters, own wear report and
//!   speed trend, weighed into one verdict.
//! - [`headline`]: one headline for a drive, everything known about it weighed in one rule.
//! - `sample` (cargo feature `sample`, and this crate's unit tests): plausible sample
//!   reports and phases for tests and examples; nothing in it is measured.

pub mod advice;
pub mod capacity;
pub mod card;
pub mod drive;
pub mod drive_lock;
pub mod engine;
pub mod error_kind;
pub mod exit_code;
pub mod figure;
pub mod first_look;
pub mod headline;
pub mod health;
pub mod history;
pub mod i18n;
pub mod judge;
pub mod lock_dir;
pub mod process_group;
pub mod profile;
pub mod references;
pub mod report;
#[cfg(any(test, feature = "sample"))]
pub mod sample;
pub mod scripts;
pub mod sdtest;
pub mod signals;
pub mod sustained;
pub mod sysfs;
pub mod target_dir;
pub mod units;
pub mod usage;
pub mod verdict;

/// The program's version, as Cargo knows it (e.g. "0.1.0").
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
