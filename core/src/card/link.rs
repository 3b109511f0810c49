//! The link between host and device, and the most it can carry: a measurement above it
//! cannot be the device's own speed. USB: the negotiated `speed` (480 Mbit/s for USB 2.0
//! high-speed is at most 60 MB/s, about 40 MB/s in practice). SD/eMMC: the bus mode from the
//! host's debugfs `ios` when readable (SD default speed 12.5 MB/s, high speed 25 MB/s, UHS-I
//! SDR104 104 MB/s), else what the card allows (a card older than SD 3.0 cannot use UHS-I,
//! so 25 MB/s), or on a Raspberry Pi (no UHS-II) UHS-I SDR104. NVMe: the PCIe link.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext};
use crate::sysfs::read_bounded;

/// What a USB 2.0 high-speed link carries in practice, bytes per second: about 40 MB/s of its
/// 60 MB/s ceiling. The rest goes to the bulk-only transport's overhead (a command and a status
/// transfer around every request, and the 125 µs microframe schedule); card readers on USB 2.0
/// measure near this figure, never near 60 MB/s.
pub const USB2_PRACTICAL: f64 = 40e6;

/// The link and the most bytes per second it can carry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "StoredLink")]
pub struct LinkInfo {
    /// For people: `USB 2.0 high-speed (480 Mbit/s)`, `SD bus sd uhs SDR104, 208 MHz, 4-bit`.
    pub name: String,
    /// The link's ceiling, bytes per second (raw signalling rate less line coding).
    pub max_bw_bytes: f64,
    /// How it was found (for people).
    pub basis: String,
    /// What the link carries in practice when that is well below `max_bw_bytes`, bytes per
    /// second: [`USB2_PRACTICAL`] for USB 2.0 high-speed (protocol overhead); `None` (JSON:
    /// absent) for every other link, whose ceiling is what it carries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub practical_bw_bytes: Option<f64>,
}

/// A [`LinkInfo`] as documents hold it. Documents written before `practical_bw_bytes` existed
/// name a USB 2.0 high-speed link only in `name` (as [`usb`] has always written it); reading
/// them gives the link its practical ceiling, so older runs compare as newer ones do.
#[derive(Deserialize)]
struct StoredLink {
    name: String,
    max_bw_bytes: f64,
    basis: String,
    #[serde(default)]
    practical_bw_bytes: Option<f64>,
}

impl From<StoredLink> for LinkInfo {
    fn from(s: StoredLink) -> LinkInfo {
        let written_before_the_field = s.practical_bw_bytes.is_none()
            && s.name.starts_with("USB 2.0 high-speed")
            && s.max_bw_bytes > USB2_PRACTICAL;
        LinkInfo {
            practical_bw_bytes: s
                .practical_bw_bytes
                .or(written_before_the_field.then_some(USB2_PRACTICAL)),
            name: s.name,
            max_bw_bytes: s.max_bw_bytes,
            basis: s.basis,
        }
    }
}

/// The ceiling of a USB link of `mbit` Mbit/s: raw rate for USB 1/2, less 8b/10b coding for
/// 5 Gbit/s, less 128b/132b for 10 and 20 Gbit/s.
pub fn usb(mbit: f64) -> Option<LinkInfo> {
    if !(mbit.is_finite() && mbit > 0.0) {
        return None;
    }
    let name = match mbit {
        m if m <= 1.5 => "USB 1.x low-speed".to_owned(),
        m if m <= 12.0 => "USB 1.1 full-speed".to_owned(),
        m if m <= 480.0 => "USB 2.0 high-speed".to_owned(),
        m => format!("USB 3.x {} Gbit/s", m / 1000.0),
    };
    let coding = if mbit <= 480.0 {
        1.0
    } else if mbit <= 5000.0 {
        0.8
    } else {
        128.0 / 132.0
    };
    let max_bw_bytes = mbit * 1e6 * coding / 8.0;
    let high_speed = mbit > 12.0 && mbit <= 480.0;
    Some(LinkInfo {
        name: format!("{name} ({mbit} Mbit/s)"),
        max_bw_bytes,
        basis: gettext("the USB device's negotiated speed"),
        practical_bw_bytes: (high_speed && max_bw_bytes > USB2_PRACTICAL).then_some(USB2_PRACTICAL),
    })
}

/// The ceiling of a PCIe link: GT/s × lanes, less 8b/10b coding (up to 5 GT/s) or
/// 128b/130b (8 GT/s and above).
pub fn pcie(gt_per_s: f64, lanes: u32) -> Option<LinkInfo> {
    if !(gt_per_s.is_finite() && gt_per_s > 0.0) || lanes == 0 {
        return None;
    }
    let coding = if gt_per_s <= 5.0 { 0.8 } else { 128.0 / 130.0 };
    Some(LinkInfo {
        name: format!("PCIe {gt_per_s} GT/s x{lanes}"),
        max_bw_bytes: gt_per_s * 1e9 * coding * f64::from(lanes) / 8.0,
        basis: gettext("the PCIe link the drive trained at"),
        practical_bw_bytes: None,
    })
}

