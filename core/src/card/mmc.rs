//! Reading an SD card or eMMC from its sysfs directory (`<sysfs>/block/mmcblkN/device/`):
//! the registers `cid`, `csd`, `scr`, `ssr` and the kernel's own readings of the CID (`name`,
//! `manfid`, `oemid`, `date`, `serial`, `hwrev`, `fwrev`, `prv`), which are compared with the
//! decoded register; any disagreement becomes a warning.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::cid::{self, format_date, set_manufacturer, CidInfo, CidSource, SdCid};
use super::emmc::{self, EmmcCid};
use super::manufacturers::Bus;
use super::regs::{self, ascii_or_hex, bcd_revision, CrcStatus, HexError, RegisterState};
use super::{alignment, csd, link, queueing, scr, ssr, wear, CardInfo};
use crate::i18n::{fill, gettext};
use crate::sysfs::{parse_num, read_attr, read_bounded};
use crate::target_dir::Transport;

/// The kernel's readings of the card, as sysfs has them (each file that exists).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct SysfsIds {
    /// `type`: `SD`, `MMC`, `SDIO`, `SDcombo`.
    #[serde(rename = "type")]
    pub card_type: Option<String>,
    /// `name`: the product name up to its first NUL (trailing spaces kept).
    pub name: Option<String>,
    /// `manfid`, e.g. `0x00009f`.
    pub manfid: Option<String>,
    /// `oemid`, e.g. `0x5449`.
    pub oemid: Option<String>,
    /// `date`, `MM/YYYY`.
    pub date: Option<String>,
    /// `serial`, e.g. `0x36980065`.
    pub serial: Option<String>,
    /// `hwrev` (SD: PRV's first digit).
    pub hwrev: Option<String>,
    /// `fwrev` (SD: PRV's second digit).
    pub fwrev: Option<String>,
    /// `prv` (eMMC).
    pub prv: Option<String>,
    /// `rev` (eMMC: EXT_CSD revision).
    pub rev: Option<String>,
    /// `preferred_erase_size`, bytes (equals the SD Status AU size on SD cards).
    pub preferred_erase_size: Option<String>,
}

impl SysfsIds {
    fn read(dev: &Path) -> SysfsIds {
        let a = |n: &str| read_attr(&dev.join(n));
        SysfsIds {
            card_type: a("type"),
            name: read_name(&dev.join("name")),
            manfid: a("manfid"),
            oemid: a("oemid"),
            date: a("date"),
            serial: a("serial"),
            hwrev: a("hwrev"),
            fwrev: a("fwrev"),
            prv: a("prv"),
            rev: a("rev"),
            preferred_erase_size: a("preferred_erase_size"),
        }
    }

    fn is_empty(&self) -> bool {
        *self == SysfsIds::default()
    }
}

