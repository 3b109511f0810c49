//! Reading what the kernel logged since boot: the ring buffer through `/dev/kmsg` (non-blocking,
//! so the read ends at the newest record), and an SD host's error counters in debugfs
//! (`/sys/kernel/debug/mmcN/err_stats`, root only).
//!
//! A `/dev/kmsg` record is `PRIORITY,SEQUENCE,MICROSECONDS,FLAGS[,…];MESSAGE` followed by
//! continuation lines that start with a space (` SUBSYSTEM=…`); each `read` returns one
//! record. Only records of the kernel facility (priority >> 3 == 0) count: a program may write
//! to the log, but only under another facility. A regular file of such records is read the
//! same way (tests).

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::kernel_log::{announces, classify, DriveNames, TroubleCounts};
use crate::i18n::{fill, gettext};

/// The most of the log read: 16 MiB (the ring buffer is 128 KiB to a few MiB).
const MAX_LOG_BYTES: usize = 16 << 20;

/// The most messages about the drive kept to show (the newest).
const KEPT_LINES: usize = 10;

/// What the kernel log said about the drive (JSON: the `kernel_log` object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelLog {
    /// The log read, `/dev/kmsg`.
    pub source: String,
    /// True when the log could be read.
    pub readable: bool,
    /// Why it could not be read, for people; null when read.
    pub reason: Option<String>,
    /// How many kernel messages were read.
    pub messages: u32,
    /// True when the oldest message kept is the first since boot (sequence 0): none was lost
    /// to the ring buffer's size.
    pub from_boot: bool,
    /// The kernel's newest announcement that the drive (this medium) appeared, as logged
    /// (`mmcblk0: mmc0:aaaa SD32G 29.7 GiB`, `loop3: detected capacity change from 0 to
    /// 131072`): `counts` and `lines` hold only the messages after it, since earlier ones are
    /// about an earlier medium under the same name. Null when the log holds no announcement
    /// (the drive was there since boot, or the ring buffer wrapped): everything the log holds
    /// counted.
    #[serde(default)]
    pub counted_from: Option<String>,
    /// The drive's troubles by kind, since `counted_from` (or the log's start).
    pub counts: TroubleCounts,
    /// The newest messages about the drive that told of trouble (at most 10), oldest first.
    pub lines: Vec<String>,
}

/// One record's priority, sequence number and message; `None` for continuation lines and
/// lines that are not records.
fn parse_record(line: &str) -> Option<(u32, u64, &str)> {
    if line.starts_with(' ') {
        return None;
    }
    let (header, message) = line.split_once(';')?;
    let mut fields = header.split(',');
    let priority = fields.next()?.parse().ok()?;
    let sequence = fields.next()?.parse().ok()?;
    Some((priority, sequence, message))
}

/// Reads the log at `source` (normally `/dev/kmsg`) and counts the messages about `names`
/// logged after the drive last appeared (see [`KernelLog::counted_from`]).
/// Never fails: a log that cannot be opened says why in `reason`.
pub fn read(source: &Path, names: &DriveNames) -> KernelLog {
    let mut log = KernelLog {
        source: source.display().to_string(),
        readable: false,
        reason: None,
        messages: 0,
        from_boot: false,
        counted_from: None,
        counts: TroubleCounts::default(),
        lines: Vec::new(),
    };
    let text = match read_all(source) {
        Ok(t) => t,
        Err(e) => {
            log.reason = Some(unreadable_reason(&e));
            return log;
        }
    };
    log.readable = true;
    let mut first = true;
    for line in text.lines() {
        let Some((priority, sequence, message)) = parse_record(line) else {
            continue;
        };
        if first {
            log.from_boot = sequence == 0;
            first = false;
        }
        if priority >> 3 != 0 {
            continue;
        }
        log.messages = log.messages.saturating_add(1);
        if announces(message, names) {
            log.counted_from = Some(message.to_owned());
            log.counts = TroubleCounts::default();
            log.lines.clear();
        } else if let Some(kind) = classify(message, names) {
            log.counts.add(kind);
            if log.lines.len() == KEPT_LINES {
                log.lines.remove(0);
            }
            log.lines.push(message.to_owned());
        }
    }
    log
}

