//! `agnostics-cli run` never says PASS for a figure that cannot be true: a run faster than the
//! link to the drive (a fixture sysfs tree given with `--sysfs-root` puts a USB 1.1 link behind
//! this machine's disk), a run answered from memory (a loop device without direct I/O, a loop
//! file on tmpfs, device-mapper over either), jobs that are not what their checks claim, and
//! buffered profiles. Also: a synchronous ioengine runs at iodepth 1 on both engines, and the
//! text report shows control characters of a path escaped. Real runs, real loop devices, real
//! tmpfs, real fio.

use crate::support;

use std::fs;
use std::os::unix::fs::{symlink, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agnostics_testkit::{require, require_program, require_root, run, Mounted, Ran, Tmpfs};
use support::{cli, json, scratch};

/// The standard test's five phases at 8 MiB (1 MiB blocks, random phases of a second).
fn small() -> String {
    agnostics_testkit::profiles::small_standard("8m", "1m", 1)
}

fn write_profile(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path
}

/// What one CLI run gave: its output, its JSON (when `--json`) and the log it wrote.
struct Outcome {
    out: Output,
    stdout: String,
    log: String,
}

/// `agnostics-cli run --runs 1 [args]` with a log file of its own in `scratch`.
fn run_cli(scratch: &Path, args: &[&std::ffi::OsStr]) -> Outcome {
    let log = scratch.join(format!("rpdiags-{}.txt", args.len()));
    let _ = fs::remove_file(&log);
    let out = cli()
        .env("AGNOSTICS_LOG", &log)
        .args(["run", "--runs", "1"])
        .args(args)
        .output()
        .expect("agnostics-cli runs");
    Outcome {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        log: fs::read_to_string(&log).unwrap_or_default(),
        out,
    }
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// Runs the CLI twice on `target` with `profile` (and `extra` arguments): `--json`, then text.
fn json_and_text(
    scratch: &Path,
    target: &Path,
    profile: &Path,
    extra: &[&str],
) -> (serde_json::Value, Outcome, Outcome) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        os("--target"),
        target.as_os_str(),
        os("--profile"),
        profile.as_os_str(),
    ];
    args.extend(extra.iter().map(|s| os(s)));
    let text = run_cli(scratch, &args);
    args.push(os("--json"));
    let j = run_cli(scratch, &args);
    (json(&j.out), j, text)
}

/// Asserts that no line, field or badge of either run says PASS.
fn assert_no_pass(j: &Outcome, text: &Outcome) {
    for (what, s) in [
        ("JSON", &j.stdout),
        ("text", &text.stdout),
        ("log (json run)", &j.log),
        ("log (text run)", &text.log),
    ] {
        assert!(!s.contains("PASS"), "{what} says PASS:\n{s}");
    }
    assert!(!text.log.is_empty(), "the text run wrote no log");
}

/// Every check of every run is ERROR with a reason, and the measured values are kept.
fn assert_shown_not_graded(doc: &serde_json::Value) {
    let runs = doc["runs"].as_array().expect("runs");
    assert!(!runs.is_empty(), "{doc:#}");
    for r in runs {
        assert_eq!(r["verdict"], "ERROR", "{r:#}");
        assert_eq!(r["a2_verdict"], "ERROR", "{r:#}");
        assert_eq!(r["phases"].as_array().map(Vec::len), Some(5), "{r:#}");
        for c in r["checks"].as_array().unwrap() {
            assert_eq!(c["verdict"], "ERROR", "{c:#}");
            assert!(c["value"].as_f64().is_some_and(|v| v > 0.0), "{c:#}");
            assert!(c["reason"].as_str().is_some_and(|s| !s.is_empty()), "{c:#}");
        }
    }
    assert_eq!(doc["verdict"], "ERROR");
    assert_eq!(doc["a2_verdict"], "ERROR");
}

fn write_attrs(dir: &Path, files: &[(&str, &str)]) {
    fs::create_dir_all(dir).unwrap();
    for (k, v) in files {
        fs::write(dir.join(k), format!("{v}\n")).unwrap();
    }
}

