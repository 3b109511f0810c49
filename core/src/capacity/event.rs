//! What a capacity check tells its caller while it runs: the plan and its cost before the first
//! write, then each phase's progress, so that a UI can show a bar and say what it is doing.

use serde::{Deserialize, Serialize};

/// A phase of a check. JSON: snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Finding the drive, making and mapping the file, choosing spots, probing the speed.
    Planning,
    /// Device mode: reading and saving the original sectors.
    Saving,
    /// Writing the pattern blocks, highest address first.
    Writing,
    /// Reading every spot back and comparing.
    Reading,
    /// Device mode: writing the saved sectors back and reading them again.
    Restoring,
}

/// The plan, said before anything is written.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Spots to write and read (base spots and their aliases).
    pub spots: u32,
    /// Of them, base spots spread over the drive.
    pub base_spots: u32,
    /// Bytes to write (patterns; in device mode as much again to restore).
    pub bytes_written: u64,
    /// Bytes to read.
    pub bytes_read: u64,
    /// The estimated time, seconds: from a short probe of the drive's 4 KiB reads, and writes at
    /// [`WRITE_4K_SECONDS`] each.
    pub estimated_seconds: f64,
    /// The share of the drive the spots can vouch for, 0 to 1: from the lowest spot to the
    /// end of the highest ([`super::plan::Plan::span_share`]), the most the verdict can call
    /// checked.
    pub coverage: f64,
}

/// The time assumed for one 4 KiB write in the estimate: 4 ms (250 IOPS, half an A1 card's
/// minimum of 500), seconds.
pub const WRITE_4K_SECONDS: f64 = 0.004;

/// One thing a check tells its caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A phase began; `total` steps (spots or blocks) to do, 0 when unknown.
    Phase {
        /// The phase.
        phase: Phase,
        /// Steps in it.
        total: u64,
    },
    /// Progress within the phase.
    Progress {
        /// The phase.
        phase: Phase,
        /// Steps done.
        done: u64,
        /// Steps in it.
        total: u64,
    },
    /// The plan and its cost, before the first write.
    Planned(Cost),
    /// An earlier check of this device was interrupted; its saved sectors were put back.
    Recovered(super::Recovered),
    /// Something the person should know that does not stop the check (a lock that cannot
    /// be used, another card's recovery file left alone), translated.
    Note(String),
}
