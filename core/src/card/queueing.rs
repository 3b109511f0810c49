//! Command queueing: whether the host queues commands to an SD card or eMMC, which is what lets
//! an Application Performance Class A2 card reach its A2 figures (without it, the host sends
//! one command at a time and the card runs like an A1 card).
//!
//! Linux shows it in two places, read in this order:
//! - `<disk>/device/cmdq_en`: the mmc core's attribute of an eMMC (and of SD cards on kernels
//!   that expose it), `1` when the card's command queue is enabled, `0` when not.
//! - `<disk>/mq/<n>/nr_tags`: the depth of the block queue the mmc driver sets up. Without a
//!   command queue engine it is the driver's fixed 64 (one command on the bus at a time,
//!   whatever the block layer holds); with one it is the engine's depth, at most 32 (eMMC and
//!   SD command queues have up to 32 slots); 1 means one request at a time.
//!
//! On a Raspberry Pi 5 the kernel turns command queueing on for eMMC and for A2 SD cards on
//! its allow-list; `dtparam=sd_cqe` in `config.txt` changes that (0: never, 1: allow-listed
//! A2 cards, the default, 2: every A2 card not known to misbehave).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext};
use crate::sysfs::read_attr;

/// On, off, or not known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueueingState {
    /// The host queues commands to the card.
    On,
    /// The host sends one command at a time.
    Off,
    /// Sysfs does not say.
    Unknown,
}

/// What sysfs says about command queueing (JSON: the `card.command_queueing` object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandQueueing {
    /// `on`, `off` or `unknown`.
    pub state: QueueingState,
    /// The file it was read from (JSON: its path relative to the sysfs root, e.g.
    /// `block/mmcblk0/device/cmdq_en`), or null when neither file exists.
    pub source: Option<QueueingSource>,
    /// The file's contents, trimmed (e.g. `1`, `64`), or null.
    pub value: Option<String>,
}

/// The sysfs file command queueing was read from. JSON and [`Display`](std::fmt::Display):
/// its path relative to the sysfs root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum QueueingSource {
    /// `block/<disk>/device/cmdq_en`: the mmc core's attribute, `1` or `0`.
    CmdqEn {
        /// The disk, e.g. `mmcblk0`.
        disk: String,
    },
    /// `block/<disk>/mq/<queue>/nr_tags`: the depth of a hardware queue of the block layer.
    NrTags {
        /// The disk, e.g. `mmcblk0`.
        disk: String,
        /// The hardware queue's directory name, e.g. `0`.
        queue: String,
    },
    /// A path this version does not write (a report from another version), kept as read.
    Other(String),
}

impl std::fmt::Display for QueueingSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueueingSource::CmdqEn { disk } => write!(f, "block/{disk}/device/cmdq_en"),
            QueueingSource::NrTags { disk, queue } => write!(f, "block/{disk}/mq/{queue}/nr_tags"),
            QueueingSource::Other(path) => f.write_str(path),
        }
    }
}

impl From<QueueingSource> for String {
    fn from(source: QueueingSource) -> String {
        source.to_string()
    }
}

impl From<String> for QueueingSource {
    /// The source a stored report names: the two paths this version writes, else
    /// [`QueueingSource::Other`].
    fn from(path: String) -> QueueingSource {
        let parts: Vec<&str> = path.split('/').collect();
        match parts.as_slice() {
            ["block", disk, "device", "cmdq_en"] => QueueingSource::CmdqEn {
                disk: (*disk).to_owned(),
            },
            ["block", disk, "mq", queue, "nr_tags"] => QueueingSource::NrTags {
                disk: (*disk).to_owned(),
                queue: (*queue).to_owned(),
            },
            _ => QueueingSource::Other(path),
        }
    }
}

/// The deepest command queue of an SD card or eMMC: 32 slots.
const MAX_CQ_DEPTH: u64 = 32;
/// The mmc block driver's queue depth when no command queue engine is in use.
const MMC_PLAIN_DEPTH: u64 = 64;