/// A fixture sysfs tree in which `dir`'s filesystem is on `sdz`, a drive behind a USB 1.1
/// full-speed link (12 Mbit/s: at most 1.5 MB/s).
fn usb11_tree(root: &Path, dir: &Path) {
    let usb = "devices/pci0000:00/0000:00:14.0/usb1/1-1";
    write_attrs(
        &root.join(usb),
        &[("speed", "12"), ("idVendor", "0781"), ("idProduct", "5581")],
    );
    let scsi = format!("{usb}/1-1:1.0/host0/target0:0:0/0:0:0:0");
    write_attrs(
        &root.join(&scsi),
        &[("vendor", "SanDisk"), ("model", "Cruzer")],
    );
    let disk = format!("{scsi}/block/sdz");
    fs::create_dir_all(root.join(&disk)).unwrap();
    symlink("../../../0:0:0:0", root.join(&disk).join("device")).unwrap();
    let dev = fs::metadata(dir).unwrap().dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    fs::create_dir_all(root.join("dev/block")).unwrap();
    symlink(
        format!("../../{disk}"),
        root.join("dev/block").join(format!("{major}:{minor}")),
    )
    .unwrap();
    fs::create_dir_all(root.join("block")).unwrap();
    symlink(format!("../{disk}"), root.join("block/sdz")).unwrap();
}

