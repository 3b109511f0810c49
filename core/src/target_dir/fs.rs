//! Filesystems: the `statfs` magic number → a type name (linux/magic.h), which types are
//! memory, network, caching or pseudo filesystems, and free space from `statvfs`.

use std::path::Path;

/// `f_type` magic numbers from `linux/magic.h` with the name this program reports.
const MAGICS: &[(u64, &str)] = &[
    (0xEF53, "ext4"),
    (0x4d44, "vfat"),
    (0x2011_BAB0, "exfat"),
    (0x9123_683E, "btrfs"),
    (0x5846_5342, "xfs"),
    (0xF2F5_2010, "f2fs"),
    (0x0102_1994, "tmpfs"),
    (0x8584_58f6, "ramfs"),
    (0x6573_5546, "fuse"),
    (0x2fc1_2fc1, "zfs"),
    (0x6969, "nfs"),
    (0xFF53_4D42, "cifs"),
    (0xFE53_4D42, "smb2"),
    (0x517B, "smb"),
    (0x794c_7630, "overlay"),
    (0x7371_7368, "squashfs"),
    (0x5346_544e, "ntfs3"),
    (0x9660, "iso9660"),
    (0x0102_1997, "9p"),
    (0x00c3_6400, "ceph"),
    (0x482b, "hfsplus"),
    (0x3153_464a, "jfs"),
    (0x5265_4973, "reiserfs"),
    (0x3434, "nilfs2"),
    (0x1501_3346, "udf"),
    (0xca45_1a4e, "bcachefs"),
    (0xE0F5_E1E2, "erofs"),
    (0xf15f, "ecryptfs"),
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x1cd1, "devpts"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7363_6673, "securityfs"),
    (0x958458f6, "hugetlbfs"),
];

/// The name for a `statfs` magic number, or `None` when this program does not know it.
pub fn name_of_magic(magic: u64) -> Option<&'static str> {
    MAGICS.iter().find(|(m, _)| *m == magic).map(|(_, n)| *n)
}

/// The filesystem type to report, from the `statfs` magic and the mount table's type.
///
/// The magic is authoritative; the mount table refines it where one magic covers several
/// types (ext2/ext3/ext4, `fuse.sshfs`/`fuseblk`, `ntfs`/`ntfs3`, `nfs4`). Unknown magic:
/// the mount table's type, else `unknown (0x…)`.
pub fn type_name(magic: u64, mount_type: Option<&str>) -> String {
    match (name_of_magic(magic), mount_type) {
        (Some("ext4"), Some(t @ ("ext2" | "ext3" | "ext4"))) => t.to_owned(),
        (Some("fuse"), Some(t)) if t.starts_with("fuse") || t == "virtiofs" => t.to_owned(),
        (Some("ntfs3"), Some(t @ ("ntfs" | "ntfs3"))) => t.to_owned(),
        (Some("nfs"), Some(t @ ("nfs" | "nfs4"))) => t.to_owned(),
        (Some(n), _) => n.to_owned(),
        (None, Some(t)) if !t.is_empty() => t.to_owned(),
        (None, _) => format!("unknown (0x{magic:x})"),
    }
}

/// True for filesystems that live in memory: tmpfs and ramfs.
pub fn is_memory(fs_type: &str) -> bool {
    matches!(fs_type, "tmpfs" | "ramfs" | "hugetlbfs")
}

/// True for FUSE filesystems (`fuse`, `fuse.*`, `fuseblk`).
pub fn is_fuse(fs_type: &str) -> bool {
    fs_type == "fuse" || fs_type == "fuseblk" || fs_type.starts_with("fuse.")
}

/// True for network filesystems.
pub fn is_network(fs_type: &str) -> bool {
    matches!(
        fs_type,
        "nfs" | "nfs4" | "cifs" | "smb2" | "smb" | "smb3" | "9p" | "ceph" | "virtiofs" | "afs"
    )
}