/// Reads command queueing for the disk `disk` (e.g. `mmcblk0`) whose sysfs directory is
/// `disk_dir`; `source` paths are written as `block/<disk>/…`.
pub fn read(disk_dir: &Path, disk: &str) -> CommandQueueing {
    if let Some(v) = read_attr(&disk_dir.join("device/cmdq_en")) {
        let state = match v.as_str() {
            "1" => QueueingState::On,
            "0" => QueueingState::Off,
            _ => QueueingState::Unknown,
        };
        return CommandQueueing {
            state,
            source: Some(QueueingSource::CmdqEn {
                disk: disk.to_owned(),
            }),
            value: Some(v),
        };
    }
    if let Some((queue, v)) = nr_tags(disk_dir) {
        let state = match v.parse::<u64>() {
            Ok(MMC_PLAIN_DEPTH | 1) => QueueingState::Off,
            Ok(2..=MAX_CQ_DEPTH) => QueueingState::On,
            _ => QueueingState::Unknown,
        };
        return CommandQueueing {
            state,
            source: Some(QueueingSource::NrTags {
                disk: disk.to_owned(),
                queue,
            }),
            value: Some(v),
        };
    }
    CommandQueueing {
        state: QueueingState::Unknown,
        source: None,
        value: None,
    }
}

/// The first hardware queue's `nr_tags` (queues in name order): (queue name, value).
fn nr_tags(disk_dir: &Path) -> Option<(String, String)> {
    let mut queues: Vec<String> = std::fs::read_dir(disk_dir.join("mq"))
        .ok()?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    queues.sort_by_key(|q| (q.parse::<u64>().unwrap_or(u64::MAX), q.clone()));
    queues.into_iter().find_map(|q| {
        let v = read_attr(&disk_dir.join("mq").join(&q).join("nr_tags"))?;
        Some((q, v))
    })
}

impl CommandQueueing {
    /// `on`, `off` or `unknown`, translated.
    pub fn state_text(&self) -> String {
        match self.state {
            QueueingState::On => gettext("on"),
            QueueingState::Off => gettext("off"),
            QueueingState::Unknown => gettext("unknown"),
        }
    }

    /// For people: `on (block/mmcblk0/device/cmdq_en = 1)`, `off (block/mmcblk0/mq/0/nr_tags =
    /// 64: one command at a time)`, `unknown (sysfs has neither cmdq_en nor the block queue's
    /// nr_tags)`.
    pub fn describe(&self) -> String {
        let (Some(source), Some(value)) = (&self.source, &self.value) else {
            return fill(
                &gettext("{state} (sysfs has neither cmdq_en nor the block queue's nr_tags)"),
                &[("state", &self.state_text())],
            );
        };
        let Some(why) = self.why() else {
            return fill(
                &gettext("{state} ({source} = {value})"),
                &[
                    ("state", &self.state_text()),
                    ("source", source),
                    ("value", value),
                ],
            );
        };
        fill(
            &gettext("{state} ({source} = {value}: {why})"),
            &[
                ("state", &self.state_text()),
                ("source", source),
                ("value", value),
                ("why", &why),
            ],
        )
    }

    /// What the state was read from, without the state: `block/mmcblk0/mq/0/nr_tags = 64: one
    /// command at a time`; [`CommandQueueing::describe`] when nothing was read.
    fn evidence(&self) -> String {
        let (Some(source), Some(value)) = (&self.source, &self.value) else {
            return self.describe();
        };
        match self.why() {
            None => fill(
                // Translators: the file command queueing was read from and its contents, e.g.
                // "block/mmcblk0/device/cmdq_en = 1".
                &gettext("{source} = {value}"),
                &[("source", source), ("value", value)],
            ),
            Some(why) => fill(
                // Translators: as "{source} = {value}", with what the value means, e.g.
                // "block/mmcblk0/mq/0/nr_tags = 64: the mmc driver's depth without a command
                // queue: one command at a time".
                &gettext("{source} = {value}: {why}"),
                &[("source", source), ("value", value), ("why", &why)],
            ),
        }
    }

    /// What a queue depth read from `nr_tags` means for the state; `None` for the other
    /// sources, whose value says it.
    fn why(&self) -> Option<String> {
        match self.source.as_ref()? {
            QueueingSource::NrTags { .. } => Some(match self.state {
                QueueingState::On => gettext("the depth of the host's command queue"),
                QueueingState::Off => {
                    gettext("the mmc driver's depth without a command queue: one command at a time")
                }
                QueueingState::Unknown => gettext("not a depth the mmc driver sets"),
            }),
            QueueingSource::CmdqEn { .. } | QueueingSource::Other(_) => None,
        }
    }