fn implausible_run_says_pass_nowhere() -> Ran {
    let s = scratch();
    let target = s.path().join("target");
    fs::create_dir(&target).unwrap();
    let sysfs = s.path().join("sysfs");
    usb11_tree(&sysfs, &target);
    let profile = write_profile(s.path(), "small.fio", &small());
    let sysfs_arg = sysfs.to_str().unwrap().to_owned();
    let (doc, j, text) = json_and_text(s.path(), &target, &profile, &["--sysfs-root", &sysfs_arg]);
    assert_eq!(doc["card"]["usb"]["speed_mbit"], 12.0, "{doc:#}");
    let fastest = doc["runs"][0]["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["bw_bytes"].as_f64())
        .fold(0.0, f64::max);
    println!(
        "fastest phase {:.1} MB/s over a 1.5 MB/s link",
        fastest / 1e6
    );
    require(
        doc["error"]["kind"] == "implausible",
        format!(
            "this disk ran at {:.1} MB/s, not faster than USB 1.1: nothing implausible to grade",
            fastest / 1e6
        ),
    )?;
    assert_shown_not_graded(&doc);
    assert_no_pass(&j, &text);
    assert!(text.stdout.contains("A1: ERROR"), "{}", text.stdout);
    assert!(text.stdout.contains("Not graded: "), "{}", text.stdout);
    assert_eq!(j.out.status.code(), Some(2));
    Ok(())
}

/// A loop device over an image in `dir`, without direct I/O unless `direct`, with ext4 on it,
/// mounted; torn down on drop.
struct LoopMount {
    device: String,
    mount: PathBuf,
    _mounted: Option<Mounted>,
}

impl LoopMount {
    fn new(dir: &Path, direct: bool) -> LoopMount {
        let image = Self::image(dir);
        let device = run(&mut Self::losetup(&image, direct));
        Self::with_device(dir, device)
    }

    /// Direct I/O asked for, attached without it when the kernel refuses it for this backing
    /// file: Linux 6.1 (Debian 12) fails `losetup --direct-io=on` with EINVAL over a file on
    /// tmpfs, newer kernels attach the device and leave dio off.
    fn new_direct_if_granted(dir: &Path) -> LoopMount {
        let image = Self::image(dir);
        let out = Self::losetup(&image, true).output().expect("losetup runs");
        let device = if out.status.success() {
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        } else {
            println!(
                "losetup --direct-io=on refused ({}): attached without direct I/O",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            // A device it may have attached before refusing.
            let attached = run(Command::new("losetup").arg("-j").arg(&image));
            for line in attached.lines() {
                if let Some((device, _)) = line.split_once(':') {
                    let _ = Command::new("losetup").arg("-d").arg(device).status();
                }
            }
            run(&mut Self::losetup(&image, false))
        };
        Self::with_device(dir, device)
    }

    fn image(dir: &Path) -> PathBuf {
        let image = dir.join("disk.img");
        fs::File::create(&image)
            .and_then(|f| f.set_len(64 << 20))
            .unwrap();
        image
    }

    fn losetup(image: &Path, direct: bool) -> Command {
        let mut c = Command::new("losetup");
        c.arg(format!("--direct-io={}", if direct { "on" } else { "off" }))
            .args(["-f", "--show"])
            .arg(image);
        c
    }

    fn with_device(dir: &Path, device: String) -> LoopMount {
        let mut m = LoopMount {
            device,
            mount: dir.join("mnt"),
            _mounted: None,
        };
        m.format_and_mount(&m.device.clone());
        m
    }

    fn format_and_mount(&mut self, device: &str) {
        run(Command::new("mkfs.ext4").args([
            "-q",
            "-F",
            "-E",
            "lazy_itable_init=0,lazy_journal_init=0",
            device,
        ]));
        fs::create_dir_all(&self.mount).unwrap();
        run(Command::new("mount").arg(device).arg(&self.mount));
        self._mounted = Some(Mounted(self.mount.clone()));
    }

    fn name(&self) -> String {
        self.device.trim_start_matches("/dev/").to_owned()
    }
}

impl Drop for LoopMount {
    fn drop(&mut self) {
        drop(self._mounted.take());
        let _ = Command::new("losetup").arg("-d").arg(&self.device).status();
    }
}

/// Runs the small profile in `target` on real sysfs; the run must be shown, not graded, with
/// error kind `cached` whose message contains `needle`.
fn assert_cached(s: &Path, target: &Path, needle: &str) {
    let profile = write_profile(s, "small.fio", &small());
    let (doc, j, text) = json_and_text(s, target, &profile, &[]);
    assert_eq!(doc["error"]["kind"], "cached", "{doc:#}");
    let message = doc["error"]["message"].as_str().unwrap();
    assert!(message.contains(needle), "{message}");
    assert!(!doc["error"]["hint"].as_str().unwrap().is_empty());
    assert_shown_not_graded(&doc);
    assert_no_pass(&j, &text);
    assert!(text.stdout.contains(message), "{}", text.stdout);
    assert_eq!(j.out.status.code(), Some(2));
    println!("{message}");
}

fn loop_without_direct_io_is_shown_not_graded() -> Ran {
    require_root("a loop device")?;
    let s = scratch();
    let m = LoopMount::new(s.path(), false);
    let dio = fs::read_to_string(format!("/sys/block/{}/loop/dio", m.name())).unwrap();
    assert_eq!(dio.trim(), "0");
    assert_cached(s.path(), &m.mount, "without direct I/O");
    Ok(())
}

fn loop_file_on_tmpfs_is_shown_not_graded() -> Ran {
    require_root("a tmpfs and a loop device")?;
    let t = Tmpfs::new(80);
    let s = scratch();
    // Direct I/O asked for; whether the loop driver grants it on tmpfs or not, memory answers.
    let m = LoopMount::new_direct_if_granted(&t.mount);
    let message = if fs::read_to_string(format!("/sys/block/{}/loop/dio", m.name()))
        .unwrap()
        .trim()
        == "1"
    {
        "tmpfs is memory"
    } else {
        "without direct I/O"
    };
    assert_cached(s.path(), &m.mount, message);
    drop(m);
    Ok(())
}
fn a_fuse_filesystem_is_shown_not_graded() -> Ran {
    require_root("a FUSE mount")?;
    require_program("bindfs")?;
    agnostics_testkit::require_path(Path::new("/dev/fuse"), "the FUSE device")?;
    let s = scratch();
    let (src, mnt) = (s.path().join("src"), s.path().join("mnt"));
    fs::create_dir(&src).unwrap();
    fs::create_dir(&mnt).unwrap();
    run(Command::new("bindfs").arg(&src).arg(&mnt));
    let mounted = Mounted(mnt.clone());
    if direct_write_refused(&mnt) {
        // Linux 6.1 (Debian 12): bindfs opens with O_DIRECT but fails the writes with EINVAL.
        // Nothing is measured, and the error says the filesystem refuses direct I/O.
        let profile = write_profile(s.path(), "small.fio", &small());
        let (doc, j, text) = json_and_text(s.path(), &mnt, &profile, &[]);
        assert_eq!(doc["error"]["kind"], "direct_io_refused", "{doc:#}");
        let message = doc["error"]["message"].as_str().unwrap();
        assert!(message.contains("fuse"), "{message}");
        assert_eq!(doc["verdict"], "ERROR");
        assert_no_pass(&j, &text);
        assert_eq!(j.out.status.code(), Some(2));
        println!("{message}");
    } else {
        assert_cached(s.path(), &mnt, "is a FUSE filesystem");
    }
    drop(mounted);
    Ok(())
}

/// True when a 4 KiB write with O_DIRECT (aligned buffer, offset 0) into `dir` fails with
/// EINVAL.
fn direct_write_refused(dir: &Path) -> bool {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join("direct-probe");
    let opened = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(&path);
    let result = opened.and_then(|mut f| {
        let block = vec![0x5au8; 8192];
        let start = block.as_ptr().align_offset(4096);
        f.write_all(&block[start..start + 4096])
    });
    let _ = fs::remove_file(&path);
    matches!(result, Err(e) if e.raw_os_error() == Some(libc::EINVAL))
}

fn a_loop_device_with_direct_io_is_graded() -> Ran {
    require_root("a loop device")?;
    let s = scratch();
    let m = LoopMount::new(s.path(), true);
    let profile = write_profile(s.path(), "small.fio", &small());
    let (doc, _, _) = json_and_text(s.path(), &m.mount, &profile, &[]);
    assert_eq!(doc["error"], serde_json::Value::Null, "{doc:#}");
    for c in doc["runs"][0]["checks"].as_array().unwrap() {
        assert_ne!(c["verdict"], "ERROR", "{c:#}");
        assert_eq!(c["reason"], serde_json::Value::Null, "{c:#}");
    }
    Ok(())
}

/// The checks of the run in `doc` by (name, standard A1).
fn a1_check<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["runs"][0]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name && c["standard"] == "A1")
        .unwrap_or_else(|| panic!("no A1 check {name}: {doc:#}"))
}

