//! Why a capacity check could not give a verdict. Each message says what happened and what to
//! do; [`CapacityError::message`] is the translated form for people.

use std::path::PathBuf;

use crate::i18n::{fill, gettext};
use crate::target_dir::TargetError;

/// Why a capacity check stopped or was refused.
#[derive(Debug, thiserror::Error)]
pub enum CapacityError {
    /// The target folder cannot be used (missing, read-only, memory, …), as for a test.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// The filesystem cannot map a file to the drive (no fallocate or FIEMAP, a stacked or
    /// copy-on-write filesystem): check on ext4 or XFS, or the unmounted card with `--device`.
    #[error(
        "{path} is on {fs_type}, where the program cannot map its file to places on the drive; \
         check the unmounted card with --device, or check on ext4"
    )]
    Unmappable {
        /// The folder.
        path: PathBuf,
        /// Its filesystem type, or the device stack (`dm-0 over sda2`).
        fs_type: String,
    },
    /// The folder's filesystem has no block device behind it (NFS, …).
    #[error("{path} is not on a local drive")]
    NoDrive {
        /// The folder.
        path: PathBuf,
    },
    /// Another check or test uses the drive now: wait for it to end.
    #[error("another capacity check or test is using {disk} now{by}; wait for it to finish")]
    Busy {
        /// The disk.
        disk: String,
        /// Who holds its lock, e.g. ` (process 4242, agnostics-cli)`, or empty when the
        /// system does not tell.
        by: String,
    },
    /// Device mode: the device is mounted, holds a mounted partition, or is in use by the
    /// kernel (LVM, RAID, swap): unmount it first.
    #[error("{device} is in use ({why}); unmount it first")]
    InUse {
        /// The device.
        device: PathBuf,
        /// What uses it, e.g. `sdb1 is mounted on /media/card`.
        why: String,
    },
    /// Device mode: a partition was given, not the whole device.
    #[error("{device} is a partition; give the whole device ({disk})")]
    Partition {
        /// The partition given.
        device: PathBuf,
        /// Its disk, e.g. `/dev/sdb`.
        disk: String,
    },
    /// Device mode: not a block device.
    #[error("{device} is not a block device")]
    NotABlockDevice {
        /// The path given.
        device: PathBuf,
    },
    /// Device mode writes to the raw device and needs root.
    #[error("checking {device} needs root (it writes to the raw device); run it with sudo")]
    NeedsRoot {
        /// The device.
        device: PathBuf,
    },
    /// A recovery file of an earlier, killed check on this device could not be restored: the
    /// device is not checked until it is.
    #[error(
        "an earlier check of {disk} was interrupted and its saved sectors could not be put back \
         ({why}); the recovery file {file} is kept — do not write to the card"
    )]
    RecoveryFailed {
        /// The disk.
        disk: String,
        /// The recovery file.
        file: PathBuf,
        /// What went wrong.
        why: String,
    },
    /// A recovery file, or the folder of recovery files, is not as this program makes them
    /// (another user's, open to others, a link, a FIFO, too large, misnamed): it is refused
    /// unread, and device mode does not run until it is dealt with.
    #[error(
        "refusing the recovery file {file}: {why}. The program makes its recovery files itself, \
         mode 0600, in a folder only its user can write to; if you did not make this one, \
         remove it, or set AGNOSTICS_RECOVERY_DIR to a folder of your own"
    )]
    RecoveryRefused {
        /// The file or folder.
        file: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// A recovery file of this card is not whole (torn, truncated, corrupt): the sectors it
    /// saved cannot be read back from it, ever.
    #[error(
        "an earlier check of {disk} was interrupted, and its recovery file {file} cannot be read \
         ({why}): the sectors it saved cannot be put back. Nothing was written. To check the card \
         anyway, forget the file with `agnostics-cli capacity --forget-recovery {file}`"
    )]
    RecoveryUnreadable {
        /// The disk.
        disk: String,
        /// The recovery file.
        file: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// Device mode: the saved sectors could not all be put back after the check; the recovery
    /// file is kept and the next check restores from it.
    #[error(
        "the saved sectors of {disk} could not all be put back ({why}); the recovery file {file} \
         is kept and the next `agnostics-cli capacity --device` puts them back"
    )]
    RestoreFailed {
        /// The disk.
        disk: String,
        /// The recovery file.
        file: PathBuf,
        /// What went wrong.
        why: String,
    },
    /// A read, write, flush or open failed (with the path or device, and the system's words).
    #[error("{what}: {source}")]
    Io {
        /// What was being done, with the path.
        what: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// The check was stopped (Stop, Ctrl+C, SIGTERM); everything it wrote was undone.
    #[error("the check was stopped; everything it wrote was undone")]
    Cancelled,
}

