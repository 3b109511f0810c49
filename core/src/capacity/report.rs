//! What a capacity check found: the verdict, the sizes claimed and verified, the spots, the
//! card's registers, and (device mode) what was restored. JSON: every field as named here,
//! snake_case; sizes and addresses in bytes (u64).

use serde::{Deserialize, Serialize};

use crate::drive::DriveIdentity;
use crate::exit_code::ExitCode;
use crate::target_dir::Transport;

/// The verdict of a capacity check. JSON: `genuine`, `fake`, `loses_data`,
/// `not_checked_beyond`, `unsure`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapacityVerdict {
    /// Every spot over the whole range kept its data: the drive holds what it claims.
    Genuine,
    /// Spots wrapped: a high spot read back a lower spot's block. The drive is smaller than it
    /// claims ([`CapacityReport::real_bytes`], [`CapacityReport::first_bad_address`]).
    Fake,
    /// Spots did not keep their data (zeros, garbage, stale data), but nothing wrapped.
    LosesData,
    /// Every spot checked held, but the spots could not reach far enough up the drive
    /// ([`CapacityReport::coverage`]): too little free space in mounted mode.
    NotCheckedBeyond,
    /// Reads disagreed or failed ([`CapacityReport::unsure`]): no verdict.
    Unsure,
}

impl CapacityVerdict {
    /// The exit status of a check with this verdict: genuine [`ExitCode::Success`], fake or
    /// losing data [`ExitCode::Failed`], not checked far enough or unsure
    /// [`ExitCode::NoVerdict`].
    pub fn exit_code(self) -> ExitCode {
        match self {
            CapacityVerdict::Genuine => ExitCode::Success,
            CapacityVerdict::Fake | CapacityVerdict::LosesData => ExitCode::Failed,
            CapacityVerdict::NotCheckedBeyond | CapacityVerdict::Unsure => ExitCode::NoVerdict,
        }
    }

    /// The JSON and database name.
    pub fn as_str(self) -> &'static str {
        match self {
            CapacityVerdict::Genuine => "genuine",
            CapacityVerdict::Fake => "fake",
            CapacityVerdict::LosesData => "loses_data",
            CapacityVerdict::NotCheckedBeyond => "not_checked_beyond",
            CapacityVerdict::Unsure => "unsure",
        }
    }

    /// Parses [`CapacityVerdict::as_str`].
    pub fn parse(s: &str) -> Option<CapacityVerdict> {
        [
            CapacityVerdict::Genuine,
            CapacityVerdict::Fake,
            CapacityVerdict::LosesData,
            CapacityVerdict::NotCheckedBeyond,
            CapacityVerdict::Unsure,
        ]
        .into_iter()
        .find(|v| v.as_str() == s)
    }

    /// True for a drive that lost data: [`CapacityVerdict::Fake`] or
    /// [`CapacityVerdict::LosesData`].
    pub fn is_bad(self) -> bool {
        matches!(self, CapacityVerdict::Fake | CapacityVerdict::LosesData)
    }
}

/// How the check reached the drive. JSON: `mounted`, `device`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Through the program's own file on a mounted filesystem: only that file is written.
    Mounted,
    /// On the unmounted whole device: the original sectors are saved, then restored.
    Device,
}

impl Mode {
    /// The JSON and database name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Mounted => "mounted",
            Mode::Device => "device",
        }
    }
}

/// The drive checked.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DriveFacts {
    /// The whole disk, e.g. `mmcblk0`, `sda`, `loop3`.
    pub disk: String,
    /// Its `MAJ:MIN`.
    pub dev: String,
    /// Vendor and model as sysfs has them, when known.
    pub model: Option<String>,
    /// How it is attached.
    pub transport: Transport,
    /// In mounted mode: the partition the filesystem is on (e.g. `mmcblk0p2`), or the disk.
    pub partition: Option<String>,
    /// In mounted mode: the partition's first byte on the disk, bytes.
    pub partition_start: Option<u64>,
    /// In mounted mode: the folder the check's file was made in.
    pub target: Option<std::path::PathBuf>,
    /// In mounted mode: the filesystem type.
    pub fs_type: Option<String>,
}

/// The sizes the drive claims, each from where it was read, bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Claims {
    /// The size the kernel sees (`<disk>/size` × 512 or BLKGETSIZE64): the range checked.
    pub device_bytes: u64,
    /// An SD card's CSD capacity, when the register was read.
    pub csd_bytes: Option<u64>,
    /// The end of the last partition (sysfs `start` + `size`, × 512), when the disk has
    /// partitions.
    pub partitions_end_bytes: Option<u64>,
}

/// What the card's registers say against its size and maker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RegisterFinding {
    /// The CSD capacity and the size the kernel sees differ by more than 1 %.
    CsdSizeDiffers {
        /// The CSD capacity, bytes.
        csd_bytes: u64,
        /// The device's size, bytes.
        device_bytes: u64,
    },
    /// The partition table reaches beyond the device's end.
    PartitionsBeyondEnd {
        /// Where the last partition ends, bytes.
        partitions_end_bytes: u64,
        /// The device's size, bytes.
        device_bytes: u64,
    },
    /// The CID's manufacturer ID is assigned to no known maker (or is 0x00).
    UnknownMaker {
        /// The raw ID.
        mid: u8,
    },
    /// The CID's OEM ID is not two printable characters.
    ImplausibleOem {
        /// As the CID shows it (`0x…` when not printable).
        oid: String,
    },
}