fn jobs_that_are_not_what_their_checks_claim_are_not_graded() {
    let s = scratch();
    let target = s.path().join("target");
    fs::create_dir(&target).unwrap();
    // seq-write reads, rand-4k-write reads, rand-4k-read moves 64 KiB a request.
    let profile = write_profile(
        s.path(),
        "liar.fio",
        "[global]\nioengine=libaio\ndirect=1\niodepth=8\nsize=8m\n\n\
         [prepare-file]\nrw=write\nbs=1m\nstonewall\n\n[seq-write]\nrw=read\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n[rand-4k-write]\nrw=randread\nbs=4k\nruntime=1\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=64k\nruntime=1\nstonewall\n",
    );
    let (doc, j, text) = json_and_text(s.path(), &target, &profile, &[]);
    for (name, needle) in [
        ("seq-write", "rw=read, not rw=write"),
        ("rand-4k-write", "rw=randread, not rw=randwrite"),
        ("rand-4k-read", "bs=65536"),
    ] {
        let c = a1_check(&doc, name);
        assert_eq!(c["verdict"], "ERROR", "{c:#}");
        assert!(c["value"].as_f64().is_some(), "{c:#}");
        let reason = c["reason"].as_str().unwrap_or_default();
        assert!(reason.contains(needle), "{name}: {reason}");
        assert!(text.stdout.contains(reason), "{}", text.stdout);
        assert!(
            doc["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w.as_str() == Some(reason)),
            "{doc:#}"
        );
    }
    assert_eq!(doc["runs"].as_array().unwrap().len(), 1);
    assert_no_pass(&j, &text);

    // A sequential write in 4 KiB requests is not a sustained sequential write.
    let small_bs = write_profile(
        s.path(),
        "small-bs.fio",
        &small().replace(
            "[seq-write]\nrw=write\nbs=1m",
            "[seq-write]\nrw=write\nbs=4k",
        ),
    );
    let (doc, _, _) = json_and_text(s.path(), &target, &small_bs, &[]);
    let c = a1_check(&doc, "seq-write");
    assert_eq!(c["verdict"], "ERROR", "{c:#}");
    assert!(
        c["reason"].as_str().unwrap().contains("at least 64 KiB"),
        "{c:#}"
    );
    assert_ne!(a1_check(&doc, "rand-4k-read")["verdict"], "ERROR");
}

fn a_buffered_profile_is_never_graded() {
    let s = scratch();
    let target = s.path().join("target");
    fs::create_dir(&target).unwrap();
    let profile = write_profile(
        s.path(),
        "buffered.fio",
        &small().replace("direct=1", "direct=0"),
    );
    let (doc, j, text) = json_and_text(s.path(), &target, &profile, &[]);
    for c in doc["runs"][0]["checks"].as_array().unwrap() {
        assert_eq!(c["verdict"], "ERROR", "{c:#}");
        assert!(c["reason"].as_str().unwrap().contains("direct=0"), "{c:#}");
    }
    println!(
        "buffered rand-4k-read: {} IOPS (not graded)",
        a1_check(&doc, "rand-4k-read")["value"]
    );
    assert_no_pass(&j, &text);
}

fn a_synchronous_engine_runs_at_depth_one_on_both_engines() -> Ran {
    require_program("fio")?;
    let s = scratch();
    let target = s.path().join("target");
    fs::create_dir(&target).unwrap();
    let profile = write_profile(
        s.path(),
        "psync.fio",
        &small().replace(
            "ioengine=libaio\ndirect=1\niodepth=8",
            "ioengine=psync\ndirect=1\niodepth=32",
        ),
    );
    for engine in ["native", "fio"] {
        let (doc, _, _) = json_and_text(s.path(), &target, &profile, &["--engine", engine]);
        assert_eq!(doc["error"], serde_json::Value::Null, "{engine}: {doc:#}");
        for p in doc["runs"][0]["phases"].as_array().unwrap() {
            assert_eq!(p["iodepth"], 1, "{engine}: {p:#}");
        }
        assert!(
            doc["warnings"].as_array().unwrap().iter().any(|w| w
                .as_str()
                .is_some_and(|w| w.contains("ioengine=psync is synchronous"))),
            "{engine}: {doc:#}"
        );
    }
    Ok(())
}

fn control_characters_in_the_path_are_shown_escaped() {
    let s = scratch();
    let target = s.path().join("new\nline\tand\u{1b}[31mred");
    fs::create_dir(&target).unwrap();
    let profile = write_profile(s.path(), "small.fio", &small());
    let out = run_cli(
        s.path(),
        &[
            os("--target"),
            target.as_os_str(),
            os("--profile"),
            profile.as_os_str(),
        ],
    );
    let tested = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Tested: "))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(
        tested.contains("new\\nline\\tand\\u{1b}[31mred on "),
        "{tested}"
    );
    assert!(!out.stdout.contains('\u{1b}'), "{}", out.stdout);
    // Not an SD card (no card behind this fixture-less disk): the advice reads as English.
    let empty = s.path().join("empty-sysfs");
    fs::create_dir(&empty).unwrap();
    let out = run_cli(
        s.path(),
        &[
            os("--target"),
            s.path().as_os_str(),
            os("--profile"),
            profile.as_os_str(),
            os("--sysfs-root"),
            empty.as_os_str(),
        ],
    );
    assert!(out.stdout.contains("(connection: other)"), "{}", out.stdout);
    assert!(!out.stdout.contains(" a other "), "{}", out.stdout);
}