impl CapacityError {
    /// An [`CapacityError::Io`] for `what` (e.g. `write /dev/sdb`).
    pub fn io(what: impl Into<String>, source: std::io::Error) -> CapacityError {
        CapacityError::Io {
            what: what.into(),
            source,
        }
    }

    /// What happened and what to do, for people, translated (the `Display` form stays
    /// English for logs).
    pub fn message(&self) -> String {
        match self {
            CapacityError::Target(e) => e.message(),
            CapacityError::Unmappable { path, fs_type } => fill(
                &gettext(
                    "{path} is on {fs_type}, where the program cannot map its file to places on \
                     the drive; check the unmounted card with --device, or check on ext4",
                ),
                &[("path", &path.display()), ("fs_type", fs_type)],
            ),
            CapacityError::NoDrive { path } => fill(
                &gettext("{path} is not on a local drive"),
                &[("path", &path.display())],
            ),
            CapacityError::Busy { disk, by } => fill(
                &gettext(
                    "another capacity check or test is using {disk} now{by}; wait for it to \
                     finish",
                ),
                &[("disk", disk), ("by", by)],
            ),
            CapacityError::InUse { device, why } => fill(
                &gettext("{device} is in use ({why}); unmount it first"),
                &[("device", &device.display()), ("why", why)],
            ),
            CapacityError::Partition { device, disk } => fill(
                &gettext("{device} is a partition; give the whole device ({disk})"),
                &[("device", &device.display()), ("disk", disk)],
            ),
            CapacityError::NotABlockDevice { device } => fill(
                &gettext("{device} is not a block device"),
                &[("device", &device.display())],
            ),
            CapacityError::NeedsRoot { device } => fill(
                &gettext(
                    "checking {device} needs root (it writes to the raw device); run it with sudo",
                ),
                &[("device", &device.display())],
            ),
            CapacityError::RecoveryFailed { disk, file, why } => fill(
                &gettext(
                    "an earlier check of {disk} was interrupted and its saved sectors could not \
                     be put back ({why}); the recovery file {file} is kept — do not write to the \
                     card",
                ),
                &[("disk", disk), ("file", &file.display()), ("why", why)],
            ),
            CapacityError::RecoveryRefused { file, why } => fill(
                &gettext(
                    "refusing the recovery file {file}: {why}. The program makes its recovery \
                     files itself, mode 0600, in a folder only its user can write to; if you did \
                     not make this one, remove it, or set AGNOSTICS_RECOVERY_DIR to a folder of \
                     your own",
                ),
                &[("file", &file.display()), ("why", why)],
            ),
            CapacityError::RecoveryUnreadable { disk, file, why } => fill(
                &gettext(
                    "an earlier check of {disk} was interrupted, and its recovery file {file} \
                     cannot be read ({why}): the sectors it saved cannot be put back. Nothing was \
                     written. To check the card anyway, forget the file with `agnostics-cli \
                     capacity --forget-recovery {file}`",
                ),
                &[("disk", disk), ("file", &file.display()), ("why", why)],
            ),
            CapacityError::RestoreFailed { disk, file, why } => fill(
                &gettext(
                    "the saved sectors of {disk} could not all be put back ({why}); the recovery \
                     file {file} is kept and the next `agnostics-cli capacity --device` puts them \
                     back",
                ),
                &[("disk", disk), ("file", &file.display()), ("why", why)],
            ),
            CapacityError::Io { what, source } => format!("{what}: {source}"),
            CapacityError::Cancelled => {
                gettext("the check was stopped; everything it wrote was undone")
            }
        }
    }

    /// True for [`CapacityError::Cancelled`].
    pub fn is_cancelled(&self) -> bool {
        matches!(self, CapacityError::Cancelled)
    }
}
