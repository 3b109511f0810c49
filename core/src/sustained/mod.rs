//! The sustained write test (the built-in profile `sustained`): how fast a card keeps writing
//! once its write cache is full, whether it gives back what it was given, and which speed
//! markings it keeps up with.
//!
//! One run: [`plan`] decides how much to write (up to 4 GiB or half the free space, in the
//! card's allocation unit); [`measure`] writes it sequentially with O_DIRECT through the
//! program's own test file, sampling the speed every second and stopping early once it has
//! settled after a fall; [`verify`] reads every byte back and checks each 4 KiB block's address
//! and checksum; [`verdict`] judges: the [`cliff`], the speeds before and after it, the worst
//! latency, the [`markings`] met and claimed, and the run's verdict (FAIL when a block read back
//! wrong, else NOT_GRADED). [`text`] says it for people.
//!
//! The built-in engine ([`run`]) reports its I/O path as `threads`: one thread writes and reads
//! with `pwrite`/`pread`, one request at a time, while a second makes the next blocks. Memory:
//! two buffers of one request (at most 4 MiB each), the samples and one latency per request.
//! With `--engine fio`, [`fio::run`] has fio write the same plan and check it with its own
//! `verify`, and judges what it measured by the same rules.
//!
//! JSON (`runs[].sustained`, [`SustainedResult`]): `cliff_bytes`, `before_bytes_per_second`,
//! `after_bytes_per_second`, `max_latency_us`, `p99_latency_us`, `verified_bytes`,
//! `corrupt_blocks`, `samples` [ {`bytes`, `bytes_per_second`} ], `markings` [ {`name`,
//! `family`, `min_bytes_per_second`, `met`, `claimed`} ], and how it ran.

pub mod cliff;
pub mod fio;
pub mod markings;
pub mod measure;
pub mod plan;
pub mod text;
pub mod verdict;
pub mod verify;

use serde::{Deserialize, Serialize};

use crate::card::CardInfo;
use crate::engine::device_io::PhaseCounters;
use crate::engine::testfile::TestFile;
use crate::engine::{EngineError, EngineRun, IoPath, RunContext};
use crate::profile::builtin::BuiltinProfile;
use crate::profile::Profile;

pub use markings::Marking;
pub use plan::Plan;

/// One speed sample: the bytes written so far when it was taken and the speed since the sample
/// before.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpeedSample {
    /// Bytes written so far, u64.
    pub bytes: u64,
    /// Write speed since the sample before, bytes per second (f64).
    pub bytes_per_second: f64,
}

/// What a sustained write test found (JSON `runs[].sustained`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SustainedResult {
    /// The most it would write ([`Plan::max_bytes`]), bytes.
    pub planned_bytes: u64,
    /// The unit written whole and timed on its own, bytes.
    pub unit_bytes: u64,
    /// True when the unit is the card's own allocation unit (SD Status AU_SIZE).
    pub unit_from_card: bool,
    /// Bytes written, u64.
    pub written_bytes: u64,
    /// True when it stopped before `planned_bytes` because the speed had settled after a fall.
    pub settled_early: bool,
    /// Where the speed fell for good ([`cliff`]'s rule), bytes written before it; null when it
    /// never did.
    pub cliff_bytes: Option<u64>,
    /// Write speed before the cliff (of the whole run when there is none), bytes per second.
    pub before_bytes_per_second: f64,
    /// Write speed after the cliff, bytes per second; null when there is none.
    pub after_bytes_per_second: Option<f64>,
    /// The speed the markings are judged on: after the cliff, else the whole run's, bytes per
    /// second.
    pub sustained_bytes_per_second: f64,
    /// The slowest write request, µs (a request is one unit, or 4 MiB of a larger one).
    pub max_latency_us: f64,
    /// The 99th percentile of the write requests' latency, µs.
    pub p99_latency_us: f64,
    /// Bytes read back that held exactly what was written.
    pub verified_bytes: u64,
    /// 4 KiB blocks that read back wrong (or not at all) without an error.
    pub corrupt_blocks: u64,
    /// The test file offset of the first corrupt block, bytes; null when none.
    pub first_corrupt_bytes: Option<u64>,
    /// What the link to the card carries, bytes per second; null when unknown.
    pub link_bytes_per_second: Option<f64>,
    /// Every speed marking, met and claimed.
    pub markings: Vec<Marking>,
    /// The one-second samples.
    pub samples: Vec<SpeedSample>,
}

