//! Which of the history's drives are connected now: the identity the core gives each mounted
//! drive (its card's CID, its USB or NVMe serial, its filesystem's UUID), as a run of the
//! SD card test would record it, and what the history's capacity checks say of each. Reads
//! sysfs, the drives' superblocks and the history, so it runs off the main loop.

use std::path::{Path, PathBuf};

use agnostics_core::headline::CapacityKnown;
use agnostics_core::history::{DriveId, DriveIdentity, History};
use agnostics_core::target_dir::TargetInfo;

/// A mounted drive the history can know: its id and the folder to check it through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connected {
    /// The drive's id in the history.
    pub id: DriveId,
    /// The folder on it (the chooser's choice).
    pub dir: PathBuf,
}

/// The drives among `mounted` (a folder and what the core found out about it) that have an
/// identity, with sysfs under `sysfs_root`; one folder a drive (the first given).
pub fn identify(mounted: &[(PathBuf, TargetInfo)], sysfs_root: &Path) -> Vec<Connected> {
    let mut out: Vec<Connected> = Vec::new();
    for (dir, info) in mounted {
        let Some(identity) = identity_of(info, sysfs_root) else {
            continue;
        };
        if !out.iter().any(|c| c.id == identity.id) {
            out.push(Connected {
                id: identity.id,
                dir: dir.clone(),
            });
        }
    }
    out
}

/// What the capacity checks in the history at `history` say of the drive under each folder of
/// `mounted` (only the folders whose drive a check ran on), with sysfs under `sysfs_root`.
/// Nothing when there is no history or it cannot be read.
pub fn capacity_known(
    mounted: &[(PathBuf, TargetInfo)],
    sysfs_root: &Path,
    history: &Path,
) -> Vec<(PathBuf, CapacityKnown)> {
    if !history.exists() {
        return Vec::new();
    }
    let Ok(h) = History::open_read_only(history) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (dir, info) in mounted {
        let Some(identity) = identity_of(info, sysfs_root) else {
            continue;
        };
        match CapacityKnown::of(&h, &identity.id) {
            Ok(known) if known.checked() => out.push((dir.clone(), known)),
            _ => {}
        }
    }
    out
}

/// The identity of the drive a folder with the facts `info` is on, as a run would record it.
fn identity_of(info: &TargetInfo, sysfs_root: &Path) -> Option<DriveIdentity> {
    let card = info
        .device
        .as_ref()
        .and_then(|d| agnostics_core::card::identify(sysfs_root, &d.disk));
    agnostics_core::drive::identify(card.as_ref(), info, sysfs_root)
}