/// The whole log, read without blocking: up to the newest record (`EAGAIN`) or the end of a
/// file; records overwritten while reading (`EPIPE`) are skipped.
fn read_all(source: &Path) -> std::io::Result<String> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(source)?;
    let mut out = Vec::new();
    let mut buf = vec![0u8; 16 * 1024];
    while out.len() < MAX_LOG_BYTES {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// Why the log could not be read, for people: `kernel.dmesg_restrict` when it is on and the
/// open was refused, else the system's error.
fn unreadable_reason(e: &std::io::Error) -> String {
    let denied = matches!(e.raw_os_error(), Some(libc::EPERM) | Some(libc::EACCES));
    let restricted = crate::sysfs::read_attr(Path::new("/proc/sys/kernel/dmesg_restrict"))
        .is_some_and(|v| v == "1");
    if denied && restricted {
        gettext("only root may read the kernel log here (kernel.dmesg_restrict = 1)")
    } else {
        fill(
            &gettext("the kernel log cannot be read: {error}"),
            &[("error", e)],
        )
    }
}

/// An SD host's error counters from debugfs (JSON: the `err_stats` object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrStats {
    /// The host, `mmc0`.
    pub host: String,
    /// Each counter by the kernel's name (`Command Timeout Occurred`), nonzero or not.
    pub counters: BTreeMap<String, u64>,
    /// The sum of the counters.
    pub total: u64,
}

/// Reads `<debugfs>/<host>/err_stats` (`# Command Timeout Occurred:\t 0` a line, as
/// drivers/mmc/core/debugfs.c writes it); `None` where it does not exist or cannot be read
/// (not root, no debugfs, an older kernel).
pub fn err_stats(debugfs: &Path, host: &str) -> Option<ErrStats> {
    let text = crate::sysfs::read_bounded(&debugfs.join(host).join("err_stats")).ok()?;
    let text = String::from_utf8_lossy(&text);
    let counters = parse_err_stats(&text);
    (!counters.is_empty()).then(|| ErrStats {
        host: host.to_owned(),
        total: counters.values().fold(0u64, |a, b| a.saturating_add(*b)),
        counters,
    })
}

