//! USB and NVMe drives: what sysfs says about them. USB: the SCSI vendor and model, the USB
//! device's own manufacturer/product strings and IDs, its negotiated speed (`speed`, Mbit/s,
//! found by walking up the disk's sysfs path to the USB device). NVMe: the controller's
//! `model`, `firmware_rev`, and the PCIe link it trained at.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::sysfs::read_attr;

/// A USB drive or card reader.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UsbInfo {
    /// SCSI vendor (`device/vendor`), trimmed.
    pub vendor: Option<String>,
    /// SCSI model (`device/model`), trimmed.
    pub model: Option<String>,
    /// The USB device's manufacturer string.
    pub manufacturer: Option<String>,
    /// The USB device's product string.
    pub product: Option<String>,
    /// `idVendor:idProduct`, e.g. `0781:5581`.
    pub id: Option<String>,
    /// USB version the device declares (`version`, e.g. `3.20`).
    pub usb_version: Option<String>,
    /// Negotiated link speed, Mbit/s (1.5, 12, 480, 5000, 10000, 20000).
    pub speed_mbit: Option<f64>,
}

/// An NVMe drive.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NvmeInfo {
    /// Model (`device/model`), trimmed.
    pub model: Option<String>,
    /// Firmware revision (`device/firmware_rev`).
    pub firmware_rev: Option<String>,
    /// PCIe link speed, GT/s per lane (`current_link_speed`).
    pub pcie_gt_per_s: Option<f64>,
    /// PCIe lanes (`current_link_width`).
    pub pcie_lanes: Option<u32>,
}

/// The USB device (the directory with `speed` and `idVendor`) above `disk_dir`, stopping at
/// `sysfs_root`.
pub fn usb_device_dir(disk_dir: &Path, sysfs_root: &Path) -> Option<PathBuf> {
    let root = std::fs::canonicalize(sysfs_root).unwrap_or_else(|_| sysfs_root.to_path_buf());
    let start =
        std::fs::canonicalize(disk_dir.join("device")).unwrap_or_else(|_| disk_dir.to_path_buf());
    start
        .ancestors()
        .take_while(|p| p.starts_with(&root) && *p != root)
        .find(|p| p.join("speed").is_file() && p.join("idVendor").is_file())
        .map(Path::to_path_buf)
}

/// Reads what sysfs has on the USB disk whose sysfs directory is `disk_dir`.
pub fn usb_info(disk_dir: &Path, sysfs_root: &Path) -> UsbInfo {
    let dev = disk_dir.join("device");
    let mut info = UsbInfo {
        vendor: read_attr(&dev.join("vendor")),
        model: read_attr(&dev.join("model")),
        ..UsbInfo::default()
    };
    if let Some(usb) = usb_device_dir(disk_dir, sysfs_root) {
        info.manufacturer = read_attr(&usb.join("manufacturer"));
        info.product = read_attr(&usb.join("product"));
        info.id = match (
            read_attr(&usb.join("idVendor")),
            read_attr(&usb.join("idProduct")),
        ) {
            (Some(v), Some(p)) => Some(format!("{v}:{p}")),
            _ => None,
        };
        info.usb_version = read_attr(&usb.join("version"));
        info.speed_mbit = read_attr(&usb.join("speed")).and_then(|s| s.parse().ok());
    }
    info
}

/// Parses `8.0 GT/s PCIe` (or `8 GT/s`) into GT/s; `None` for `Unknown` or garbage.
pub fn parse_gt_per_s(text: &str) -> Option<f64> {
    let first = text.split_whitespace().next()?;
    let v: f64 = first.parse().ok()?;
    (v.is_finite() && v > 0.0).then_some(v)
}

/// Reads what sysfs has on the NVMe namespace whose sysfs directory is `disk_dir`: the
/// controller is `device`, its PCI function `device/device`.
pub fn nvme_info(disk_dir: &Path) -> NvmeInfo {
    let ctrl = disk_dir.join("device");
    let pci = ctrl.join("device");
    NvmeInfo {
        model: read_attr(&ctrl.join("model")),
        firmware_rev: read_attr(&ctrl.join("firmware_rev")),
        pcie_gt_per_s: read_attr(&pci.join("current_link_speed")).and_then(|s| parse_gt_per_s(&s)),
        pcie_lanes: read_attr(&pci.join("current_link_width")).and_then(|s| s.parse().ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target_dir::device::fixture::{device, link};

    #[test]
    fn usb_speed_comes_from_the_usb_device_above_the_disk() {
        let root = crate::target_dir::scratch_dir();
        let r = root.path();
        let usbdev = "devices/pci0000:00/0000:00:14.0/usb1/1-2";
        device(
            r,
            usbdev,
            &[
                ("speed", "480"),
                ("idVendor", "0bda"),
                ("idProduct", "0109"),
                ("manufacturer", "Generic"),
                ("product", "USB2.0-CRW"),
                ("version", " 2.00"),
            ],
        );
        let scsi = format!("{usbdev}/1-2:1.0/host2/target2:0:0/2:0:0:0");
        device(
            r,
            &scsi,
            &[("vendor", "Generic-"), ("model", "SD/MMC          ")],
        );
        device(r, &format!("{scsi}/block/sdc"), &[]);
        link(r, &format!("{scsi}/block/sdc/device"), "../../../2:0:0:0");
        let disk = std::fs::canonicalize(r.join(&scsi).join("block/sdc")).unwrap();
        let u = usb_info(&disk, r);
        assert_eq!(u.speed_mbit, Some(480.0));
        assert_eq!(u.id.as_deref(), Some("0bda:0109"));
        assert_eq!(u.model.as_deref(), Some("SD/MMC"));
        assert_eq!(u.usb_version.as_deref(), Some("2.00"));
    }

    #[test]
    fn nvme_model_firmware_and_link() {
        let root = crate::target_dir::scratch_dir();
        let r = root.path();
        let pci = "devices/pci0000:00/0000:00:1d.0/0000:01:00.0";
        device(
            r,
            pci,
            &[
                ("current_link_speed", "5.0 GT/s PCIe"),
                ("current_link_width", "1"),
            ],
        );
        let ctrl = format!("{pci}/nvme/nvme0");
        device(
            r,
            &ctrl,
            &[("model", "KIOXIA EXCERIA  "), ("firmware_rev", "ECFA11.3")],
        );
        link(r, &format!("{ctrl}/device"), "../../../0000:01:00.0");
        device(r, &format!("{ctrl}/nvme0n1"), &[]);
        link(r, &format!("{ctrl}/nvme0n1/device"), "../../nvme0");
        let n = nvme_info(&r.join(&ctrl).join("nvme0n1"));
        assert_eq!(n.model.as_deref(), Some("KIOXIA EXCERIA"));
        assert_eq!(n.firmware_rev.as_deref(), Some("ECFA11.3"));
        assert_eq!((n.pcie_gt_per_s, n.pcie_lanes), (Some(5.0), Some(1)));
    }

    #[test]
    fn link_speed_text() {
        assert_eq!(parse_gt_per_s("8.0 GT/s PCIe"), Some(8.0));
        assert_eq!(parse_gt_per_s("Unknown"), None);
        assert_eq!(parse_gt_per_s(""), None);
        assert_eq!(parse_gt_per_s("-1 GT/s"), None);
    }
}
