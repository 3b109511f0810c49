//! Pre-flight and device resolution on real filesystems: tmpfs, read-only and full loop
//! filesystems, a directory this user may not write, and the device stack of this machine's
//! root filesystem and of a loop mount. Tests that mount need root and say so when skipped.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use agnostics_core::target_dir::{self, TargetError, Transport};
use agnostics_core::units::MIB;
use agnostics_testkit::{is_root, LoopFs, Mounted, Tmpfs};

/// A scratch directory on the build's disk (not /tmp, which may be tmpfs).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn run(cmd: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new(cmd)
        .args(args)
        .output()
        .map_err(|e| format!("{cmd}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(format!(
            "{cmd} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// An ext4 filesystem of `size_mib` MiB on a loop device with no blocks reserved for root,
/// mounted read-only when `ro`. A read-write one has its root directory opened to everyone.
fn loop_fs(size_mib: u64, ro: bool) -> LoopFs {
    let fsys = LoopFs::builder(size_mib)
        .options(if ro { "ro" } else { "rw" })
        .no_reserved_blocks()
        .mount();
    if !ro {
        // The root directory of a fresh ext4 is root's, mode 0755: open it to everyone
        // so the permission tests below are about the mount, not the directory.
        fs::set_permissions(&fsys.mount, fs::Permissions::from_mode(0o777)).unwrap();
    }
    fsys
}

macro_rules! need_root {
    ($what:expr) => {
        agnostics_testkit::require_root($what)?
    };
}

fn refuses_tmpfs_target() -> agnostics_testkit::Ran {
    let _tmpfs;
    let target = if is_root() {
        _tmpfs = Tmpfs::new(4);
        _tmpfs.mount.clone()
    } else {
        let shm = Path::new("/dev/shm");
        match target_dir::inspect(shm, Path::new("/sys")) {
            Ok(i) if i.fs_type == "tmpfs" => shm.to_path_buf(),
            _ => return agnostics_testkit::skip("needs root, or /dev/shm on tmpfs"),
        }
    };
    let info = target_dir::inspect(&target, Path::new("/sys")).unwrap();
    assert_eq!(info.fs_type, "tmpfs");
    assert_eq!(info.transport, Transport::Memory);
    assert_eq!(info.device, None);
    match target_dir::preflight(&target, MIB, Path::new("/sys")) {
        Err(TargetError::Memory { fs_type, .. }) => assert_eq!(fs_type, "tmpfs"),
        other => panic!("expected Memory, got {other:?}"),
    }
    Ok(())
}

fn refuses_read_only_loop_mount() -> agnostics_testkit::Ran {
    need_root!("a loop device");
    let fsys = loop_fs(16, true);
    let info = target_dir::inspect(&fsys.mount, Path::new("/sys")).unwrap();
    assert!(info.read_only);
    assert!(info.mount_options.iter().any(|o| o == "ro"));
    // Root may write anywhere, yet a read-only mount is reported as such.
    assert_eq!(
        target_dir::preflight(&fsys.mount, MIB, Path::new("/sys")),
        Err(TargetError::ReadOnly {
            path: fs::canonicalize(&fsys.mount).unwrap()
        })
    );
    Ok(())
}

fn refuses_when_space_is_short() -> agnostics_testkit::Ran {
    need_root!("a loop device");
    let fsys = loop_fs(40, false);
    match target_dir::preflight(&fsys.mount, 256 * MIB, Path::new("/sys")) {
        Err(TargetError::NoSpace {
            free_bytes,
            needed_bytes,
            ..
        }) => {
            assert!(free_bytes > 0 && free_bytes < 40 * MIB);
            assert_eq!(needed_bytes, target_dir::needed_bytes(256 * MIB));
        }
        other => panic!("expected NoSpace, got {other:?}"),
    }
    // The check wrote nothing.
    let entries: Vec<_> = fs::read_dir(&fsys.mount)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(entries, ["lost+found"]);
    Ok(())
}

/// The environment variable that makes this test binary the child of
/// [`refuses_directory_not_writable_by_user`]: the folder to check.
const NOT_WRITABLE_ENV: &str = "AGNOSTICS_TEST_NOT_WRITABLE";
/// What the child prints when its check passed.
const NOT_WRITABLE_DONE: &str = "not-writable check passed as nobody";

/// Run by [`refuses_directory_not_writable_by_user`] in a child process as `nobody`: panics
/// unless pre-flight refuses `dir` as not writable.
fn not_writable_child(dir: PathBuf) {
    assert!(!is_root());
    assert_eq!(
        target_dir::preflight(&dir, MIB, Path::new("/sys")),
        Err(TargetError::NotWritable {
            path: fs::canonicalize(&dir).unwrap()
        })
    );
    println!("{NOT_WRITABLE_DONE}");
}

fn refuses_directory_not_writable_by_user() {
    if is_root() {
        // Root may write anywhere: check as `nobody`, in a child process of this test binary
        // (copied out of the checkout, which `nobody` may not be able to enter), on a folder
        // under /var/tmp that `nobody` can reach but not write.
        let dir = agnostics_testkit::scratch_dir();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let out = agnostics_testkit::as_nobody(&[(NOT_WRITABLE_ENV, dir.path().as_os_str())]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains(NOT_WRITABLE_DONE), "{text}");
    } else {
        let dir = scratch();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o555)).unwrap();
        let result = target_dir::preflight(dir.path(), MIB, Path::new("/sys"));
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(result.unwrap_err().kind().as_str(), "not_writable");
    }
}

