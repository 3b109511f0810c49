//! A drive's identity, stable across reboots, card readers and machines, stored and shown
//! only as a hash: SD and eMMC by their CID (maker, OEM, product name, revision, serial, date
//! — the same card in another reader has the same id), USB drives by vendor ID, product ID
//! and serial, NVMe drives by model and serial, anything else by its filesystem's UUID.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::card::CardInfo;
use crate::sysfs::read_attr;
use crate::target_dir::{TargetInfo, Transport};

/// A drive's id: 16 lowercase hex digits, the first 64 bits of SHA-256 of
/// `"<basis>:<stable fields>"`. Never contains a serial number. JSON: the string.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DriveId(String);

impl DriveId {
    /// The id of a drive whose stable fields are `fields` on `basis`.
    pub fn hash(basis: IdentityBasis, fields: &[&str]) -> DriveId {
        let mut h = Sha256::new();
        h.update(basis.as_str().as_bytes());
        for f in fields {
            h.update(b":");
            h.update(f.as_bytes());
        }
        DriveId(hex(&h.finalize()[..8]))
    }

    /// The 16 hex digits.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl fmt::Display for DriveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for DriveId {
    type Err = String;

    /// Exactly 16 hex digits (upper case accepted, kept lower case).
    fn from_str(s: &str) -> Result<DriveId, String> {
        if s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
            Ok(DriveId(s.to_ascii_lowercase()))
        } else {
            Err(format!("{s:?} is not a drive id (16 hex digits)"))
        }
    }
}

impl Serialize for DriveId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for DriveId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DriveId, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// What a drive's id was made from. JSON: `cid`, `usb`, `nvme`, `fs_uuid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IdentityBasis {
    /// The SD or eMMC card's CID register (or the kernel's readings of it).
    #[serde(rename = "cid")]
    Cid,
    /// The USB device's vendor ID, product ID and serial.
    #[serde(rename = "usb")]
    Usb,
    /// The NVMe controller's model and serial.
    #[serde(rename = "nvme")]
    Nvme,
    /// The filesystem's UUID (the drive itself gave nothing stable).
    #[serde(rename = "fs_uuid")]
    FilesystemUuid,
}

impl IdentityBasis {
    /// The JSON name.
    pub fn as_str(self) -> &'static str {
        match self {
            IdentityBasis::Cid => "cid",
            IdentityBasis::Usb => "usb",
            IdentityBasis::Nvme => "nvme",
            IdentityBasis::FilesystemUuid => "fs_uuid",
        }
    }

    /// Parses [`IdentityBasis::as_str`].
    pub fn parse(s: &str) -> Option<IdentityBasis> {
        [
            IdentityBasis::Cid,
            IdentityBasis::Usb,
            IdentityBasis::Nvme,
            IdentityBasis::FilesystemUuid,
        ]
        .into_iter()
        .find(|b| b.as_str() == s)
    }
}

/// The filesystem a drive is known by when it has no identity of its own: the target folder,
/// the filesystem's own device (e.g. `mmcblk0p2`; `None` without a block device) and its type
/// (e.g. `ext4`). Made from a checked target ([`TargetInfo`]) or from the target a report shows.
#[derive(Debug, Clone, Copy)]
pub struct Volume<'a> {
    /// The target folder.
    pub path: &'a Path,
    /// The filesystem's own device, a name under `/dev`.
    pub partition: Option<&'a str>,
    /// The filesystem type.
    pub fs_type: &'a str,
}

impl<'a> From<&'a TargetInfo> for Volume<'a> {
    fn from(info: &'a TargetInfo) -> Volume<'a> {
        Volume {
            path: &info.path,
            partition: info.device.as_ref().map(|d| d.name.as_str()),
            fs_type: &info.fs_type,
        }
    }
}

/// A drive's identity in a report (JSON `drive` {`id`, `basis`}).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriveIdentity {
    /// The hash.
    pub id: DriveId,
    /// What it was made from.
    pub basis: IdentityBasis,
    /// The name the history gave the drive ([`crate::history::History::name_drive`]): in
    /// documents of `history export` only, so that an import elsewhere keeps it; never in a
    /// run's own report, nor stored with a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The identity of the drive the test ran on, from the card details (`card`, as
