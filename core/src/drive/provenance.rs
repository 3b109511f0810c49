//! How a test was measured, so that only like is compared with like: the program's version,
//! the engine (and fio's version), the profile's name and a hash of its jobs, and the machine's
//! state (kernel, Raspberry Pi model, CPU governor, SoC temperature, the firmware's throttled
//! flags, the SD bus mode). Every reader takes a root path (`/proc`, `/sys`, or a fixture tree)
//! and gives `None` for what it cannot read.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::card::CardInfo;
use crate::engine::EngineKind;
use crate::profile::Profile;
use crate::sysfs::{read_attr, read_bounded};

/// How a test was measured (JSON `measured_with`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// This program's version, e.g. `0.1.0`.
    pub program_version: String,
    /// The engine.
    pub engine: EngineKind,
    /// fio's version (`fio-3.33`) with the fio engine; null with the native engine or when
    /// `fio --version` gave nothing.
    pub fio_version: Option<String>,
    /// The profile's name (`sd_bench`).
    pub profile_name: String,
    /// 16 lowercase hex digits: the first 64 bits of SHA-256 of the profile's canonical job
    /// text ([`profile_hash`]); equal hashes mean the same jobs.
    pub profile_hash: String,
    /// The kernel release (`uname -r`, from `<proc>/sys/kernel/osrelease`).
    pub kernel: Option<String>,
    /// The board (`<proc>/device-tree/model`, NUL trimmed), e.g. `Raspberry Pi 5 Model B Rev 1.0`.
    pub pi_model: Option<String>,
    /// CPU 0's cpufreq governor (`ondemand`, `performance`, …).
    pub cpu_governor: Option<String>,
    /// The SoC temperature at the start, millidegrees Celsius (`thermal_zone0/temp`).
    pub soc_temp_millicelsius: Option<i64>,
    /// The firmware's throttled flags (bit 0 under-voltage now, 1 frequency capped, 2
    /// throttled, 3 soft temperature limit; bits 16–19 the same "has occurred"), from
    /// `<sys>/devices/platform/soc/soc:firmware/get_throttled`.
    pub throttled: Option<u32>,
    /// The SD/eMMC bus mode when the host's debugfs `ios` is readable (root), e.g. `SD/MMC
    /// bus sd uhs SDR104, 200 MHz, 4-bit`; null otherwise.
    pub sd_bus_mode: Option<String>,
}

/// Where the machine's state is read: `/proc` and `/sys` normally.
#[derive(Debug, Clone)]
pub struct Roots<'a> {
    /// procfs (`/proc`).
    pub proc_root: &'a Path,
    /// sysfs (`/sys`).
    pub sysfs_root: &'a Path,
}

/// The first 64 bits of SHA-256 of `profile`'s canonical job text (the job file the fio
/// engine would run; independent of the file's comments, spacing and key order), as 16 hex
/// digits.
pub fn profile_hash(profile: &Profile) -> String {
    let text = crate::engine::fio::jobfile::job_file_text(profile);
    super::identity::hex(&Sha256::digest(text.as_bytes())[..8])
}

/// fio's version line (`fio-3.33`), from `<fio> --version`; `None` when it cannot be run.
pub fn fio_version(fio: &Path) -> Option<String> {
    let out = std::process::Command::new(fio)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// How a test of `profile` with `engine` on the drive `card` is measured on this machine,
/// read under `roots`. fio's version is asked of [`crate::engine::fio::fio_program`] only
/// with the fio engine.
pub fn collect(
    roots: &Roots<'_>,
    engine: EngineKind,
    profile: &Profile,
    card: Option<&CardInfo>,
) -> Provenance {
    Provenance {
        program_version: crate::VERSION.to_owned(),
        engine,
        fio_version: match engine {
            EngineKind::Fio => fio_version(&crate::engine::fio::fio_program()),
            EngineKind::Native => None,
        },
        profile_name: profile.name.clone(),
        profile_hash: profile_hash(profile),
        kernel: read_attr(&roots.proc_root.join("sys/kernel/osrelease")),
        pi_model: pi_model(roots),
        cpu_governor: read_attr(
            &roots
                .sysfs_root
                .join("devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        ),
        soc_temp_millicelsius: read_attr(
            &roots.sysfs_root.join("class/thermal/thermal_zone0/temp"),
        )
        .and_then(|t| t.parse().ok()),
        throttled: read_attr(
            &roots
                .sysfs_root
                .join("devices/platform/soc/soc:firmware/get_throttled"),
        )
        .and_then(|t| parse_throttled(&t)),
        sd_bus_mode: card.and_then(|c| sd_bus_mode(roots.sysfs_root, c)),
    }
}

/// The SD/eMMC card's current bus mode from its host's debugfs `ios` (readable by root
/// only), e.g. `SD/MMC bus sd high-speed, 50 MHz, 4-bit`; `None` for other drives or when it
/// cannot be read (the link's ceiling guessed from the card is not a bus mode).
fn sd_bus_mode(sysfs_root: &Path, card: &CardInfo) -> Option<String> {
    if !matches!(
        card.kind,
        crate::target_dir::Transport::Sd | crate::target_dir::Transport::Emmc
    ) {
        return None;
    }
    let disk = crate::sysfs::dir_of_name(sysfs_root, &card.device)?;
    let host = crate::card::link::mmc_host_of(&disk)?;
    crate::card::link::ios(sysfs_root, &host).map(|l| l.name)
}

/// The board's model: the device tree's `model` under sysfs (`firmware/devicetree/base/model`,
/// which `/proc/device-tree/model` links to), else `<proc>/device-tree/model` when sysfs is the
/// real `/sys`; NUL and spaces trimmed.
fn pi_model(roots: &Roots<'_>) -> Option<String> {
    let mut places = vec![roots.sysfs_root.join("firmware/devicetree/base/model")];
    if roots.sysfs_root == Path::new("/sys") {
        places.push(roots.proc_root.join("device-tree/model"));
    }
    places
        .iter()
        .find_map(|p| read_bounded(p).ok())
        .map(|b| {
            String::from_utf8_lossy(&b)
                .trim_end_matches(['\0', '\n', ' '])
                .to_owned()
        })
        .filter(|s| !s.is_empty())
}

/// The throttled flags as the firmware prints them: hex, with or without `0x`
/// (`throttled=0x50005` from `vcgencmd` is accepted too).
pub fn parse_throttled(text: &str) -> Option<u32> {
    let t = text.trim();
    let t = t.strip_prefix("throttled=").unwrap_or(t);
    let t = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .unwrap_or(t);
    u32::from_str_radix(t, 16).ok()
}