fn resolves_root_filesystem_to_its_disk() -> agnostics_testkit::Ran {
    let info = target_dir::inspect(Path::new("/"), Path::new("/sys")).unwrap();
    let Some(dev) = &info.device else {
        return agnostics_testkit::skip(format!(
            "needs / on a block device (it is {} here)",
            info.fs_type
        ));
    };
    assert!(Path::new("/sys/block").join(&dev.disk).exists(), "{dev:?}");
    assert_eq!(dev.stack.last(), Some(&dev.disk));
    assert_eq!(info.mount_point, PathBuf::from("/"));
    if dev.disk.starts_with("vd") {
        // This project's CI machine: / is ext4 on /dev/vda, a virtio disk.
        assert_eq!(info.transport, Transport::Virtio);
    }
    println!(
        "/ is {} on {} ({:?})",
        info.fs_type, dev.disk, info.transport
    );
    Ok(())
}

fn resolves_loop_mount_to_its_backing_file() -> agnostics_testkit::Ran {
    need_root!("a loop device");
    let fsys = loop_fs(16, false);
    let info = target_dir::inspect(&fsys.mount, Path::new("/sys")).unwrap();
    assert_eq!(info.fs_type, "ext4");
    assert_eq!(info.transport, Transport::Loop);
    let dev = info.device.unwrap();
    assert_eq!(dev.disk, fsys.loop_name());
    assert_eq!(
        dev.backing_file.as_deref().map(Path::new),
        Some(fsys.image.as_path())
    );
    Ok(())
}

fn lists_writable_filesystems_and_prefers_an_sd_card() -> agnostics_testkit::Ran {
    need_root!("a loop device");
    let fsys = loop_fs(16, false);
    let mnt = fs::canonicalize(&fsys.mount).unwrap();
    let listed = target_dir::list(Path::new("/sys"));
    let mine = listed
        .iter()
        .find(|t| t.path == mnt)
        .expect("loop mount listed");
    assert_eq!(mine.transport, Transport::Loop);
    assert!(listed
        .iter()
        .all(|t| !t.read_only && t.transport != Transport::Memory));
    assert!(listed
        .iter()
        .all(|t| !matches!(t.fs_type.as_str(), "proc" | "sysfs" | "tmpfs")));

    // A sysfs tree in which this loop device is an SD card: the default target moves there.
    let loop_name = fsys.loop_name();
    let maj_min = fs::read_to_string(format!("/sys/block/{loop_name}/dev")).unwrap();
    let root = scratch();
    let r = root.path();
    let card = "devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa";
    fs::create_dir_all(r.join(card).join("block/mmcblk0")).unwrap();
    fs::write(r.join(card).join("type"), "SD\n").unwrap();
    fs::create_dir_all(r.join("dev/block")).unwrap();
    std::os::unix::fs::symlink(
        format!("../../{card}/block/mmcblk0"),
        r.join("dev/block").join(maj_min.trim()),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        "../../../mmc0:aaaa",
        r.join(card).join("block/mmcblk0/device"),
    )
    .unwrap();
    let listed = target_dir::list(r);
    assert_eq!(listed.first().map(|t| t.transport), Some(Transport::Sd));
    if target_dir::inspect(Path::new("/var/tmp"), r).is_ok_and(|i| i.transport != Transport::Sd) {
        assert_eq!(target_dir::default_target(r), mnt);
    }
    Ok(())
}

fn default_target_is_var_tmp_without_an_sd_card() {
    let empty = scratch();
    assert_eq!(
        target_dir::default_target(empty.path()),
        PathBuf::from("/var/tmp")
    );
}