/// [`crate::card::identify`] read them) and, for serials that reports never hold, sysfs under
/// `sysfs_root` (`/sys`, or a fixture tree). SD/eMMC: the CID's maker, OEM, product name,
/// revision, serial and date (a card without a known maker and serial falls through to the
/// filesystem UUID). USB: `idVendor`, `idProduct` and `serial` of the USB device above the
/// disk (a reader without a serial falls through). NVMe: `device/model` and `device/serial`.
/// Else the UUID of the filesystem on `target.partition`: its `/dev/disk/by-uuid` link, else
/// read from the device's superblock (ext2/3/4, FAT; needs read access to the device). An
/// ext2/3/4 filesystem is identified by the 64-bit fold of its UUID that `statfs` reports as
/// `f_fsid` ([`ext_fsid_of_uuid`]), so it is known from the UUID or, without udev and read
/// access to the disk, from `statfs(target.path)`. `None` when nothing stable is known.
pub fn identify<'a>(
    card: Option<&CardInfo>,
    target: impl Into<Volume<'a>>,
    sysfs_root: &Path,
) -> Option<DriveIdentity> {
    identify_with(card, target, sysfs_root, Path::new("/dev"))
}

/// [`identify`] with the device folder `dev_root` (normally `/dev`): filesystem UUIDs come
/// from its `disk/by-uuid` links (each named by the UUID, pointing at `../../<partition>`),
/// else from the superblock of `<dev_root>/<partition>`.
pub fn identify_with<'a>(
    card: Option<&CardInfo>,
    target: impl Into<Volume<'a>>,
    sysfs_root: &Path,
    dev_root: &Path,
) -> Option<DriveIdentity> {
    let target: Volume<'a> = target.into();
    card.and_then(|c| device_identity(c, sysfs_root))
        .or_else(|| filesystem_identity(&target, dev_root))
}

/// The identity of a drive whose stable fields are `fields` on `basis`.
fn hashed(basis: IdentityBasis, fields: &[&str]) -> Option<DriveIdentity> {
    Some(DriveIdentity {
        id: DriveId::hash(basis, fields),
        basis,
        name: None,
    })
}

/// The identity the device itself gives ([`identify`]): an SD card's or eMMC's CID, a USB
/// device's serial, an NVMe drive's model and serial; `None` for other transports and when
/// they are not known.
fn device_identity(card: &CardInfo, sysfs_root: &Path) -> Option<DriveIdentity> {
    match card.kind {
        Transport::Sd | Transport::Emmc => {
            let c = card
                .cid
                .as_ref()
                .filter(|c| c.mid.is_some() && c.psn.is_some())?;
            let psn = c.psn.map(|p| format!("{p:08x}")).unwrap_or_default();
            let mid = c.mid.map(|m| m.to_string()).unwrap_or_default();
            let pnm = c.pnm.as_deref().unwrap_or("").trim_end_matches(['\0', ' ']);
            hashed(
                IdentityBasis::Cid,
                &[
                    &mid,
                    c.oid.as_deref().unwrap_or(""),
                    pnm,
                    c.prv.as_deref().unwrap_or(""),
                    &psn,
                    c.mdt.as_deref().unwrap_or(""),
                ],
            )
        }
        Transport::Usb => usb_identity(sysfs_root, &card.device),
        Transport::Nvme => {
            let dir = crate::sysfs::dir_of_name(sysfs_root, &card.device);
            let ctrl = dir.map(|d| d.join("device"));
            let model = ctrl.as_ref().and_then(|c| read_attr(&c.join("model")))?;
            let serial = ctrl.as_ref().and_then(|c| read_attr(&c.join("serial")))?;
            hashed(IdentityBasis::Nvme, &[&model, &serial])
        }
        _ => None,
    }
}

/// The identity of the filesystem on `target` ([`identify`]): an ext2/3/4 filesystem's
/// `f_fsid`, else its UUID from `<dev_root>/disk/by-uuid` or its superblock.
fn filesystem_identity(target: &Volume<'_>, dev_root: &Path) -> Option<DriveIdentity> {
    let ext = matches!(target.fs_type, "ext2" | "ext3" | "ext4");
    let uuid = target
        .partition
        .filter(|p| !p.is_empty() && !p.contains(['/', '\0']) && !p.starts_with('.'))
        .and_then(|partition| {
            fs_uuid(&dev_root.join("disk/by-uuid"), partition)
                .or_else(|| superblock_uuid(&dev_root.join(partition)))
        });
    if ext {
        // The kernel's statfs f_fsid of ext2/3/4 is a 64-bit fold of the UUID: the same value
        // whether the UUID could be read (udev, the superblock) or only statfs answers (no
        // udev, no read access to the disk, as in a container).
        let fsid = match uuid.as_deref() {
            Some(u) => ext_fsid_of_uuid(u),
            None => statfs_fsid(target.path),
        };
        if let Some(fsid) = fsid {
            return hashed(
                IdentityBasis::FilesystemUuid,
                &["ext", &format!("{fsid:016x}")],
            );
        }
    }
    hashed(
        IdentityBasis::FilesystemUuid,
        &[&uuid?.to_ascii_lowercase()],
    )
}