/// Why a check is unsure, per spot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UnsureReason {
    /// Reading the spot three times gave different contents.
    RetriesDisagreed {
        /// The spot's drive address, bytes.
        address: u64,
    },
    /// Reading the spot failed.
    ReadError {
        /// The spot's drive address, bytes.
        address: u64,
        /// What the system said.
        message: String,
    },
}

/// What one spot read back, when it was not its own block. JSON `found`: `wrapped`
/// (`holds` = the address the block was written for), `zeros`, `garbage`, `stale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "found", rename_all = "snake_case")]
pub enum Found {
    /// Its own block.
    Intact,
    /// The block written for another spot at `holds`.
    Wrapped {
        /// The address that block was written for, bytes.
        holds: u64,
    },
    /// Zeros.
    Zeros,
    /// Not a pattern block.
    Garbage,
    /// A block of an earlier check (another run's key).
    Stale,
}

/// A spot that did not read back its own block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadSpot {
    /// Its drive address, bytes.
    pub address: u64,
    /// What it held.
    #[serde(flatten)]
    pub found: Found,
}

/// The spots' tally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SpotCounts {
    /// Every spot written and read (base spots and aliases).
    pub total: u32,
    /// Base spots spread over the range (before aliases).
    pub base: u32,
    /// Spots that held their own block.
    pub intact: u32,
    /// Spots that held another spot's block.
    pub wrapped: u32,
    /// Spots that read zeros.
    pub zeros: u32,
    /// Spots that read something that is no pattern block.
    pub garbage: u32,
    /// Spots that read an earlier check's block.
    pub stale: u32,
    /// Spots whose three reads disagreed, or that could not be read.
    pub unsure: u32,
}

/// How far up the drive the spots reached.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Coverage {
    /// The end of the highest spot, bytes.
    pub bytes: u64,
    /// `bytes` / the claimed size, 0 to 1.
    pub share: f64,
}

/// Device mode: what was saved and put back.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Restore {
    /// Sectors (4 KiB blocks) saved before writing and written back after.
    pub blocks: u32,
    /// True when every one read back as saved.
    pub verified: bool,
    /// Of `blocks`, those not put back: the write failed, or the device held something else
    /// there than the check's own pattern (then nothing was written over it).
    #[serde(default)]
    pub failed: u32,
    /// Their addresses, bytes, ascending (the first 64).
    #[serde(default)]
    pub failed_addresses: Vec<u64>,
    /// The recovery file that keeps them, when some were not put back.
    #[serde(default)]
    pub kept_in: Option<std::path::PathBuf>,
}

/// A recovery file found from an earlier check that was killed, and what was done with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recovered {
    /// The device it was for, e.g. `sdb`.
    pub disk: String,
    /// The blocks back as saved (written back, or never changed).
    pub blocks: u32,
    /// True when every block is back and the file was removed.
    pub verified: bool,
    /// Blocks that could not be put back (kept in the file).
    #[serde(default)]
    pub failed: u32,
    /// Their addresses, bytes (the first 64).
    #[serde(default)]
    pub failed_addresses: Vec<u64>,
}

/// The outcome of one capacity check. Store it with
/// [`History::record_capacity`](crate::history::History::record_capacity).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityReport {
    /// The check's id: 32 lowercase hex digits.
    pub check_id: String,
    /// When it started, RFC 3339.
    pub started: String,
    /// How long it took, seconds.
    pub seconds: f64,
    /// Mounted or device mode.
    pub mode: Mode,
    /// The verdict.
    pub verdict: CapacityVerdict,
    /// The drive.
    pub drive: DriveFacts,
    /// Its identity (the history's drive), when known.
    pub identity: Option<DriveIdentity>,
    /// The sizes it claims.
    pub claims: Claims,
    /// The range checked, `[0, claimed_bytes)`: [`Claims::device_bytes`].
    pub claimed_bytes: u64,
    /// The highest address below which every spot held: the end of the last intact spot below
    /// the first bad one, else the coverage.
    pub verified_bytes: u64,
    /// The lowest spot that did not hold its own block.
    pub first_bad_address: Option<u64>,
    /// For a fake: the real size, the modulus at which spots wrapped.
    pub real_bytes: Option<u64>,
    /// How far up the drive the spots reached.
    pub coverage: Coverage,
    /// Every wrap size (a real size at which writes land at `P mod R`) that is a multiple of
    /// 1 MiB up to this many bytes was ruled out or seen: two spots were that far apart, or
    /// (mounted mode) a read of the raw drive looked where such a wrap puts a spot's block.
    /// Absent in reports of earlier versions, which are read as limited by nothing
    /// (`u64::MAX`).
    #[serde(default = "unlimited")]
    pub wraps_checked_bytes: u64,
    /// The powers of two whose aliases were checked, bytes (mounted mode's first pass; empty
    /// in device mode, whose ruler covers every size).
    pub powers: Vec<u64>,
    /// The spots' tally.
    pub spots: SpotCounts,
    /// The first spots (up to 64, ascending) that did not hold their own block.
    pub bad_spots: Vec<BadSpot>,
    /// Why the check is unsure (empty unless some spot's reads disagreed or failed).
    pub unsure: Vec<UnsureReason>,
    /// What the card's registers say against its size and maker.
    pub registers: Vec<RegisterFinding>,
    /// Bytes written (patterns, and in device mode the restore).
    pub bytes_written: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Device mode: the saved sectors written back.
    pub restore: Option<Restore>,
    /// Recovery files of earlier, killed checks restored before this one.
    pub recovered: Vec<Recovered>,
}

fn unlimited() -> u64 {
    u64::MAX
}
