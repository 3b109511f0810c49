//! A capacity check's report in plain words, as the page shows it: the verdict in one
//! sentence, what it means and what to do, what the card's registers claim that cannot be
//! true, and a line of small print. Sizes are SI, as on the card's label ("32 GB"). No GTK
//! here, so it is tested like any other function.

use agnostics_core::capacity::{CapacityReport, CapacityVerdict, RegisterFinding, UnsureReason};
use agnostics_core::history::CapacitySummary;
use agnostics_core::i18n::{fill, gettext, ngettext, number};
use agnostics_core::target_dir::Transport;
use agnostics_core::units;

use super::Shown;
use crate::widgets::tone::Tone;

/// A size as a card's label gives it: "31.9 GB", "512 MB".
pub fn card_size(bytes: u64) -> String {
    let gb = bytes as f64 / units::GB;
    if gb >= 1.0 {
        fill(&gettext("{size} GB"), &[("size", &number(gb, 1))])
    } else {
        fill(
            &gettext("{size} MB"),
            &[("size", &number(bytes as f64 / units::MB, 0))],
        )
    }
}

/// Two sizes in one unit, that of the larger (`claimed`): "967 MB" and "1074 MB" below
/// 10 GB, "29.7 GB" and "32.0 GB" from there on.
pub fn size_pair(part: u64, claimed: u64) -> (String, String) {
    let one = |bytes: u64| {
        if claimed as f64 >= 10.0 * units::GB {
            fill(
                &gettext("{size} GB"),
                &[("size", &number(bytes as f64 / units::GB, 1))],
            )
        } else {
            fill(
                &gettext("{size} MB"),
                &[("size", &number(bytes as f64 / units::MB, 0))],
            )
        }
    };
    (one(part), one(claimed))
}

/// True when the report's drive is a card (SD or eMMC), which the words may call a card.
fn is_card(report: &CapacityReport) -> bool {
    matches!(report.drive.transport, Transport::Sd | Transport::Emmc)
}

/// A stored check in one line, for a drive's list of checks: "Fake: claims 128.0 GB, keeps
/// about 8.6 GB".
pub fn summary_line(check: &CapacitySummary) -> String {
    let claimed = card_size(check.claimed_bytes);
    match check.verdict {
        CapacityVerdict::Genuine => {
            let (verified, claimed) = size_pair(check.verified_bytes, check.claimed_bytes);
            fill(
                &gettext("Genuine: {verified} verified of {claimed} claimed"),
                &[("verified", &verified), ("claimed", &claimed)],
            )
        }
        CapacityVerdict::Fake => fill(
            &gettext("Fake: claims {claimed}, keeps only about {real}"),
            &[
                ("claimed", &claimed),
                (
                    "real",
                    &card_size(check.real_bytes.unwrap_or(check.verified_bytes)),
                ),
            ],
        ),
        CapacityVerdict::LosesData => fill(
            &gettext("Loses data: some of its {claimed} do not keep what is written"),
            &[("claimed", &claimed)],
        ),
        CapacityVerdict::NotCheckedBeyond => {
            let (verified, claimed) = size_pair(check.verified_bytes, check.claimed_bytes);
            fill(
                &gettext("Partly checked: {verified} of {claimed} kept its data"),
                &[("verified", &verified), ("claimed", &claimed)],
            )
        }
        CapacityVerdict::Unsure => gettext("Unsure: some spots read back differently each time"),
    }
}

/// The verdict of `report` as the page shows it, calling the drive a card only when it is
/// one.
pub fn shown(report: &CapacityReport) -> Shown {
    let claimed = card_size(report.claimed_bytes);
    let card = is_card(report);
    let spots = &report.spots;
    let (title, body) = match report.verdict {
        CapacityVerdict::Genuine => genuine(report, card),
        CapacityVerdict::Fake => {
            let real = card_size(report.real_bytes.unwrap_or(report.verified_bytes));
            let title = if card {
                gettext("This card is fake: it claims {claimed} but keeps only about {real}")
            } else {
                gettext("This drive is fake: it claims {claimed} but keeps only about {real}")
            };
            (
                fill(&title, &[("claimed", &claimed), ("real", &real)]),
                gettext("Data written beyond that overwrites earlier data. Copy your files off it and return it."),
            )
        }
        CapacityVerdict::LosesData => (
            if card {
                gettext("This card loses data")
            } else {
                gettext("This drive loses data")
            },
            fill(
                &gettext("{bad} of {total} spots checked did not keep what was written there. Copy your files off it and stop using it."),
                &[
                    ("bad", &(spots.zeros + spots.garbage + spots.stale + spots.wrapped)),
                    ("total", &spots.total),
                ],
            ),
        ),
        CapacityVerdict::NotCheckedBeyond => partly(report, card),
        CapacityVerdict::Unsure => {
            let unreadable = report
                .unsure
                .iter()
                .any(|u| matches!(u, UnsureReason::ReadError { .. }));
            (
                if unreadable {
                    gettext("Unsure: some spots on the card could not be read")
                } else {
                    gettext("Unsure: some spots read back differently each time")
                },
                gettext("Try again, or try another card reader."),
            )
        }
    };
    Shown {
        tone: Tone::of(report.verdict),
        title,
        body,
        reasons: report.registers.iter().map(register_reason).collect(),
        note: Some(note(report)),
    }
}

