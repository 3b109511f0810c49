//! Figures and names the way people read them: drives ("SD card · mmcblk0 · ext4 · 21.3 GB
//! free"), phases ("Random 4K write"), rates with their unit named (MB/s with the KiB/s figure
//! that upstream's target is written in; IOPS) and verdicts. Every string is translated;
//! decimals use the locale's separator ([`number`]). No GTK here, so it is tested like any
//! other function.

use agnostics_core::figure::{down_text, StandardPhase, Unit};
use agnostics_core::i18n::{fill, gettext, ngettext, number};
use agnostics_core::profile::Rw;
use agnostics_core::report::TargetReport;
use agnostics_core::scripts::ScriptVerdict;
use agnostics_core::target_dir::{TargetInfo, Transport};
use agnostics_core::units;
use agnostics_core::verdict::{Check, Metric, Verdict};

/// How long a test takes, in words: "less than a minute", "about 2 minutes" (whole minutes,
/// rounded).
pub fn about_time(duration: std::time::Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds < 45.0 {
        return gettext("less than a minute");
    }
    let minutes = ((seconds / 60.0).round() as u32).max(1);
    fill(
        // Translators: how long a test takes, in the ready page's introduction ("It takes
        // {time} on a slow card").
        &ngettext("about {n} minute", "about {n} minutes", minutes),
        &[("n", &minutes)],
    )
}

/// `text` with its first letter upper-case: the core's messages are made to follow "Error: "
/// (and start in lower case), and here one starts a sentence or a note.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// What a person calls a drive attached this way: "SD card", "USB drive", …
pub fn transport_name(transport: Transport) -> String {
    match transport {
        Transport::Sd => gettext("SD card"),
        Transport::Emmc => gettext("eMMC"),
        Transport::Usb => gettext("USB drive"),
        Transport::Nvme => gettext("NVMe drive"),
        Transport::Virtio => gettext("Virtual disk"),
        // Translators: a loop device, a file used as a disk.
        Transport::Loop => gettext("Disk image"),
        Transport::Memory => gettext("Memory"),
        Transport::Other => gettext("Drive"),
    }
}

/// Free space for people, SI units like disk labels: "21.3 GB free", "640 MB free".
pub fn free_space(free_bytes: u64) -> String {
    let gb = free_bytes as f64 / units::GB;
    if gb >= 1.0 {
        fill(&gettext("{size} GB free"), &[("size", &number(gb, 1))])
    } else {
        fill(
            &gettext("{size} MB free"),
            &[("size", &number(free_bytes as f64 / units::MB, 0))],
        )
    }
}

/// Roughly how much space something needs, rounded up to 10 MB: "about 330 MB".
pub fn about_size(bytes: u64) -> String {
    let mb = (bytes as f64 / units::MB / 10.0).ceil() * 10.0;
    if mb >= 1000.0 {
        fill(
            &gettext("about {size} GB"),
            &[("size", &number(mb / 1000.0, 1))],
        )
    } else {
        fill(&gettext("about {size} MB"), &[("size", &number(mb, 0))])
    }
}

/// The parts of a drive's name, joined with " · ": kind, then the disk for cards (people
/// know `mmcblk0`) or the model for USB and NVMe drives (people know "SanDisk Ultra"), the
/// filesystem, and the free space when known.
pub fn drive_label(
    transport: Transport,
    disk: Option<&str>,
    model: Option<&str>,
    fs_type: &str,
    free_bytes: Option<u64>,
) -> String {
    let mut parts = vec![transport_name(transport)];
    let identity = match transport {
        Transport::Usb | Transport::Nvme | Transport::Other => model.or(disk),
        _ => disk.or(model),
    };
    if let Some(identity) = identity.filter(|s| !s.is_empty()) {
        parts.push(identity.to_owned());
    }
    if !fs_type.is_empty() {
        parts.push(fs_type.to_owned());
    }
    if let Some(free) = free_bytes {
        parts.push(free_space(free));
    }
    parts.join(" · ")
}

/// A writable filesystem from the engine's list, as the drive chooser shows it: kind, name,
/// where it is mounted (which tells two sticks of one model apart), filesystem and free
/// space: "USB drive · SanDisk Ultra · /media/pi/STICK · exfat · 640 MB free".
pub fn target_info_label(info: &TargetInfo) -> String {
    let device = info.device.as_ref();
    let name = drive_label(
        info.transport,
        device.map(|d| d.disk.as_str()),
        device.and_then(|d| d.model.as_deref()),
        "",
        None,
    );
    let mut parts = vec![name, info.mount_point.display().to_string()];
    if !info.fs_type.is_empty() {
        parts.push(info.fs_type.clone());
    }
    parts.push(free_space(info.free_bytes));
    parts.join(" · ")
}

/// The tested drive as a report names it (without the free space, which the test changed).
pub fn target_report_label(target: &TargetReport) -> String {
    drive_label(
        target.transport,
        target.device.as_deref(),
        target.model.as_deref(),
        &target.fs_type,
        None,
    )
}

