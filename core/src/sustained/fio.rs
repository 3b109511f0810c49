//! The sustained write test run by fio (`--engine fio`): the same plan ([`super::plan_of`]),
//! written by fio and checked by fio's own `verify`, judged by the same [`verdict::judge`].
//!
//! fio runs one job file of two jobs on the program's own test file, in the run's private
//! directory, as the fio engine runs the standard test:
//! - `sustained-write`: `rw=write`, `bs` the plan's request (the allocation unit, or 4 MiB of a
//!   larger one), `size` the plan's bytes, `direct=1`, `ioengine=psync` (one request at a
//!   time, as the built-in engine writes), `end_fsync=1`; `verify=crc32c` with
//!   `verify_interval=4096`, so that every 4 KiB block carries fio's header (its own file
//!   offset, length, a seed) and a CRC32C of its data; `write_lat_log` with
//!   `log_avg_msec=0` and `log_offset=1`: one line per request with its completion latency
//!   and offset, written to a folder of the program's own under the temporary directory,
//!   removed after.
//! - `sustained-verify`: `rw=read` of the same bytes in 4 KiB requests (`bs=4096`,
//!   `ioengine=libaio`, `iodepth=16`), `verify=crc32c`, `continue_on_error=verify`: each
//!   block whose header or checksum is wrong is one verify error, counted, and the pass goes
//!   on. fio's JSON `total_err` is then the number of such blocks (fio counts one error per
//!   failed request, and each request is one block), and the job's `error` is EILSEQ, which is
//!   the count, not a failure; a read that fails still ends the test with its error (fio's
//!   `error` is the first error it met: after a block that failed its verify, a failed read
//!   ends the pass, and the blocks not read count as corrupt).
//!
//! From the log, exactly as the built-in engine measures: each unit's time (the sum of its
//! requests' latencies), each request's latency (max and p99 by nearest rank), and a sample at
//! the first request that completed a second or more after the one before, and one at the
//! end. fio's log is per request because an averaged one (`log_avg_msec=1000`) carries no
//! offsets, so no unit could be timed.
//!
//! What differs from the built-in engine: fio writes the whole plan (it cannot stop once the
//! speed has settled: `settled_early` is false); the read-back uses 4 KiB requests; the run's
//! I/O path is `fio psync`.

use std::path::{Path, PathBuf};

use crate::card::CardInfo;
use crate::engine::fio::iolog::{self, LogEntry};
use crate::engine::fio::jobfile::section_name;
use crate::engine::fio::output::{final_output, FioOutput};
use crate::engine::fio::{device_io_of, fio_program, results_from_parsed, run_job_text};
use crate::engine::testfile::{TestFile, TEST_FILE_NAME};
use crate::engine::{EngineError, EngineRun, IoPath, PhaseResult, RunContext};
use crate::profile::{Job, Profile, Rw};

use super::cliff::Unit;
use super::measure::{Written, WRITE_PHASE};
use super::plan::Plan;
use super::verify::{Verified, VERIFY_PHASE};
use super::{verdict, SpeedSample, SustainedResult};

/// The block fio's verify headers cover and the read-back reads, bytes: 4 KiB, the built-in
/// engine's block.
pub const VERIFY_BLOCK: u64 = 4096;
/// Requests the read-back keeps in flight.
pub const VERIFY_IODEPTH: u32 = 16;
/// The `write_lat_log` name's start; fio adds `_clat.1.log` (and `_lat`, `_slat`).
const LOG_PREFIX: &str = "sustained-write";
/// EILSEQ: the errno fio gives a verify failure.
const EILSEQ: i32 = libc::EILSEQ;

/// Runs the test with fio (see [`fio_program`]) on `file`, with `free_bytes` free before it,
/// on `card`: the write and read-back phases, and the result, or the error that stopped it.
///
/// Errors (in [`EngineRun::phases`]): those of [`super::plan_of`]; [`EngineError::Io`] when the
/// file cannot be sized or the log folder made or read; those of the fio engine
/// ([`crate::engine::fio::run_profile`]); [`EngineError::FioFailed`] when fio's log does not
/// agree with its JSON.
pub fn run(
    file: &TestFile,
    free_bytes: u64,
    card: Option<&CardInfo>,
    ctx: &RunContext<'_>,
) -> (EngineRun, Option<SustainedResult>) {
    run_with(&fio_program(), file, free_bytes, card, ctx)
}

