//! Partition alignment: where each partition of a card starts, against the card's erase size
//! (sysfs `device/preferred_erase_size`, bytes) and, where the SD Status gives one, its
//! allocation unit (AU). A card erases and programs whole erase blocks; a partition that does
//! not start on a block boundary makes every write of a filesystem block that straddles two
//! of them cost two erase-and-programme cycles, so writes run several times slower.
//!
//! The partitions are the `<disk>p<N>` children of `<sysfs>/block/<disk>/` (the same
//! directories as `<sysfs>/class/block/<disk>p<N>/`), each with `partition` (its number) and
//! `start` (its first sector, in 512-byte units whatever the logical sector size).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext, number};
use crate::sysfs::read_attr;
use crate::units::{human_bytes, MIB};

/// One partition and how it lies against the card's erase blocks (JSON: the elements of
/// `card.partitions`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionAlignment {
    /// The partition, e.g. `mmcblk0p2`.
    pub name: String,
    /// Its number (`partition`).
    pub number: u32,
    /// Where it starts, bytes (`start` × 512).
    pub start_bytes: u64,
    /// The boundary it is checked against, bytes: the least common multiple of the erase size
    /// and the AU, whichever are known; null when neither is.
    pub boundary_bytes: Option<u64>,
    /// `start_bytes` modulo `boundary_bytes`: 0 when aligned; null when not checked.
    pub offset_bytes: Option<u64>,
    /// True when the partition starts on a boundary; null when there is nothing to check
    /// against.
    pub aligned: Option<bool>,
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The boundary a partition must start on: the least common multiple of the known, non-zero
/// sizes; `None` when there are none or the multiple overflows.
pub fn boundary(erase_bytes: Option<u64>, au_bytes: Option<u64>) -> Option<u64> {
    let sizes: Vec<u64> = [erase_bytes, au_bytes]
        .into_iter()
        .flatten()
        .filter(|s| *s > 0)
        .collect();
    sizes
        .into_iter()
        .try_fold(1u64, |acc, s| (acc / gcd(acc, s)).checked_mul(s))
        .filter(|b| *b > 1)
}

/// Each partition of the disk `disk` whose sysfs directory is `disk_dir`, in partition order,
/// checked against `boundary_bytes` ([`boundary`]). Entries without a readable `start` are
/// left out.
pub fn read(disk_dir: &Path, disk: &str, boundary_bytes: Option<u64>) -> Vec<PartitionAlignment> {
    let Ok(entries) = std::fs::read_dir(disk_dir) else {
        return Vec::new();
    };
    let mut out: Vec<PartitionAlignment> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.starts_with(disk) || name == disk {
                return None;
            }
            let dir = e.path();
            let number = read_attr(&dir.join("partition"))?.parse::<u32>().ok()?;
            let start = read_attr(&dir.join("start"))?.parse::<u64>().ok()?;
            let start_bytes = start.checked_mul(512)?;
            let offset_bytes = boundary_bytes.map(|b| start_bytes % b);
            Some(PartitionAlignment {
                name,
                number,
                start_bytes,
                boundary_bytes,
                offset_bytes,
                aligned: offset_bytes.map(|o| o == 0),
            })
        })
        .collect();
    out.sort_by(|a, b| (a.number, &a.name).cmp(&(b.number, &b.name)));
    out
}

fn mib(bytes: u64) -> String {
    number(bytes as f64 / MIB as f64, 2)
}

impl PartitionAlignment {
    /// For people, one line: `mmcblk0p2 starts at 272.00 MiB: aligned to 4 MiB`, or with the
    /// offset when it is not.
    pub fn describe(&self) -> String {
        match (self.boundary_bytes, self.offset_bytes) {
            (Some(b), Some(0)) => fill(
                &gettext("{partition} starts at {start} MiB: aligned to {boundary}"),
                &[
                    ("partition", &self.name),
                    ("start", &mib(self.start_bytes)),
                    ("boundary", &human_bytes(b)),
                ],
            ),
            (Some(b), Some(off)) => fill(
                &gettext("{partition} starts at {start} MiB ({bytes} bytes): {offset} past a {boundary} boundary, misaligned"),
                &[
                    ("partition", &self.name),
                    ("start", &mib(self.start_bytes)),
                    ("bytes", &self.start_bytes),
                    ("offset", &human_bytes(off)),
                    ("boundary", &human_bytes(b)),
                ],
            ),
            _ => fill(
                &gettext("{partition} starts at {start} MiB (the card's erase size is unknown)"),
                &[("partition", &self.name), ("start", &mib(self.start_bytes))],
            ),
        }
    }
}

