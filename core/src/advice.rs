//! Advice: what the user should make of a result, as an enum the engine decides and the user
//! interfaces show. [`Advice::text`] gives the translated sentence (gettext domain `agnostics`).

use serde::{Deserialize, Serialize};

use crate::i18n::{fill, gettext};

/// One piece of advice. Serialised with a `kind` tag (e.g. `{"kind": "seq_write_slow"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Advice {
    /// Every A1 check passed.
    MeetsA1,
    /// A1 passed and A2 too (A2 only helps where the host queues commands, e.g. Pi 5).
    MeetsA2,
    /// Sequential write below target: upstream's reformatting note.
    SeqWriteSlow,
    /// After [`Advice::SeqWriteSlow`]: what reformatting means and how to do it without losing
    /// anything; `system` when the drive is the one the system runs from (reformatting it
    /// erases the operating system).
    ReformatSafely {
        /// The drive is the one the running system is on.
        system: bool,
    },
    /// Random 4 KiB I/O below target on an SD card: an A1- or A2-rated card would help.
    RandomIoSlow,
    /// Random 4 KiB I/O below target on a drive that is not an SD card (no A1/A2 to suggest).
    RandomIoSlowDrive,
    /// The device is not an SD card: the SD targets are a reference, not a rating.
    NotAnSdCard {
        /// The transport name as in the report (`USB`, `NVMe`, `loop`, …).
        transport: String,
    },
    /// The filesystem may cache or compress: figures may not be the device's.
    CachingFilesystem {
        /// The filesystem type.
        fs_type: String,
    },
    /// Not enough space, or the drive filled up.
    FreeSomeSpace,
    /// A read or write failed: the card may have been removed or be failing.
    CheckTheDevice,
    /// The target is read-only.
    ReadOnlyTarget,
    /// The drive turned read-only while the test ran (EROFS).
    BecameReadOnly,
    /// The test file was removed or replaced by something else while the test ran.
    TestFileGone,
    /// The target is memory, not storage.
    MemoryTarget,
    /// The filesystem refuses direct I/O.
    DirectIoRefused,
    /// The directory is missing, not a directory or not writable.
    ChooseAnotherFolder,
    /// fio is not installed.
    InstallFio,
    /// fio ran but failed.
    FioFailed,
    /// fio stopped responding and was stopped by the watchdog.
    FioHung,
    /// The program was stopped while it measured.
    Paused,
    /// Another test used the same drive while this one measured: not graded.
    SharedDrive,
    /// The user cancelled.
    Cancelled,
    /// A figure is faster than the link to the drive can carry: not graded.
    ImplausibleResult,
    /// A layer between the test and the drive answers from memory (a FUSE or network
    /// filesystem, a loop device without direct I/O, a loop file on tmpfs, a RAM disk): not
    /// graded.
    CachedResult,
    /// The profile (job file) could not be loaded: nothing ran.
    FixTheProfile,
    /// A job of the profile ended inside its `ramp_time`: nothing was measured after it.
    RampLongerThanJob,
}