/// [`run`] with the fio program given (a path, or a name looked up in `PATH`).
pub fn run_with(
    program: &Path,
    file: &TestFile,
    free_bytes: u64,
    card: Option<&CardInfo>,
    ctx: &RunContext<'_>,
) -> (EngineRun, Option<SustainedResult>) {
    match run_phases(program, file, free_bytes, card, ctx) {
        Ok((phases, result)) => (
            EngineRun {
                io_path: Some(IoPath::Fio {
                    ioengine: "psync".to_owned(),
                }),
                phases: Ok(phases),
            },
            Some(result),
        ),
        Err(e) => (EngineRun::failed(e), None),
    }
}

fn run_phases(
    program: &Path,
    file: &TestFile,
    free_bytes: u64,
    card: Option<&CardInfo>,
    ctx: &RunContext<'_>,
) -> Result<(Vec<PhaseResult>, SustainedResult), EngineError> {
    let plan = super::plan_of(free_bytes, card)?;
    // The file at its size before fio starts: fio lays out (unlinks and re-creates) a file
    // shorter than its job; a sparse file is written into as a new one is.
    file.open(false)?
        .set_len(plan.max_bytes)
        .map_err(|e| EngineError::from_io("setup", "truncate", e))?;
    let logs = LogDir::create().map_err(|e| EngineError::from_io("setup", "log folder", e))?;
    let profile = jobs(&plan);
    let counters = file.block_device().map(|d| d.maj_min);
    let text = job_text(&plan, &logs.prefix(), counters);
    let ran = run_job_text(program, &profile, &text, file, ctx)?;
    let mut parsed = final_output(&ran.stdout);
    let corrupt = parsed.as_mut().map_or(0, take_verify_errors);
    let first_corrupt = iolog::verify_failures(&ran.stderr).into_iter().min();
    let results = results_from_parsed(&profile, parsed, &ran.stdout, &ran.stderr, ran.status)?;
    let mut phases = ran.finish(results);
    for (index, phase) in phases.iter_mut().enumerate() {
        phase.device_io = device_io_of(file, index).map(Box::new);
    }
    let log = logs
        .read_write_log()
        .map_err(|e| EngineError::from_io(WRITE_PHASE, "read fio's log", e))?;
    let entries = iolog::parse_log(&log).map_err(|message| EngineError::FioFailed { message })?;
    let written = written(&plan, &entries, &phases[0]).map_err(|why| EngineError::FioFailed {
        message: format!("fio's latency log disagrees with its JSON: {why}"),
    })?;
    let verified = verified(written.bytes, corrupt, first_corrupt, &phases[1]);
    let result = verdict::judge(&plan, written, &verified, card);
    Ok((phases, result))
}

/// The two jobs as the fio engine's live events and results name them.
fn jobs(plan: &Plan) -> Profile {
    let job = |name: &str, rw: Rw, bs: u64, iodepth: u32, ioengine: &str| Job {
        name: name.to_owned(),
        description: None,
        rw,
        bs,
        size_bytes: plan.max_bytes,
        iodepth,
        direct: true,
        end_fsync: rw.is_write(),
        runtime: None,
        time_based: false,
        ramp_time: None,
        loops: 1,
        numjobs: 1,
        ioengine: ioengine.to_owned(),
        line: 0,
    };
    Profile {
        name: "sustained".to_owned(),
        source: None,
        builtin: Some(crate::profile::builtin::BuiltinProfile::Sustained),
        jobs: vec![
            job(WRITE_PHASE, Rw::Write, plan.request_bytes, 1, "psync"),
            job(
                VERIFY_PHASE,
                Rw::Read,
                VERIFY_BLOCK,
                VERIFY_IODEPTH,
                "libaio",
            ),
        ],
        warnings: Vec::new(),
    }
}