fn refuses_kernel_interfaces_as_not_storage() -> agnostics_testkit::Ran {
    let mut not_here = Vec::new();
    for (dir, fs_type) in [("/proc", "proc"), ("/sys", "sysfs")] {
        if target_dir::inspect(Path::new(dir), Path::new("/sys")).map(|i| i.fs_type)
            != Ok(fs_type.to_owned())
        {
            not_here.push(format!("{dir} on {fs_type}"));
            continue;
        }
        match target_dir::preflight(Path::new(dir), MIB, Path::new("/sys")) {
            Err(e @ TargetError::NotStorage { .. }) => {
                assert_eq!(e.kind().as_str(), "not_storage");
                assert!(e.to_string().contains(fs_type), "{e}");
            }
            other => panic!("{dir}: expected NotStorage, got {other:?}"),
        }
    }
    agnostics_testkit::require(
        not_here.is_empty(),
        format!("needs {}", not_here.join(" and ")),
    )
}

/// An overlayfs over `lower` with its upper and work directories in `layer`, mounted on
/// `merged` (absolute paths, as mountinfo then names them).
fn mount_overlay(layer: &Path, merged: &Path) -> Result<Mounted, String> {
    let lower = layer.join("lower");
    let upper = layer.join("upper");
    let work = layer.join("work");
    for d in [&lower, &upper, &work, &merged.to_path_buf()] {
        fs::create_dir_all(d).map_err(|e| e.to_string())?;
    }
    let options = format!(
        "lowerdir={},upperdir={},workdir={}",
        lower.display(),
        upper.display(),
        work.display()
    );
    let m = merged.to_string_lossy().into_owned();
    run("mount", &["-t", "overlay", "overlay", "-o", &options, &m])?;
    Ok(Mounted(merged.to_path_buf()))
}

fn refuses_an_overlay_whose_upper_layer_is_tmpfs() -> agnostics_testkit::Ran {
    // Raspberry Pi OS's "Overlay File System": / is an overlay with its upper layer in RAM.
    need_root!("mounts a tmpfs and an overlay");
    let dir = scratch();
    let tmpfs = Tmpfs::new(8);
    let layer = tmpfs.mount.clone();
    let merged = dir.path().join("merged");
    let _overlay = match mount_overlay(&layer, &merged) {
        Ok(m) => m,
        Err(e) => return agnostics_testkit::skip(format!("needs an overlay mount: {e}")),
    };
    let info = target_dir::inspect(&merged, Path::new("/sys")).unwrap();
    assert_eq!(info.fs_type, "overlay");
    assert_eq!(info.transport, Transport::Memory);
    match target_dir::preflight(&merged, MIB, Path::new("/sys")) {
        Err(TargetError::Memory { fs_type, .. }) => assert_eq!(fs_type, "overlay over tmpfs"),
        other => panic!("expected Memory, got {other:?}"),
    }
    Ok(())
}

fn an_overlay_on_a_disk_names_the_upper_layers_device() -> agnostics_testkit::Ran {
    need_root!("a loop device");
    let fsys = loop_fs(48, false);
    let merged = fsys.mount.join("merged");
    let _overlay = match mount_overlay(&fsys.mount.join("layer"), &merged) {
        Ok(m) => m,
        Err(e) => return agnostics_testkit::skip(format!("needs an overlay mount: {e}")),
    };
    let info = target_dir::preflight(&merged, MIB, Path::new("/sys")).unwrap();
    assert_eq!(info.fs_type, "overlay");
    assert_eq!(info.transport, Transport::Loop);
    assert_eq!(info.device.unwrap().disk, fsys.loop_name());
    assert!(info.warnings.is_empty(), "{:?}", info.warnings);
    Ok(())
}

fn main() {
    if let Some(dir) = std::env::var_os(NOT_WRITABLE_ENV) {
        not_writable_child(PathBuf::from(dir));
        return;
    }
    agnostics_testkit::harness::run(agnostics_testkit::tests!(
        refuses_tmpfs_target,
        refuses_read_only_loop_mount,
        refuses_when_space_is_short,
        refuses_directory_not_writable_by_user,
        resolves_root_filesystem_to_its_disk,
        resolves_loop_mount_to_its_backing_file,
        lists_writable_filesystems_and_prefers_an_sd_card,
        default_target_is_var_tmp_without_an_sd_card,
        refuses_kernel_interfaces_as_not_storage,
        refuses_an_overlay_whose_upper_layer_is_tmpfs,
        an_overlay_on_a_disk_names_the_upper_layers_device,
    ));
}
