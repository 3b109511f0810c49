//! One headline for a drive: everything known about it weighed in one rule, so that no part
//! of a user interface can call a drive fast enough while another calls it fake.
//!
//! The facts, most harmful first: a capacity check once found the drive fake or losing data
//! (the history's sticky mark); its capacity checks never reached all of it (the latest one
//! stopped short or was unsure, and none ever verified it whole); the speed test was spoiled
//! by another test on the drive, or only measured (not graded); then the speed verdict itself.
//! The first fact that holds is the headline; the ones below it are details.

use serde::{Deserialize, Serialize};

use crate::advice::Advice;
use crate::capacity::CapacityVerdict;
use crate::error_kind::ErrorKind;
use crate::history::{DriveId, History, HistoryError};
use crate::i18n::gettext;
use crate::report::Report;
use crate::verdict::Verdict;

/// What a drive's capacity checks in the history say of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CapacityKnown {
    /// A check once found it fake or losing data (the mark stays after later checks).
    pub found_fake: bool,
    /// A check once verified all the space it claims.
    pub verified: bool,
    /// The verdict of its latest check, `None` when it was never checked.
    pub last: Option<CapacityVerdict>,
}

impl CapacityKnown {
    /// What the history at hand knows of drive `drive`: its found-fake mark and its checks.
    ///
    /// Errors: the database's.
    pub fn of(history: &History, drive: &DriveId) -> Result<CapacityKnown, HistoryError> {
        let found_fake = history.found_fake(drive)?.is_some();
        let checks = match history.capacity_checks(Some(drive.as_str())) {
            Ok(checks) => checks,
            Err(HistoryError::NotFound(_)) => Vec::new(),
            Err(e) => return Err(e),
        };
        Ok(CapacityKnown {
            found_fake,
            verified: checks.iter().any(|c| c.verdict == CapacityVerdict::Genuine),
            last: checks.first().map(|c| c.verdict),
        })
    }

    /// True when a capacity check ran on the drive.
    pub fn checked(&self) -> bool {
        self.last.is_some() || self.found_fake
    }
}

/// What one speed test of the drive said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Speed {
    /// Another test used the drive while it measured: nothing was graded.
    Shared,
    /// A profile that only measures: nothing was graded.
    NotGraded,
    /// Some figures could not be measured.
    Error,
    /// Graded and meets the targets; `sd` when the drive is an SD card (the targets rate it;
    /// for another drive they are a reference).
    Pass {
        /// The drive is an SD card.
        sd: bool,
    },
    /// Graded and below the targets; `sd` as for [`Speed::Pass`].
    Fail {
        /// The drive is an SD card.
        sd: bool,
    },
}

impl Speed {
    /// What `report` says of the drive's speed.
    pub fn of(report: &Report) -> Speed {
        let shared = report
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::SharedDrive)
            || report.advice.contains(&Advice::SharedDrive);
        if shared {
            return Speed::Shared;
        }
        match report.verdict {
            Verdict::Pass => Speed::Pass {
                sd: report.sd_graded,
            },
            Verdict::Fail => Speed::Fail {
                sd: report.sd_graded,
            },
            Verdict::Error => Speed::Error,
            Verdict::NotGraded => Speed::NotGraded,
        }
    }
}

/// The one headline of a drive, the most harmful fact known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Headline {
    /// A capacity check found the drive fake or losing data: whatever its speed.
    FoundFake,
    /// Its capacity checks never reached all of it: whether it keeps what it claims is not
    /// known.
    CapacityUnproven,
    /// The speed test was spoiled by another test on the drive.
    Shared,
    /// The speed test only measured.
    NotGraded,
    /// The speed test could not measure some figures.
    Error,
    /// The speed test graded it as meeting the targets (`sd`: an SD card).
    Pass {
        /// The drive is an SD card.
        sd: bool,
    },
    /// The speed test graded it below the targets (`sd`: an SD card).
    Fail {
        /// The drive is an SD card.
        sd: bool,
    },
    /// Nothing is known: no capacity check said anything and no speed test ran.
    Unknown,
}

/// How a headline reads at a glance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tone {
    /// Do not trust the drive with data.
    Danger,
    /// Something is not known or not good; what to do follows.
    Warning,
    /// Good news.
    Good,
    /// Neither good nor bad (measured only, or nothing known).
    Neutral,
}

