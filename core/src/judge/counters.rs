//! The drive's own I/O counters against the engine's figures: a run whose figures the drive
//! did not move was answered, in part, from memory, and is not graded.

use crate::engine;

/// Share of a phase's bytes the drive's own counters must account for, in tenths: a phase
/// whose device moved less than 9/10 of what the engine says it did was answered, in part,
/// from memory.
const COUNTED_TENTHS: u64 = 9;

/// Why a run's figures are not the drive's, by its own counters: the first phase whose
/// device read (for a reading phase) or wrote (for a writing phase) under 90 % of the bytes
/// the engine moved, with both figures; `None` when every counted phase is accounted for
/// (phases without counters are not judged here).
pub(crate) fn counters_short(phases: &[engine::PhaseResult]) -> Option<String> {
    phases.iter().find_map(|p| {
        let io = p.device_io.as_deref()?;
        let write = p.rw.is_write();
        let device = io.bytes_for(write);
        (u128::from(device) * 10 < u128::from(p.bytes) * u128::from(COUNTED_TENTHS)).then(|| {
            // With the locale's decimal separator, as the text report shows the counters.
            let mib = |b: u64| crate::i18n::number(crate::units::mib(b), 1);
            let text = if write {
                // Translators: {device} is a block device's name such as mmcblk0p2; the
                // figures are MiB with one decimal.
                crate::i18n::gettext(
                    "{phase}: {device} wrote {device_mib} MiB of the {engine_mib} MiB the test \
                     wrote: the rest was answered from memory, not by the drive",
                )
            } else {
                crate::i18n::gettext(
                    "{phase}: {device} read {device_mib} MiB of the {engine_mib} MiB the test \
                     read: the rest was answered from memory, not by the drive",
                )
            };
            crate::i18n::fill(
                &text,
                &[
                    ("phase", &p.name),
                    ("device", &io.device),
                    ("device_mib", &mib(device)),
                    ("engine_mib", &mib(p.bytes)),
                ],
            )
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_phase_the_drive_did_nine_tenths_of_is_the_drives() {
        let read = |moved| {
            sample::phase("seq-read")
                .bytes(100 * MIB)
                .device_io("sda1", moved, 25)
                .build()
        };
        assert_eq!(counters_short(&[read(90 * MIB)]), None);
        assert_eq!(
            counters_short(&[read(90 * MIB - 512)]).as_deref(),
            Some(
                "seq-read: sda1 read 90.0 MiB of the 100.0 MiB the test read: the rest was \
                 answered from memory, not by the drive"
            )
        );
        // A write phase is judged by what the drive wrote; reads it did do not count.
        let write = sample::phase("seq-write")
            .bytes(8 * MIB)
            .device_io("sda1", MIB, 1)
            .build();
        assert!(counters_short(&[write])
            .unwrap()
            .starts_with("seq-write: sda1 wrote 1.0 MiB of the 8.0 MiB the test wrote"));
        // Phases without counters are not judged by them.
        assert_eq!(counters_short(&[sample::phase("seq-read").build()]), None);
    }
}
