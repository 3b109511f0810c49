//! Which drive a run was on and how it was measured: identities from the card fixtures, USB,
//! NVMe and filesystems (UUID, FAT volume id), provenance from a fixture tree, and the
//! history fields of a real run.

use super::*;

/// The card of fixture `name` read from a sysfs tree laid out as `layout` does it.
pub(crate) fn card_from(root: &Path, name: &str, layout: u8, without: &[&str]) -> CardInfo {
    match layout {
        0 => {
            agnostics_testkit::card_sysfs(root, name, without, &[]);
        }
        _ => {
            let files: Vec<(String, String)> = agnostics_testkit::fixture_files(name)
                .into_iter()
                .filter(|(k, _)| !without.contains(&k.as_str()))
                .collect();
            agnostics_testkit::mmc_host_tree(
                root,
                &files,
                &agnostics_testkit::MmcHost {
                    ios: Some(&agnostics_testkit::ios_fixture("ios-sd-high-speed")),
                    raspberry_pi_5: true,
                    ..Default::default()
                },
            );
        }
    }
    agnostics_core::card::identify(root, "mmcblk0").expect("the fixture's card")
}

pub(crate) fn target(partition: &str) -> TargetReport {
    sample::target()
        .device(Some("mmcblk0"), Some(partition))
        .build()
}

pub(crate) fn identity_of(name: &str, layout: u8, without: &[&str]) -> DriveIdentity {
    let dir = scratch_dir();
    let card = card_from(dir.path(), name, layout, without);
    history::identify(Some(&card), &target("mmcblk0p2"), dir.path()).expect("an identity")
}

pub(crate) fn identity_from_card_fixtures() {
    // The same card in two readers (two sysfs layouts): one id.
    let a = identity_of("kingston-sd64g-2019-imx.json", 0, &[]);
    let b = identity_of("kingston-sd64g-2019-imx.json", 1, &[]);
    assert_eq!(a, b);
    assert_eq!(a.basis, IdentityBasis::Cid);
    // The same card, published from two machines.
    assert_eq!(
        a,
        identity_of("kingston-sd64g-2019-stm32mp135f.json", 0, &[])
    );
    // Without the register (the kernel's readings of it only): still the same card.
    assert_eq!(a, identity_of("kingston-sd64g-2019-imx.json", 0, &["cid"]));
    // Different cards: different ids, none containing the serial.
    let names = [
        "kingston-sd64g-2019-imx.json",
        "kingston-sd64g-2023-04.json",
        "p2-sandisk-sh32g-32gb.json",
        "p2-sandisk-su08g-8gb.json",
        "samsung-emmc-m8g1gc.json",
        "sandisk-sc16g-bbb.json",
        "rpi-sdinfo-kingston-sd128.json",
    ];
    let mut ids = Vec::new();
    for n in names {
        let dir = scratch_dir();
        let card = card_from(dir.path(), n, 0, &[]);
        let id = history::identify(Some(&card), &target("mmcblk0p2"), dir.path()).unwrap();
        let psn = card.cid.as_ref().and_then(|c| c.psn).unwrap();
        let text = serde_json::to_string(&id).unwrap();
        for serial in [format!("{psn:08x}"), format!("{psn:x}"), psn.to_string()] {
            assert!(!text.contains(&serial), "{n}: {text} holds {serial}");
        }
        assert_eq!(id.id.as_str().len(), 16);
        ids.push(id.id);
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "{ids:?}");
}

