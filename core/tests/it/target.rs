//! Pre-flight and device resolution on real filesystems: tmpfs, read-only and full loop
//! filesystems, a directory this user may not write, and the device stack of this machine's
//! root filesystem and of a loop mount; the mount table's changes watched. Tests that mount
//! need root and say so when skipped.

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

/// A target pre-flight refuses, one test each: the target is made, inspected, then checked
/// for a test file of `needs` bytes.
struct Refusal {
    /// The test's name.
    name: &'static str,
    /// The target.
    target: Target,
    /// The size of the test file asked for, bytes.
    needs: u64,
    /// What inspecting the target must find.
    seen: &'static [Seen],
    /// The refusal.
    refused: Refused,
}

/// A target to refuse, made by [`Target::make`].
#[derive(Clone, Copy)]
enum Target {
    /// A 4 MiB tmpfs (as root), else `/dev/shm` when it is tmpfs.
    Tmpfs,
    /// An ext4 loop filesystem of this many MiB mounted read-only.
    ReadOnlyLoop(u64),
    /// An ext4 loop filesystem of this many MiB, read-write.
    Loop(u64),
    /// A kernel interface (`/proc`, `/sys`) and the filesystem type it must have here.
    Kernel(&'static str, &'static str),
    /// An overlay whose upper layer is on an 8 MiB tmpfs, as Raspberry Pi OS's "Overlay File
    /// System" makes `/`.
    OverlayOverTmpfs,
}

