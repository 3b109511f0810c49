//! Agnostics core: the measuring engine behind the desktop app and `agnostics-cli`.
//!
//! Nothing here knows of GTK. The pieces, in the order a test uses them:
//! [`profile`] (the fio job-file subset), [`target_dir`] (the target directory: pre-flight checks and the device stack
//! behind a directory), [`engine`] (the native and fio engines), [`verdict`] (grading against
//! the SD Association's A1/A2 minimums), [`figure`] (the units, standard phases and rounding
//! every figure shares), [`advice`] (what to tell the user), [`report`] (the one
//! result type, with its text and JSON forms) and [`sdtest`] (the whole standard test, end to
//! end). [`card`] decodes an SD card's registers; [`scripts`] runs upstream agnostics' test
//! scripts and writes `~/rpdiags.txt`; [`process_group`] starts and stops the programs both
//! run (fio, the scripts) with everything they start, and [`signals`] names the signals that stop
//! a run and the exit status they give. With the cargo feature `sample`,
//! [`sample`] builds sample reports and phases for tests and examples.

pub mod advice;
pub mod capacity;
pub mod card;
pub mod drive;
pub mod drive_lock;
pub mod engine;
pub mod error_kind;
pub mod figure;
pub mod first_look;
pub mod headline;
pub mod health;
pub mod history;
pub mod i18n;
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
pub mod sysfs;
pub mod target_dir;
pub mod units;
pub mod verdict;

/// The program's version, as Cargo knows it (e.g. "0.1.0").
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