/// The job file (see the module's text): sections [`section_name`] 0 and 1 on
/// [`TEST_FILE_NAME`], the write's per-request log at `log_prefix` (a path of plain
/// characters, see [`LogDir`]), and with `counters` (a block device's major and minor number)
/// each job copying that device's counters before and after its I/O, as the fio engine's
/// standard jobs do.
pub fn job_text(plan: &Plan, log_prefix: &str, counters: Option<(u64, u64)>) -> String {
    let hooks = counters.map_or(String::new(), |(major, minor)| {
        format!(
            "exec_prerun=cat /sys/dev/block/{major}:{minor}/stat\n\
             exec_postrun=cat /sys/dev/block/{major}:{minor}/stat\n"
        )
    });
    let (write, read) = (section_name(0), section_name(1));
    format!(
        "; Generated by Agnostics: the sustained write test; the test file is the program's own.\n\
         [global]\n\
         filename={TEST_FILE_NAME}\n\
         thread\n\
         direct=1\n\
         group_reporting\n\
         verify=crc32c\n\
         verify_interval={VERIFY_BLOCK}\n\
         verify_state_save=0\n\
         \n\
         [{write}]\n\
         rw=write\n\
         bs={bs}\n\
         size={size}\n\
         iodepth=1\n\
         ioengine=psync\n\
         end_fsync=1\n\
         refill_buffers\n\
         do_verify=0\n\
         write_lat_log={log_prefix}\n\
         log_avg_msec=0\n\
         log_offset=1\n\
         {hooks}\
         \n\
         [{read}]\n\
         rw=read\n\
         bs={VERIFY_BLOCK}\n\
         size={size}\n\
         iodepth={VERIFY_IODEPTH}\n\
         ioengine=libaio\n\
         continue_on_error=verify\n\
         {hooks}\
         stonewall\n",
        bs = plan.request_bytes,
        size = plan.max_bytes,
    )
}

/// Takes the verify job's counted verify errors out of fio's final JSON: when its `error` is
/// EILSEQ (a block that read back wrong; `continue_on_error=verify` went on after it), the
/// error is cleared and its `total_err` returned. Any other error stays, for the results to
/// report.
fn take_verify_errors(out: &mut FioOutput) -> u64 {
    let section = section_name(1);
    match out.jobs.iter_mut().find(|j| j.jobname == section) {
        Some(job) if job.error == EILSEQ => {
            job.error = 0;
            job.total_err.unwrap_or(1).max(1)
        }
        _ => 0,
    }
}

/// What the write phase measured, from fio's per-request log `entries`: the units, samples
/// and latencies as [`super::measure`] takes them.
///
/// Errors: the log's requests are not the phase's (their bytes or count differ from fio's
/// JSON, or a request is not the plan's size or not in order).
fn written(plan: &Plan, entries: &[LogEntry], phase: &PhaseResult) -> Result<Written, String> {
    let writes: Vec<&LogEntry> = entries.iter().filter(|e| e.direction == 1).collect();
    let mut bytes = 0;
    let mut unit = Unit {
        bytes: 0,
        seconds: 0.0,
    };
    let mut units = Vec::new();
    let mut latencies_us = Vec::with_capacity(writes.len());
    let mut sampler = Sampler::default();
    for e in &writes {
        if e.offset != bytes || e.bytes != plan.request_bytes {
            return Err(format!(
                "a request of {} bytes at offset {}, where {} bytes at {bytes} were next",
                e.bytes, e.offset, plan.request_bytes
            ));
        }
        let seconds = e.value as f64 / 1e9;
        bytes += e.bytes;
        latencies_us.push(seconds * 1e6);
        unit.bytes += e.bytes;
        unit.seconds += seconds;
        if unit.bytes >= plan.unit_bytes {
            units.push(unit);
            unit = Unit {
                bytes: 0,
                seconds: 0.0,
            };
        }
        sampler.completed(e.time_ms, bytes, seconds);
    }
    if bytes != phase.bytes || writes.len() as u64 != phase.ios {
        return Err(format!(
            "{} requests of {bytes} bytes logged, {} of {} in the result",
            writes.len(),
            phase.ios,
            phase.bytes
        ));
    }
    Ok(Written {
        bytes,
        units,
        samples: sampler.finish(bytes),
        latencies_us,
        settled: false,
        phase: phase.clone(),
    })
}

/// The one-second samples, taken as [`super::measure`] takes them: at the first request that
/// completed a second or more after the last sample, the bytes so far and the speed since
/// over the seconds the drive had a request; and one at the end.
#[derive(Debug, Default)]
struct Sampler {
    samples: Vec<SpeedSample>,
    busy: f64,
    /// When the last sample was taken (ms), and the bytes and busy seconds then.
    last: (u64, u64, f64),
}

