//! Sample values for tests and examples: a phase result, a run, a target, an error and a whole
//! report, each with every field defaulted to what a plausible test of an SD card would give,
//! and builder methods for the fields a test is about.
//!
//! Built only with the cargo feature `sample` (the workspace's test crates enable it through
//! their dev-dependencies) and for this crate's own unit tests; nothing here is measured.
//!
//! ```
//! use agnostics_core::sample;
//! use agnostics_core::verdict::Verdict;
//!
//! let run = sample::run(
//!     1,
//!     [
//!         sample::phase("seq-write").bw_bytes(12e6).iops(11.4),
//!         sample::phase("rand-4k-write").iops(612.0),
//!         sample::phase("rand-4k-read").iops(1600.0),
//!     ],
//! );
//! let report = sample::report().run(run).build();
//! assert_eq!(report.verdict, Verdict::Pass);
//! assert_eq!(report.target.unwrap().device.as_deref(), Some("mmcblk0"));
//! ```

use std::sync::OnceLock;

use crate::advice::Advice;
use crate::card::CardInfo;
use crate::engine::device_io::DeviceIo;
use crate::engine::{EngineKind, IoPath, LatencyUs, PhaseResult, Sample};
use crate::profile::{Profile, Rw};
use crate::report::{ErrorKind, ErrorReport, ProfileInfo, Report, RunReport, TargetReport};
use crate::target_dir::Transport;
use crate::verdict::Verdict;

/// The start time of every sample report (RFC 3339, fixed so that output is reproducible).
pub const STARTED: &str = "2026-01-01T12:00:00+00:00";

/// The run id of every sample report unless set ([`ReportBuilder::run_id`]), fixed so that
/// output is reproducible.
pub const RUN_ID: &str = "5a3b1e0000000000000000000000c0de";

/// The size of the built-in profile's test file in a sample report, bytes (256 MiB).
pub const PROFILE_SIZE_BYTES: u64 = 256 * 1024 * 1024;

fn sd_bench() -> &'static Profile {
    static PROFILE: OnceLock<Profile> = OnceLock::new();
    PROFILE.get_or_init(Profile::sd_bench)
}

/// A phase named `name` (e.g. `seq-write`) that measured nothing remarkable yet: pattern, block
/// size and queue depth of the built-in profile's job of that name (else `read`, 4 KiB,
/// iodepth 1), one second long, bandwidth and IOPS 0 until set. Unless set, `bytes` and
/// `ios` follow from the rates (`rate × seconds`, rounded, at least 1, so the phase counts as
/// measured); latencies are 0 µs and there are no per-second samples.
pub fn phase(name: &str) -> PhaseBuilder {
    let (rw, bs, iodepth) = sd_bench()
        .job(name)
        .map_or((Rw::Read, 4096, 1), |j| (j.rw, j.bs, j.iodepth));
    PhaseBuilder {
        phase: PhaseResult {
            name: name.to_owned(),
            rw,
            bs,
            iodepth,
            seconds: 1.0,
            ..PhaseResult::default()
        },
        bytes: None,
        ios: None,
    }
}

/// A measured phase named `name` with bandwidth `bw_bytes` (bytes per second, f64) and `iops`
/// (I/O operations per second, f64), everything else as [`phase`] gives it: the shape the
/// graders' tests need most.
pub fn measured(name: &str, bw_bytes: f64, iops: f64) -> PhaseResult {
    phase(name).bw_bytes(bw_bytes).iops(iops).build()
}

/// A [`PhaseResult`] under construction; see [`phase`].
#[derive(Debug, Clone)]
pub struct PhaseBuilder {
    phase: PhaseResult,
    bytes: Option<u64>,
    ios: Option<u64>,
}

impl PhaseBuilder {
    /// The pattern.
    pub fn rw(mut self, rw: Rw) -> Self {
        self.phase.rw = rw;
        self
    }

    /// The block size, bytes.
    pub fn bs(mut self, bs: u64) -> Self {
        self.phase.bs = bs;
        self
    }

    /// The queue depth.
    pub fn iodepth(mut self, iodepth: u32) -> Self {
        self.phase.iodepth = iodepth;
        self
    }

    /// Bytes transferred.
    pub fn bytes(mut self, bytes: u64) -> Self {
        self.bytes = Some(bytes);
        self
    }

    /// I/O operations completed.
    pub fn ios(mut self, ios: u64) -> Self {
        self.ios = Some(ios);
        self
    }

    /// Elapsed seconds.
    pub fn seconds(mut self, seconds: f64) -> Self {
        self.phase.seconds = seconds;
        self
    }

    /// Bandwidth, bytes per second.
    pub fn bw_bytes(mut self, bw_bytes: f64) -> Self {
        self.phase.bw_bytes = bw_bytes;
        self
    }

    /// I/O operations per second.
    pub fn iops(mut self, iops: f64) -> Self {
        self.phase.iops = iops;
        self
    }

    /// Completion latencies, µs.
    pub fn lat_us(mut self, p50: f64, p99: f64, max: f64) -> Self {
        self.phase.lat_us = LatencyUs { p50, p99, max };
        self
    }

