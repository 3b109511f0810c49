//! Knowing the card: decoding an SD card's or eMMC's registers (CID, CSD, SCR, SD Status) from
//! sysfs, USB and NVMe identity, the link's ceiling, and comparing what a card claims with
//! what was measured. (SD Physical Layer Simplified Specification; JEDEC JESD84 for eMMC.)
//!
//! Every read goes through a sysfs root (normally `/sys`) so that tests and users can point
//! it at a copy: `<root>/block/mmcblk0/device/cid` and so on. Decoders never panic, whatever
//! the text.

pub mod alignment;
pub mod cid;
pub mod claims;
pub mod csd;
pub mod emmc;
pub mod link;
pub mod manufacturers;
pub mod mmc;
pub mod queueing;
pub mod quirks;
pub mod regs;
pub mod scr;
pub mod ssr;
pub mod usb_nvme;
pub mod wear;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use alignment::PartitionAlignment;
pub use cid::CidInfo;
pub use claims::{findings, Finding};
pub use link::LinkInfo;
pub use queueing::{CommandQueueing, QueueingSource, QueueingState};
pub use quirks::{cqe_quirk, CqeQuirk};
pub use regs::RegisterState;
pub use wear::EmmcWear;

use crate::i18n::{fill, gettext};
use crate::sysfs;
use crate::target_dir::device;
use crate::target_dir::Transport;

/// The state of each register: not exposed, all zeros, unreadable, or decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Registers {
    /// Card IDentification.
    pub cid: RegisterState,
    /// Card-Specific Data.
    pub csd: RegisterState,
    /// SD Configuration Register.
    pub scr: RegisterState,
    /// SD Status.
    pub ssr: RegisterState,
}

/// What is known of the device under test (JSON: the `card` object).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CardInfo {
    /// The disk, e.g. `mmcblk0`, `sda`.
    pub device: String,
    /// How the device is attached, the same as the target's transport. JSON: `SD`, `MMC`
    /// (where the target's `transport` says `eMMC`), `USB`, `NVMe`, `virtio`, `loop`, `memory`,
    /// `other` ([`Transport::card_kind_str`]).
    #[serde(with = "crate::target_dir::card_kind_spelling")]
    pub kind: Transport,
    /// Vendor and model as sysfs has them (SD: the CID product name).
    pub model: Option<String>,
    /// The card's identity (SD/eMMC), from the CID or the kernel's readings of it.
    pub cid: Option<CidInfo>,
    /// Capacity from the CSD, bytes (null for eMMC whose size is in EXT_CSD).
    pub capacity_bytes: Option<u64>,
    /// The size the kernel sees (`<disk>/size` × 512), bytes.
    pub size_bytes: Option<u64>,
    /// The SD Status ratings, or null when not exposed, all zeros or unreadable.
    pub ssr: Option<ssr::Ssr>,
    /// The SD Configuration Register, or null.
    pub scr: Option<scr::Scr>,
    /// The SD CSD, or null.
    pub csd: Option<csd::Csd>,
    /// Which registers were missing, all zeros, unreadable or decoded.
    pub registers: Registers,
    /// The kernel's readings (`name`, `manfid`, `oemid`, `date`, `serial`, …), when any.
    pub sysfs: Option<mmc::SysfsIds>,
    /// USB drive details.
    pub usb: Option<usb_nvme::UsbInfo>,
    /// NVMe drive details.
    pub nvme: Option<usb_nvme::NvmeInfo>,
    /// The link to the host and its ceiling, when known.
    pub link: Option<LinkInfo>,
    /// SD and eMMC: whether the host queues commands to the card (A2 is graded only when it
    /// does); null for other devices.
    #[serde(default)]
    pub command_queueing: Option<CommandQueueing>,
    /// SD and eMMC: each partition's start against the card's erase size and allocation unit;
    /// empty for other devices and for a card without partitions.
    #[serde(default)]
    pub partitions: Vec<PartitionAlignment>,
    /// eMMC: the device's own wear estimates (`life_time`, `pre_eol_info`); null otherwise.
    #[serde(default)]
    pub emmc_wear: Option<EmmcWear>,
    /// For people: disagreements between sysfs and the registers, bad checksums, reserved
    /// values, registers that could not be read.
    pub warnings: Vec<String>,
}

impl CardInfo {
    /// One line for the report, SD and eMMC only: `Card: Kingston / Texas Instruments (ID
    /// 0x9F) SD64G, 62.3 GB, made 2019-11; claims Class 10, U3, V30, A2`. `None` for other
    /// devices and for cards without an identity.
    pub fn summary(&self) -> Option<String> {
        if !matches!(self.kind, Transport::Sd | Transport::Emmc) {
            return None;
        }
        let cid = self.cid.as_ref()?;
        let maker = match cid.mid {
            Some(mid) => manufacturers::lookup(
                if self.kind == Transport::Emmc {
                    manufacturers::Bus::Mmc
                } else {
                    manufacturers::Bus::Sd
                },
                mid,
            )
            .label(),
            None => gettext("unknown maker"),
        };
        let mut parts = vec![format!(
            "{maker} {}",
            cid.pnm
                .as_deref()
                .unwrap_or("?")
                .trim_end_matches(['\0', ' '])
        )];
        if let Some(c) = self.capacity_bytes.or(self.size_bytes) {
            parts.push(crate::units::human_bytes(c));
        }
        if let Some(d) = &cid.mdt {
            parts.push(fill(&gettext("made {date}"), &[("date", d)]));
        }
        let mut line = fill(&gettext("Card: {card}"), &[("card", &parts.join(", "))]);
        let ratings = self.claimed_ratings();
        if !ratings.is_empty() {
            line.push_str(&fill(
                &gettext("; claims {ratings}"),
                &[("ratings", &ratings.join(", "))],
            ));
        }
        Some(line)
    }

