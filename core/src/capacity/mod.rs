//! "Is my card genuine?": a capacity check in seconds. Fake cards claim more than they keep;
//! typically the controller ignores high address bits, so a write at `P` lands at `P mod R`
//! (`R` the real size, usually a power of two) and overwrites earlier data; others drop writes
//! beyond `R` or lose blocks.
//!
//! The check writes a 4 KiB [`pattern`] block at a few hundred spots spread over the drive's
//! whole address range and at each spot's power-of-two aliases ([`plan`]), highest address
//! first, flushes, reads every spot back with O_DIRECT and compares ([`spots`]); a spot that
//! reads wrong is read twice more. The [`verdict`] says genuine, fake (with the real size and the
//! first address that did not hold), loses data, not checked beyond a share of the drive, or
//! unsure; the card's registers are set beside it ([`registers`]).
//!
//! Two ways to reach the drive:
//! - [`check_mounted`] (the default): the program's own file in a mounted folder, `fallocate`d
//!   to a share of the free space and mapped with FIEMAP ([`mounted`]); a spot is used only when
//!   it and all its aliases lie inside the file, so nothing else is ever written, even on a
//!   fake. ext4 and XFS.
//! - [`check_device`]: the whole unmounted device ([`device`]): every spot's original 4 KiB is
//!   saved to a [`recovery`] file (fsynced before the first write), and written back and
//!   verified after; a check killed outright is restored by the next one.
//!
//! Both hold the drive's lock ([`crate::drive_lock`]) and refuse to run while another check or
//! test of the same user or root uses the drive, naming its process where the system tells;
//! device mode opens the device for itself alone (`O_EXCL`), so another user's lock is noted
//! and not obeyed.
//!
//! Limits: a drive that wraps at a size that is not a power of two, or (mounted mode) below the
//! file's lowest address, may put a pattern block where nothing was saved; no such drive could
//! hold a working filesystem there, and fakes seen in the wild wrap at powers of two.

pub mod device;
mod error;
mod event;
mod fiemap;
mod locking;
pub mod mounted;
pub mod pattern;
pub mod plan;
pub mod recovery;
mod recovery_file;
pub mod registers;
mod report;
pub mod restore;
pub mod ruler;
pub mod spots;
pub mod sweep;
pub mod text;
pub mod verdict;

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

pub use error::CapacityError;
pub use event::{Cost, Event, Phase, WRITE_4K_SECONDS};
pub use report::{
    BadSpot, CapacityReport, CapacityVerdict, Claims, Coverage, DriveFacts, Found, Mode, Recovered,
    RegisterFinding, Restore, SpotCounts, UnsureReason,
};

/// How a check runs. [`CapacityOptions::default`] is what `agnostics-cli capacity` uses.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityOptions {
    /// Base spots spread over the drive (each brings its aliases), default
    /// [`plan::DEFAULT_SPOTS`].
    pub spots: u32,
    /// The smallest power of two whose aliases are checked, bytes (default
    /// [`plan::MIN_ALIAS_POWER`], 16 MiB).
    pub min_alias_bytes: u64,
    /// Mounted mode: the share of the drive the spots must reach for a verdict of genuine,
    /// 0 to 1 (default [`verdict::COVERED_SHARE`]).
    pub covered_share: f64,
    /// The sysfs root (`/sys`, or a fixture tree).
    pub sysfs_root: PathBuf,
    /// Where the drives' lock files are ([`crate::drive_lock::default_dir`]).
    pub lock_dir: PathBuf,
    /// Where device mode keeps its recovery files ([`recovery::default_dir`]).
    pub recovery_dir: PathBuf,
}

impl Default for CapacityOptions {
    fn default() -> CapacityOptions {
        CapacityOptions {
            spots: plan::DEFAULT_SPOTS,
            min_alias_bytes: plan::MIN_ALIAS_POWER,
            covered_share: verdict::COVERED_SHARE,
            sysfs_root: PathBuf::from("/sys"),
            lock_dir: crate::drive_lock::default_dir(),
            recovery_dir: recovery::default_dir(),
        }
    }
}