/// A fact inspecting the target must find.
#[derive(Clone, Copy, Debug)]
enum Seen {
    /// The filesystem type.
    FsType(&'static str),
    /// The transport.
    Transport(Transport),
    /// No block device.
    NoDevice,
    /// Read-only, mounted with `ro`.
    ReadOnly,
}

/// The error pre-flight must give.
#[derive(Clone, Copy)]
enum Refused {
    /// `Memory` with this filesystem type.
    Memory(&'static str),
    /// `ReadOnly` naming the canonical path.
    ReadOnly,
    /// `NoSpace` with some, but less than this many MiB, free and the needed bytes of
    /// [`target_dir::needed_bytes`]; nothing written.
    NoSpace { free_below_mib: u64 },
    /// `NotStorage` (kind `not_storage`) naming this filesystem type.
    NotStorage(&'static str),
}

const REFUSALS: &[Refusal] = &[
    Refusal {
        name: "refuses_tmpfs_target",
        target: Target::Tmpfs,
        needs: MIB,
        seen: &[
            Seen::FsType("tmpfs"),
            Seen::Transport(Transport::Memory),
            Seen::NoDevice,
        ],
        refused: Refused::Memory("tmpfs"),
    },
    Refusal {
        // Root may write anywhere, yet a read-only mount is reported as such.
        name: "refuses_read_only_loop_mount",
        target: Target::ReadOnlyLoop(16),
        needs: MIB,
        seen: &[Seen::ReadOnly],
        refused: Refused::ReadOnly,
    },
    Refusal {
        name: "refuses_when_space_is_short",
        target: Target::Loop(40),
        needs: 256 * MIB,
        seen: &[],
        refused: Refused::NoSpace { free_below_mib: 40 },
    },
    Refusal {
        name: "refuses_proc_as_not_storage",
        target: Target::Kernel("/proc", "proc"),
        needs: MIB,
        seen: &[],
        refused: Refused::NotStorage("proc"),
    },
    Refusal {
        name: "refuses_sys_as_not_storage",
        target: Target::Kernel("/sys", "sysfs"),
        needs: MIB,
        seen: &[],
        refused: Refused::NotStorage("sysfs"),
    },
    Refusal {
        name: "refuses_an_overlay_whose_upper_layer_is_tmpfs",
        target: Target::OverlayOverTmpfs,
        needs: MIB,
        seen: &[Seen::FsType("overlay"), Seen::Transport(Transport::Memory)],
        refused: Refused::Memory("overlay over tmpfs"),
    },
];

impl Target {
    /// The target's path and what keeps it alive (mounts are undone when that drops).
    fn make(self) -> Result<(PathBuf, Box<dyn std::any::Any>), agnostics_testkit::Skip> {
        Ok(match self {
            Target::Tmpfs if is_root() => {
                let tmpfs = Tmpfs::new(4);
                (tmpfs.mount.clone(), Box::new(tmpfs))
            }
            Target::Tmpfs => {
                let shm = Path::new("/dev/shm");
                match target_dir::inspect(shm, Path::new("/sys")) {
                    Ok(i) if i.fs_type == "tmpfs" => (shm.to_path_buf(), Box::new(())),
                    _ => {
                        return Err(agnostics_testkit::Skip(
                            "needs root, or /dev/shm on tmpfs".into(),
                        ))
                    }
                }
            }
            Target::ReadOnlyLoop(mib) | Target::Loop(mib) => {
                need_root!("a loop device");
                let fsys = loop_fs(mib, matches!(self, Target::ReadOnlyLoop(_)));
                (fsys.mount.clone(), Box::new(fsys))
            }
            Target::Kernel(dir, fs_type) => {
                if target_dir::inspect(Path::new(dir), Path::new("/sys")).map(|i| i.fs_type)
                    != Ok(fs_type.to_owned())
                {
                    return Err(agnostics_testkit::Skip(format!("needs {dir} on {fs_type}")));
                }
                (PathBuf::from(dir), Box::new(()))
            }
            Target::OverlayOverTmpfs => {
                need_root!("mounts a tmpfs and an overlay");
                let dir = scratch();
                let tmpfs = Tmpfs::new(8);
                let merged = dir.path().join("merged");
                let overlay = match mount_overlay(&tmpfs.mount, &merged) {
                    Ok(m) => m,
                    Err(e) => {
                        return Err(agnostics_testkit::Skip(format!(
                            "needs an overlay mount: {e}"
                        )))
                    }
                };
                // Dropped in this order: the overlay, then its layer, then the folder.
                (merged, Box::new((overlay, tmpfs, dir)))
            }
        })
    }
}

impl Refusal {
    fn run(&self) -> agnostics_testkit::Ran {
        let (target, _keep) = self.target.make()?;
        if !self.seen.is_empty() {
            let info = target_dir::inspect(&target, Path::new("/sys")).unwrap();
            for seen in self.seen {
                match *seen {
                    Seen::FsType(fs_type) => assert_eq!(info.fs_type, fs_type),
                    Seen::Transport(transport) => assert_eq!(info.transport, transport),
                    Seen::NoDevice => assert_eq!(info.device, None),
                    Seen::ReadOnly => {
                        assert!(info.read_only);
                        assert!(info.mount_options.iter().any(|o| o == "ro"));
                    }
                }
            }
        }
        let result = target_dir::preflight(&target, self.needs, Path::new("/sys"));
        match self.refused {
            Refused::Memory(want) => match result {
                Err(TargetError::Memory { fs_type, .. }) => assert_eq!(fs_type, want),
                other => panic!("expected Memory, got {other:?}"),
            },
            Refused::ReadOnly => assert_eq!(
                result,
                Err(TargetError::ReadOnly {
                    path: fs::canonicalize(&target).unwrap()
                })
            ),
            Refused::NoSpace { free_below_mib } => {
                match result {
                    Err(TargetError::NoSpace {
                        free_bytes,
                        needed_bytes,
                        ..
                    }) => {
                        assert!(free_bytes > 0 && free_bytes < free_below_mib * MIB);
                        assert_eq!(needed_bytes, target_dir::needed_bytes(self.needs));
                    }
                    other => panic!("expected NoSpace, got {other:?}"),
                }
                // The check wrote nothing.
                let entries: Vec<_> = fs::read_dir(&target)
                    .unwrap()
                    .flatten()
                    .map(|e| e.file_name())
                    .collect();
                assert_eq!(entries, ["lost+found"]);
            }
            Refused::NotStorage(fs_type) => match result {
                Err(e @ TargetError::NotStorage { .. }) => {
                    assert_eq!(e.kind().as_str(), "not_storage");
                    assert!(e.to_string().contains(fs_type), "{e}");
                }
                other => panic!("{}: expected NotStorage, got {other:?}", target.display()),
            },
        }
        Ok(())
    }
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

/// The mount watch reports a mount and an unmount. (Other programs on this machine may mount
/// at any time too, so that it reports nothing else is not asserted.)
fn the_mount_watch_reports_a_mount_and_an_unmount() -> agnostics_testkit::Ran {
    need_root!("a tmpfs mounted");
    let watch = target_dir::MountWatch::open().expect("/proc/self/mountinfo");
    while watch.changed(0).unwrap() {}
    let tmpfs = Tmpfs::new(4);
    assert!(watch.changed(-1).unwrap(), "the mount is reported");
    while watch.changed(0).unwrap() {}
    drop(tmpfs);
    assert!(watch.changed(-1).unwrap(), "the unmount is reported");
    Ok(())
}

/// When this process is this module's child (run as nobody): checks and returns true.
pub(crate) fn serve_child() -> bool {
    let Some(dir) = std::env::var_os(NOT_WRITABLE_ENV) else {
        return false;
    };
    not_writable_child(PathBuf::from(dir));
    true
}

pub(crate) fn tests() -> Vec<agnostics_testkit::harness::Test> {
    let mut tests: Vec<agnostics_testkit::harness::Test> = REFUSALS
        .iter()
        .map(|r| agnostics_testkit::harness::Test::new(r.name, || r.run()))
        .collect();
    tests.extend(agnostics_testkit::tests!(
        refuses_directory_not_writable_by_user,
        resolves_root_filesystem_to_its_disk,
        resolves_loop_mount_to_its_backing_file,
        lists_writable_filesystems_and_prefers_an_sd_card,
        default_target_is_var_tmp_without_an_sd_card,
        an_overlay_on_a_disk_names_the_upper_layers_device,
        the_mount_watch_reports_a_mount_and_an_unmount,
    ));
    tests
}