/// The headline of a drive from its capacity checks (`capacity`) and the speed test shown
/// (`speed`, `None` before any): the first of found fake, capacity unproven, shared, not
/// graded, then the speed verdict.
pub fn headline(capacity: CapacityKnown, speed: Option<Speed>) -> Headline {
    let partial = matches!(
        capacity.last,
        Some(CapacityVerdict::NotCheckedBeyond | CapacityVerdict::Unsure)
    );
    if capacity.found_fake
        || matches!(
            capacity.last,
            Some(CapacityVerdict::Fake | CapacityVerdict::LosesData)
        )
    {
        return Headline::FoundFake;
    }
    if partial && !capacity.verified {
        return Headline::CapacityUnproven;
    }
    match speed {
        None => Headline::Unknown,
        Some(Speed::Shared) => Headline::Shared,
        Some(Speed::NotGraded) => Headline::NotGraded,
        Some(Speed::Error) => Headline::Error,
        Some(Speed::Pass { sd }) => Headline::Pass { sd },
        Some(Speed::Fail { sd }) => Headline::Fail { sd },
    }
}

impl Headline {
    /// How it reads at a glance.
    pub fn tone(self) -> Tone {
        match self {
            Headline::FoundFake => Tone::Danger,
            Headline::Fail { sd: true } => Tone::Danger,
            Headline::CapacityUnproven
            | Headline::Shared
            | Headline::Error
            | Headline::Fail { sd: false } => Tone::Warning,
            Headline::Pass { .. } => Tone::Good,
            Headline::NotGraded | Headline::Unknown => Tone::Neutral,
        }
    }

    /// The sentence a results page or the command line leads with (translated).
    pub fn title(self) -> String {
        match self {
            Headline::FoundFake => gettext("This drive is fake: do not trust it with your files"),
            Headline::CapacityUnproven => {
                gettext("Its capacity is not proven: a capacity check could not reach all of it")
            }
            Headline::Shared => gettext("Not graded: another test used the drive"),
            Headline::NotGraded => gettext("Measured, not graded"),
            Headline::Error => gettext("Some figures could not be measured"),
            Headline::Pass { sd: true } => gettext("Your SD card is fast enough"),
            Headline::Fail { sd: true } => gettext("Your SD card is too slow"),
            Headline::Pass { sd: false } => gettext("This drive meets the SD card targets"),
            Headline::Fail { sd: false } => gettext("This drive is below the SD card targets"),
            Headline::Unknown => String::new(),
        }
    }

    /// What to do, when the headline is a fact about the drive rather than its speed
    /// (translated); `None` for the speed verdicts, whose advice the report carries.
    pub fn action(self) -> Option<String> {
        match self {
            Headline::FoundFake => Some(gettext(
                "Found fake: a capacity check found that this drive does not keep all the space it claims. Copy your files off it and do not trust it with new ones.",
            )),
            Headline::CapacityUnproven => Some(gettext(
                "Free some space on it, then check its capacity again.",
            )),
            Headline::Shared => Some(Advice::SharedDrive.text()),
            _ => None,
        }
    }

    /// One word for a list of drives (translated): **Found fake**, **Partly checked**,
    /// **NOT GRADED**, **ERROR**, **PASS**, **FAIL**; empty for [`Headline::Unknown`].
    pub fn word(self) -> String {
        match self {
            Headline::FoundFake => gettext("Found fake"),
            Headline::CapacityUnproven => gettext("Partly checked"),
            Headline::Shared | Headline::NotGraded => gettext("NOT GRADED"),
            Headline::Error => gettext("ERROR"),
            Headline::Pass { .. } => gettext("PASS"),
            Headline::Fail { .. } => gettext("FAIL"),
            Headline::Unknown => String::new(),
        }
    }