/// Checks the drive behind the folder `target` through the program's own file (mounted mode):
/// pre-flight as a test's (no tmpfs, read-only or kernel folders), restores any pending
/// recovery file first, takes the drive's lock, makes and maps the file, writes and reads the
/// spots, removes the file (also on error and when `cancel` is set), and returns the report.
/// `on_event` hears the plan before the first write and each phase's progress.
///
/// Errors: [`CapacityError::Target`] (the folder), [`CapacityError::Unmappable`] (vfat,
/// btrfs, LVM, … : use device mode or ext4), [`CapacityError::NoDrive`],
/// [`CapacityError::Busy`], [`CapacityError::RecoveryFailed`], [`CapacityError::Io`],
/// [`CapacityError::Cancelled`] (the file is removed).
pub fn check_mounted(
    target: &Path,
    opts: &CapacityOptions,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<CapacityReport, CapacityError> {
    mounted::check(target, opts, on_event, cancel)
}

/// Checks the whole, unmounted device `device` (e.g. `/dev/sdb`; device mode, root only):
/// restores any pending recovery file of it first, refuses a partition, a mounted device or
/// one holding a mounted partition, saves every spot's original sectors to a recovery file
/// (fsynced before the first write), writes and reads the spots, writes the saved sectors
/// back, verifies them and removes the recovery file. When `cancel` is set or an I/O error
/// stops it, everything saved is written back before it returns.
///
/// Errors: [`CapacityError::NeedsRoot`], [`CapacityError::NotABlockDevice`],
/// [`CapacityError::Partition`], [`CapacityError::InUse`], [`CapacityError::Busy`],
/// [`CapacityError::RecoveryFailed`], [`CapacityError::RestoreFailed`] (the recovery file is
/// kept), [`CapacityError::Io`], [`CapacityError::Cancelled`] (after restoring).
pub fn check_device(
    device: &Path,
    opts: &CapacityOptions,
    on_event: &mut dyn FnMut(Event),
    cancel: &AtomicBool,
) -> Result<CapacityReport, CapacityError> {
    device::check(device, opts, on_event, cancel)
}

/// What a check found, put together into its report by [`Parts::report`].
struct Parts {
    started: String,
    begun: std::time::Instant,
    mode: Mode,
    drive: DriveFacts,
    plan: plan::Plan,
    judged: verdict::Judgement,
    registers: (
        Claims,
        Vec<RegisterFinding>,
        Option<crate::drive::DriveIdentity>,
    ),
    bytes_written: u64,
    bytes_read: u64,
    restore: Option<Restore>,
    recovered: Vec<Recovered>,
}

impl Parts {
    fn report(self) -> CapacityReport {
        let (claims, registers, identity) = self.registers;
        let j = self.judged;
        CapacityReport {
            check_id: new_check_id(),
            started: self.started,
            seconds: self.begun.elapsed().as_secs_f64(),
            mode: self.mode,
            verdict: j.verdict,
            drive: self.drive,
            identity,
            claims,
            claimed_bytes: self.plan.claimed_bytes,
            verified_bytes: j.verified_bytes,
            first_bad_address: j.first_bad_address,
            real_bytes: j.real_bytes,
            coverage: j.coverage,
            wraps_checked_bytes: j.wraps_checked_bytes,
            powers: self.plan.powers,
            spots: j.counts,
            bad_spots: j.bad_spots,
            unsure: j.unsure,
            registers,
            bytes_written: self.bytes_written,
            bytes_read: self.bytes_read,
            restore: self.restore,
            recovered: self.recovered,
        }
    }
}

/// A new check id: 32 lowercase hex digits.
fn new_check_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// Now, RFC 3339 with the local offset, seconds.
fn now_rfc3339() -> String {
    chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}