/// Parses an mmc host's debugfs `ios` (`clock:`, `actual clock:`, `bus width: 2 (4 bits)`,
/// `timing spec: 6 (sd uhs SDR104)`) into the bus ceiling: clock × bits / 8, doubled for DDR
/// modes. `None` when the clock or width is missing or zero.
pub fn from_ios(text: &str) -> Option<LinkInfo> {
    let mut clock = None;
    let mut actual = None;
    let mut bits = None;
    let mut timing = String::new();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let paren = || {
            value
                .split_once('(')
                .map(|(_, r)| r.trim_end_matches(')').trim().to_owned())
        };
        match key.trim() {
            "clock" => {
                clock = value
                    .split_whitespace()
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
            }
            "actual clock" => {
                actual = value
                    .split_whitespace()
                    .next()
                    .and_then(|v| v.parse::<f64>().ok())
            }
            "bus width" => {
                bits = paren().and_then(|p| p.split_whitespace().next()?.parse::<f64>().ok())
            }
            "timing spec" => timing = paren().unwrap_or_default(),
            _ => {}
        }
    }
    let hz = actual
        .filter(|a| *a > 0.0)
        .or(clock)
        .filter(|c| c.is_finite() && *c > 0.0)?;
    let bits = bits.filter(|b| b.is_finite() && *b > 0.0)?;
    let ddr = timing.contains("DDR") || timing.contains("HS400");
    let max = hz * bits / 8.0 * if ddr { 2.0 } else { 1.0 };
    Some(LinkInfo {
        name: format!("SD/MMC bus {timing}, {} MHz, {bits}-bit", hz / 1e6),
        max_bw_bytes: max,
        basis: gettext("the host's current bus mode (debugfs ios)"),
        practical_bw_bytes: None,
    })
}

/// The bus ceiling from `<sysfs_root>/kernel/debug/<host>/ios` (debugfs, readable by root
/// only), `None` when it cannot be read.
pub fn ios(sysfs_root: &Path, host: &str) -> Option<LinkInfo> {
    let path = sysfs_root.join("kernel/debug").join(host).join("ios");
    read_bounded(&path)
        .ok()
        .and_then(|b| from_ios(&String::from_utf8_lossy(&b)))
}

/// The mmc host (`mmc0`) a card's disk hangs off, from the canonical sysfs path
/// (`…/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0`).
pub fn mmc_host_of(disk_dir: &Path) -> Option<String> {
    let dev = std::fs::canonicalize(disk_dir.join("device")).ok()?;
    let host = dev.parent()?.file_name()?.to_string_lossy().into_owned();
    (host.starts_with("mmc") && !host.contains(':')).then_some(host)
}

/// True when the device tree says this is a Raspberry Pi (whose SD hosts have no UHS-II).
pub fn is_raspberry_pi(sysfs_root: &Path) -> bool {
    read_bounded(&sysfs_root.join("firmware/devicetree/base/compatible"))
        .map(|b| String::from_utf8_lossy(&b).contains("raspberrypi"))
        .unwrap_or(false)
}

/// The SD card link: the host's bus mode when debugfs is readable; else 25 MB/s (high
/// speed) when the card predates SD 3.0 (`uhs_capable` false), or UHS-I SDR104 (104 MB/s)
/// on a Raspberry Pi. `None` when nothing bounds it.
pub fn sd(sysfs_root: &Path, host: Option<&str>, uhs_capable: Option<bool>) -> Option<LinkInfo> {
    if let Some(l) = host.and_then(|h| ios(sysfs_root, h)) {
        return Some(l);
    }
    if uhs_capable == Some(false) {
        return Some(LinkInfo {
            name: gettext("SD high speed (4-bit, 50 MHz)"),
            max_bw_bytes: 25e6,
            basis: gettext("the card predates SD 3.0, so it cannot use a UHS bus mode"),
            practical_bw_bytes: None,
        });
    }
    if is_raspberry_pi(sysfs_root) {
        return Some(LinkInfo {
            name: gettext("SD UHS-I SDR104 (4-bit, 208 MHz)"),
            max_bw_bytes: 104e6,
            basis: gettext("the fastest SD bus mode a Raspberry Pi supports"),
            practical_bw_bytes: None,
        });
    }
    None
}