/// True for the built-in `sustained` profile (a job file of that name is not it).
pub fn is_sustained(profile: &Profile) -> bool {
    profile.builtin == Some(BuiltinProfile::Sustained)
}

/// The plan a test of `target` would follow, from its free space and its card's allocation
/// unit as they are now (under `sysfs_root`), for saying before the test what it will do;
/// `None` when the target cannot be inspected, the cap variable is not a size, or the space is
/// too small (the test itself then says why).
pub fn plan_for(target: &std::path::Path, sysfs_root: &std::path::Path) -> Option<Plan> {
    let info = crate::target_dir::inspect(target, sysfs_root).ok()?;
    let au = info
        .device
        .as_ref()
        .and_then(|d| crate::card::identify(sysfs_root, &d.disk))
        .and_then(|c| c.ssr)
        .and_then(|s| s.au_size_bytes);
    Plan::new(info.free_bytes, au, plan::cap_bytes().ok()?)
}

/// Runs the test on `file`, with `free_bytes` free before it, on `card`: the write and
/// read-back phases, and the result, or the error that stopped it.
///
/// Errors (in [`EngineRun::phases`]): [`EngineError::NoSpace`] when half the free space does
/// not hold two units; [`EngineError::Io`] when the file cannot be opened; the errors of
/// [`measure::write`] and [`verify::verify`].
pub fn run(
    file: &TestFile,
    free_bytes: u64,
    card: Option<&CardInfo>,
    ctx: &RunContext<'_>,
) -> (EngineRun, Option<SustainedResult>) {
    match run_phases(file, free_bytes, card, ctx) {
        Ok((phases, result)) => (
            EngineRun {
                io_path: Some(IoPath::Threads),
                phases: Ok(phases),
            },
            Some(result),
        ),
        Err(e) => (EngineRun::failed(e), None),
    }
}

/// The plan of a run with `free_bytes` free before it on `card` (its SD Status's AU_SIZE), the
/// cap from [`plan::cap_bytes`]: what both engines write.
///
/// Errors: [`EngineError::Io`] (phase `sustained-write`, op `open`, invalid input) when the cap
/// variable is not a size; [`EngineError::NoSpace`] when half the free space does not hold
/// two units.
pub fn plan_of(free_bytes: u64, card: Option<&CardInfo>) -> Result<Plan, EngineError> {
    let cap = plan::cap_bytes().map_err(|reason| {
        EngineError::from_io(
            measure::WRITE_PHASE,
            "open",
            std::io::Error::new(std::io::ErrorKind::InvalidInput, reason),
        )
    })?;
    let au = card
        .and_then(|c| c.ssr.as_ref())
        .and_then(|s| s.au_size_bytes);
    Plan::new(free_bytes, au, cap).ok_or_else(|| EngineError::NoSpace {
        phase: measure::WRITE_PHASE.to_owned(),
    })
}

fn run_phases(
    file: &TestFile,
    free_bytes: u64,
    card: Option<&CardInfo>,
    ctx: &RunContext<'_>,
) -> Result<(Vec<crate::engine::PhaseResult>, SustainedResult), EngineError> {
    let plan = plan_of(free_bytes, card)?;
    let handle = file.open(true)?;
    let key = rand::random::<u64>();
    // What the drive itself did in each phase, by its own counters, as the engines count it.
    let counting = || file.block_device().and_then(PhaseCounters::start);
    let counters = counting();
    let written = measure::write(&handle, &plan, key, ctx, 0)?;
    let mut write_phase = written.phase.clone();
    write_phase.device_io = counters.and_then(PhaseCounters::finish).map(Box::new);
    let counters = counting();
    let verified = verify::verify(&handle, written.bytes, plan.request_bytes, key, ctx, 1)?;
    let mut verify_phase = verified.phase.clone();
    verify_phase.device_io = counters.and_then(PhaseCounters::finish).map(Box::new);
    let phases = vec![write_phase, verify_phase];
    Ok((phases, verdict::judge(&plan, written, &verified, card)))
}