/// The ext2/3/4 filesystem id the kernel reports in `statfs` `f_fsid` for the UUID `uuid`
/// (`8-4-4-4-12` hex): the UUID's two little-endian 64-bit halves XORed (`ext4_statfs`).
/// `None` when `uuid` is not 32 hex digits.
pub fn ext_fsid_of_uuid(uuid: &str) -> Option<u64> {
    let digits: String = uuid.chars().filter(|c| *c != '-').collect();
    if digits.len() != 32 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let mut bytes = [0u8; 16];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).ok()?;
    }
    let lo = u64::from_le_bytes(bytes[..8].try_into().ok()?);
    let hi = u64::from_le_bytes(bytes[8..].try_into().ok()?);
    Some(lo ^ hi)
}

/// `statfs(path).f_fsid` as one 64-bit value (`val[0]` the low half, `val[1]` the high half,
/// as the kernel's `u64_to_fsid` splits it); `None` when statfs fails or the id is zero.
pub fn statfs_fsid(path: &Path) -> Option<u64> {
    let st = nix::sys::statfs::statfs(path).ok()?;
    // fsid_t is two 32-bit ints and nix does not expose them; read its bytes in order.
    let fsid = st.filesystem_id();
    // SAFETY: fsid_t is a plain C struct of two c_int, 8 bytes, no padding.
    let raw: [i32; 2] = unsafe { std::mem::transmute_copy(&fsid) };
    let v = (raw[0] as u32 as u64) | ((raw[1] as u32 as u64) << 32);
    (v != 0).then_some(v)
}

fn usb_identity(sysfs_root: &Path, disk: &str) -> Option<DriveIdentity> {
    let disk_dir = crate::sysfs::dir_of_name(sysfs_root, disk)?;
    let usb = crate::card::usb_nvme::usb_device_dir(&disk_dir, sysfs_root)?;
    let vendor = read_attr(&usb.join("idVendor"))?;
    let product = read_attr(&usb.join("idProduct"))?;
    let serial = read_attr(&usb.join("serial")).filter(|s| !s.trim().is_empty())?;
    Some(DriveIdentity {
        id: DriveId::hash(IdentityBasis::Usb, &[&vendor, &product, serial.trim()]),
        basis: IdentityBasis::Usb,
        name: None,
    })
}

/// The UUID whose link in `by_uuid` points at the device named `partition`.
fn fs_uuid(by_uuid: &Path, partition: &str) -> Option<String> {
    let entries = std::fs::read_dir(by_uuid).ok()?;
    for e in entries.flatten() {
        let Ok(link) = std::fs::read_link(e.path()) else {
            continue;
        };
        if link.file_name().is_some_and(|n| n == partition) {
            return e.file_name().to_str().map(str::to_owned);
        }
    }
    None
}

/// The filesystem UUID in the superblock at the start of `device`: ext2/3/4 (`s_uuid`, as
/// `8-4-4-4-12` hex) or FAT12/16/32 (the volume serial, `XXXX-XXXX`). `None` for other
/// filesystems or when the device cannot be read.
pub fn superblock_uuid(device: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = vec![0u8; 2048];
    let mut f = std::fs::File::open(device).ok()?;
    let mut got = 0;
    while got < head.len() {
        match f.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(_) => return None,
        }
    }
    uuid_from_superblock(&head[..got])
}

/// [`superblock_uuid`] on the first 2 KiB of a device.
pub fn uuid_from_superblock(head: &[u8]) -> Option<String> {
    // ext2/3/4: the superblock at 1024, magic 0xEF53 at +0x38, UUID at +0x68.
    if head.len() >= 1024 + 0x78 && head[1024 + 0x38..1024 + 0x3a] == [0x53, 0xef] {
        let u = &head[1024 + 0x68..1024 + 0x78];
        if u.iter().all(|b| *b == 0) {
            return None;
        }
        let h = hex(u);
        return Some(format!(
            "{}-{}-{}-{}-{}",
            &h[..8],
            &h[8..12],
            &h[12..16],
            &h[16..20],
            &h[20..]
        ));
    }
    // FAT: boot signature 55 AA; FAT32 has its volume ID at 67, FAT12/16 at 39.
    if head.len() >= 512 && head[510..512] == [0x55, 0xaa] {
        let at = if &head[82..87] == b"FAT32" {
            67
        } else if &head[54..57] == b"FAT" {
            39
        } else {
            return None;
        };
        let id = u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]);
        return (id != 0).then(|| format!("{:04X}-{:04X}", id >> 16, id & 0xffff));
    }
    None
}
