//! How a capacity check's verdict reads at a glance: an icon and a style class (libadwaita's
//! `success`, `error`, `warning`) beside its words, never colour alone. The words are the
//! core's (`agnostics_core::capacity::text`); the badge and the capacity page both take the
//! tone from here.

use agnostics_core::capacity::CapacityVerdict;

/// How a verdict reads at a glance: its icon and style class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// All is well (the card is genuine).
    Good,
    /// The card loses data (fake, or drops writes): stop using it.
    Bad,
    /// Not known for sure (part of the card checked, unsure, the check stopped).
    Caution,
}

impl Tone {
    /// The tone of a capacity check's `verdict`.
    pub fn of(verdict: CapacityVerdict) -> Tone {
        match verdict {
            CapacityVerdict::Genuine => Tone::Good,
            CapacityVerdict::Fake | CapacityVerdict::LosesData => Tone::Bad,
            CapacityVerdict::NotCheckedBeyond | CapacityVerdict::Unsure => Tone::Caution,
        }
    }

    /// The icon shown beside the verdict.
    pub fn icon_name(self) -> &'static str {
        match self {
            Tone::Good => "agnostics-check-symbolic",
            Tone::Bad => "agnostics-error-symbolic",
            Tone::Caution => "agnostics-warning-symbolic",
        }
    }

    /// The style class of the icon and heading (libadwaita's `success`, `error`, `warning`).
    pub fn css_class(self) -> &'static str {
        match self {
            Tone::Good => "success",
            Tone::Bad => "error",
            Tone::Caution => "warning",
        }
    }
}