    /// Why the A2 checks are not graded, or `None` when command queueing is on.
    pub fn a2_reason(&self) -> Option<String> {
        match self.state {
            QueueingState::On => None,
            QueueingState::Off => Some(fill(
                &gettext("this host runs the card like an A1 card: command queueing is off ({how}). A2 figures need a host that queues commands: a Raspberry Pi 5 does so for A2 cards on its kernel's allow-list (dtparam=sd_cqe=1, the default), and for any A2 card not known to misbehave with dtparam=sd_cqe=2 in config.txt; A2 is graded only when command queueing is on"),
                &[("how", &self.evidence())],
            )),
            QueueingState::Unknown => Some(fill(
                &gettext("whether this host queues commands to the card is unknown ({how}); A2 figures need command queueing, so A2 is graded only when it is on"),
                &[("how", &self.evidence())],
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_a2_reason_says_off_once() {
        let q = CommandQueueing {
            state: QueueingState::Off,
            source: Some(QueueingSource::NrTags {
                disk: "mmcblk0".to_owned(),
                queue: "0".to_owned(),
            }),
            value: Some("64".to_owned()),
        };
        let reason = q.a2_reason().unwrap();
        assert!(
            reason.contains("command queueing is off (block/mmcblk0/mq/0/nr_tags = 64: "),
            "{reason}"
        );
        assert!(!reason.contains("(off ("), "{reason}");
    }

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (name, value) in files {
            let p = d.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("{value}\n")).unwrap();
        }
        d
    }

    #[test]
    fn cmdq_en_comes_first() {
        let d = tree(&[("device/cmdq_en", "1"), ("mq/0/nr_tags", "64")]);
        let q = read(d.path(), "mmcblk0");
        assert_eq!(q.state, QueueingState::On);
        assert_eq!(
            q.source.as_ref().map(ToString::to_string).as_deref(),
            Some("block/mmcblk0/device/cmdq_en")
        );
        assert!(q.a2_reason().is_none());
        assert_eq!(q.describe(), "on (block/mmcblk0/device/cmdq_en = 1)");
        let d = tree(&[("device/cmdq_en", "0")]);
        assert_eq!(read(d.path(), "mmcblk0").state, QueueingState::Off);
    }

    #[test]
    fn the_queue_depth_tells_without_cmdq_en() {
        for (tags, state) in [
            ("64", QueueingState::Off),
            ("1", QueueingState::Off),
            ("31", QueueingState::On),
            ("32", QueueingState::On),
            ("128", QueueingState::Unknown),
            ("x", QueueingState::Unknown),
        ] {
            let d = tree(&[("mq/0/nr_tags", tags)]);
            let q = read(d.path(), "mmcblk0");
            assert_eq!(q.state, state, "{tags}");
            assert_eq!(
                q.source.as_ref().map(ToString::to_string).as_deref(),
                Some("block/mmcblk0/mq/0/nr_tags")
            );
        }
        let off = read(tree(&[("mq/0/nr_tags", "64")]).path(), "mmcblk0");
        let reason = off.a2_reason().unwrap();
        assert!(reason.starts_with("this host runs the card like an A1 card"));
        assert!(reason.contains("nr_tags = 64"), "{reason}");
        assert!(reason.contains("dtparam=sd_cqe"), "{reason}");
    }

    #[test]
    fn the_source_is_its_path_in_json() {
        for path in [
            "block/mmcblk0/device/cmdq_en",
            "block/mmcblk0/mq/0/nr_tags",
            "block/mmcblk0/queue/nr_requests",
        ] {
            let json = serde_json::to_string(path).unwrap();
            let source: QueueingSource = serde_json::from_str(&json).unwrap();
            assert_eq!(serde_json::to_string(&source).unwrap(), json);
        }
        assert_eq!(
            QueueingSource::from("block/mmcblk1/mq/3/nr_tags".to_owned()),
            QueueingSource::NrTags {
                disk: "mmcblk1".to_owned(),
                queue: "3".to_owned(),
            }
        );
        // Only a queue's depth is explained.
        let other = CommandQueueing {
            state: QueueingState::Off,
            source: Some(QueueingSource::Other("block/mmcblk0/x/nr_tags".to_owned())),
            value: Some("64".to_owned()),
        };
        assert_eq!(other.describe(), "off (block/mmcblk0/x/nr_tags = 64)");
    }

    #[test]
    fn nothing_in_sysfs_is_unknown() {
        let d = tree(&[]);
        let q = read(d.path(), "mmcblk0");
        assert_eq!(q.state, QueueingState::Unknown);
        assert!(q.a2_reason().unwrap().contains("unknown"));
    }
}