    /// Per-second samples.
    pub fn samples(mut self, samples: Vec<Sample>) -> Self {
        self.phase.samples = samples;
        self
    }

    /// Whether the phase ended at its `runtime` limit.
    pub fn stopped_by_runtime(mut self, stopped: bool) -> Self {
        self.phase.stopped_by_runtime = stopped;
        self
    }

    /// What the drive's own counters say it did: `moved` bytes in `requests` requests in the
    /// phase's direction, on device `device` (none the other way, no in-flight maximum).
    pub fn device_io(mut self, device: &str, moved: u64, requests: u64) -> Self {
        let write = self.phase.rw.is_write();
        self.phase.device_io = Some(Box::new(DeviceIo {
            device: device.to_owned(),
            read_bytes: if write { 0 } else { moved },
            written_bytes: if write { moved } else { 0 },
            reads: if write { 0 } else { requests },
            writes: if write { requests } else { 0 },
            in_flight_max: None,
        }));
        self
    }

    /// The phase result.
    pub fn build(self) -> PhaseResult {
        let mut p = self.phase;
        let derived = |rate: f64| ((rate * p.seconds).round() as u64).max(1);
        p.bytes = self.bytes.unwrap_or_else(|| derived(p.bw_bytes));
        p.ios = self.ios.unwrap_or_else(|| derived(p.iops));
        p
    }
}

impl From<PhaseBuilder> for PhaseResult {
    fn from(b: PhaseBuilder) -> PhaseResult {
        b.build()
    }
}

/// Run `run` (1-based) of `phases`, graded as [`RunReport::grade`] grades.
pub fn run<P: Into<PhaseResult>>(run: u32, phases: impl IntoIterator<Item = P>) -> RunReport {
    RunReport::grade(run, phases.into_iter().map(Into::into).collect())
}

/// The target of a sample report: `/var/tmp` on `mmcblk0` (partition `mmcblk0p2`), an SD
/// card, ext4, model `SD64G`, 1 GiB free.
pub fn target() -> TargetBuilder {
    TargetBuilder(TargetReport {
        path: "/var/tmp".into(),
        device: Some("mmcblk0".into()),
        partition: Some("mmcblk0p2".into()),
        transport: Transport::Sd,
        fs_type: "ext4".into(),
        model: Some("SD64G".into()),
        free_bytes: 1 << 30,
    })
}

/// A [`TargetReport`] under construction; see [`target`].
#[derive(Debug, Clone)]
pub struct TargetBuilder(TargetReport);

impl TargetBuilder {
    /// The target directory.
    pub fn path(mut self, path: &str) -> Self {
        self.0.path = path.into();
        self
    }

    /// The disk and its partition (`None` for neither).
    pub fn device(mut self, disk: Option<&str>, partition: Option<&str>) -> Self {
        self.0.device = disk.map(Into::into);
        self.0.partition = partition.map(Into::into);
        self
    }

    /// How the disk is attached.
    pub fn transport(mut self, transport: Transport) -> Self {
        self.0.transport = transport;
        self
    }

    /// The filesystem type.
    pub fn fs_type(mut self, fs_type: &str) -> Self {
        self.0.fs_type = fs_type.into();
        self
    }

    /// The vendor/model (`None`: unknown).
    pub fn model(mut self, model: Option<&str>) -> Self {
        self.0.model = model.map(Into::into);
        self
    }

    /// Bytes free before the test.
    pub fn free_bytes(mut self, free_bytes: u64) -> Self {
        self.0.free_bytes = free_bytes;
        self
    }

    /// The target report.
    pub fn build(self) -> TargetReport {
        self.0
    }
}

impl From<TargetBuilder> for TargetReport {
    fn from(b: TargetBuilder) -> TargetReport {
        b.build()
    }
}

/// An error of `kind` with `message` and no hint, as [`ErrorReport::new`] makes it (a long
/// message is shortened, the whole text in `details`).
pub fn error(kind: ErrorKind, message: &str) -> ErrorReport {
    ErrorReport::new(kind, message.to_owned(), String::new())
}

/// A report of the built-in profile ([`PROFILE_SIZE_BYTES`]) run by the native engine on
/// io_uring on the SD card of [`target`], started at [`STARTED`], with no runs, error,
/// warnings, advice or findings until added. Unless set, the verdicts are what the test would
/// give: ERROR with an error or without runs, else those of the deciding run (the first that
/// passed, else the last); `sd_graded` is true on an SD card; `references` are the published
/// figures beside it ([`crate::references::beside`]: none without a Raspberry Pi model).
pub fn report() -> ReportBuilder {
    ReportBuilder {
        report: Report {
            schema_version: crate::report::SCHEMA_VERSION,
            run_id: RUN_ID.into(),
            program: format!("agnostics {}", crate::VERSION),
            started: STARTED.into(),
            verdict: Verdict::Error,
            a2_verdict: Verdict::Error,
            sd_graded: true,
            graded: true,
            engine: EngineKind::Native,
            io_path: Some(IoPath::IoUring),
            profile: ProfileInfo::of(sd_bench(), PROFILE_SIZE_BYTES),
            target: Some(target().build()),
            card: None,
            runs: Vec::new(),
            error: None,
            warnings: Vec::new(),
            advice: Vec::new(),
            findings: Vec::new(),
            table: None,
            drive: None,
            measured_with: None,
            references: Vec::new(),
        },
        verdicts: None,
        sd_graded: None,
    }
}