/// A phase's name for people: "Sequential write", "Random 4K read", … for the standard test's
/// jobs; "{job} (random write, 8 KiB blocks)" for the jobs of other profiles.
pub fn phase_title(name: &str, rw: Rw, bs: u64) -> String {
    match StandardPhase::from_job_name(name) {
        Some(phase) => phase.title(),
        None => {
            let pattern = match rw {
                Rw::Read => gettext("sequential read"),
                Rw::Write => gettext("sequential write"),
                Rw::RandRead => gettext("random read"),
                Rw::RandWrite => gettext("random write"),
            };
            fill(
                // Translators: a phase of a custom profile: its job name, the pattern and the
                // block size, e.g. "burst (random write, 8 KiB blocks)".
                &gettext("{name} ({pattern}, {block} blocks)"),
                &[
                    ("name", &name),
                    ("pattern", &pattern),
                    ("block", &units::human_bytes(bs)),
                ],
            )
        }
    }
}

/// The title of a graded check's row: its phase's
/// ([`agnostics_core::figure::StandardPhase::title`]).
pub fn check_title(metric: Metric) -> String {
    metric.standard_phase().title()
}

/// Digits after the decimal separator for a figure of this size: 2 below 100, 1 below 1000.
fn decimals(value: f64) -> usize {
    if value < 100.0 {
        2
    } else if value < 1000.0 {
        1
    } else {
        0
    }
}

/// A rate in MB/s (1 000 000 bytes per second): "12.34 MB/s", rounded down like every report
/// (9.996 MB/s shows 9.99: a figure never shows a target it missed).
pub fn mb_per_s(bytes_per_s: f64) -> String {
    let mb = units::mb_per_s(bytes_per_s);
    let places = decimals(mb);
    fill(
        &gettext("{value} MB/s"),
        &[("value", &down_text(mb, places as u32))],
    )
}

/// A rate in MB/s with upstream's KiB/s figure beside it: "12.34 MB/s (12051 KiB/s)".
pub fn mb_and_kib_per_s(bytes_per_s: f64) -> String {
    fill(
        // Translators: a rate in MB/s followed by the same rate in KiB/s (1024 bytes).
        &gettext("{mb} ({kib} KiB/s)"),
        &[
            ("mb", &mb_per_s(bytes_per_s)),
            ("kib", &down_text(units::kib_per_s(bytes_per_s), 0)),
        ],
    )
}

/// An I/O rate: "612 IOPS", rounded down like the text report and upstream's compat lines
/// (612.7 IOPS shows 612).
pub fn iops(value: f64) -> String {
    fill(&gettext("{value} IOPS"), &[("value", &down_text(value, 0))])
}

/// The figure a phase is judged by: IOPS for random patterns, MB/s for sequential ones.
pub fn phase_figure(rw: Rw, bw_bytes: f64, iops_value: f64) -> String {
    figure(rw.is_random(), bw_bytes, iops_value)
}

/// IOPS when `random`, else MB/s.
pub fn figure(random: bool, bw_bytes: f64, iops_value: f64) -> String {
    if random {
        iops(iops_value)
    } else {
        mb_per_s(bw_bytes)
    }
}

/// A value in a check's unit, as bytes per second or IOPS for people.
fn value_in(unit: Unit, value: f64) -> String {
    let figure = unit.to_phase_figure(value);
    match unit {
        Unit::KibPerS => mb_and_kib_per_s(figure),
        Unit::BytesPerSecond | Unit::MbPerS => mb_per_s(figure),
        Unit::Iops => iops(figure),
    }
}

/// The measured value of a check in clear units, or "not measured".
pub fn check_value(check: &Check) -> String {
    match check.value {
        Some(v) => value_in(check.unit, v),
        None => gettext("not measured"),
    }
}

/// The check's minimum: "target 10.24 MB/s (10000 KiB/s)", "target 500 IOPS".
pub fn check_target(check: &Check) -> String {
    fill(
        &gettext("target {target}"),
        &[("target", &value_in(check.unit, check.target))],
    )
}

/// A check's value and target on one line, the subtitle of its row.
pub fn check_summary(check: &Check) -> String {
    let summary = fill(
        // Translators: a measured value and its minimum, e.g. "612 IOPS — target 500 IOPS".
        &gettext("{value} — {target}"),
        &[
            ("value", &check_value(check)),
            ("target", &check_target(check)),
        ],
    );
    match &check.reason {
        Some(reason) => fill(
            // Translators: {summary} is a value and its target; {reason} why it is not graded.
            &gettext("{summary} — not graded: {reason}"),
            &[("summary", &summary), ("reason", reason)],
        ),
        None => summary,
    }
}