/// `name` keeps its trailing spaces (`SPCC `): only the newline is removed.
fn read_name(path: &Path) -> Option<String> {
    let bytes = read_bounded(path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let t = text.trim_end_matches(['\n', '\r']);
    (!t.is_empty()).then(|| t.to_owned())
}

/// `MM/YYYY` → (month, year).
pub fn parse_date(text: &str) -> Option<(u8, u16)> {
    let (m, y) = text.trim().split_once('/')?;
    Some((m.trim().parse().ok()?, y.trim().parse().ok()?))
}

/// The outcome of reading one register file.
struct Loaded<const N: usize> {
    state: RegisterState,
    bytes: Option<[u8; N]>,
}

fn load<const N: usize>(
    dev: &Path,
    name: &str,
    parse: impl Fn(&str) -> Result<[u8; N], HexError>,
    warnings: &mut Vec<String>,
) -> Loaded<N> {
    let Ok(raw) = read_bounded(&dev.join(name)) else {
        return Loaded {
            state: RegisterState::Missing,
            bytes: None,
        };
    };
    match parse(&String::from_utf8_lossy(&raw)) {
        Ok(b) if b.iter().all(|&x| x == 0) => Loaded {
            state: RegisterState::AllZero,
            bytes: None,
        },
        Ok(b) => Loaded {
            state: RegisterState::Decoded,
            bytes: Some(b),
        },
        Err(e) => {
            warnings.push(fill(
                &gettext("The {register} register could not be read: {error}."),
                &[("register", &name.to_uppercase()), ("error", &e)],
            ));
            Loaded {
                state: RegisterState::Invalid,
                bytes: None,
            }
        }
    }
}

fn fixed<const N: usize>(text: &str) -> Result<[u8; N], HexError> {
    let v = regs::parse_hex(text, N)?;
    let mut a = [0u8; N];
    a.copy_from_slice(&v);
    Ok(a)
}

/// A warning when the kernel's reading of a CID field disagrees with the decoded register.
fn disagree(warnings: &mut Vec<String>, field: &str, sysfs: &str, decoded: &str) {
    warnings.push(fill(
        // Translators: {field} is a sysfs file name (name, manfid, oemid, date, serial, …).
        &gettext("The kernel's {field} ({sysfs}) disagrees with the decoded CID ({decoded})."),
        &[("field", &field), ("sysfs", &sysfs), ("decoded", &decoded)],
    ));
}

fn check_num(
    w: &mut Vec<String>,
    field: &str,
    sysfs: Option<&String>,
    decoded: u64,
    shown: String,
) {
    if let Some(s) = sysfs {
        if parse_num(s) != Some(decoded) {
            disagree(w, field, s, &shown);
        }
    }
}

fn check_name(w: &mut Vec<String>, ids: &SysfsIds, decoded: &str) {
    if let Some(n) = &ids.name {
        if n.trim_end() != decoded.trim_end() {
            disagree(w, "name", n, decoded);
        }
    }
}

fn crosscheck_sd(w: &mut Vec<String>, ids: &SysfsIds, c: &SdCid) {
    check_name(w, ids, &c.linux_name());
    check_num(
        w,
        "manfid",
        ids.manfid.as_ref(),
        u64::from(c.mid),
        format!("0x{:06x}", c.mid),
    );
    let oid = u16::from_be_bytes(c.oid);
    check_num(
        w,
        "oemid",
        ids.oemid.as_ref(),
        u64::from(oid),
        format!("0x{oid:04x}"),
    );
    check_num(
        w,
        "serial",
        ids.serial.as_ref(),
        u64::from(c.psn),
        format!("0x{:08x}", c.psn),
    );
    check_num(
        w,
        "hwrev",
        ids.hwrev.as_ref(),
        u64::from(c.prv >> 4),
        format!("0x{:x}", c.prv >> 4),
    );
    check_num(
        w,
        "fwrev",
        ids.fwrev.as_ref(),
        u64::from(c.prv & 0xf),
        format!("0x{:x}", c.prv & 0xf),
    );
    if let Some(d) = &ids.date {
        if parse_date(d) != Some((c.month, c.year)) {
            disagree(w, "date", d, &format!("{:02}/{}", c.month, c.year));
        }
    }
}

fn crosscheck_mmc(w: &mut Vec<String>, ids: &SysfsIds, c: &EmmcCid, rev: Option<u8>) {
    check_name(w, ids, &c.linux_name());
    check_num(
        w,
        "manfid",
        ids.manfid.as_ref(),
        u64::from(c.mid),
        format!("0x{:06x}", c.mid),
    );
    check_num(
        w,
        "oemid",
        ids.oemid.as_ref(),
        u64::from(c.oemid16),
        format!("0x{:04x}", c.oemid16),
    );
    check_num(
        w,
        "serial",
        ids.serial.as_ref(),
        u64::from(c.psn),
        format!("0x{:08x}", c.psn),
    );
    check_num(
        w,
        "prv",
        ids.prv.as_ref(),
        u64::from(c.prv),
        format!("0x{:x}", c.prv),
    );
    if let Some(d) = &ids.date {
        let year = emmc::year(c.year_code, rev);
        match parse_date(d) {
            Some((m, y)) if (m, y) == (c.month, year) => {}
            Some((m, y)) if m == c.month && y + 16 == year => w.push(fill(
                &gettext("The kernel's date {date} uses the older 1997 year base; with EXT_CSD revision {rev} the date is {mdt}."),
                &[("date", d), ("rev", &rev.unwrap_or(0)), ("mdt", &format_date(year, c.month))],
            )),
            _ => disagree(w, "date", d, &format!("{:02}/{year}", c.month)),
        }
    }
}

/// The identity from the kernel's attributes alone, when the CID itself is not exposed.
fn from_sysfs(ids: &SysfsIds, bus: Bus, rev: Option<u8>) -> CidInfo {
    let num = |s: &Option<String>| s.as_deref().and_then(parse_num);
    let mut info = CidInfo {
        source: CidSource::Sysfs,
        pnm: ids.name.clone(),
        psn: num(&ids.serial).and_then(|v| u32::try_from(v).ok()),
        ..CidInfo::default()
    };
    if let Some(mid) = num(&ids.manfid).and_then(|v| u8::try_from(v).ok()) {
        set_manufacturer(&mut info, bus, mid);
    }
    info.oid = num(&ids.oemid)
        .and_then(|v| u16::try_from(v).ok())
        .map(|v| match bus {
            Bus::Sd => ascii_or_hex(&v.to_be_bytes()),
            Bus::Mmc => ascii_or_hex(&[v.to_be_bytes()[1]]),
        });
    let nibbles = match (num(&ids.hwrev), num(&ids.fwrev)) {
        (Some(h), Some(f)) if h < 16 && f < 16 => u8::try_from((h << 4) | f).ok(),
        _ => None,
    };
    let prv = match bus {
        Bus::Mmc => num(&ids.prv).and_then(|v| u8::try_from(v).ok()).or(nibbles),
        Bus::Sd => nibbles,
    };
    info.prv = prv.map(bcd_revision);
    info.mdt = ids.date.as_deref().and_then(parse_date).map(|(m, y)| {
        let y = if bus == Bus::Mmc && rev.is_some_and(|r| r >= 5) && y < 2010 {
            y + 16
        } else {
            y
        };
        format_date(y, m)
    });
    info
}

fn crc_warning(w: &mut Vec<String>, register: &str, crc: CrcStatus) {
    if crc == CrcStatus::Mismatch {
        w.push(fill(
            &gettext(
                "The {register} checksum does not match: the register may be corrupt or made up.",
            ),
            &[("register", &register)],
        ));
    }
}

/// Which kind of card the directory holds: the `type` file; without one, an SD-only register
/// (SCR, SD Status) means SD, and a CID laid out like an eMMC's means eMMC.
fn kind_of(
    ids: &SysfsIds,
    dev: &Path,
    cid: Option<&[u8; 16]>,
    warnings: &mut Vec<String>,
) -> Transport {
    match ids.card_type.as_deref() {
        Some("SD" | "SDcombo") => Transport::Sd,
        Some("MMC") => Transport::Emmc,
        Some(_) => Transport::Other,
        None if dev.join("scr").exists() || dev.join("ssr").exists() => Transport::Sd,
        None if cid.is_some_and(EmmcCid::looks_like_emmc) => {
            warnings.push(gettext("sysfs has no type file; the CID is laid out like an eMMC's, so it was decoded as eMMC."));
            Transport::Emmc
        }
        None => Transport::Sd,
    }
}

/// Fills `info` from the SD/eMMC card behind the disk whose sysfs directory is `disk_dir`.
pub(super) fn read(info: &mut CardInfo, disk_dir: &Path, sysfs_root: &Path) {
    let dev = disk_dir.join("device");
    let ids = SysfsIds::read(&dev);
    let w = &mut info.warnings;
    let cid = load::<16>(&dev, "cid", regs::parse_128, w);
    let csd_reg = load::<16>(&dev, "csd", regs::parse_128, w);
    info.kind = kind_of(&ids, &dev, cid.bytes.as_ref(), w);
    info.registers.cid = cid.state;
    info.registers.csd = csd_reg.state;
    if cid.state == RegisterState::AllZero {
        w.push(gettext(
            "The card's CID is all zeros: it reported no identity.",
        ));
    }
    let bus = if info.kind == Transport::Emmc {
        Bus::Mmc
    } else {
        Bus::Sd
    };
    let rev = ids
        .rev
        .as_deref()
        .and_then(parse_num)
        .and_then(|v| u8::try_from(v).ok());

    decode_cid(info, &ids, bus, rev, cid.bytes);
    if let Some(b) = csd_reg.bytes {
        decode_csd(info, bus, &b);
    }
    if bus == Bus::Sd {
        read_sd_registers(info, &dev);
    }

    let host = link::mmc_host_of(disk_dir);
    let uhs_capable = info.scr.as_ref().map(|s| s.sd_spec3);
    info.link = match bus {
        Bus::Sd => link::sd(sysfs_root, host.as_deref(), uhs_capable),
        Bus::Mmc => host.as_deref().and_then(|h| link::ios(sysfs_root, h)),
    };
    info.command_queueing = Some(queueing::read(disk_dir, &info.device));
    let erase = ids
        .preferred_erase_size
        .as_deref()
        .and_then(parse_num)
        .filter(|e| *e > 0);
    let au = info.ssr.as_ref().and_then(|s| s.au_size_bytes);
    info.partitions = alignment::read(disk_dir, &info.device, alignment::boundary(erase, au));
    if bus == Bus::Mmc {
        info.emmc_wear = wear::read(&dev);
    }
    if !ids.is_empty() {
        info.sysfs = Some(ids);
    }
}

/// The card's identity: its CID decoded for the `bus` (checked against sysfs's own fields,
/// its checksum and its date), or without a CID, what sysfs says.
fn decode_cid(
    info: &mut CardInfo,
    ids: &SysfsIds,
    bus: Bus,
    rev: Option<u8>,
    bytes: Option<[u8; 16]>,
) {
    let w = &mut info.warnings;
    match (bus, bytes) {
        (Bus::Sd, Some(b)) => {
            let c = cid::decode(&b);
            crosscheck_sd(w, ids, &c);
            crc_warning(w, "CID", c.crc);
            if !(1..=12).contains(&c.month) {
                w.push(fill(
                    &gettext("The CID's manufacture month {month} is not a month."),
                    &[("month", &c.month)],
                ));
            }
            info.cid = Some(c.info());
        }
        (Bus::Mmc, Some(b)) => {
            let c = emmc::decode_cid(&b);
            crosscheck_mmc(w, ids, &c, rev);
            crc_warning(w, "CID", c.crc);
            info.cid = Some(c.info(rev));
        }
        (_, None) if ids.name.is_some() || ids.manfid.is_some() || ids.oemid.is_some() => {
            info.cid = Some(from_sysfs(ids, bus, rev));
        }
        _ => {}
    }
}

/// The card's CSD decoded for the `bus`: its capacity, and on SD the register itself, with
/// warnings for a bad checksum, an unknown structure and write protection.
fn decode_csd(info: &mut CardInfo, bus: Bus, b: &[u8; 16]) {
    let w = &mut info.warnings;
    match bus {
        Bus::Sd => {
            let c = csd::decode(b);
            crc_warning(w, "CSD", c.crc);
            if c.capacity_bytes.is_none() {
                w.push(gettext(
                    "The CSD has a reserved structure version: the capacity is unknown.",
                ));
            }
            if c.perm_write_protect || c.tmp_write_protect {
                w.push(gettext("The CSD says the card is write-protected."));
            }
            info.capacity_bytes = c.capacity_bytes;
            info.csd = Some(c);
        }
        Bus::Mmc => {
            let c = emmc::decode_csd(b);
            crc_warning(w, "CSD", c.crc);
            info.capacity_bytes = c.capacity_bytes;
        }
    }
}

/// The SD-only registers in the card's sysfs directory `dev`: the SCR and the SD Status.
fn read_sd_registers(info: &mut CardInfo, dev: &Path) {
    let w = &mut info.warnings;
    let scr_reg = load::<8>(dev, "scr", fixed::<8>, w);
    info.registers.scr = scr_reg.state;
    if let Some(b) = scr_reg.bytes {
        let s = scr::decode(&b);
        if s.structure != 0 {
            w.push(gettext(
                "The SCR has a reserved structure version; its fields may mean something else.",
            ));
        }
        info.scr = Some(s);
    }
    let ssr_reg = load::<64>(dev, "ssr", fixed::<64>, w);
    info.registers.ssr = ssr_reg.state;
    if let Some(b) = ssr_reg.bytes {
        let s = ssr::decode(&b);
        let reserved = s.reserved_fields();
        if !reserved.is_empty() {
            w.push(fill(
                &gettext(
                    "The SD Status has reserved values in {fields}: those ratings are not shown.",
                ),
                &[("fields", &reserved.join(", "))],
            ));
        }
        info.ssr = Some(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_numbers_and_dates() {
        assert_eq!(parse_num("0x00009f"), Some(0x9f));
        assert_eq!(parse_num("6"), Some(6));
        assert_eq!(parse_num("0xzz"), None);
        assert_eq!(parse_date("11/2019"), Some((11, 2019)));
        assert_eq!(parse_date("2019-11"), None);
    }

    proptest::proptest! {
        #[test]
        fn sysfs_parsers_never_panic(text in "\\PC*") {
            let _ = parse_num(&text);
            let _ = parse_date(&text);
        }
    }
}