impl Advice {
    /// The advice for people, translated.
    pub fn text(&self) -> String {
        match self {
            Advice::MeetsA1 => gettext("Your card meets the A1 application performance targets: it is fast enough for Raspberry Pi OS."),
            Advice::MeetsA2 => gettext("Your card also meets the faster A2 targets. A2 only makes a difference on a Raspberry Pi 5 or later."),
            // Translators: upstream agnostics' own advice after a slow sequential write.
            Advice::SeqWriteSlow => gettext("Note that sequential write speed declines over time as a card is used - your card may require reformatting"),
            Advice::ReformatSafely { system: true } => gettext("This is the drive the system runs from: reformatting it erases Raspberry Pi OS and your files. Back up your files first, then write Raspberry Pi OS to it again with Raspberry Pi Imager, or replace it with a new card."),
            Advice::ReformatSafely { system: false } => gettext("Reformatting erases everything on the drive: copy off what you want to keep first, then reformat it (Raspberry Pi Imager can, with “Erase”), or replace it."),
            Advice::RandomIoSlowDrive => gettext("Random reads or writes are too slow: the desktop and programs will feel sluggish if the system runs from this drive. Keep the system on a faster drive, and use this one for files."),
            Advice::RandomIoSlow => gettext("Random reads or writes are too slow: the desktop and programs will feel sluggish. Replace the card with one marked A1 or A2 (the mark is printed on the card)."),
            Advice::NotAnSdCard { transport } => fill(
                // Translators: {transport} is USB, NVMe, loop, other, … The targets are the SD
                // Association's.
                &gettext("This test ran on a drive that is not an SD card (connection: {transport}): the SD card targets are shown for reference only, not as a rating of this drive."),
                &[("transport", transport)],
            ),
            Advice::CachingFilesystem { fs_type } => fill(
                &gettext("This folder is on a {fs_type} filesystem, which may cache or compress data: the figures may not be the drive's own speed."),
                &[("fs_type", fs_type)],
            ),
            Advice::FreeSomeSpace => gettext("Free some space on the drive or choose another folder, then run the test again."),
            Advice::CheckTheDevice => gettext("The drive stopped answering. Check that the card or USB drive is still plugged in; if this happens again, the card may be failing."),
            Advice::ReadOnlyTarget => gettext("The drive is read-only. Check the card's lock switch, or choose a folder on a drive that can be written."),
            Advice::MemoryTarget => gettext("This folder is in memory, not on your card. Choose a folder on the card, such as /var/tmp or your home folder."),
            Advice::DirectIoRefused => gettext("This filesystem does not allow direct I/O, so the card's own speed cannot be measured there. Choose a folder on another filesystem."),
            Advice::ChooseAnotherFolder => gettext("Choose a folder that exists and that you can write to, such as your home folder."),
            Advice::InstallFio => gettext("Install fio with “sudo apt install fio”, or use the built-in engine."),
            Advice::BecameReadOnly => gettext("The drive became read-only during the test. The card may be failing (worn-out cards switch themselves to read-only), the system may have protected the filesystem after errors, or the card's lock switch moved. Back up its contents, then check the lock switch and run the test again."),
            Advice::TestFileGone => gettext("The test file was removed or replaced by another program while the test ran, so nothing was graded. Make sure nothing cleans up that folder during the test, then run it again."),
            Advice::FioFailed => gettext("fio could not complete the test. The built-in engine may still work."),
            Advice::FioHung => gettext("fio stopped responding and was stopped; its test file was removed. This happens when one of fio's processes is killed, for instance by the system when memory runs out. Close other programs and run the test again, or use the built-in engine."),
            Advice::Paused => gettext("The test was paused (the program was stopped, for instance with Ctrl+Z, or the computer was suspended) while it measured, so the figures include time when nothing was measured. Nothing was graded; run the test again and let it run to the end."),
            Advice::SharedDrive => gettext("Another test (this program or the Raspberry Pi Diagnostics app, started by any user) used the same drive while this one measured, so the drive's speed was split between them. Nothing was graded; wait until the other test has finished, then run this one again."),
            Advice::Cancelled => gettext("The test was cancelled and its test file removed. Nothing was graded."),
            Advice::ImplausibleResult => gettext("A measured speed is more than the connection to this drive can carry, so it cannot be the drive's own: a cache answered instead. Nothing was graded; test a folder directly on the card or drive."),
            Advice::RampLongerThanJob => gettext("A job of the profile did all its work before its ramp_time was over, so nothing was measured after it and nothing was graded. Make ramp_time shorter than the job takes, give the job more to do (size, loops), or make it time_based with a runtime."),
            Advice::FixTheProfile => gettext("The profile could not be read, so nothing was tested. Correct the job file at the line the message names, or run the standard test without a profile."),
            Advice::CachedResult => gettext("The figures are shown but not graded: memory answered, not the drive. Test a folder on a filesystem directly on the card or drive (such as /var/tmp or your home folder)."),
        }
    }
}