impl Sampler {
    fn completed(&mut self, time_ms: u64, bytes: u64, seconds: f64) {
        self.busy += seconds;
        if time_ms.saturating_sub(self.last.0) >= 1000 {
            self.sample(time_ms, bytes);
        }
    }

    fn sample(&mut self, time_ms: u64, bytes: u64) {
        let (_, last_bytes, last_busy) = self.last;
        let dt = (self.busy - last_busy).max(1e-9);
        self.samples.push(SpeedSample {
            bytes,
            bytes_per_second: (bytes - last_bytes) as f64 / dt,
        });
        self.last = (time_ms, bytes, self.busy);
    }

    fn finish(mut self, bytes: u64) -> Vec<SpeedSample> {
        if bytes > self.last.1 {
            self.sample(self.last.0, bytes);
        }
        self.samples
    }
}

/// What the read-back found: of `written` bytes, `corrupt` 4 KiB blocks failed fio's verify
/// (the first at `first_corrupt`); blocks fio did not read (the phase's bytes short of
/// `written`) count as corrupt too, as the built-in engine counts a file that ends early.
fn verified(
    written: u64,
    corrupt: u64,
    first_corrupt: Option<u64>,
    phase: &PhaseResult,
) -> Verified {
    let read = phase.bytes.min(written);
    let missing = (written - read) / VERIFY_BLOCK;
    let good = read.saturating_sub(corrupt * VERIFY_BLOCK);
    Verified {
        bytes: good,
        corrupt_blocks: corrupt + missing,
        first_corrupt: first_corrupt.or((missing > 0).then_some(read)),
        phase: phase.clone(),
    }
}

/// A folder of the program's own for fio's log (mode 0700, made with `mkdtemp` under the
/// temporary directory, or `/tmp` when that path holds anything but plain characters, which
/// a job file could misread), removed with everything in it on drop.
#[derive(Debug)]
struct LogDir {
    path: PathBuf,
}

impl LogDir {
    fn create() -> std::io::Result<LogDir> {
        let base = Some(std::env::temp_dir())
            .filter(|p| is_plain(p))
            .unwrap_or_else(|| PathBuf::from("/tmp"));
        let path = nix::unistd::mkdtemp(&base.join("agnostics-fio-log.XXXXXX"))?;
        Ok(LogDir { path })
    }

    /// The `write_lat_log` value: the folder and [`LOG_PREFIX`].
    fn prefix(&self) -> String {
        self.path.join(LOG_PREFIX).to_string_lossy().into_owned()
    }

    /// The completion-latency log fio wrote, at most 16 MiB (4 GiB in 512 KiB requests is
    /// 8192 lines of about 40 bytes).
    fn read_write_log(&self) -> std::io::Result<String> {
        use std::io::Read;
        let path = self.path.join(format!("{LOG_PREFIX}_clat.1.log"));
        let mut text = String::new();
        std::fs::File::open(path)?
            .take(16 << 20)
            .read_to_string(&mut text)?;
        Ok(text)
    }
}