    /// The ratings the card claims in its SD Status, for people: `Class 10`, `U3`, `V30`,
    /// `A2` (only those it has).
    pub fn claimed_ratings(&self) -> Vec<String> {
        let Some(s) = &self.ssr else {
            return Vec::new();
        };
        let mut v = Vec::new();
        if let Some(c) = s.speed_class.filter(|c| *c > 0) {
            v.push(format!("Class {c}"));
        }
        if let Some(u) = s.uhs_grade.filter(|u| *u > 0) {
            v.push(format!("U{u}"));
        }
        if let Some(vc) = s.video_class.filter(|v| *v > 0) {
            v.push(format!("V{vc}"));
        }
        if let Some(a) = &s.app_perf_class {
            v.push(a.clone());
        }
        v
    }
}

/// Identifies the disk `disk` (e.g. `mmcblk0`, `sda`, `nvme0n1`) from sysfs under
/// `sysfs_root`: for SD/eMMC its registers, for USB and NVMe drives their model and link.
/// `None` when `<sysfs_root>/block/<disk>` (or `class/block/<disk>`) does not exist.
pub fn identify(sysfs_root: &Path, disk: &str) -> Option<CardInfo> {
    let disk_dir = sysfs::dir_of_name(sysfs_root, disk)?;
    let transport = device::transport_of(&disk_dir);
    let mut info = CardInfo {
        device: disk.to_owned(),
        model: device::model_of(&disk_dir, transport),
        size_bytes: sysfs::read_attr(&disk_dir.join("size"))
            .and_then(|s| s.parse::<u64>().ok())
            .map(|sectors| sectors.saturating_mul(512)),
        ..CardInfo::default()
    };
    if disk.starts_with("mmcblk") {
        mmc::read(&mut info, &disk_dir, sysfs_root);
        if info.model.is_none() {
            info.model = info.cid.as_ref().and_then(|c| c.pnm.clone());
        }
        return Some(info);
    }
    info.kind = transport;
    match info.kind {
        Transport::Usb => {
            let u = usb_nvme::usb_info(&disk_dir, sysfs_root);
            info.link = u.speed_mbit.and_then(link::usb);
            info.usb = Some(u);
        }
        Transport::Nvme => {
            let n = usb_nvme::nvme_info(&disk_dir);
            info.link = match (n.pcie_gt_per_s, n.pcie_lanes) {
                (Some(gt), Some(lanes)) => link::pcie(gt, lanes),
                _ => None,
            };
            info.nvme = Some(n);
        }
        _ => {}
    }
    Some(info)
}

/// The one SD card this machine has, by kernel name (`mmcblk0`): the whole disks under
/// `<sysfs_root>/block` (or `class/block`) whose device type is SD. `None` when there is no
/// SD card or more than one. What `card` falls back on when the default target tells no disk
/// (nothing mounted from the card, no `/var/tmp`).
pub fn sole_sd_card(sysfs_root: &Path) -> Option<String> {
    let mut found = Vec::new();
    for dir in ["block", "class/block"] {
        let Ok(entries) = std::fs::read_dir(sysfs_root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            // A whole disk has a `device` link; its partitions and boot areas have none.
            let disk_dir = entry.path();
            if name.starts_with("mmcblk")
                && disk_dir.join("device").exists()
                && device::transport_of(&disk_dir) == Transport::Sd
                && !found.contains(&name)
            {
                found.push(name);
            }
        }
    }
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod sole_card_tests {
    use super::*;

    fn disk(root: &Path, name: &str, kind: Option<&str>) {
        let dir = root.join("block").join(name).join("device");
        std::fs::create_dir_all(&dir).unwrap();
        if let Some(kind) = kind {
            std::fs::write(dir.join("type"), format!("{kind}\n")).unwrap();
        }
    }

    #[test]
    fn the_one_sd_card_is_found_among_other_disks() {
        let root = tempfile::tempdir().unwrap();
        disk(root.path(), "mmcblk0", Some("SD"));
        disk(root.path(), "mmcblk1", Some("MMC"));
        disk(root.path(), "sda", None);
        std::fs::create_dir_all(root.path().join("block/mmcblk0p1")).unwrap();
        assert_eq!(sole_sd_card(root.path()).as_deref(), Some("mmcblk0"));
    }

    #[test]
    fn two_sd_cards_or_none_name_no_card() {
        let root = tempfile::tempdir().unwrap();
        assert_eq!(sole_sd_card(root.path()), None);
        disk(root.path(), "mmcblk1", Some("MMC"));
        assert_eq!(sole_sd_card(root.path()), None);
        disk(root.path(), "mmcblk0", Some("SD"));
        disk(root.path(), "mmcblk2", Some("SD"));
        assert_eq!(sole_sd_card(root.path()), None);
    }
}
