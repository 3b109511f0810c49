//! The verdict's rules, and which drives are asked for a CMD56 report.

use super::kernel_log::TroubleCounts;
use super::trend::{FigureChange, SpeedTrend};
use super::verdict::{FindingCode, HealthVerdict};
use super::*;
use crate::card::cid::CidInfo;
use crate::figure::Unit;

fn log(readable: bool, counts: TroubleCounts) -> KernelLog {
    KernelLog {
        source: "/dev/kmsg".into(),
        readable,
        reason: None,
        messages: 100,
        from_boot: true,
        counted_from: None,
        counts,
        lines: Vec::new(),
    }
}

fn trend(change_ratio: f64) -> SpeedTrend {
    SpeedTrend {
        profile: "sd_bench".into(),
        latest_run: "b".into(),
        latest_started: "2026-12-07T10:00:00Z".into(),
        first_runs: vec!["a".into()],
        first_started: "2026-03-02T10:00:00Z".into(),
        figures: vec![FigureChange {
            phase: "rand-4k-write".into(),
            unit: Unit::Iops,
            now: 500.0 * (1.0 + change_ratio),
            first: 500.0,
            change_ratio,
            marked_decline: change_ratio <= -0.2,
        }],
    }
}

fn report() -> HealthReport {
    HealthReport {
        device: "mmcblk0".into(),
        kind: Transport::Sd,
        model: None,
        drive: None,
        kernel_log: log(true, TroubleCounts::default()),
        err_stats: None,
        sd_health: SdHealth::UnknownMaker { mid: Some(0x9f) },
        emmc_wear: None,
        history_runs: 0,
        trend: None,
        found_fake: None,
        verdict: HealthVerdict::Unknown,
        findings: Vec::new(),
        advice: String::new(),
    }
}

/// The verdict and the findings' codes of `r`.
fn judge(r: &HealthReport) -> (HealthVerdict, Vec<FindingCode>) {
    let f = verdict::findings(r);
    (verdict::verdict(r, &f), f.iter().map(|f| f.code).collect())
}

fn sd_report(used: u8) -> SdHealth {
    SdHealth::Read {
        report: Cmd56Health {
            format: Cmd56Format::Longsys,
            argument: 1,
            life_used_percent: used,
            grown_bad_blocks: Some(0),
            power_cycles: None,
            made: None,
        },
    }
}

#[test]
fn nothing_known_is_unknown_never_healthy() {
    assert_eq!(judge(&report()), (HealthVerdict::Unknown, vec![]));
    // A clean log but an unreadable one, with a trend: still unknown.
    let mut r = report();
    r.kernel_log = log(false, TroubleCounts::default());
    r.trend = Some(trend(0.0));
    assert_eq!(judge(&r).0, HealthVerdict::Unknown);
}

#[test]
fn a_clean_log_with_a_steady_trend_or_a_young_card_is_healthy() {
    let mut r = report();
    r.trend = Some(trend(-0.1));
    assert_eq!(judge(&r), (HealthVerdict::Healthy, vec![]));
    let mut r = report();
    r.sd_health = sd_report(89);
    assert_eq!(judge(&r), (HealthVerdict::Healthy, vec![]));
}

#[test]
fn wear_decline_and_link_trouble_are_worn() {
    let mut r = report();
    r.sd_health = sd_report(90);
    assert_eq!(
        judge(&r),
        (HealthVerdict::Worn, vec![FindingCode::CardWear])
    );
    let mut r = report();
    r.trend = Some(trend(-0.4));
    assert_eq!(
        judge(&r),
        (HealthVerdict::Worn, vec![FindingCode::SpeedDecline])
    );
    let mut r = report();
    r.kernel_log.counts.timeouts = 2;
    assert_eq!(
        judge(&r),
        (HealthVerdict::Worn, vec![FindingCode::LinkTrouble])
    );
    let mut r = report();
    r.emmc_wear = Some(EmmcWear {
        life_time_a: Some(0x09),
        life_time_b: Some(0x01),
        pre_eol_info: Some(1),
    });
    assert_eq!(
        judge(&r),
        (HealthVerdict::Worn, vec![FindingCode::EmmcWear])
    );
    let mut r = report();
    r.err_stats = Some(ErrStats {
        host: "mmc0".into(),
        counters: [("Data CRC Errors Occurred".to_owned(), 3)].into(),
        total: 3,
    });
    assert_eq!(
        judge(&r),
        (HealthVerdict::Worn, vec![FindingCode::HostErrors])
    );
}

#[test]
fn data_errors_and_a_fake_card_are_failing_whatever_else_is_fine() {
    let mut r = report();
    r.sd_health = sd_report(1);
    r.trend = Some(trend(0.05));
    r.kernel_log.counts.io_errors = 1;
    assert_eq!(
        judge(&r),
        (HealthVerdict::Failing, vec![FindingCode::DataErrors])
    );
    let mut r = report();
    r.sd_health = sd_report(1);
    r.found_fake = Some("c0ffee".into());
    assert_eq!(
        judge(&r),
        (HealthVerdict::Failing, vec![FindingCode::FoundFake])
    );
    let mut r = report();
    r.kernel_log.counts.read_only_remounts = 1;
    r.kernel_log.counts.timeouts = 4;
    r.trend = Some(trend(-0.5));
    assert_eq!(
        judge(&r),
        (
            HealthVerdict::Failing,
            vec![
                FindingCode::DataErrors,
                FindingCode::LinkTrouble,
                FindingCode::SpeedDecline
            ]
        )
    );
    assert!(verdict::findings(&r)[0]
        .text
        .contains("read-only remounts: 1"));
}

#[test]
fn exit_codes() {
    assert_eq!(HealthVerdict::Healthy.exit_code(), 0);
    assert_eq!(HealthVerdict::Unknown.exit_code(), 0);
    assert_eq!(HealthVerdict::Worn.exit_code(), 1);
    assert_eq!(HealthVerdict::Failing.exit_code(), 1);
}

fn card(kind: Transport, device: &str, mid: Option<u8>) -> CardInfo {
    CardInfo {
        device: device.into(),
        kind,
        cid: Some(CidInfo {
            mid,
            ..CidInfo::default()
        }),
        ..CardInfo::default()
    }
}

#[test]
fn only_sd_cards_on_an_sd_host_from_listed_makers_are_asked() {
    let dev = tempfile::tempdir().unwrap();
    assert_eq!(
        sd_health(&card(Transport::Usb, "sda", Some(0x03)), dev.path(), true),
        SdHealth::NoReport
    );
    assert_eq!(
        sd_health(
            &card(Transport::Emmc, "mmcblk0", Some(0x45)),
            dev.path(),
            true
        ),
        SdHealth::NoReport
    );
    assert_eq!(
        sd_health(
            &card(Transport::Sd, "mmcblk0", Some(0x9f)),
            dev.path(),
            true
        ),
        SdHealth::UnknownMaker { mid: Some(0x9f) }
    );
    assert_eq!(
        sd_health(
            &card(Transport::Sd, "mmcblk0", Some(0xad)),
            dev.path(),
            false
        ),
        SdHealth::NeedsRoot {
            format: Cmd56Format::Longsys
        }
    );
    // As root the read is tried on <dev>/mmcblk0, which is not there in this folder.
    let SdHealth::NoAnswer { format, error } = sd_health(
        &card(Transport::Sd, "mmcblk0", Some(0x03)),
        dev.path(),
        true,
    ) else {
        panic!("not NoAnswer");
    };
    assert_eq!(format, Cmd56Format::Sandisk);
    assert!(error.contains("No such file"), "{error}");
}