impl Drop for LogDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// True when `path` is absolute and holds only ASCII letters, digits, `/`, `.`, `_` and `-`.
fn is_plain(path: &Path) -> bool {
    path.is_absolute()
        && path.to_str().is_some_and(|s| {
            s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"/._-".contains(&b))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MIB;

    #[test]
    fn the_job_file_writes_the_plan_and_reads_it_back_in_verified_blocks() {
        let plan = Plan::new(1 << 40, None, 40 * MIB).unwrap();
        let text = job_text(&plan, "/tmp/agnostics-fio-log.abc/sustained-write", None);
        assert!(text
            .contains("[job0]\nrw=write\nbs=4194304\nsize=41943040\niodepth=1\nioengine=psync\n"));
        assert!(text.contains("write_lat_log=/tmp/agnostics-fio-log.abc/sustained-write\n"));
        assert!(text.contains(
            "[job1]\nrw=read\nbs=4096\nsize=41943040\niodepth=16\nioengine=libaio\n\
             continue_on_error=verify\nstonewall\n"
        ));
        assert_eq!(text.matches("filename=").count(), 1);
        assert!(!text.contains("exec_"));
        let counted = job_text(&plan, "/tmp/x/p", Some((179, 2)));
        assert_eq!(
            counted
                .matches("exec_prerun=cat /sys/dev/block/179:2/stat\n")
                .count(),
            2
        );
    }

    #[test]
    fn only_plain_paths_go_into_the_job_file() {
        assert!(is_plain(Path::new("/tmp/agnostics-fio-log.Ab_9")));
        for bad in [
            "tmp/x",
            "/tmp/a b",
            "/tmp/x\n[job9]",
            "/tmp/$HOME",
            "/tmp/a:b",
        ] {
            assert!(!is_plain(Path::new(bad)), "{bad}");
        }
    }

    fn phase(bytes: u64, ios: u64) -> PhaseResult {
        PhaseResult {
            bytes,
            ios,
            ..PhaseResult::default()
        }
    }

    /// Requests of 1 MiB, `ms` apart, taking `ns` each.
    fn log(count: u64, ms: u64, ns: u64) -> Vec<LogEntry> {
        (0..count)
            .map(|i| LogEntry {
                time_ms: (i + 1) * ms,
                value: ns,
                direction: 1,
                bytes: MIB,
                offset: i * MIB,
            })
            .collect()
    }

    #[test]
    fn the_log_gives_units_latencies_and_samples_as_the_built_in_engine_takes_them() {
        // 1 MiB units (a 1 MiB AU), requests of 1 MiB taking 0.5 s, completed 0.5 s apart.
        let plan = Plan::new(1 << 40, Some(MIB), 8 * MIB).unwrap();
        let w = written(&plan, &log(8, 500, 500_000_000), &phase(8 * MIB, 8)).unwrap();
        assert_eq!(w.units.len(), 8);
        assert!(w.units.iter().all(|u| u.bytes == MIB && u.seconds == 0.5));
        assert_eq!(w.latencies_us, vec![500_000.0; 8]);
        // A sample every second: after 2, 4, 6 and 8 MiB, each 2 MiB over 1 s of requests.
        let bytes: Vec<u64> = w.samples.iter().map(|s| s.bytes).collect();
        assert_eq!(bytes, [2 * MIB, 4 * MIB, 6 * MIB, 8 * MIB]);
        assert!(w
            .samples
            .iter()
            .all(|s| s.bytes_per_second == 2.0 * MIB as f64));
        assert!(!w.settled);
    }

    #[test]
    fn a_log_that_is_not_the_phase_is_refused() {
        let plan = Plan::new(1 << 40, Some(MIB), 8 * MIB).unwrap();
        assert!(written(&plan, &log(7, 10, 1000), &phase(8 * MIB, 8)).is_err());
        let mut gap = log(8, 10, 1000);
        gap[3].offset += MIB;
        assert!(written(&plan, &gap, &phase(8 * MIB, 8)).is_err());
    }

    #[test]
    fn verify_errors_and_blocks_not_read_count_as_corrupt() {
        let v = verified(8 * MIB, 5, Some(12288), &phase(8 * MIB, 2048));
        assert_eq!(
            (v.bytes, v.corrupt_blocks, v.first_corrupt),
            (8 * MIB - 5 * 4096, 5, Some(12288))
        );
        let v = verified(8 * MIB, 0, None, &phase(8 * MIB - 8192, 2046));
        assert_eq!(
            (v.bytes, v.corrupt_blocks, v.first_corrupt),
            (8 * MIB - 8192, 2, Some(8 * MIB - 8192))
        );
    }

    #[test]
    fn a_verify_pass_s_eilseq_is_its_count_and_other_errors_stay() {
        let json = |error: i32, total: &str| {
            format!(
                "{{\"jobs\": [{{\"jobname\": \"job1\", \"error\": {error}, {total} \
                 \"read\": null, \"write\": null}}]}}"
            )
        };
        // fio 3.33's result for a verify pass over 12 MiB with five damaged blocks.
        let real = include_str!("../../tests/fixtures/fio/sustained-verify.json");
        let mut out = final_output(real).unwrap();
        assert_eq!(out.jobs[0].error, libc::EILSEQ);
        assert_eq!(take_verify_errors(&mut out), 5);
        assert_eq!(out.jobs[0].error, 0);
        let read = out.jobs[0].read.as_ref().unwrap();
        assert_eq!(
            (read.io_bytes, read.total_ios),
            (Some(12 * MIB), Some(3072))
        );
        let mut out = final_output(&json(5, "\"total_err\": 1,")).unwrap();
        assert_eq!(take_verify_errors(&mut out), 0);
        assert_eq!(out.jobs[0].error, 5);
    }
}