/// A [`Report`] under construction; see [`report`].
#[derive(Debug, Clone)]
pub struct ReportBuilder {
    report: Report,
    verdicts: Option<(Verdict, Verdict)>,
    sd_graded: Option<bool>,
}

impl ReportBuilder {
    /// Adds a run.
    pub fn run(mut self, run: RunReport) -> Self {
        self.report.runs.push(run);
        self
    }

    /// Sets the error that stopped the test.
    pub fn error(mut self, error: ErrorReport) -> Self {
        self.report.error = Some(error);
        self
    }

    /// Sets the run id (32 lowercase hex digits in a real report).
    pub fn run_id(mut self, run_id: &str) -> Self {
        self.report.run_id = run_id.to_owned();
        self
    }

    /// Sets the drive's identity.
    pub fn drive(mut self, drive: crate::drive::DriveIdentity) -> Self {
        self.report.drive = Some(drive);
        self
    }

    /// Sets how the test was measured.
    pub fn measured_with(mut self, provenance: crate::drive::Provenance) -> Self {
        self.report.measured_with = Some(provenance);
        self
    }

    /// Sets the target (`None`: it could not be inspected).
    pub fn target(mut self, target: Option<TargetReport>) -> Self {
        self.report.target = target;
        self
    }

    /// Sets the card.
    pub fn card(mut self, card: CardInfo) -> Self {
        self.report.card = Some(card);
        self
    }

    /// Sets the engine and its I/O path.
    pub fn engine(mut self, engine: EngineKind, io_path: Option<IoPath>) -> Self {
        self.report.engine = engine;
        self.report.io_path = io_path;
        self
    }

    /// Sets the profile.
    pub fn profile(mut self, profile: ProfileInfo) -> Self {
        self.report.profile = profile;
        self
    }

    /// Sets the program and version line.
    pub fn program(mut self, program: &str) -> Self {
        self.report.program = program.into();
        self
    }

    /// Sets the start time (RFC 3339).
    pub fn started(mut self, started: &str) -> Self {
        self.report.started = started.into();
        self
    }

    /// Adds a warning.
    pub fn warning(mut self, warning: &str) -> Self {
        self.report.warnings.push(warning.into());
        self
    }

    /// Adds a piece of advice.
    pub fn advice(mut self, advice: Advice) -> Self {
        self.report.advice.push(advice);
        self
    }

    /// Sets the A1 and A2 verdicts instead of deriving them.
    pub fn verdicts(mut self, a1: Verdict, a2: Verdict) -> Self {
        self.verdicts = Some((a1, a2));
        self
    }

    /// Sets whether the SD targets rate the device instead of deriving it from the target.
    pub fn sd_graded(mut self, sd_graded: bool) -> Self {
        self.sd_graded = Some(sd_graded);
        self
    }

    /// The report.
    pub fn build(self) -> Report {
        let mut r = self.report;
        let derived = match (&r.error, r.deciding_run()) {
            (None, Some(run)) => (run.verdict, run.a2_verdict),
            _ => (Verdict::Error, Verdict::Error),
        };
        (r.verdict, r.a2_verdict) = self.verdicts.unwrap_or(derived);
        r.sd_graded = self.sd_graded.unwrap_or_else(|| {
            r.target
                .as_ref()
                .is_some_and(|t| t.transport == Transport::Sd)
        });
        r.references = crate::references::beside(&r);
        r
    }
}

impl From<ReportBuilder> for Report {
    fn from(b: ReportBuilder) -> Report {
        b.build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_take_the_built_in_jobs_shape_and_count_as_measured() {
        let p = phase("rand-4k-write").iops(500.0).build();
        assert_eq!((p.rw, p.bs), (Rw::RandWrite, 4096));
        assert_eq!((p.ios, p.bytes, p.seconds), (500, 1, 1.0));
        let p = phase("warm-up").bytes(7).build();
        assert_eq!(
            (p.rw, p.bs, p.iodepth, p.bytes, p.ios),
            (Rw::Read, 4096, 1, 7, 1)
        );
    }

    #[test]
    fn a_report_takes_its_verdicts_from_the_deciding_run() {
        let slow = run(1, [phase("seq-write").bw_bytes(1e6).iops(1.0)]);
        let fast = run(2, [phase("seq-write").bw_bytes(20e6).iops(20.0)]);
        let r = report().run(slow.clone()).run(fast).build();
        assert_eq!(r.verdict, r.runs[1].verdict);
        assert!(r.sd_graded);
        let r = report()
            .run(slow)
            .error(error(ErrorKind::Io, "gone"))
            .build();
        assert_eq!((r.verdict, r.a2_verdict), (Verdict::Error, Verdict::Error));
        assert_eq!(r.error.unwrap().details, None);
    }
}
