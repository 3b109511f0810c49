//! `/proc/self/mountinfo`: which mount holds a path, with its filesystem type, source and
//! options (proc(5), "/proc/pid/mountinfo").

use std::path::{Component, Path, PathBuf};

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountEntry {
    /// `MAJ:MIN` of the filesystem (field 3), e.g. `254:0`; `0:N` for anonymous devices.
    pub dev: String,
    /// The directory of the filesystem that forms the root of this mount (field 4).
    pub root: PathBuf,
    /// The mount point, unescaped (field 5).
    pub mount_point: PathBuf,
    /// Per-mount options (field 6) followed by the superblock options (last field).
    pub options: Vec<String>,
    /// Filesystem type (after the `-` separator), e.g. `ext4`, `fuse.sshfs`.
    pub fs_type: String,
    /// Mount source, unescaped, e.g. `/dev/mmcblk0p2`, `tmpfs`, `server:/export`.
    pub source: String,
}

impl MountEntry {
    /// True when mounted read-only (`ro` among the mount or superblock options).
    pub fn is_read_only(&self) -> bool {
        self.options.iter().any(|o| o == "ro")
    }

    /// The value of the last option `name=value` (mount options, then superblock options),
    /// e.g. overlayfs's `upperdir`. `None` when absent.
    pub fn option_value(&self, name: &str) -> Option<&str> {
        option_value(&self.options, name)
    }

    /// True when an option named `name` (or `name=…`) is present.
    pub fn has_option(&self, name: &str) -> bool {
        self.options
            .iter()
            .any(|o| o == name || o.strip_prefix(name).is_some_and(|r| r.starts_with('=')))
    }
}

/// The value of the last option `name=value` in `options`; `None` when absent.
pub fn option_value<'a>(options: &'a [String], name: &str) -> Option<&'a str> {
    options
        .iter()
        .rev()
        .find_map(|o| o.strip_prefix(name).and_then(|r| r.strip_prefix('=')))
}

/// Undoes the octal escapes the kernel writes for space, tab, newline and backslash
/// (`\040`, `\011`, `\012`, `\134`). A malformed escape is kept as it is.
pub fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 3 < bytes.len() {
            let digits = &bytes[i + 1..i + 4];
            if digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                let value = digits
                    .iter()
                    .fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'));
                if let Ok(byte) = u8::try_from(value) {
                    out.push(byte);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parses the text of a mountinfo file. Lines that do not have the documented shape are
/// skipped.
pub fn parse(text: &str) -> Vec<MountEntry> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<MountEntry> {
    let fields: Vec<&str> = line.split(' ').collect();
    let sep = fields.iter().position(|f| *f == "-")?;
    if sep < 6 || fields.len() < sep + 3 {
        return None;
    }
    let mut options: Vec<String> = fields[5].split(',').map(str::to_owned).collect();
    options.extend(fields[sep + 3..].join(" ").split(',').map(str::to_owned));
    options.retain(|o| !o.is_empty());
    Some(MountEntry {
        dev: fields[2].to_owned(),
        root: PathBuf::from(unescape(fields[3])),
        mount_point: PathBuf::from(unescape(fields[4])),
        options,
        fs_type: fields[sep + 1].to_owned(),
        source: unescape(fields[sep + 2]),
    })
}

/// Reads `/proc/self/mountinfo`; empty when it cannot be read.
pub fn read() -> Vec<MountEntry> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| parse(&t))
        .unwrap_or_default()
}

/// Number of path components `prefix` has, when it is a component-wise prefix of `path`.
fn prefix_depth(prefix: &Path, path: &Path) -> Option<usize> {
    path.starts_with(prefix).then(|| {
        prefix
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .count()
    })
}

/// The mount holding the canonical path `path`: the longest mount-point prefix; among equal
/// ones, the one whose `MAJ:MIN` is `dev` (when given), else the last (the mount on top).
pub fn find<'a>(
    entries: &'a [MountEntry],
    path: &Path,
    dev: Option<&str>,
) -> Option<&'a MountEntry> {
    let mut best: Option<(&MountEntry, usize, bool)> = None;
    for e in entries {
        let Some(depth) = prefix_depth(&e.mount_point, path) else {
            continue;
        };
        let dev_match = dev.is_some_and(|d| d == e.dev);
        let better = match best {
            None => true,
            Some((_, d, m)) => depth > d || (depth == d && (dev_match || !m)),
        };
        if better {
            best = Some((e, depth, dev_match));
        }
    }
    best.map(|(e, _, _)| e)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684092k
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684092k
40 27 179:2 / /media/pi/My\\040Card rw,nosuid,nodev - vfat /dev/mmcblk0p2 rw,uid=1000
41 27 0:45 / /mnt/b ro,relatime - btrfs /dev/sda1 rw,compress=zstd:3,space_cache=v2
";

    #[test]
    fn parses_fields_and_unescapes_spaces() {
        let m = parse(SAMPLE);
        assert_eq!(m.len(), 6);
        assert_eq!(m[4].mount_point, PathBuf::from("/media/pi/My Card"));
        assert_eq!(m[4].fs_type, "vfat");
        assert_eq!(m[4].source, "/dev/mmcblk0p2");
        assert_eq!(m[4].dev, "179:2");
        assert!(m[5].is_read_only());
        assert!(m[5].has_option("compress"));
        assert!(!m[4].has_option("compress"));
    }

    #[test]
    fn finds_longest_prefix_and_top_mount() {
        let m = parse(SAMPLE);
        let e = find(&m, Path::new("/media/pi/My Card/dcim"), None).unwrap();
        assert_eq!(e.dev, "179:2");
        let e = find(&m, Path::new("/media/pi"), None).unwrap();
        assert_eq!(e.mount_point, PathBuf::from("/"));
        // Two mounts on /dev/shm: the last one is on top, unless the device says otherwise.
        assert_eq!(find(&m, Path::new("/dev/shm/x"), None).unwrap().dev, "0:27");
        assert_eq!(
            find(&m, Path::new("/dev/shm/x"), Some("0:23")).unwrap().dev,
            "0:23"
        );
        // `/mnt/bx` is not under `/mnt/b`.
        assert_eq!(
            find(&m, Path::new("/mnt/bx"), None).unwrap().mount_point,
            PathBuf::from("/")
        );
    }

    #[test]
    fn unescape_keeps_malformed_escapes() {
        assert_eq!(unescape("a\\040b\\134c\\011"), "a b\\c\t");
        assert_eq!(unescape("end\\04"), "end\\04");
        assert_eq!(unescape("x\\999"), "x\\999");
        assert_eq!(unescape("\\"), "\\");
    }

    #[test]
    fn malformed_lines_are_skipped() {
        assert!(parse("garbage\n1 2 3\n- - -\n").is_empty());
    }
}