/// For people, what a misaligned partition costs and what to do, with the card's `erase_bytes`
/// and `au_bytes` where known.
pub fn misaligned_text(
    p: &PartitionAlignment,
    erase_bytes: Option<u64>,
    au_bytes: Option<u64>,
) -> String {
    let unknown = gettext("unknown");
    fill(
        &gettext("Partition {partition} starts at {bytes} bytes ({start} MiB), {offset} past a {boundary} boundary (the card's erase size is {erase}, its allocation unit {au}). Writes that straddle two erase blocks make the card erase and rewrite both, which is several times slower. Re-create the partition on a {boundary} boundary (Raspberry Pi Imager aligns partitions to 4 MiB)."),
        &[
            ("partition", &p.name),
            ("bytes", &p.start_bytes),
            ("start", &mib(p.start_bytes)),
            ("offset", &human_bytes(p.offset_bytes.unwrap_or(0))),
            ("boundary", &human_bytes(p.boundary_bytes.unwrap_or(0))),
            ("erase", &erase_bytes.map(human_bytes).unwrap_or_else(|| unknown.clone())),
            ("au", &au_bytes.map(human_bytes).unwrap_or(unknown)),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary_is_the_common_multiple() {
        let m4 = 4 * MIB;
        assert_eq!(boundary(Some(m4), Some(m4)), Some(m4));
        assert_eq!(boundary(Some(MIB / 2), Some(m4)), Some(m4));
        assert_eq!(boundary(None, Some(8 * MIB)), Some(8 * MIB));
        assert_eq!(boundary(Some(12 * MIB), Some(8 * MIB)), Some(24 * MIB));
        assert_eq!(boundary(None, None), None);
        assert_eq!(boundary(Some(0), None), None);
        assert_eq!(boundary(Some(u64::MAX), Some(u64::MAX - 1)), None);
    }

    #[test]
    fn partitions_in_order_with_offsets() {
        let d = tempfile::tempdir().unwrap();
        for (name, number, start) in [
            ("mmcblk0p2", "2", "1056768"),
            ("mmcblk0p1", "1", "8192"),
            ("mmcblk0p3", "3", "2049"),
        ] {
            let p = d.path().join(name);
            std::fs::create_dir_all(&p).unwrap();
            std::fs::write(p.join("partition"), format!("{number}\n")).unwrap();
            std::fs::write(p.join("start"), format!("{start}\n")).unwrap();
        }
        std::fs::create_dir_all(d.path().join("queue")).unwrap();
        let parts = read(d.path(), "mmcblk0", Some(4 * MIB));
        let names: Vec<&str> = parts.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["mmcblk0p1", "mmcblk0p2", "mmcblk0p3"]);
        assert_eq!(parts[0].aligned, Some(true));
        assert_eq!(
            parts[0].describe(),
            "mmcblk0p1 starts at 4.00 MiB: aligned to 4 MiB"
        );
        assert_eq!(parts[1].start_bytes, 1_056_768 * 512);
        assert_eq!(parts[1].aligned, Some(true));
        assert_eq!(parts[2].offset_bytes, Some(2049 * 512));
        assert_eq!(parts[2].aligned, Some(false));
        let text = misaligned_text(&parts[2], Some(4 * MIB), None);
        assert!(text.starts_with("Partition mmcblk0p3 starts at 1049088 bytes (1.00 MiB), 1.0 MiB past a 4 MiB boundary (the card's erase size is 4 MiB, its allocation unit unknown)."), "{text}");
        assert!(text.contains("several times slower"));
        let unknown = read(d.path(), "mmcblk0", None);
        assert_eq!(unknown[2].aligned, None);
        assert!(unknown[2].describe().contains("erase size is unknown"));
    }
}