pub(crate) fn identity_of_usb_nvme_and_filesystems() {
    let dir = scratch_dir();
    let r = dir.path();
    let usb = "devices/pci0000:00/0000:00:14.0/usb1/1-2";
    let disk = format!("{usb}/1-2:1.0/host0/target0:0:0/0:0:0:0/block/sda");
    std::fs::create_dir_all(r.join(&disk)).unwrap();
    for (k, v) in [
        ("idVendor", "0781"),
        ("idProduct", "5581"),
        ("serial", "4C530001231122115125"),
        ("speed", "5000"),
    ] {
        std::fs::write(r.join(usb).join(k), format!("{v}\n")).unwrap();
    }
    std::os::unix::fs::symlink("../..", r.join(&disk).join("device")).unwrap();
    std::fs::create_dir_all(r.join("block")).unwrap();
    std::os::unix::fs::symlink(format!("../{disk}"), r.join("block/sda")).unwrap();
    let card = agnostics_core::card::identify(r, "sda").unwrap();
    assert_eq!(card.kind, Transport::Usb);
    let t = sample::target()
        .device(Some("sda"), Some("sda1"))
        .transport(Transport::Usb)
        .fs_type("vfat")
        .build();
    let id = history::identify(Some(&card), &t, r).unwrap();
    assert_eq!(id.basis, IdentityBasis::Usb);
    assert_eq!(
        id.id,
        DriveId::hash(
            IdentityBasis::Usb,
            &["0781", "5581", "4C530001231122115125"]
        )
    );
    assert!(!serde_json::to_string(&id).unwrap().contains("4C53"));
    // No serial: the filesystem's UUID.
    std::fs::remove_file(r.join(usb).join("serial")).unwrap();
    let by_uuid = r.join("dev/disk/by-uuid");
    std::fs::create_dir_all(&by_uuid).unwrap();
    std::os::unix::fs::symlink("../../sda1", by_uuid.join("5E1A-2F0B")).unwrap();
    std::os::unix::fs::symlink("../../sdb1", by_uuid.join("0000-1111")).unwrap();
    let id = history::identity::identify_with(Some(&card), &t, r, &r.join("dev")).unwrap();
    assert_eq!(id.basis, IdentityBasis::FilesystemUuid);
    assert_eq!(
        id.id,
        DriveId::hash(IdentityBasis::FilesystemUuid, &["5e1a-2f0b"])
    );
    // Nothing known at all.
    let t2 = sample::target()
        .device(Some("sdc"), Some("sdc1"))
        .fs_type("vfat")
        .build();
    assert!(history::identity::identify_with(None, &t2, r, &r.join("dev")).is_none());
    // NVMe: model and serial of the controller.
    let nv = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0";
    std::fs::create_dir_all(r.join(nv).join("nvme0n1")).unwrap();
    std::fs::write(r.join(nv).join("model"), "WD Blue SN580\n").unwrap();
    std::fs::write(r.join(nv).join("serial"), "23411Z800123\n").unwrap();
    std::os::unix::fs::symlink("..", r.join(nv).join("nvme0n1/device")).unwrap();
    std::os::unix::fs::symlink(format!("../{nv}/nvme0n1"), r.join("block/nvme0n1")).unwrap();
    let card = agnostics_core::card::identify(r, "nvme0n1").unwrap();
    assert_eq!(card.kind, Transport::Nvme);
    let id = history::identify(Some(&card), &t, r).unwrap();
    assert_eq!(id.basis, IdentityBasis::Nvme);
    assert_eq!(
        id.id,
        DriveId::hash(IdentityBasis::Nvme, &["WD Blue SN580", "23411Z800123"])
    );
}

pub(crate) fn filesystem_uuid_from_the_superblock() -> Ran {
    require_root("a loop device")?;
    agnostics_testkit::require_program("blkid")?;
    let fs = agnostics_testkit::LoopFs::new(16);
    let blkid = agnostics_testkit::run(
        Command::new("blkid").args(["-s", "UUID", "-o", "value", &fs.device]),
    );
    assert_eq!(
        history::identity::superblock_uuid(Path::new(&fs.device)).as_deref(),
        Some(blkid.as_str())
    );
    // Through identify, with a /dev that has no by-uuid links (no udev).
    let t = sample::target()
        .device(Some(&fs.loop_name()), Some(&fs.loop_name()))
        .transport(Transport::Loop)
        .build();
    let empty = scratch_dir();
    let id = history::identity::identify_with(None, &t, empty.path(), Path::new("/dev")).unwrap();
    assert_eq!(id.basis, IdentityBasis::FilesystemUuid);
    let fsid = history::identity::ext_fsid_of_uuid(&blkid).unwrap();
    assert_eq!(
        id.id,
        DriveId::hash(
            IdentityBasis::FilesystemUuid,
            &["ext", &format!("{fsid:016x}")]
        )
    );
    // The kernel's statfs f_fsid is that fold of the UUID, so a machine that can read neither
    // udev's links nor the disk still finds the same drive.
    assert_eq!(history::identity::statfs_fsid(&fs.mount), Some(fsid));
    let mut no_device = t.clone();
    no_device.path = fs.mount.display().to_string();
    no_device.partition = None;
    let same = history::identity::identify_with(None, &no_device, empty.path(), empty.path());
    assert_eq!(same.map(|i| i.id), Some(id.id));
    Ok(())
}

pub(crate) fn fat_volume_id() {
    let mut head = vec![0u8; 2048];
    head[510] = 0x55;
    head[511] = 0xaa;
    head[82..90].copy_from_slice(b"FAT32   ");
    head[67..71].copy_from_slice(&0x5e1a_2f0bu32.to_le_bytes());
    assert_eq!(
        history::identity::uuid_from_superblock(&head).as_deref(),
        Some("5E1A-2F0B")
    );
    assert_eq!(history::identity::uuid_from_superblock(&[0u8; 2048]), None);
    assert_eq!(history::identity::uuid_from_superblock(&[]), None);
}

