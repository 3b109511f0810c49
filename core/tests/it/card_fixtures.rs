//! Every published register dump in `testkit/fixtures/cards/` decoded through a sysfs tree,
//! compared with the values its owner's host printed (`expected`), plus the oddities the
//! fixtures' `flags` and `notes` name; then edge cases the dumps do not cover.

use std::fs;

use agnostics_core::card::regs::CrcStatus;
use agnostics_core::card::{self, CardInfo, RegisterState};
use agnostics_core::target_dir::Transport;
use agnostics_testkit::{card_fixtures_dir, write_card_tree};
use serde_json::Value;

fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

/// Writes each `sysfs` key as `root/block/mmcblk0/device/<key>` (with sysfs' trailing
/// newline) and identifies `mmcblk0`.
fn identify_files(files: &[(&str, &str)]) -> CardInfo {
    let root = scratch();
    write_card_tree(root.path(), files);
    card::identify(root.path(), "mmcblk0").expect("mmcblk0 exists")
}

fn identify_fixture(fixture: &Value) -> CardInfo {
    let files: Vec<(String, String)> = fixture["sysfs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    identify_files(&refs)
}

/// Every fixture of [`card_fixtures_dir`] (in the repository), by file name.
fn load_fixtures() -> Vec<(String, Value)> {
    let dir = card_fixtures_dir();
    let rd = fs::read_dir(&dir).unwrap_or_else(|e| panic!("card fixtures {}: {e}", dir.display()));
    let mut v: Vec<(String, Value)> = rd
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| {
            let text = fs::read_to_string(e.path()).unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// The decoded value named by an `expected` key, as JSON, for comparison.
fn decoded(card: &CardInfo, key: &str) -> Value {
    let cid = card.cid.as_ref();
    let ssr = card.ssr.as_ref();
    match key {
        "mid" => serde_json::json!(cid.and_then(|c| c.mid)),
        "oid" => serde_json::json!(cid.and_then(|c| c.oid.clone())),
        "pnm" => serde_json::json!(cid.and_then(|c| c.pnm.clone())),
        "prv" => serde_json::json!(cid.and_then(|c| c.prv.clone())),
        "psn" => serde_json::json!(cid.and_then(|c| c.psn)),
        "mdt" => serde_json::json!(cid.and_then(|c| c.mdt.clone())),
        "capacity_bytes" => serde_json::json!(card.capacity_bytes),
        "speed_class" => serde_json::json!(ssr.and_then(|s| s.speed_class)),
        "uhs" => serde_json::json!(ssr.and_then(|s| s.uhs_grade)),
        "video" => serde_json::json!(ssr.and_then(|s| s.video_class)),
        "app_perf" => serde_json::json!(ssr.map(|s| s.raw.app_perf_class)),
        "au_size_bytes" => serde_json::json!(ssr.and_then(|s| s.au_size_bytes)),
        other => panic!("unknown expected key {other}"),
    }
}

fn every_published_dump_decodes_to_what_its_owner_printed() {
    let fixtures = load_fixtures();
    assert!(fixtures.len() >= 40, "only {} fixtures", fixtures.len());
    let mut failures = Vec::new();
    for (file, fx) in &fixtures {
        let card = identify_fixture(fx);
        let want_kind = fx["kind"].as_str().unwrap();
        if card.kind.card_kind_str() != want_kind {
            failures.push(format!(
                "{file}: kind {} != {want_kind}",
                card.kind.card_kind_str()
            ));
        }
        for (key, want) in fx["expected"].as_object().unwrap() {
            let got = decoded(&card, key);
            if &got != want {
                failures.push(format!("{file}: {key} = {got}, expected {want}"));
            }
        }
        // The kernel's own readings never disagree with the registers in these dumps.
        for w in &card.warnings {
            if w.contains("disagrees") || w.contains("checksum") || w.contains("could not be read")
            {
                failures.push(format!("{file}: unexpected warning: {w}"));
            }
        }
        // Every CID/CSD that carries a CRC verifies (fixtures README).
        let c = card.cid.as_ref().and_then(|c| c.crc);
        let d = card.csd.as_ref().map(|c| c.crc);
        for crc in [c, d].into_iter().flatten() {
            if crc == CrcStatus::Mismatch {
                failures.push(format!("{file}: CRC mismatch"));
            }
        }
        // The JSON form carries the fields the issue names.
        let json = serde_json::to_value(&card).unwrap();
        for k in [
            "device",
            "kind",
            "cid",
            "capacity_bytes",
            "ssr",
            "scr",
            "warnings",
        ] {
            if json.get(k).is_none() {
                failures.push(format!("{file}: JSON lacks {k}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The card of fixture `name` (without `.json`), identified.
fn fixture(name: &str) -> CardInfo {
    let path = card_fixtures_dir().join(format!("{name}.json"));
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("card fixture {}: {e}", path.display()));
    identify_fixture(&serde_json::from_str(&text).unwrap())
}

fn the_last_byte_depends_on_the_host_not_the_card() {
    // Same Kingston card on an i.MX host (CRC stripped) and an STM32 host (CRC, end bit 0).
    let (imx, stm) = (
        fixture("kingston-sd64g-2019-imx"),
        fixture("kingston-sd64g-2019-stm32mp135f"),
    );
    assert_eq!(imx.cid.as_ref().unwrap().crc, Some(CrcStatus::Absent));
    assert_eq!(stm.cid.as_ref().unwrap().crc, Some(CrcStatus::OkEndBit0));
    let strip = |c: &CardInfo| {
        let mut x = c.cid.clone().unwrap();
        x.crc = None;
        x
    };
    assert_eq!(strip(&imx), strip(&stm));
    assert_eq!(imx.capacity_bytes, stm.capacity_bytes);
    assert_eq!(imx.ssr, stm.ssr);
    // The flagged Canvas Go! Plus CSD ends in 0x01: the end bit alone.
    let canvas = fixture("kingston-canvasgoplus-sd-2021-08");
    assert_eq!(canvas.csd.unwrap().crc, CrcStatus::AbsentEndBitOnly);
    assert_eq!(canvas.registers.cid, RegisterState::Missing);
    assert_eq!(canvas.cid.unwrap().source, card::cid::CidSource::Sysfs);
    // An SPI reader delivers the CRC and the end bit.
    let spi = fixture("sandisk-sc16g-bbb");
    assert_eq!(spi.cid.unwrap().crc, Some(CrcStatus::Ok));
}

fn shared_and_unknown_manufacturer_ids_are_honest() {
    let t = fixture("toshiba-sa04g-usbsdmux");
    // usbsdmux calls 0x02 SanDisk; it is Toshiba's.
    let c = t.cid.unwrap();
    assert!(c.manufacturer.unwrap().starts_with("Toshiba"));
    assert!(c.manufacturer_shared);
    // A Transcend-labelled card whose CID is SanDisk's: the CID is reported, not the label.
    let t = fixture("transcend-label-sandisk-su04g-4gb");
    assert_eq!(
        t.cid.unwrap().manufacturer.as_deref(),
        Some("SanDisk (Western Digital)")
    );
    let p = fixture("rpi-sdinfo-pretec-1232-2g");
    let c = p.cid.unwrap();
    assert_eq!(
        (c.mid, c.manufacturer.as_deref()),
        (Some(0x88), Some("unknown"))
    );
}

fn emmc_date_uses_the_2013_base_and_explains_the_kernels_1997() {
    let e = fixture("samsung-emmc-m8g1gc");
    assert_eq!(e.kind, Transport::Emmc);
    assert_eq!(e.cid.as_ref().unwrap().mdt.as_deref(), Some("2013-05"));
    assert!(
        e.warnings.iter().any(|w| w.contains("1997")),
        "{:?}",
        e.warnings
    );
    assert_eq!(e.capacity_bytes, None);
    assert_eq!(e.registers.scr, RegisterState::Missing);
    // Without a type file the CID's layout says eMMC.
    let c = fixture("rpi-sdinfo-chromebook-emmc-sem16");
    assert_eq!(c.kind, Transport::Emmc);
    assert!(c.warnings.iter().any(|w| w.contains("type file")));
}

const KINGSTON_CID: &str = "9f544953443634476136980065013b00";
const KINGSTON_CSD: &str = "400e00325b590001cfff7f800a400000";
const KINGSTON_SSR: &str = "000000000800000004009000011b391e000800000002ff0003000000000000000000000000000000000000000000000000000000000000000000000000000000";

fn upper_case_hex_prefix_and_newlines_decode_the_same() {
    let plain = identify_files(&[
        ("type", "SD"),
        ("cid", KINGSTON_CID),
        ("csd", KINGSTON_CSD),
        ("ssr", KINGSTON_SSR),
    ]);
    let upper = identify_files(&[
        ("type", "SD"),
        ("cid", &format!("0x{}\n", KINGSTON_CID.to_uppercase())),
        ("csd", &format!("  {}\r\n", KINGSTON_CSD.to_uppercase())),
        ("ssr", &KINGSTON_SSR.to_uppercase()),
    ]);
    assert_eq!(plain.cid, upper.cid);
    assert_eq!(plain.capacity_bytes, upper.capacity_bytes);
    assert_eq!(plain.ssr, upper.ssr);
    assert_eq!(plain.registers.cid, RegisterState::Decoded);
}

fn missing_zero_and_bad_registers_are_told_apart() {
    let zero_ssr = "0".repeat(128);
    let c = identify_files(&[
        ("type", "SD"),
        ("cid", KINGSTON_CID),
        ("ssr", &zero_ssr),
        ("scr", "02058487zz006432"),
    ]);
    assert_eq!(c.registers.cid, RegisterState::Decoded);
    assert_eq!(c.registers.csd, RegisterState::Missing);
    assert_eq!(c.registers.ssr, RegisterState::AllZero);
    assert_eq!(c.registers.scr, RegisterState::Invalid);
    assert_eq!(
        (c.ssr.as_ref(), c.scr.as_ref(), c.capacity_bytes),
        (None, None, None)
    );
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("SCR") && w.contains("hex digit")));
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["registers"]["ssr"], "all_zero");
    assert_eq!(json["registers"]["csd"], "missing");
    assert_eq!(json["ssr"], Value::Null);

    let zero_cid = identify_files(&[("type", "SD"), ("cid", &"0".repeat(32))]);
    assert_eq!(zero_cid.registers.cid, RegisterState::AllZero);
    assert!(zero_cid.warnings.iter().any(|w| w.contains("all zeros")));

    let short = identify_files(&[("type", "SD"), ("cid", "9f5449")]);
    assert_eq!(short.registers.cid, RegisterState::Invalid);
    assert_eq!(short.cid, None);
}

fn a_cid_with_or_without_its_crc_byte() {
    let with = identify_files(&[("type", "SD"), ("cid", "035344534331364780ecf4c851011b85")]);
    let without = identify_files(&[("type", "SD"), ("cid", "035344534331364780ecf4c851011b")]);
    assert_eq!(with.cid.as_ref().unwrap().crc, Some(CrcStatus::Ok));
    assert_eq!(without.cid.as_ref().unwrap().crc, Some(CrcStatus::Absent));
    assert_eq!(
        with.cid.as_ref().unwrap().pnm,
        without.cid.as_ref().unwrap().pnm
    );
    let corrupt = identify_files(&[("type", "SD"), ("cid", "035344534331364780ecf4c851011b87")]);
    assert!(corrupt.warnings.iter().any(|w| w.contains("checksum")));
}

fn sysfs_that_disagrees_with_the_cid_is_flagged() {
    let c = identify_files(&[
        ("type", "SD"),
        ("cid", KINGSTON_CID),
        ("name", "SD32G"),
        ("manfid", "0x000003"),
        ("oemid", "0x5449"),
        ("date", "11/2019"),
        ("serial", "0x36980066"),
        ("hwrev", "0x6"),
        ("fwrev", "0x1"),
    ]);
    let dis: Vec<&String> = c
        .warnings
        .iter()
        .filter(|w| w.contains("disagrees"))
        .collect();
    assert_eq!(dis.len(), 3, "{dis:?}");
    assert!(dis.iter().any(|w| w.contains("name (SD32G)")));
    assert!(dis.iter().any(|w| w.contains("manfid")));
    assert!(dis.iter().any(|w| w.contains("serial")));
}

fn unknown_device_is_none() {
    let root = scratch();
    assert!(card::identify(root.path(), "mmcblk7").is_none());
}

fn link_from_debugfs_ios_bounds_an_sd_card() {
    let root = scratch();
    let r = root.path();
    let card_dir = "devices/platform/soc/fe340000.mmc/mmc_host/mmc0/mmc0:aaaa";
    fs::create_dir_all(r.join(card_dir).join("block/mmcblk0")).unwrap();
    for (k, v) in [
        ("type", "SD"),
        ("cid", KINGSTON_CID),
        ("csd", KINGSTON_CSD),
        ("scr", "0205848701006432"),
    ] {
        fs::write(r.join(card_dir).join(k), format!("{v}\n")).unwrap();
    }
    std::os::unix::fs::symlink(
        "../../../mmc0:aaaa",
        r.join(card_dir).join("block/mmcblk0/device"),
    )
    .unwrap();
    fs::create_dir_all(r.join("block")).unwrap();
    std::os::unix::fs::symlink(
        format!("../{card_dir}/block/mmcblk0"),
        r.join("block/mmcblk0"),
    )
    .unwrap();
    fs::create_dir_all(r.join("kernel/debug/mmc0")).unwrap();
    fs::write(
        r.join("kernel/debug/mmc0/ios"),
        "clock:\t\t50000000 Hz\nbus width:\t2 (4 bits)\ntiming spec:\t2 (sd high-speed)\n",
    )
    .unwrap();
    let c = card::identify(r, "mmcblk0").unwrap();
    assert_eq!(c.kind, Transport::Sd);
    assert_eq!(c.model.as_deref(), Some("SD64G"));
    assert_eq!(c.link.unwrap().max_bw_bytes, 25e6);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Whatever the register and attribute files hold, identifying the card never panics.
    fn identify_never_panics_on_any_file_contents(
        cid in "(0[xX])?[0-9a-fA-F:xz \n]{0,40}",
        csd in "\\PC{0,40}",
        scr in "[0-9A-Fa-f]{0,18}\n?",
        ssr in "[0-9a-f]{120,130}",
        date in "\\PC{0,8}",
        kind in proptest::sample::select(vec!["SD", "MMC", "SDIO", ""]),
    ) {
        let mut files = vec![("cid", cid.as_str()), ("csd", csd.as_str()), ("scr", scr.as_str()), ("ssr", ssr.as_str()), ("date", date.as_str()), ("manfid", date.as_str()), ("rev", date.as_str())];
        if !kind.is_empty() {
            files.push(("type", kind));
        }
        let c = identify_files(&files);
        let _ = serde_json::to_string(&c).unwrap();
        let _ = c.summary();
    }
}

agnostics_testkit::test_list!(
    every_published_dump_decodes_to_what_its_owner_printed,
    the_last_byte_depends_on_the_host_not_the_card,
    shared_and_unknown_manufacturer_ids_are_honest,
    emmc_date_uses_the_2013_base_and_explains_the_kernels_1997,
    upper_case_hex_prefix_and_newlines_decode_the_same,
    missing_zero_and_bad_registers_are_told_apart,
    a_cid_with_or_without_its_crc_byte,
    sysfs_that_disagrees_with_the_cid_is_flagged,
    unknown_device_is_none,
    link_from_debugfs_ios_bounds_an_sd_card,
    identify_never_panics_on_any_file_contents,
);