/// A genuine verdict: both sizes in one unit, and what the rest of the drive is.
fn genuine(report: &CapacityReport, card: bool) -> (String, String) {
    let (verified, claimed) = size_pair(report.verified_bytes, report.claimed_bytes);
    let title = if card {
        // Translators: the capacity check's verdict, e.g. "This card is genuine: 29.7 GB
        // verified of 32.0 GB claimed"; both sizes are in one unit.
        gettext("This card is genuine: {verified} verified of {claimed} claimed")
    } else {
        gettext("This drive is genuine: {verified} verified of {claimed} claimed")
    };
    let mut body = gettext("Every spot checked kept what was written there.");
    let rest = report.claimed_bytes.saturating_sub(report.verified_bytes);
    if rest > 0 {
        let (rest, _) = size_pair(rest, report.claimed_bytes);
        body.push(' ');
        body.push_str(&fill(
            // Translators: {rest} is a size such as "107 MB".
            &gettext("The other {rest} holds your files and the file system’s own records; the check writes only in free space, so it does not write there."),
            &[("rest", &rest)],
        ));
    }
    (
        fill(&title, &[("verified", &verified), ("claimed", &claimed)]),
        body,
    )
}

/// A check that could not reach far enough: how far, and that it cannot tell beyond.
fn partly(report: &CapacityReport, card: bool) -> (String, String) {
    let percent = number((report.coverage.share * 100.0).floor().clamp(0.0, 100.0), 0);
    let (verified, claimed) = size_pair(report.verified_bytes, report.claimed_bytes);
    let title = if card {
        // Translators: "{percent} %" is how far up the card the check reached.
        // xgettext:no-c-format
        gettext("Checked only up to {percent} % of the card: it cannot tell whether the card is fake beyond that")
    } else {
        // Translators: "{percent} %" is how far up the drive the check reached.
        // xgettext:no-c-format
        gettext("Checked only up to {percent} % of the drive: it cannot tell whether the drive is fake beyond that")
    };
    (
        fill(&title, &[("percent", &percent)]),
        fill(
            &gettext("Everything checked up to there kept its data ({verified} of {claimed}), but there was not enough free space to reach further. Free some space and check again."),
            &[("verified", &verified), ("claimed", &claimed)],
        ),
    )
}

/// One line for a register finding: what the card claims that cannot be true.
pub fn register_reason(finding: &RegisterFinding) -> String {
    match finding {
        RegisterFinding::CsdSizeDiffers {
            csd_bytes,
            device_bytes,
        } => fill(
            &gettext("Its records give its size as {csd}, but it tells the system {device}"),
            &[
                ("csd", &card_size(*csd_bytes)),
                ("device", &card_size(*device_bytes)),
            ],
        ),
        RegisterFinding::PartitionsBeyondEnd {
            partitions_end_bytes,
            device_bytes,
        } => fill(
            &gettext("Its partitions reach to {end}, beyond its end at {device}"),
            &[
                ("end", &card_size(*partitions_end_bytes)),
                ("device", &card_size(*device_bytes)),
            ],
        ),
        RegisterFinding::UnknownMaker { mid } => fill(
            // Translators: {id} is a number such as 0x00 from the card's register.
            &gettext("Its maker number ({id}) belongs to no known card maker"),
            &[("id", &format!("0x{mid:02X}"))],
        ),
        RegisterFinding::ImplausibleOem { oid } => fill(
            &gettext("Its OEM code ({code}) is not one a real card has"),
            &[("code", oid)],
        ),
    }
}

/// The small print: how many spots were checked, how long it took, and that only the
/// check's own file was written.
fn note(report: &CapacityReport) -> String {
    let minutes = (report.seconds / 60.0).round().max(1.0) as u64;
    let time = if report.seconds < 45.0 {
        gettext("less than a minute")
    } else {
        fill(
            &ngettext(
                "{n} minute",
                "{n} minutes",
                u32::try_from(minutes).unwrap_or(u32::MAX),
            ),
            &[("n", &minutes)],
        )
    };
    fill(
        &ngettext(
            "{spots} spot checked in {time}. Only the check’s own file was written, and it was deleted.",
            "{spots} spots checked in {time}. Only the check’s own file was written, and it was deleted.",
            report.spots.total,
        ),
        &[("spots", &report.spots.total), ("time", &time)],
    )
}

