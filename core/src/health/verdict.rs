//! One verdict for a person from everything `health` learned about a drive, with what was
//! found and what to do.
//!
//! - **failing**: a capacity check once found the drive fake or losing data, or the kernel
//!   logged I/O errors, file-system errors or read-only remounts on it since boot;
//! - **worn**: the card's own report says 90 % or more of its rated life is used (an eMMC:
//!   80 % or a pre-end-of-life warning), its writes fell 20 % or more below its first tests,
//!   or the kernel logged timeouts, command-queue recoveries or other MMC errors for it (or the
//!   host's error counters are not zero);
//! - **healthy**: none of those, with evidence: the kernel log was read and the card's own
//!   report or a speed trend is known;
//! - **unknown**: none of those, and too little known to say healthy.

use serde::{Deserialize, Serialize};

use super::{HealthReport, SdHealth};
use crate::exit_code::ExitCode;
use crate::i18n::{fill, gettext};

/// How much of its rated life a card may have used before it is worn: 90 %.
pub const WORN_LIFE_PERCENT: u8 = 90;

/// The verdict. JSON: `healthy`, `worn`, `failing`, `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthVerdict {
    /// Too little is known to judge; nothing wrong was seen.
    Unknown,
    /// Nothing wrong, with evidence.
    Healthy,
    /// Near the end of its life, slowing down, or trouble on its link.
    Worn,
    /// Data lost or at risk, or a fake card.
    Failing,
}

impl HealthVerdict {
    /// The verdict's word for people.
    pub fn word(self) -> String {
        match self {
            HealthVerdict::Unknown => gettext("unknown"),
            HealthVerdict::Healthy => gettext("healthy"),
            HealthVerdict::Worn => gettext("worn"),
            HealthVerdict::Failing => gettext("failing"),
        }
    }

    /// What to do, for people.
    pub fn advice(self) -> String {
        match self {
            HealthVerdict::Unknown => gettext("Too little is known to judge. Test the drive (agnostics-cli run) now and again in a few months: its speed is then compared with this first test."),
            HealthVerdict::Healthy => gettext("Nothing wrong is known. Keep a backup anyway, and test it again now and then."),
            HealthVerdict::Worn => gettext("Back up what is on it now and plan to replace it; test it again soon to see whether it gets worse."),
            HealthVerdict::Failing => gettext("Back up what is on it now and replace it: do not trust it with data you want to keep."),
        }
    }

    /// The exit status: 0 healthy or unknown, 1 worn or failing ([`ExitCode`]).
    pub fn exit_code(self) -> i32 {
        ExitCode::passed_if(matches!(
            self,
            HealthVerdict::Unknown | HealthVerdict::Healthy
        ))
        .code()
    }
}

/// What a finding is about. JSON: snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingCode {
    /// A capacity check found the drive fake or losing data.
    FoundFake,
    /// I/O errors, file-system errors or read-only remounts in the kernel log.
    DataErrors,
    /// Timeouts, command-queue recoveries or MMC errors in the kernel log.
    LinkTrouble,
    /// The SD host's debugfs error counters are not zero.
    HostErrors,
    /// The card's own report: much of its life used.
    CardWear,
    /// The eMMC's life estimates: near its end.
    EmmcWear,
    /// Writes fell well below the first tests.
    SpeedDecline,
}

/// One thing found (JSON: an item of `findings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// What it is about.
    pub code: FindingCode,
    /// The verdict it leads to on its own (`worn` or `failing`).
    pub verdict: HealthVerdict,
    /// For people.
    pub text: String,
}

/// Everything found in `r`, most serious first.
pub fn findings(r: &HealthReport) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut add = |code, verdict, text| {
        out.push(Finding {
            code,
            verdict,
            text,
        })
    };
    if r.found_fake.is_some() {
        add(
            FindingCode::FoundFake,
            HealthVerdict::Failing,
            gettext("A capacity check found this drive fake: it loses what is written beyond its real size."),
        );
    }
    let c = &r.kernel_log.counts;
    if c.data_at_risk() {
        add(
            FindingCode::DataErrors,
            HealthVerdict::Failing,
            fill(
                &gettext("Since boot the kernel logged data errors on this drive (I/O errors: {io}, file-system errors: {fs}, read-only remounts: {ro})."),
                &[("io", &c.io_errors), ("fs", &c.fs_errors), ("ro", &c.read_only_remounts)],
            ),
        );
    }
    if c.link_trouble() {
        add(
            FindingCode::LinkTrouble,
            HealthVerdict::Worn,
            fill(
                &gettext("Since boot the kernel logged trouble talking to this drive (timeouts: {timeouts}, command-queue recoveries: {cqe}, other errors: {other}); a failing card, a weak power supply or command queueing can cause it."),
                &[("timeouts", &c.timeouts), ("cqe", &c.cqe_recoveries), ("other", &c.mmc_errors)],
            ),
        );
    }
    if let Some(s) = r.err_stats.as_ref().filter(|s| s.total > 0) {
        add(
            FindingCode::HostErrors,
            HealthVerdict::Worn,
            fill(
                &gettext("The SD host {host} counted {count} errors since boot."),
                &[("host", &s.host), ("count", &s.total)],
            ),
        );
    }
    if let SdHealth::Read { report } = &r.sd_health {
        if report.life_used_percent >= WORN_LIFE_PERCENT {
            add(
                FindingCode::CardWear,
                HealthVerdict::Worn,
                r.sd_health.describe(),
            );
        }
    }
    if let Some(w) = r.emmc_wear.as_ref().filter(|w| w.is_worn()) {
        add(FindingCode::EmmcWear, HealthVerdict::Worn, w.worn_text());
    }
    if r.trend.as_ref().is_some_and(|t| t.declined()) {
        add(
            FindingCode::SpeedDecline,
            HealthVerdict::Worn,
            // xgettext:no-c-format
            gettext("Its writes fell 20 % or more below its first tests: flash slows down as it wears out."),
        );
    }
    out
}

/// The verdict from the findings and what is known: the most serious finding's; without one,
/// healthy when the kernel log was read and the card's own report or a speed trend is known,
/// else unknown.
pub fn verdict(r: &HealthReport, found: &[Finding]) -> HealthVerdict {
    if let Some(worst) = found.iter().map(|f| f.verdict).max() {
        return worst;
    }
    let wear_known = matches!(r.sd_health, SdHealth::Read { .. })
        || r.emmc_wear
            .is_some_and(|w| w.life_time_a.is_some() || w.life_time_b.is_some());
    if r.kernel_log.readable && (wear_known || r.trend.is_some()) {
        HealthVerdict::Healthy
    } else {
        HealthVerdict::Unknown
    }
}