/// PASS, FAIL, ERROR or NOT GRADED, translated (upstream's words; the compat lines keep English).
pub fn verdict_text(verdict: Verdict) -> String {
    match verdict {
        Verdict::Pass => gettext("PASS"),
        Verdict::Fail => gettext("FAIL"),
        Verdict::Error => gettext("ERROR"),
        // Translators: the verdict of a profile that only measures (no A1/A2 grade).
        Verdict::NotGraded => gettext("NOT GRADED"),
    }
}

/// A test script's verdict for its badge: PASS, FAIL, "Aborted", "Timed out".
pub fn script_verdict_text(verdict: ScriptVerdict) -> String {
    match verdict {
        ScriptVerdict::Pass => gettext("PASS"),
        ScriptVerdict::Fail => gettext("FAIL"),
        // Translators: a test that the user stopped (upstream's word).
        ScriptVerdict::Aborted => gettext("Aborted"),
        // Translators: a test script that ran longer than its time limit and was stopped.
        ScriptVerdict::Timeout => gettext("Timed out"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agnostics_core::verdict::Standard;

    fn check(metric: Metric, unit: Unit, value: Option<f64>, target: f64) -> Check {
        Check {
            name: metric.phase().into(),
            metric,
            standard: Standard::A1,
            value,
            unit,
            target,
            verdict: agnostics_core::judge::grade(value, target),
            reason: None,
        }
    }

    #[test]
    fn drives_read_the_way_people_know_them() {
        assert_eq!(
            drive_label(
                Transport::Sd,
                Some("mmcblk0"),
                Some("SN64G"),
                "ext4",
                Some(21_300_000_000)
            ),
            "SD card · mmcblk0 · ext4 · 21.3 GB free"
        );
        assert_eq!(
            drive_label(
                Transport::Usb,
                Some("sda"),
                Some("SanDisk Ultra"),
                "exfat",
                Some(640_000_000)
            ),
            "USB drive · SanDisk Ultra · exfat · 640 MB free"
        );
        assert_eq!(
            drive_label(Transport::Nvme, Some("nvme0n1"), None, "ext4", None),
            "NVMe drive · nvme0n1 · ext4"
        );
    }

    #[test]
    fn sequential_write_shows_mb_and_upstreams_kib() {
        let c = check(Metric::SeqWrite, Unit::KibPerS, Some(12_051.7), 10_000.0);
        assert_eq!(check_value(&c), "12.34 MB/s (12051 KiB/s)");
        assert_eq!(check_target(&c), "target 10.24 MB/s (10000 KiB/s)");
    }

    #[test]
    fn random_checks_show_iops() {
        let c = check(Metric::RandWrite, Unit::Iops, Some(612.4), 500.0);
        assert_eq!(check_summary(&c), "612 IOPS — target 500 IOPS");
        let c = check(Metric::RandRead, Unit::Iops, None, 1500.0);
        assert_eq!(check_value(&c), "not measured");
        assert_eq!(verdict_text(c.verdict), "ERROR");
    }

    #[test]
    fn a2_sequential_target_is_si_megabytes() {
        let c = check(Metric::SeqWrite, Unit::MbPerS, Some(9.5), 10.0);
        assert_eq!(check_target(&c), "target 10.00 MB/s");
    }

    #[test]
    fn a_figure_just_under_its_target_never_shows_the_target() {
        let c = check(Metric::SeqWrite, Unit::MbPerS, Some(9.996), 10.0);
        assert_eq!(check_summary(&c), "9.99 MB/s — target 10.00 MB/s");
        // Rounded down at every size, and exact figures stay exact.
        assert_eq!(mb_per_s(123_456_789.0), "123.4 MB/s");
        assert_eq!(mb_per_s(290_000.0), "0.29 MB/s");
        assert_eq!(mb_per_s(10_000_000.0), "10.00 MB/s");
    }

    #[test]
    fn phases_have_names_for_people() {
        assert_eq!(
            phase_title("rand-4k-write", Rw::RandWrite, 4096),
            "Random 4K write"
        );
        assert_eq!(
            phase_title("burst", Rw::RandWrite, 8192),
            "burst (random write, 8 KiB blocks)"
        );
        assert_eq!(phase_figure(Rw::RandRead, 1e6, 1234.4), "1234 IOPS");
        assert_eq!(phase_figure(Rw::RandRead, 1e6, 412.7), "412 IOPS");
        let mut c = check(Metric::RandWrite, Unit::Iops, Some(612.0), 500.0);
        c.not_graded("a cache answered");
        assert_eq!(
            check_summary(&c),
            "612 IOPS — target 500 IOPS — not graded: a cache answered"
        );
        assert_eq!(verdict_text(c.verdict), "ERROR");
        assert_eq!(phase_figure(Rw::Write, 45_210_000.0, 11.0), "45.21 MB/s");
    }

    #[test]
    fn space_is_rounded_up_for_people() {
        assert_eq!(about_size(328_900_000), "about 330 MB");
        assert_eq!(about_size(1_234_000_000), "about 1.2 GB");
        assert_eq!(free_space(999_999_999), "1000 MB free");
    }
}