fn compat_lines_and_table_show_the_same_whole_numbers() {
    let s = scratch();
    let target = s.path().join("target");
    fs::create_dir(&target).unwrap();
    let profile = write_profile(s.path(), "small.fio", &small());
    let out = run_cli(
        s.path(),
        &[
            os("--target"),
            target.as_os_str(),
            os("--profile"),
            profile.as_os_str(),
        ],
    );
    let field = |prefix: &str, index: usize| -> String {
        let line = out
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix}: {}", out.stdout));
        line.split_whitespace().nth(index).unwrap().to_owned()
    };
    for (compat, phase) in [
        ("Random write speed", "rand-4k-write"),
        ("Random read speed", "rand-4k-read"),
    ] {
        // "Random write speed N IOPS …" and "  rand-4k-write  X MB/s  N IOPS …".
        assert_eq!(field(compat, 3), field(phase, 3), "{}", out.stdout);
    }
}

agnostics_testkit::test_list!(
    implausible_run_says_pass_nowhere,
    loop_without_direct_io_is_shown_not_graded,
    loop_file_on_tmpfs_is_shown_not_graded,
    a_fuse_filesystem_is_shown_not_graded,
    a_loop_device_with_direct_io_is_graded,
    jobs_that_are_not_what_their_checks_claim_are_not_graded,
    a_buffered_profile_is_never_graded,
    a_synchronous_engine_runs_at_depth_one_on_both_engines,
    control_characters_in_the_path_are_shown_escaped,
    compat_lines_and_table_show_the_same_whole_numbers,
);