    /// True when it is about the speed test only (no capacity fact outranks it).
    pub fn is_speed(self) -> bool {
        !matches!(
            self,
            Headline::FoundFake | Headline::CapacityUnproven | Headline::Unknown
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEEDS: [Option<Speed>; 8] = [
        None,
        Some(Speed::Shared),
        Some(Speed::NotGraded),
        Some(Speed::Error),
        Some(Speed::Pass { sd: true }),
        Some(Speed::Pass { sd: false }),
        Some(Speed::Fail { sd: true }),
        Some(Speed::Fail { sd: false }),
    ];

    const LASTS: [Option<CapacityVerdict>; 6] = [
        None,
        Some(CapacityVerdict::Genuine),
        Some(CapacityVerdict::Fake),
        Some(CapacityVerdict::LosesData),
        Some(CapacityVerdict::NotCheckedBeyond),
        Some(CapacityVerdict::Unsure),
    ];

    /// The rule written out case by case, to hold `headline` to.
    fn expected(capacity: CapacityKnown, speed: Option<Speed>) -> Headline {
        let fake = capacity.found_fake
            || capacity.last == Some(CapacityVerdict::Fake)
            || capacity.last == Some(CapacityVerdict::LosesData);
        let short = capacity.last == Some(CapacityVerdict::NotCheckedBeyond)
            || capacity.last == Some(CapacityVerdict::Unsure);
        if fake {
            Headline::FoundFake
        } else if short && !capacity.verified {
            Headline::CapacityUnproven
        } else {
            match speed {
                None => Headline::Unknown,
                Some(Speed::Shared) => Headline::Shared,
                Some(Speed::NotGraded) => Headline::NotGraded,
                Some(Speed::Error) => Headline::Error,
                Some(Speed::Pass { sd }) => Headline::Pass { sd },
                Some(Speed::Fail { sd }) => Headline::Fail { sd },
            }
        }
    }

    #[test]
    fn every_combination_takes_the_most_harmful_fact() {
        let mut cases = 0;
        for found_fake in [false, true] {
            for verified in [false, true] {
                for last in LASTS {
                    for speed in SPEEDS {
                        let capacity = CapacityKnown {
                            found_fake,
                            verified,
                            last,
                        };
                        assert_eq!(
                            headline(capacity, speed),
                            expected(capacity, speed),
                            "{capacity:?} {speed:?}"
                        );
                        cases += 1;
                    }
                }
            }
        }
        assert_eq!(cases, 2 * 2 * 6 * 8);
    }

    #[test]
    fn a_drive_found_fake_never_meets_the_targets() {
        let fake = CapacityKnown {
            found_fake: true,
            verified: true,
            last: Some(CapacityVerdict::Genuine),
        };
        for speed in SPEEDS {
            let h = headline(fake, speed);
            assert_eq!(h, Headline::FoundFake, "{speed:?}");
            assert_eq!(h.tone(), Tone::Danger);
            assert_eq!(h.word(), "Found fake");
            assert!(h.action().unwrap().contains("Copy your files off it"));
        }
    }

    #[test]
    fn a_check_that_stopped_short_outranks_the_speed_unless_one_verified_it() {
        let short = CapacityKnown {
            found_fake: false,
            verified: false,
            last: Some(CapacityVerdict::NotCheckedBeyond),
        };
        let pass = Some(Speed::Pass { sd: true });
        assert_eq!(headline(short, pass), Headline::CapacityUnproven);
        assert_eq!(headline(short, pass).tone(), Tone::Warning);
        assert_eq!(headline(short, pass).word(), "Partly checked");
        let once_verified = CapacityKnown {
            verified: true,
            ..short
        };
        assert_eq!(headline(once_verified, pass), Headline::Pass { sd: true });
    }

    #[test]
    fn shared_and_not_graded_runs_outrank_the_speed_verdict() {
        let none = CapacityKnown::default();
        assert_eq!(headline(none, Some(Speed::Shared)), Headline::Shared);
        assert_eq!(headline(none, Some(Speed::Shared)).word(), "NOT GRADED");
        assert!(headline(none, Some(Speed::Shared))
            .action()
            .unwrap()
            .contains("Another test"));
        assert_eq!(headline(none, Some(Speed::NotGraded)), Headline::NotGraded);
        assert_eq!(headline(none, None), Headline::Unknown);
        assert_eq!(headline(none, None).word(), "");
    }

    #[test]
    fn speed_verdicts_keep_their_words_and_tones() {
        let none = CapacityKnown::default();
        let cases = [
            (
                Speed::Pass { sd: true },
                "Your SD card is fast enough",
                Tone::Good,
            ),
            (
                Speed::Fail { sd: true },
                "Your SD card is too slow",
                Tone::Danger,
            ),
            (
                Speed::Pass { sd: false },
                "This drive meets the SD card targets",
                Tone::Good,
            ),
            (
                Speed::Fail { sd: false },
                "This drive is below the SD card targets",
                Tone::Warning,
            ),
            (
                Speed::Error,
                "Some figures could not be measured",
                Tone::Warning,
            ),
            (Speed::NotGraded, "Measured, not graded", Tone::Neutral),
        ];
        for (speed, title, tone) in cases {
            let h = headline(none, Some(speed));
            assert!(h.is_speed());
            assert_eq!(h.title(), title);
            assert_eq!(h.tone(), tone);
            assert_eq!(h.action(), None);
        }
    }

    #[test]
    fn the_speed_of_a_report_reads_its_verdict_and_a_shared_drive() {
        let mut report = crate::sample::report().build();
        report.verdict = Verdict::Pass;
        report.sd_graded = true;
        assert_eq!(Speed::of(&report), Speed::Pass { sd: true });
        report.sd_graded = false;
        report.verdict = Verdict::Fail;
        assert_eq!(Speed::of(&report), Speed::Fail { sd: false });
        report.verdict = Verdict::NotGraded;
        assert_eq!(Speed::of(&report), Speed::NotGraded);
        report.verdict = Verdict::Error;
        assert_eq!(Speed::of(&report), Speed::Error);
        report.advice.push(Advice::SharedDrive);
        assert_eq!(Speed::of(&report), Speed::Shared);
    }
}
