//! `agnostics-cli references` lists every shipped published figure with its source, and
//! `agnostics-cli card` names the kernel's known trouble beside the command-queueing line for
//! a card whose CID the kernel's quirk table names: the real register dump of a Kingston
//! SD64G made 11/2019 (`kingston-sd64g-2019-imx.json`, the card the kernel's Canvas Go! Plus
//! entry is for) says so; the same product made 04/2023 does not.

use crate::support;

use agnostics_core::references::sources;
use agnostics_testkit::{fixture_files, mmc_host_tree, MmcHost};
use support::*;

fn stdout(args: &[&str]) -> String {
    let out = cli().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn every_shipped_row_is_listed_with_its_source() {
    let text = stdout(&["references"]);
    println!("{text}");
    let rows: usize = sources().iter().map(|s| s.rows.len()).sum();
    assert_eq!(rows, 17);
    assert_eq!(text.lines().filter(|l| l.starts_with("  ")).count(), rows);
    for s in sources() {
        assert!(text.contains(&s.source.url), "{}", s.source.url);
        for r in &s.rows {
            assert!(
                text.contains(&format!("{} {}", r.device, r.capacity)),
                "{}",
                r.device
            );
        }
    }
    assert!(text.contains(
        "Samsung Evo+ 32GB                   Raspberry Pi 4  random 4K read at queue depth 1 \
         10.80 MB/s, random 4K write at queue depth 1 3.85 MB/s"
    ));
    let json: serde_json::Value = serde_json::from_str(&stdout(&["references", "--json"])).unwrap();
    let list = json.as_array().unwrap();
    assert_eq!(list.len(), sources().len());
    assert_eq!(list[0]["source"]["method"], "standard");
    assert_eq!(list[0]["rows"][0]["figures"][0]["value"], 3200.0);
    assert_eq!(list[0]["rows"][0]["figures"][0]["unit"], "IOPS");
    assert_eq!(list[1]["source"]["method"], "qd1");
    let n: usize = list
        .iter()
        .map(|s| s["rows"].as_array().unwrap().len())
        .sum();
    assert_eq!(n, rows);
}

/// `card --device mmcblk0 --sysfs-root ROOT` as text, on the card fixture `name` in a Pi 5's
/// slot with command queueing off.
fn card_text(name: &str) -> String {
    card_output(name, &[])
}

/// [`card_text`] with `--json`.
fn card_json(name: &str) -> String {
    card_output(name, &["--json"])
}

fn card_output(name: &str, extra: &[&str]) -> String {
    let s = scratch();
    let root = mmc_host_tree(
        s.path(),
        &fixture_files(name),
        &MmcHost {
            nr_tags: Some("64"),
            raspberry_pi_5: true,
            ..MmcHost::default()
        },
    );
    let root = root.to_str().unwrap().to_owned();
    let mut args = vec!["card", "--device", "mmcblk0", "--sysfs-root", &root];
    args.extend_from_slice(extra);
    stdout(&args)
}

fn a_card_the_kernel_names_says_so_beside_command_queueing() {
    let text = card_text("kingston-sd64g-2019-imx.json");
    println!("{text}");
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Command queueing:"))
        .unwrap_or_else(|| panic!("{text}"));
    let next = lines[at + 1];
    assert!(next.starts_with("Known trouble:"), "{text}");
    assert!(
        next.ends_with(
            "Linux turns this card's cache off, and with it command queueing: its cache flush \
             never finishes (Kingston Canvas Go! Plus 2019-11; kernel commit c467c8f08185, \
             https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id=c467c8f08185)"
        ),
        "{next}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&card_json("kingston-sd64g-2019-imx.json")).unwrap();
    assert_eq!(json["cqe_quirk"]["pnm"], "SD64G");
    assert_eq!(json["cqe_quirk"]["mid"], 0x9f);
    assert_eq!(json["cqe_quirk"]["reason"], "cache_flush_never_finishes");
    let later_json: serde_json::Value =
        serde_json::from_str(&card_json("kingston-sd64g-2023-04.json")).unwrap();
    assert!(later_json.get("cqe_quirk").is_none(), "{later_json:#}");
    let later = card_text("kingston-sd64g-2023-04.json");
    assert!(later.contains("Command queueing:"), "{later}");
    assert!(!later.contains("Known trouble:"), "{later}");
    assert!(!later.contains("Linux turns"), "{later}");
}

agnostics_testkit::test_list!(
    every_shipped_row_is_listed_with_its_source,
    a_card_the_kernel_names_says_so_beside_command_queueing,
);