pub(crate) fn provenance_from_a_fixture_tree() {
    let dir = scratch_dir();
    let r = dir.path();
    let write = |p: &str, v: &[u8]| {
        let p = r.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v).unwrap();
    };
    write(
        "sys/firmware/devicetree/base/model",
        b"Raspberry Pi 5 Model B Rev 1.0\0",
    );
    write(
        "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
        b"ondemand\n",
    );
    write("sys/class/thermal/thermal_zone0/temp", b"51250\n");
    write(
        "sys/devices/platform/soc/soc:firmware/get_throttled",
        b"50005\n",
    );
    write("proc/sys/kernel/osrelease", b"6.6.51+rpt-rpi-2712\n");
    let profile = agnostics_core::profile::Profile::sd_bench();
    let roots = history::provenance::Roots {
        proc_root: &r.join("proc"),
        sysfs_root: &r.join("sys"),
    };
    let p = history::provenance::collect(
        &roots,
        agnostics_core::engine::EngineKind::Native,
        &profile,
        None,
    );
    assert_eq!(
        p.pi_model.as_deref(),
        Some("Raspberry Pi 5 Model B Rev 1.0")
    );
    assert_eq!(p.cpu_governor.as_deref(), Some("ondemand"));
    assert_eq!(p.soc_temp_millicelsius, Some(51_250));
    assert_eq!(p.throttled, Some(0x50005));
    assert_eq!(p.kernel.as_deref(), Some("6.6.51+rpt-rpi-2712"));
    assert_eq!(p.profile_name, "sd_bench");
    assert_eq!(p.profile_hash.len(), 16);
    assert_eq!(p.profile_hash, history::provenance::profile_hash(&profile));
    assert_eq!(p.program_version, agnostics_core::VERSION);
    assert!(p.fio_version.is_none());
    // An empty tree: nothing readable, nothing invented.
    let empty = scratch_dir();
    let roots = history::provenance::Roots {
        proc_root: empty.path(),
        sysfs_root: empty.path(),
    };
    let p = history::provenance::collect(
        &roots,
        agnostics_core::engine::EngineKind::Native,
        &profile,
        None,
    );
    assert_eq!(
        (
            p.pi_model,
            p.cpu_governor,
            p.soc_temp_millicelsius,
            p.throttled,
            p.kernel
        ),
        (None, None, None, None, None)
    );
    assert_eq!(
        history::provenance::parse_throttled("throttled=0x0"),
        Some(0)
    );
}

/// A real (small) standard run in a scratch folder on disk: the report carries its run id,
/// document version, how it was measured, and (with the device readable, as root) the
/// filesystem's identity; it is stored and a second run gets a trend.
pub(crate) fn a_real_run_fills_the_history_fields() -> Ran {
    require_root("reads the scratch disk's superblock for its identity")?;
    let dir = scratch_dir();
    let mut profile = agnostics_core::profile::Profile::parse(
        "[global]\nioengine=libaio\ndirect=1\niodepth=4\nsize=4m\n\n\
         [prepare-file]\nrw=write\nbs=512k\nstonewall\n\n\
         [seq-write]\nrw=write\nbs=1m\nstonewall\n\n\
         [seq-read]\nrw=read\nbs=1m\nstonewall\n\n\
         [rand-4k-write]\nrw=randwrite\nbs=4k\nruntime=1\nstonewall\n\n\
         [rand-4k-read]\nrw=randread\nbs=4k\nruntime=1\nstonewall\n",
        "small.fio",
        None,
    )
    .unwrap();
    profile.name = "small".into();
    let opts = agnostics_core::sdtest::TestOptions {
        runs: 1,
        profile: profile.clone(),
        lock_dir: agnostics_testkit::private_lock_dir(std::path::Path::new(env!(
            "CARGO_TARGET_TMPDIR"
        ))),
        ..agnostics_core::sdtest::TestOptions::standard(dir.path().to_path_buf())
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let first = agnostics_core::sdtest::run(&opts, &cancel, &|_| {});
    assert!(!first.runs.is_empty(), "{:?}", first.error);
    assert_eq!(first.schema_version, agnostics_core::report::SCHEMA_VERSION);
    assert_eq!(first.run_id.len(), 32);
    let p = first.measured_with.as_ref().unwrap();
    assert_eq!(p.profile_name, "small");
    assert_eq!(p.profile_hash, history::provenance::profile_hash(&profile));
    assert_eq!(p.program_version, agnostics_core::VERSION);
    assert!(p.kernel.is_some());
    let partition = first.target.as_ref().and_then(|t| t.partition.clone());
    // A container may forbid opening the disk even to root: then nothing identifies it.
    if partition.is_some_and(|p| std::fs::File::open(Path::new("/dev").join(p)).is_ok()) {
        let d = first
            .drive
            .as_ref()
            .expect("identified by its filesystem's UUID");
        assert_eq!(d.basis, IdentityBasis::FilesystemUuid);
    }
    let second = agnostics_core::sdtest::run(&opts, &cancel, &|_| {});
    assert_ne!(first.run_id, second.run_id);
    let db_dir = scratch_dir();
    let mut h = History::open(&db(db_dir.path())).unwrap();
    h.record(&first).unwrap();
    let rec = h.record(&second).unwrap();
    match &first.drive {
        Some(d) => {
            assert_eq!(second.drive.as_ref(), Some(d));
            let t = rec.trend.expect("the same drive and profile");
            assert_eq!(t.earlier_runs, 1);
            assert!(!t.figures.is_empty());
        }
        None => assert!(rec.trend.is_none()),
    }
    assert_eq!(stored(&h), 2);
    Ok(())
}