/// True for the kernel's own interfaces mounted as filesystems (proc, sysfs, cgroup, debugfs,
/// …): no drive is behind them and no test file can be created there.
pub fn is_kernel_interface(fs_type: &str) -> bool {
    matches!(
        fs_type,
        "proc"
            | "sysfs"
            | "devpts"
            | "cgroup"
            | "cgroup2"
            | "securityfs"
            | "debugfs"
            | "tracefs"
            | "pstore"
            | "bpf"
            | "mqueue"
            | "configfs"
            | "fusectl"
            | "autofs"
            | "binfmt_misc"
            | "efivarfs"
            | "nsfs"
            | "rpc_pipefs"
            | "selinuxfs"
            | "sockfs"
            | "pipefs"
            | "nfsd"
    )
}

/// True for filesystems nobody would test a drive on: kernel interfaces, read-only images,
/// layers, memory.
pub fn is_pseudo(fs_type: &str) -> bool {
    is_kernel_interface(fs_type)
        || matches!(
            fs_type,
            "devtmpfs"
                | "tmpfs"
                | "ramfs"
                | "hugetlbfs"
                | "overlay"
                | "squashfs"
                | "erofs"
                | "iso9660"
                | "ecryptfs"
        )
}

/// Sizes and flags from `statvfs`, in bytes (u64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    /// Bytes free for an unprivileged user: `f_bavail × f_frsize`.
    pub free_bytes: u64,
    /// Size of the filesystem: `f_blocks × f_frsize`.
    pub total_bytes: u64,
    /// `ST_RDONLY`: mounted read-only.
    pub read_only: bool,
}

/// `statvfs(path)`. Errors: the OS error.
// The conversions are needed on 32-bit targets, where the fields are 32-bit.
#[allow(clippy::useless_conversion)]
pub fn space(path: &Path) -> Result<Space, nix::Error> {
    let v = nix::sys::statvfs::statvfs(path)?;
    let frsize = u64::from(v.fragment_size());
    Ok(Space {
        free_bytes: u64::from(v.blocks_available()).saturating_mul(frsize),
        total_bytes: u64::from(v.blocks()).saturating_mul(frsize),
        read_only: v.flags().contains(nix::sys::statvfs::FsFlags::ST_RDONLY),
    })
}

/// The `statfs` magic number of the filesystem holding `path`. Errors: the OS error.
pub fn magic(path: &Path) -> Result<u64, nix::Error> {
    let s = nix::sys::statfs::statfs(path)?;
    // f_type is a signed word on some targets; the magic is its bit pattern.
    #[allow(clippy::unnecessary_cast)]
    let raw = s.filesystem_type().0 as i64;
    Ok(raw as u64 & 0xFFFF_FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_common_magics() {
        assert_eq!(type_name(0xEF53, Some("ext4")), "ext4");
        assert_eq!(type_name(0xEF53, Some("ext2")), "ext2");
        assert_eq!(type_name(0x0102_1994, Some("tmpfs")), "tmpfs");
        assert_eq!(type_name(0x6573_5546, Some("fuse.sshfs")), "fuse.sshfs");
        assert_eq!(type_name(0x6573_5546, Some("fuseblk")), "fuseblk");
        assert_eq!(type_name(0xFE53_4D42, Some("cifs")), "smb2");
        assert_eq!(type_name(0x1234, Some("weirdfs")), "weirdfs");
        assert_eq!(type_name(0x1234, None), "unknown (0x1234)");
    }

    #[test]
    fn classifies_types() {
        assert!(is_memory("tmpfs") && is_memory("ramfs") && !is_memory("ext4"));
        assert!(is_fuse("fuse.sshfs") && is_fuse("fuseblk") && !is_fuse("ext4"));
        assert!(is_network("nfs4") && is_network("cifs") && !is_network("vfat"));
        assert!(is_pseudo("proc") && is_pseudo("overlay") && !is_pseudo("btrfs"));
    }

    #[test]
    fn root_of_this_machine_has_a_known_magic() {
        let m = magic(Path::new("/")).unwrap();
        assert_ne!(m, 0);
        let s = space(Path::new("/")).unwrap();
        assert!(s.total_bytes >= s.free_bytes);
    }
}
