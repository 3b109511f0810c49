//! The card's own word against the check: the sizes it claims (the CSD's capacity, the size the
//! kernel sees, the end of the partition table) and whether its maker and OEM IDs are
//! plausible. Fakes often carry a CSD rewritten to the claimed size and an unknown maker; these
//! findings are reported beside the spots' verdict, never instead of it.

use std::path::Path;

use super::{Claims, RegisterFinding};
use crate::card::{self, CardInfo};
use crate::drive::{identity::Volume, DriveIdentity};
use crate::sysfs::{dir_of_name, read_attr};
use crate::target_dir::Transport;

/// The end of the last partition of `disk` (sysfs `start` + `size` of each, × 512), bytes;
/// `None` without partitions.
pub fn partitions_end(sysfs_root: &Path, disk: &str) -> Option<u64> {
    let dir = dir_of_name(sysfs_root, disk)?;
    let num = |p: &Path, a: &str| read_attr(&p.join(a)).and_then(|s| s.parse::<u64>().ok());
    std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("partition").exists())
        .filter_map(|p| Some((num(&p, "start")? + num(&p, "size")?).saturating_mul(512)))
        .max()
}

/// What the registers of `card` say against `claims`.
pub fn findings(card: Option<&CardInfo>, claims: &Claims) -> Vec<RegisterFinding> {
    let mut out = Vec::new();
    let device = claims.device_bytes;
    if let Some(csd) = claims.csd_bytes {
        if device > 0 && csd.abs_diff(device) > device / 100 {
            out.push(RegisterFinding::CsdSizeDiffers {
                csd_bytes: csd,
                device_bytes: device,
            });
        }
    }
    if let Some(end) = claims.partitions_end_bytes {
        if device > 0 && end > device {
            out.push(RegisterFinding::PartitionsBeyondEnd {
                partitions_end_bytes: end,
                device_bytes: device,
            });
        }
    }
    let cid = card
        .filter(|c| matches!(c.kind, Transport::Sd | Transport::Emmc))
        .and_then(|c| c.cid.as_ref());
    if let Some(cid) = cid {
        if let Some(mid) = cid.mid {
            let known = cid.manufacturer.as_deref().is_some_and(|m| m != "unknown")
                && cid.manufacturer_note.is_none()
                && mid != 0;
            let sd = card.is_some_and(|c| c.kind == Transport::Sd);
            let named = card::manufacturers::lookup(
                if sd {
                    card::manufacturers::Bus::Sd
                } else {
                    card::manufacturers::Bus::Mmc
                },
                mid,
            );
            if !known && named.names.is_empty() {
                out.push(RegisterFinding::UnknownMaker { mid });
            }
        }
        if let Some(oid) = &cid.oid {
            let sd = card.is_some_and(|c| c.kind == Transport::Sd);
            if sd && (oid.starts_with("0x") || oid.chars().count() != 2) {
                out.push(RegisterFinding::ImplausibleOem { oid: oid.clone() });
            }
        }
    }
    out
}

/// The claims, register findings and identity of `disk` (`claimed` bytes, the range checked),
/// read from `sysfs_root`; the identity falls back to the filesystem of `volume`.
pub fn read(
    sysfs_root: &Path,
    disk: &str,
    claimed: u64,
    volume: Volume<'_>,
) -> (Claims, Vec<RegisterFinding>, Option<DriveIdentity>) {
    let card = card::identify(sysfs_root, disk);
    let claims = Claims {
        device_bytes: claimed,
        csd_bytes: card
            .as_ref()
            .filter(|c| c.kind == Transport::Sd)
            .and_then(|c| c.capacity_bytes),
        partitions_end_bytes: partitions_end(sysfs_root, disk),
    };
    let found = findings(card.as_ref(), &claims);
    let identity = crate::drive::identify(card.as_ref(), volume, sysfs_root);
    (claims, found, identity)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::cid::CidInfo;

    fn sd(mid: u8, manufacturer: &str, oid: &str) -> CardInfo {
        CardInfo {
            kind: Transport::Sd,
            cid: Some(CidInfo {
                mid: Some(mid),
                manufacturer: Some(manufacturer.into()),
                oid: Some(oid.into()),
                ..CidInfo::default()
            }),
            ..CardInfo::default()
        }
    }

    #[test]
    fn a_csd_that_disagrees_with_the_device_and_an_unknown_maker() {
        let claims = Claims {
            device_bytes: 8_000_000_000,
            csd_bytes: Some(64_000_000_000),
            partitions_end_bytes: Some(9_000_000_000),
        };
        let f = findings(Some(&sd(0x00, "unknown", "0x0000")), &claims);
        assert_eq!(
            f,
            [
                RegisterFinding::CsdSizeDiffers {
                    csd_bytes: 64_000_000_000,
                    device_bytes: 8_000_000_000
                },
                RegisterFinding::PartitionsBeyondEnd {
                    partitions_end_bytes: 9_000_000_000,
                    device_bytes: 8_000_000_000
                },
                RegisterFinding::UnknownMaker { mid: 0 },
                RegisterFinding::ImplausibleOem {
                    oid: "0x0000".into()
                },
            ]
        );
    }

    #[test]
    fn a_known_card_of_its_size_says_nothing() {
        let claims = Claims {
            device_bytes: 62_277_025_792,
            csd_bytes: Some(62_277_025_792),
            partitions_end_bytes: Some(62_277_025_792),
        };
        assert_eq!(findings(Some(&sd(0x03, "SanDisk", "SD")), &claims), []);
        assert_eq!(findings(None, &claims), []);
    }
}
