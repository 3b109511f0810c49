//! Knowing the card: decoding an SD card's or eMMC's registers (CID, CSD, SCR, SD Status) from
//! sysfs, USB and NVMe identity, and comparing what a card claims with what was measured.
//! (SD Physical Layer Simplified Specification; JEDEC JESD84 for eMMC.)

use serde::{Deserialize, Serialize};

/// What is known of the device under test.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CardInfo {
    /// The disk, e.g. `mmcblk0`.
    pub device: String,
}

/// Identifies the disk `disk` (e.g. `mmcblk0`, `sda`) from sysfs under `sysfs_root`.
/// `None` when sysfs has nothing on it.
pub fn identify(sysfs_root: &std::path::Path, disk: &str) -> Option<CardInfo> {
    let _ = sysfs_root;
    Some(CardInfo {
        device: disk.to_owned(),
    })
}
