//! The text report in German: advice and labels translated, upstream's compat lines in
//! English exactly (scripts parse them), numbers and sizes for people with the locale's
//! decimal comma, and the JSON untouched by the locale.
//!
//! One test in a process of its own: it sets the process locale (`setlocale`, `LANGUAGE`),
//! which would leak into tests running beside it.

use crate::common;

use agnostics_core::advice::Advice;
use agnostics_core::report::{self, Report};
use agnostics_core::sample;
use agnostics_core::units::KIB;
use agnostics_core::verdict::Verdict;

use common::locale;

fn phase(name: &str, bw_bytes: f64, iops: f64) -> sample::PhaseBuilder {
    sample::phase(name)
        .bw_bytes(bw_bytes)
        .iops(iops)
        .ios(1000)
        .bytes(256 * 1024 * 1024)
        .seconds(1.5)
}

/// A failing run on an SD card: slow sequential write (5251 KiB/s, 5.37 MB/s shown, rounded down) and slow
/// random reads, as a card at the end of its life measures.
fn failing_report() -> Report {
    let run = sample::run(
        1,
        [
            phase("seq-write", 5251.0 * KIB as f64 + 100.0, 1.3),
            phase("rand-4k-write", 2_508_390.4, 612.4),
            phase("rand-4k-read", 4_915_200.0, 1200.0),
        ],
    );
    sample::report()
        .program("agnostics 0.1.0")
        .started("2026-11-30T12:00:00+01:00")
        .target(Some(
            sample::target()
                .model(Some("SD16G"))
                .free_bytes(10_000_000_000)
                .build(),
        ))
        .run(run)
        .advice(Advice::SeqWriteSlow)
        .advice(Advice::RandomIoSlow)
        .build()
}

fn german_report_translates_advice_keeps_compat_lines_and_uses_decimal_comma(
) -> agnostics_testkit::Ran {
    let scratch = locale::scratch_dir("i18n-text-");
    let catalogues = locale::catalogue_dir(scratch.path());
    locale::compile_catalogues(&catalogues, &["de"]);
    let locpath = scratch.path().join("locpath");
    std::fs::create_dir_all(&locpath).expect("create LOCPATH");
    let german = locale::german_locale(&locpath);
    std::env::set_var("LOCPATH", &locpath);
    std::env::set_var("LC_ALL", *german.as_ref().unwrap_or(&"C.UTF-8"));
    std::env::set_var("LANGUAGE", "de");
    agnostics_core::i18n::init(&catalogues);

    let report = failing_report();
    assert_eq!(report.verdict, Verdict::Fail);
    let text = report::to_text(&report);
    println!("{text}");

    // Upstream's lines, byte for byte, whatever the language.
    for line in [
        "Sequential write speed 5251 KB/sec (target 10000) - FAIL",
        "Random write speed 612 IOPS (target 500) - PASS",
        "Random read speed 1200 IOPS (target 1500) - FAIL",
        "Note that sequential write speed declines over time as a card is used - your card may require reformatting",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "compat line {line:?} missing:\n{text}"
        );
    }

    // The advice and the labels for people are German.
    let seq_note = locale::translation(
        "de",
        "Note that sequential write speed declines over time as a card is used - your card may require reformatting",
    );
    assert!(
        text.contains(&format!("• {seq_note}")),
        "German reformatting advice missing:\n{text}"
    );
    let random = locale::translation(
        "de",
        "Random reads or writes are too slow: the desktop and programs will feel sluggish. Replace the card with one marked A1 or A2 (the mark is printed on the card).",
    );
    assert!(text.contains(&format!("• {random}")), "{text}");
    assert!(
        text.contains("Ergebnis: FAIL"),
        "translated result line missing:\n{text}"
    );
    assert!(
        text.contains("Getestet: /var/tmp auf mmcblk0 (SD, ext4)"),
        "{text}"
    );

    // Numbers for people follow the locale; compat lines and JSON never do.
    if german.is_ok() {
        let seq = text
            .lines()
            .find(|l| l.trim_start().starts_with("seq-write"))
            .unwrap_or_else(|| panic!("no seq-write phase line:\n{text}"));
        assert!(seq.contains("5,37"), "no decimal comma in {seq:?}");
        assert!(!seq.contains("5.37"), "decimal point in {seq:?}");
        assert_eq!(
            agnostics_core::units::human_bytes(21_300_000_000),
            "21,3 GB"
        );
    }
    trend_line_uses_german_case();
    let json = serde_json::to_string(&report).expect("serialise");
    assert!(json.contains("\"bw_bytes\":5377124.0"), "{json}");
    let back: Report = serde_json::from_str(&json).expect("JSON reads back");
    assert_eq!(back, report);
    // Everything else ran; without the German locale the decimal-comma checks did not.
    german.map(|_| ())
}

/// "within the spread of 3 earlier runs": German's case after its preposition ("über 3
/// frühere Testläufe", not "von 3 frühere Testläufe").
fn trend_line_uses_german_case() {
    let same = agnostics_core::history::FigureTrend {
        phase: "seq-write".to_owned(),
        unit: agnostics_core::figure::Unit::BytesPerSecond,
        now: 12.5e6,
        before: 12.6e6,
        before_started: "2026-11-29T12:00:00+01:00".to_owned(),
        earlier_runs: 3,
        change_ratio: 12.5 / 12.6 - 1.0,
        change: agnostics_core::history::Change::Same,
    };
    let line = agnostics_core::history::describe(&same);
    assert!(
        line.contains("über 3 frühere Testläufe") && !line.contains("von 3 frühere"),
        "{line}"
    );
}

pub(crate) fn tests() -> Vec<agnostics_testkit::harness::Test> {
    agnostics_testkit::tests!(
        german_report_translates_advice_keeps_compat_lines_and_uses_decimal_comma
    )
    .into_iter()
    .map(|t| t.in_own_process(&[]))
    .collect()
}