/// For people: `USB 2.0 high-speed (480 Mbit/s): at most 60.0 MB/s`.
pub fn describe(l: &LinkInfo) -> String {
    fill(
        &gettext("{link}: at most {mbps} MB/s"),
        &[
            ("link", &l.name),
            (
                "mbps",
                &crate::figure::nearest_text(crate::units::mb_per_s(l.max_bw_bytes), 1),
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_usb_2_high_speed_has_a_practical_ceiling_below_its_own() {
        assert_eq!(usb(480.0).unwrap().practical_bw_bytes, Some(40e6));
        assert_eq!(usb(12.0).unwrap().practical_bw_bytes, None);
        assert_eq!(usb(5000.0).unwrap().practical_bw_bytes, None);
        assert_eq!(pcie(8.0, 1).unwrap().practical_bw_bytes, None);
    }

    #[test]
    fn the_practical_ceiling_survives_documents_old_and_new() {
        let new = serde_json::to_value(usb(480.0).unwrap()).unwrap();
        assert_eq!(new["practical_bw_bytes"], 40e6);
        let back: LinkInfo = serde_json::from_value(new).unwrap();
        assert_eq!(back, usb(480.0).unwrap());
        let sd = serde_json::to_value(pcie(8.0, 1).unwrap()).unwrap();
        assert!(sd.get("practical_bw_bytes").is_none(), "{sd}");
        let old: LinkInfo = serde_json::from_str(
            r#"{"name":"USB 2.0 high-speed (480 Mbit/s)","max_bw_bytes":60000000.0,"basis":"b"}"#,
        )
        .unwrap();
        assert_eq!(old.practical_bw_bytes, Some(USB2_PRACTICAL));
        let old_sd: LinkInfo = serde_json::from_str(
            r#"{"name":"SD high speed (4-bit, 50 MHz)","max_bw_bytes":25000000.0,"basis":"b"}"#,
        )
        .unwrap();
        assert_eq!(old_sd.practical_bw_bytes, None);
    }

    #[test]
    fn usb_ceilings() {
        assert_eq!(usb(480.0).unwrap().max_bw_bytes, 60e6);
        assert_eq!(usb(5000.0).unwrap().max_bw_bytes, 500e6);
        assert!(usb(480.0).unwrap().name.starts_with("USB 2.0 high-speed"));
        assert!(usb(0.0).is_none());
        assert!(usb(f64::NAN).is_none());
    }

    #[test]
    fn pcie_ceilings() {
        assert_eq!(pcie(5.0, 1).unwrap().max_bw_bytes, 500e6);
        let g3x4 = pcie(8.0, 4).unwrap().max_bw_bytes;
        assert!((g3x4 - 3.938e9).abs() < 1e7);
        assert!(pcie(8.0, 0).is_none());
    }

    const IOS_SDR104: &str = "clock:\t\t208000000 Hz\nactual clock:\t200000000 Hz\nvdd:\t\t21 (3.3 ~ 3.4 V)\nbus mode:\t2 (push-pull)\nchip select:\t0 (don't care)\npower mode:\t2 (on)\nbus width:\t2 (4 bits)\ntiming spec:\t6 (sd uhs SDR104)\nsignal voltage:\t1 (1.80 V)\ndriver type:\t0 (driver type B)\n";

    #[test]
    fn ios_gives_the_bus_ceiling() {
        let l = from_ios(IOS_SDR104).unwrap();
        assert_eq!(l.max_bw_bytes, 100e6);
        assert!(l.name.contains("SDR104"));
        let hs = "clock:\t\t50000000 Hz\nbus width:\t2 (4 bits)\ntiming spec:\t2 (sd high-speed)\n";
        assert_eq!(from_ios(hs).unwrap().max_bw_bytes, 25e6);
        let ddr = "clock:\t\t50000000 Hz\nbus width:\t2 (4 bits)\ntiming spec:\t7 (sd uhs DDR50)\n";
        assert_eq!(from_ios(ddr).unwrap().max_bw_bytes, 50e6);
        assert!(from_ios("clock: 0 Hz\nbus width: 2 (4 bits)\n").is_none());
        assert!(from_ios("garbage\n:::\n(").is_none());
    }

    #[test]
    fn sd_without_debugfs() {
        let root = crate::target_dir::scratch_dir();
        let r = root.path();
        assert!(sd(r, Some("mmc0"), None).is_none());
        assert_eq!(sd(r, Some("mmc0"), Some(false)).unwrap().max_bw_bytes, 25e6);
        std::fs::create_dir_all(r.join("firmware/devicetree/base")).unwrap();
        std::fs::write(
            r.join("firmware/devicetree/base/compatible"),
            b"raspberrypi,5-model-b\0brcm,bcm2712\0",
        )
        .unwrap();
        assert_eq!(sd(r, Some("mmc0"), Some(true)).unwrap().max_bw_bytes, 104e6);
        std::fs::create_dir_all(r.join("kernel/debug/mmc0")).unwrap();
        std::fs::write(r.join("kernel/debug/mmc0/ios"), IOS_SDR104).unwrap();
        assert_eq!(sd(r, Some("mmc0"), Some(true)).unwrap().max_bw_bytes, 100e6);
    }

    proptest::proptest! {
        #[test]
        fn ios_parser_never_panics(text in "\\PC*") {
            let _ = from_ios(&text);
        }
    }
}
