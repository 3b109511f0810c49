//! The drive's own I/O counters: the warning for a test none of whose phases was counted (a
//! run the drive did not account for is judged by [`crate::judge::counters_short`]).

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;
    use crate::target_dir::Transport;
    use std::path::PathBuf;

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
