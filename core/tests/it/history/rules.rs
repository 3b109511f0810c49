//! The trend rule and the side-by-side comparison of two runs.

use super::*;

pub(crate) fn trend_rule() {
    let earlier = [report(1, "kitchen", 1, 12.0)];
    let t = trend(&report(2, "kitchen", 2, 6.0), &earlier).unwrap();
    let seq = &t.figures[0];
    assert_eq!(seq.phase, "seq-write");
    assert_eq!(seq.unit, Unit::BytesPerSecond);
    assert_eq!(seq.change, Change::Down);
    assert!((seq.change_ratio + 0.5).abs() < 1e-9);
    assert!(t.decline);
    let t = trend(&report(2, "kitchen", 2, 11.8), &earlier).unwrap();
    assert_eq!(t.figures[0].change, Change::Same);
    assert!(!t.decline);
    assert!(history::decline_advice(&t).is_empty());
    assert!(
        describe(&t.figures[0]).contains("about the same"),
        "{}",
        describe(&t.figures[0])
    );
    // The drive's own spread: 10 and 14 earlier, 8.5 is within half the spread below.
    let spread = [report(1, "kitchen", 1, 10.0), report(3, "kitchen", 3, 14.0)];
    assert_eq!(
        trend(&report(4, "kitchen", 4, 8.5), &spread)
            .unwrap()
            .figures[0]
            .change,
        Change::Same
    );
    assert_eq!(
        trend(&report(4, "kitchen", 4, 7.9), &spread)
            .unwrap()
            .figures[0]
            .change,
        Change::Down
    );
    let up = trend(&report(4, "kitchen", 4, 16.5), &spread).unwrap();
    assert_eq!(up.figures[0].change, Change::Up);
    assert!(!up.decline);
    assert!(
        describe(&up.figures[0]).contains("up 18 % from 14.6 MB/s on 2026-06-03 (2 earlier runs)"),
        "{}",
        describe(&up.figures[0])
    );
    // Down by the rule but less than 20 %: a change, not a marked decline.
    let small = trend(&report(2, "kitchen", 2, 10.5), &earlier).unwrap();
    assert_eq!(small.figures[0].change, Change::Down);
    assert!(!small.decline);
    // Nothing earlier, another profile, a failed run: no trend.
    assert!(trend(&report(2, "kitchen", 2, 6.0), &[]).is_none());
    let mut other = report(1, "kitchen", 1, 12.0);
    other.measured_with = Some(provenance("ffffffffffffffff"));
    assert!(trend(&report(2, "kitchen", 2, 6.0), &[other]).is_none());
    let mut failed = report(1, "kitchen", 1, 12.0);
    failed.error = Some(sample::error(ErrorKind::Io, "x"));
    assert!(trend(&report(2, "kitchen", 2, 6.0), &[failed]).is_none());
    assert_eq!(history::trend::change(5.0, &[10.0]), Change::Down);
    assert_eq!(history::trend::change(9.6, &[10.0]), Change::Same);
}

/// Earlier runs that disagree wildly are no spread: a figure far below the latest is down, not
/// "about the same as" it; a fall too large for a percentage is said as a fraction.
pub(crate) fn trend_against_runs_that_disagree() {
    let disagree = [report(1, "kitchen", 1, 1.0), report(2, "kitchen", 3, 36.0)];
    let t = trend(&report(3, "kitchen", 4, 1.2), &disagree).unwrap();
    let seq = &t.figures[0];
    assert_eq!(seq.change, Change::Down);
    assert_eq!(
        describe(seq),
        "Sequential write 1.2 MB/s — down to 1/30 of 37.7 MB/s on 2026-06-03 (2 earlier runs)"
    );
    assert!(t.decline);
    // Against the latest alone: a little above it is up.
    let reversed = [report(1, "kitchen", 1, 36.0), report(2, "kitchen", 3, 1.0)];
    let t = trend(&report(3, "kitchen", 4, 1.2), &reversed).unwrap();
    assert_eq!(t.figures[0].change, Change::Up);
    // A fall of a half is still a percentage.
    let t = trend(
        &report(2, "kitchen", 2, 6.0),
        &[report(1, "kitchen", 1, 12.0)],
    )
    .unwrap();
    assert!(describe(&t.figures[0]).contains("down 50 %"));
    assert_eq!(
        history::trend::change(40.0, &[1000.0, 43189.0]),
        Change::Down
    );
    assert_eq!(
        history::trend::change(1205.0, &[1000.0, 43189.0]),
        Change::Down
    );
    assert_eq!(
        history::trend::change(1205.0, &[43189.0, 1180.0]),
        Change::Same
    );
}

pub(crate) fn compare_side_by_side() {
    let mut left = report(1, "kitchen", 1, 12.0);
    let mut right = report(2, "garage", 2, 36.0);
    left.card = Some(CardInfo {
        device: "mmcblk0".into(),
        kind: Transport::Sd,
        model: Some("SD64G".into()),
        link: Some(agnostics_core::card::LinkInfo {
            name: "SD high speed (4-bit, 50 MHz)".into(),
            max_bw_bytes: 25e6,
            basis: "x".into(),
            practical_bw_bytes: None,
        }),
        ..CardInfo::default()
    });
    right.card = Some(CardInfo {
        device: "sda".into(),
        kind: Transport::Usb,
        model: Some("SanDisk Extreme".into()),
        link: agnostics_core::card::link::usb(480.0),
        ..CardInfo::default()
    });
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    right.target.as_mut().unwrap().path = format!("{home}/mnt/usb");
    let c = compare(&left, &right);
    let seq = c.figures.iter().find(|f| f.phase == "seq-write").unwrap();
    assert_eq!(seq.left, Some(12.0 * MIB));
    assert!((seq.ratio.unwrap() - 3.0).abs() < 1e-9);
    assert_eq!(c.left.link.as_ref().unwrap().bytes_per_second, 25e6);
    assert_eq!(c.right.link.as_ref().unwrap().bytes_per_second, 60e6);
    assert!(!c.different_measurement);
    let md = comparison_markdown(&c);
    assert!(
        md.contains("| Sequential write | 12.5 MB/s | 37.7 MB/s | ×3.00 |"),
        "{md}"
    );
    assert!(md.contains("at most 25.0 MB/s"), "{md}");
    assert!(!md.contains(&home) || home == "/", "{md}");
    let text = comparison_text(&c);
    assert!(text.contains("×3.00") && text.contains("USB 2.0"), "{text}");
    assert!(text.contains("about 40.0 MB/s in practice"), "{text}");
    assert_eq!(
        c.left.link.as_ref().unwrap().practical_bytes_per_second,
        None
    );
    assert_eq!(
        agnostics_core::report::without_home(&format!("{home}/x")),
        "~/x".to_owned()
    );
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["figures"][0]["phase"], "seq-write");
}
