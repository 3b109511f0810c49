//! The drive's own I/O counters against the engine's figures: a test none of whose phases
//! was counted, and a run the drive did not account for.

use crate::engine;
use crate::report::Report;
use crate::target_dir;

/// The warning for a test whose phases all ran without the drive's own counters (a target
/// with no block device behind it), or `None` when any phase was counted or none ran.
pub(super) fn uncounted(report: &Report, info: &target_dir::TargetInfo) -> Option<String> {
    let mut phases = report.runs.iter().flat_map(|r| &r.phases).peekable();
    phases.peek()?;
    phases.all(|p| p.device_io.is_none()).then(|| {
        crate::i18n::fill(
            &crate::i18n::gettext(
                "the drive's own I/O counters could not be read ({fs_type} at {path} has no \
                 block device the system counts requests for): the figures were not checked \
                 against what the drive did",
            ),
            &[("fs_type", &info.fs_type), ("path", &info.path.display())],
        )
    })
}

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
    use crate::target_dir::Transport;
    use std::path::PathBuf;

    const MIB: u64 = 1 << 20;

    fn nfs() -> target_dir::TargetInfo {
        target_dir::TargetInfo {
            path: PathBuf::from("/mnt/share"),
            fs_type: "nfs4".into(),
            mount_point: PathBuf::from("/mnt/share"),
            device: None,
            transport: Transport::Other,
            free_bytes: 1 << 30,
            total_bytes: 1 << 31,
            read_only: false,
            mount_options: Vec::new(),
            warnings: Vec::new(),
        }
    }

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

    #[test]
    fn a_test_without_any_counters_says_so_once() {
        let mut report = sample::report()
            .run(sample::run(1, [sample::phase("seq-write").bw_bytes(1e7)]))
            .build();
        let warning = uncounted(&report, &nfs()).unwrap();
        assert!(
            warning
                .starts_with("the drive's own I/O counters could not be read (nfs4 at /mnt/share"),
            "{warning}"
        );
        // One counted phase is enough; no phase at all says nothing.
        report.runs[0].phases[0].device_io = sample::phase("seq-write")
            .device_io("vda", 1, 1)
            .build()
            .device_io;
        assert_eq!(uncounted(&report, &nfs()), None);
        report.runs.clear();
        assert_eq!(uncounted(&report, &nfs()), None);
    }
}