/// The counters of an `err_stats` file's text.
fn parse_err_stats(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .filter_map(|l| {
            let (name, value) = l.trim_start_matches('#').rsplit_once(':')?;
            Some((name.trim().to_owned(), value.trim().parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> DriveNames {
        DriveNames {
            disk: "mmcblk0".into(),
            mmc_host: Some("mmc0".into()),
        }
    }

    #[test]
    fn records_are_counted_and_programs_cannot_pose_as_the_kernel() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kmsg");
        std::fs::write(
            &path,
            "6,0,0,-;Linux version 6.12.25+rpt-rpi-2712\n\
             3,812,18234511,-;mmc0: Timeout waiting for hardware interrupt.\n \
             SUBSYSTEM=mmc_host\n DEVICE=+mmc_host:mmc0\n\
             3,813,18234600,-;I/O error, dev mmcblk0, sector 4458496 op 0x1:(WRITE) flags 0x4000 phys_seg 128 prio class 2\n\
             11,814,18234700,-;I/O error, dev mmcblk0, sector 1 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 2\n\
             2,815,18234800,c;EXT4-fs (mmcblk0p2): Remounting filesystem read-only\n",
        )
        .unwrap();
        let log = read(&path, &names());
        assert!(log.readable);
        assert!(log.from_boot);
        assert_eq!(log.messages, 4);
        assert_eq!(log.counts.timeouts, 1);
        assert_eq!(log.counts.io_errors, 1);
        assert_eq!(log.counts.read_only_remounts, 1);
        assert_eq!(log.lines.len(), 3);
        assert_eq!(
            log.lines[2],
            "EXT4-fs (mmcblk0p2): Remounting filesystem read-only"
        );
    }

    /// Writes `records` (`PRIORITY,SEQUENCE,MICROSECONDS,-;MESSAGE`, numbered from 0) to a
    /// file and reads it for `names`.
    fn read_records(names: &DriveNames, messages: &[&str]) -> KernelLog {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kmsg");
        let text: String = messages
            .iter()
            .enumerate()
            .map(|(i, m)| format!("3,{i},{},-;{m}\n", 1000 * i))
            .collect();
        std::fs::write(&path, text).unwrap();
        read(&path, names)
    }

    #[test]
    fn a_new_card_in_the_slot_is_not_blamed_for_the_old_cards_errors() {
        let old =
            "I/O error, dev mmcblk0, sector 2048 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 2";
        let fresh = "mmcblk0: mmc0:aaaa SD32G 29.7 GiB";
        let log = read_records(
            &names(),
            &[
                "mmc0: new high speed SDHC card at address 59b4",
                "mmcblk0: mmc0:59b4 EB1QT 29.8 GiB",
                old,
                "EXT4-fs (mmcblk0p2): Remounting filesystem read-only",
                "mmc0: card 59b4 removed",
                "mmc0: new high speed SDHC card at address aaaa",
                fresh,
                " mmcblk0: p1",
                "mmc0: Timeout waiting for hardware interrupt.",
            ],
        );
        assert_eq!(log.messages, 9);
        assert_eq!(log.counted_from.as_deref(), Some(fresh));
        assert_eq!(
            log.counts,
            TroubleCounts {
                timeouts: 1,
                ..TroubleCounts::default()
            }
        );
        assert_eq!(
            log.lines,
            vec!["mmc0: Timeout waiting for hardware interrupt.".to_owned()]
        );
    }

    #[test]
    fn a_reattached_loop_device_starts_clean() {
        let loop3 = DriveNames {
            disk: "loop3".into(),
            mmc_host: None,
        };
        let io =
            "I/O error, dev loop3, sector 8 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 2";
        let attach = "loop3: detected capacity change from 0 to 131072";
        let log = read_records(
            &loop3,
            &[
                attach,
                io,
                "EXT4-fs error (device loop3): ext4_find_entry:1455: inode #2: comm ls: reading directory lblock 0",
                "loop3: detected capacity change from 131072 to 0",
                attach,
            ],
        );
        assert_eq!(log.counted_from.as_deref(), Some(attach));
        assert_eq!(log.counts, TroubleCounts::default());
        assert!(log.lines.is_empty());
        // Errors after the newest attach count.
        let log = read_records(&loop3, &[io, attach, io, io]);
        assert_eq!(log.counted_from.as_deref(), Some(attach));
        assert_eq!(log.counts.io_errors, 2);
        assert_eq!(log.lines, vec![io.to_owned(), io.to_owned()]);
    }

    #[test]
    fn with_no_announcement_everything_counts() {
        let io =
            "I/O error, dev mmcblk0, sector 2048 op 0x1:(WRITE) flags 0x0 phys_seg 1 prio class 2";
        let log = read_records(
            &names(),
            &[
                io,
                "mmcblk1: mmc1:aaaa SD32G 29.7 GiB",
                io,
                "mmc0: card aaaa removed",
            ],
        );
        assert_eq!(log.counted_from, None);
        assert_eq!(log.counts.io_errors, 2);
        assert_eq!(log.lines.len(), 2);
    }

    #[test]
    fn a_log_missing_its_first_records_is_not_from_boot() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kmsg");
        std::fs::write(&path, "6,5000,9,-;mmc0: new high speed SDHC card\n").unwrap();
        let log = read(&path, &names());
        assert!(!log.from_boot);
        assert_eq!(log.messages, 1);
        assert_eq!(log.counts, TroubleCounts::default());
    }

    #[test]
    fn a_log_that_cannot_be_opened_says_why() {
        let log = read(Path::new("/nonexistent/kmsg"), &names());
        assert!(!log.readable);
        assert!(log.reason.unwrap().contains("cannot be read"));
    }

    #[test]
    fn err_stats_lines_as_debugfs_writes_them() {
        let c = parse_err_stats(
            "# Command Timeout Occurred:\t 2\n# Command CRC Errors Occurred:\t 0\n\
             # Data Timeout Occurred:\t 1\n# CMDQ RED Errors:\t 0\n",
        );
        assert_eq!(c.len(), 4);
        assert_eq!(c["Command Timeout Occurred"], 2);
        assert_eq!(c["Data Timeout Occurred"], 1);
    }
}