#[cfg(test)]
mod tests {
    use agnostics_core::capacity::{Claims, Coverage, DriveFacts, Mode, SpotCounts};

    use super::*;

    const GB: u64 = 1_000_000_000;

    fn report(verdict: CapacityVerdict) -> CapacityReport {
        CapacityReport {
            check_id: "0".repeat(32),
            started: "2026-07-02T10:00:00+00:00".into(),
            seconds: 30.0,
            mode: Mode::Mounted,
            verdict,
            drive: DriveFacts::default(),
            identity: None,
            claims: Claims::default(),
            claimed_bytes: 32 * GB,
            verified_bytes: 32 * GB,
            first_bad_address: None,
            real_bytes: None,
            coverage: Coverage {
                bytes: 32 * GB,
                share: 1.0,
            },
            wraps_checked_bytes: 0,
            powers: Vec::new(),
            spots: SpotCounts {
                total: 300,
                base: 256,
                intact: 300,
                ..SpotCounts::default()
            },
            bad_spots: Vec::new(),
            unsure: Vec::new(),
            registers: Vec::new(),
            bytes_written: 300 * 4096,
            bytes_read: 300 * 4096,
            restore: None,
            recovered: Vec::new(),
        }
    }

    #[test]
    fn a_genuine_verdict_has_one_unit_and_says_what_the_rest_is() {
        let mut r = report(CapacityVerdict::Genuine);
        r.drive.transport = Transport::Loop;
        r.claimed_bytes = 1_073_741_824;
        r.verified_bytes = 967_000_000;
        let shown = shown(&r);
        assert_eq!(
            shown.title,
            "This drive is genuine: 967 MB verified of 1074 MB claimed"
        );
        assert!(
            shown.body.contains("The other 107 MB holds your files"),
            "{}",
            shown.body
        );
    }

    #[test]
    fn sizes_read_as_on_a_card_s_label() {
        assert_eq!(card_size(31_914_983_424), "31.9 GB");
        assert_eq!(card_size(134_217_728), "134 MB");
    }

    #[test]
    fn each_verdict_reads_in_plain_words_with_its_tone() {
        let genuine = shown(&report(CapacityVerdict::Genuine));
        assert_eq!(
            genuine.title,
            "This drive is genuine: 32.0 GB verified of 32.0 GB claimed"
        );
        assert_eq!(genuine.tone, Tone::Good);
        assert_eq!(
            genuine.note.as_deref(),
            Some("300 spots checked in less than a minute. Only the check’s own file was written, and it was deleted.")
        );

        let mut fake = report(CapacityVerdict::Fake);
        fake.claimed_bytes = 128 * GB;
        fake.real_bytes = Some(8 * GB);
        fake.verified_bytes = 8 * GB;
        fake.drive.transport = Transport::Sd;
        fake.registers = vec![RegisterFinding::CsdSizeDiffers {
            csd_bytes: 8 * GB,
            device_bytes: 128 * GB,
        }];
        let fake = shown(&fake);
        assert_eq!(
            fake.title,
            "This card is fake: it claims 128.0 GB but keeps only about 8.0 GB"
        );
        assert_eq!(
            fake.body,
            "Data written beyond that overwrites earlier data. Copy your files off it and return it."
        );
        assert_eq!(fake.tone, Tone::Bad);
        assert_eq!(
            fake.reasons,
            ["Its records give its size as 8.0 GB, but it tells the system 128.0 GB"]
        );

        let mut partly = report(CapacityVerdict::NotCheckedBeyond);
        partly.coverage.share = 0.409;
        let partly = shown(&partly);
        assert_eq!(
            partly.title,
            "Checked only up to 40 % of the drive: it cannot tell whether the drive is fake beyond that"
        );
        assert_eq!(partly.tone, Tone::Caution);

        let mut unsure = report(CapacityVerdict::Unsure);
        unsure.unsure = vec![UnsureReason::RetriesDisagreed { address: 4096 }];
        let unsure = shown(&unsure);
        assert_eq!(
            unsure.title,
            "Unsure: some spots read back differently each time"
        );
        assert_eq!(unsure.body, "Try again, or try another card reader.");

        let mut loses = report(CapacityVerdict::LosesData);
        loses.spots.zeros = 3;
        loses.spots.intact = 297;
        assert_eq!(
            shown(&loses).body,
            "3 of 300 spots checked did not keep what was written there. Copy your files off it and stop using it."
        );
    }
}
