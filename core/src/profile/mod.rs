//! Profiles: the subset of fio's job-file format that Agnostics runs.
//!
//! A profile is a fio job file with a `[global]` section and job sections, using only the keys
//! `rw`, `bs`, `size`, `iodepth`, `direct`, `end_fsync`, `runtime`, `time_based`, `ramp_time`,
//! `loops`, `numjobs` (with `group_reporting`), `stonewall`, `filename`, `directory`,
//! `ioengine`, `thread`, `name` and `description`, plus `;`/`#` comment lines (fio HOWTO, "Job
//! file format"). Anything else is an error naming the file, the line and the key, never silently
//! dropped. Jobs must run one after another (`stonewall`), as the standard test's do.
//!
//! The program never lets a profile choose which file is written: `directory` is replaced by the
//! chosen target and `filename` is ignored with a warning.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub mod builtin;
mod duration;
mod options;
mod parse;

pub use builtin::{Builtin, BuiltinProfile};

/// The standard SD card test, upstream agnostics' `sd_bench.fio` (0.15 and later), built in.
pub const SD_BENCH: &str = include_str!("../../../data/sd_bench.fio");

/// The I/O pattern of a job (fio's `rw`), serialised in fio's spelling (`read`, `write`,
/// `randread`, `randwrite`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    /// Sequential reads (`rw=read`).
    #[default]
    Read,
    /// Sequential writes (`rw=write`).
    Write,
    /// Random reads, every block once (`rw=randread`).
    RandRead,
    /// Random writes, every block once (`rw=randwrite`).
    RandWrite,
}

impl Rw {
    /// True for `write` and `randwrite`.
    pub fn is_write(self) -> bool {
        matches!(self, Rw::Write | Rw::RandWrite)
    }
    /// True for `randread` and `randwrite`.
    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite)
    }
    /// fio's spelling of the pattern.
    pub fn as_fio(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::RandRead => "randread",
            Rw::RandWrite => "randwrite",
        }
    }
}

/// One job of a profile: one phase of the test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    /// The job's name, e.g. `seq-write`: its `name=` when it has one (fio prints that
    /// instead of the section name), else the section name. Results carry this name.
    pub name: String,
    /// fio's `description`: text shown with the job, nothing else.
    pub description: Option<String>,
    /// The I/O pattern.
    pub rw: Rw,
    /// Block size in bytes (fio `bs`; default 4 KiB).
    pub bs: u64,
    /// Bytes of the file this job covers (fio `size`).
    pub size_bytes: u64,
    /// Requests kept in flight (fio `iodepth`; default 1). Always 1 with a synchronous
    /// `ioengine` (`sync`, `psync`, `pvsync`, `pvsync2`), as fio runs them.
    pub iodepth: u32,
    /// O_DIRECT (fio `direct`; default off).
    pub direct: bool,
    /// fsync the file when a writing job ends, counted in its time (fio `end_fsync`).
    pub end_fsync: bool,
    /// Time limit, measured after `ramp_time`; the job ends when it has done its work
    /// (`size_bytes`, `loops` times, for each of its `numjobs` clones) or at this, whichever
    /// comes first (fio `runtime`).
    pub runtime: Option<Duration>,
    /// fio's `time_based`: run for all of `runtime` (always set then), starting over at the
    /// file's start whenever `size_bytes` are done (sequential from 0 again, random with a
    /// fresh order).
    pub time_based: bool,
    /// fio's `ramp_time`: the job runs this long before anything is measured; bytes, IOPS,
    /// latency, samples and seconds count only what completes after it, and `runtime` starts
    /// after it. Its I/O still counts towards the job's work (`size_bytes`).
    pub ramp_time: Option<Duration>,
    /// fio's `loops`: the job's work is done this many times (at least 1) in a row, each pass
    /// finishing its requests in flight and its `end_fsync` before the next starts.
    pub loops: u32,
    /// fio's `numjobs`: this many clones (at least 1) run at the same time on the one test
    /// file, each over all of `[0, size_bytes)` with its own offsets (each sequential clone
    /// from 0, each random one in its own order) and its own `iodepth`; they are measured as
    /// one job (fio's `group_reporting`, which a profile with `numjobs` > 1 must ask for).
    pub numjobs: u32,
    /// fio's `ioengine`, passed on to fio by the fio engine (default `libaio`).
    pub ioengine: String,
    /// The line of the section header, for messages.
    pub line: usize,
}

/// A parsed profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Profile {
    /// A short name: the file stem (`sd_bench` for the built-in one).
    pub name: String,
    /// The file it was read from; `None` for the built-in profile.
    pub source: Option<PathBuf>,
    /// Which built-in profile it is: the standard test for text parsed without a file, until
    /// [`Builtin::profile`] says which; `None` for a job file. Not in the JSON, whose `name`
    /// and `source` say it.
    #[serde(skip)]
    pub builtin: Option<BuiltinProfile>,
    /// The jobs, in the order they run.
    pub jobs: Vec<Job>,
    /// Things in the file that are ignored, for the report (e.g. a `filename`).
    pub warnings: Vec<String>,
}

/// Why a job file is not a profile: the file, the line (1-based; 0 when the error concerns the
/// whole file) and the key, with the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {key}: {reason}")]
pub struct ProfileError {
    /// The file name as given (or `sd_bench.fio (built in)`).
    pub file: String,
    /// 1-based line number; 0 for the whole file.
    pub line: usize,
    /// The key at fault, or the section/directive when there is no key.
    pub key: String,
    /// What is wrong, and where it helps, what to do.
    pub reason: String,
}

impl Job {
    /// Bytes one pass of one clone covers: `size_bytes` rounded down to whole blocks.
    pub fn span_bytes(&self) -> u64 {
        self.size_bytes
            .checked_div(self.bs)
            .map_or(0, |b| b * self.bs)
    }

    /// The bytes the job moves when neither `runtime` nor `time_based` stops it:
    /// [`Job::span_bytes`] × `loops` × `numjobs` (ramp included).
    pub fn work_bytes(&self) -> u64 {
        self.span_bytes()
            .saturating_mul(u64::from(self.loops.max(1)))
            .saturating_mul(u64::from(self.numjobs.max(1)))
    }
}

impl Profile {
    /// The built-in standard test (`data/sd_bench.fio`).
    pub fn sd_bench() -> Profile {
        Profile::parse(SD_BENCH, "sd_bench.fio (built in)", None)
            .expect("the built-in sd_bench.fio is a valid profile")
    }

    /// The largest job file read, bytes: far more than any real job file, small enough that
    /// `--profile /dev/zero` cannot eat the memory of a Pi Zero.
    pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

    /// Reads and parses a job file. Errors (line 0, key `file`): it cannot be opened, is not a
    /// regular file (a FIFO or device would block or never end), is larger than
    /// [`Profile::MAX_FILE_BYTES`] or is not UTF-8; then [`Profile::parse`]'s errors.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        use std::io::Read;
        use std::os::unix::fs::OpenOptionsExt;
        let display = path.display().to_string();
        let err = |reason: String| ProfileError {
            file: display.clone(),
            line: 0,
            key: "file".into(),
            reason,
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| err(format!("cannot read it: {e}")))?;
        let meta = file
            .metadata()
            .map_err(|e| err(format!("cannot read it: {e}")))?;
        if !meta.is_file() {
            return Err(err("not a regular file".into()));
        }
        if meta.len() > Self::MAX_FILE_BYTES {
            return Err(err(format!(
                "{} bytes is too large for a job file (at most {})",
                meta.len(),
                Self::MAX_FILE_BYTES
            )));
        }
        let mut bytes = Vec::new();
        file.take(Self::MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| err(format!("cannot read it: {e}")))?;
        if bytes.len() as u64 > Self::MAX_FILE_BYTES {
            return Err(err("too large for a job file".into()));
        }
        let text = String::from_utf8(bytes).map_err(|_| err("not UTF-8 text".into()))?;
        Profile::parse(&text, &display, Some(path.to_path_buf()))
    }

    /// The size the test file must have: the largest job's `size`, in bytes.
    pub fn file_size_bytes(&self) -> u64 {
        self.jobs.iter().map(|j| j.size_bytes).max().unwrap_or(0)
    }

    /// The job of that name, if any.
    pub fn job(&self, name: &str) -> Option<&Job> {
        self.jobs.iter().find(|j| j.name == name)
    }
}

/// fio's synchronous engines: one request at a time, whatever `iodepth` says.
pub fn is_sync_engine(ioengine: &str) -> bool {
    matches!(ioengine, "sync" | "psync" | "pvsync" | "pvsync2")
}

impl fmt::Display for Rw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_fio())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MIB;

    #[test]
    fn builtin_profile_has_upstreams_five_phases() {
        let p = Profile::sd_bench();
        let names: Vec<_> = p.jobs.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "prepare-file",
                "seq-write",
                "seq-read",
                "rand-4k-write",
                "rand-4k-read"
            ]
        );
        for j in &p.jobs {
            assert_eq!(j.size_bytes, 256 * MIB);
            assert_eq!(j.iodepth, 32);
            assert!(j.direct);
            assert!(j.end_fsync);
            assert_eq!(j.ioengine, "libaio");
        }
        assert_eq!(p.job("prepare-file").unwrap().bs, 512 * 1024);
        assert_eq!(p.job("seq-write").unwrap().bs, 4 * MIB);
        assert_eq!(p.job("seq-read").unwrap().rw, Rw::Read);
        let rw = p.job("rand-4k-write").unwrap();
        assert_eq!(
            (rw.rw, rw.bs, rw.runtime),
            (Rw::RandWrite, 4096, Some(Duration::from_secs(10)))
        );
        assert_eq!(p.job("rand-4k-read").unwrap().rw, Rw::RandRead);
        assert_eq!(p.job("prepare-file").unwrap().runtime, None);
        assert_eq!(p.file_size_bytes(), 256 * MIB);
        assert!(p.warnings.is_empty());
    }

    fn parse(text: &str) -> Result<Profile, ProfileError> {
        Profile::parse(text, "t.fio", None)
    }

    #[test]
    fn unknown_key_names_file_line_and_key() {
        let e = parse("[global]\nsize=1m\n\n[a]\nrw=read\nverify=md5\n").unwrap_err();
        assert_eq!(
            (e.file.as_str(), e.line, e.key.as_str()),
            ("t.fio", 6, "verify")
        );
        assert!(e.to_string().starts_with("t.fio:6: verify:"), "{e}");
    }

    #[test]
    fn numjobs_needs_group_reporting() {
        let e = parse("[a]\nsize=1m\nnumjobs=4\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (3, "numjobs"));
        assert!(e.reason.contains("group_reporting"), "{e}");
        assert!(parse("[a]\nsize=1m\nnumjobs=1\n").is_ok());
        let p = parse("[global]\ngroup_reporting\n[a]\nsize=1m\nnumjobs=4\n").unwrap();
        assert_eq!(p.jobs[0].numjobs, 4);
        assert_eq!(p.jobs[0].work_bytes(), 4 * MIB);
        for bad in ["0", "65", "two"] {
            let text = format!("[a]\nsize=1m\ngroup_reporting\nnumjobs={bad}\n");
            assert_eq!(parse(&text).unwrap_err().key, "numjobs", "{bad}");
        }
    }

    #[test]
    fn new_keys_are_read_with_fios_meanings() {
        let p = parse(
            "[global]\nthread\ndescription=\"a test\"\nsize=2m\n\
             [a]\nname=first\ntime_based\nruntime=2\nramp_time=500ms\n\
             [b]\nstonewall\nloops=3\nbs=64k\n",
        )
        .unwrap();
        let (a, b) = (&p.jobs[0], &p.jobs[1]);
        assert_eq!(a.name, "first");
        assert_eq!(b.name, "b");
        assert_eq!(a.description.as_deref(), Some("a test"));
        assert!(a.time_based && !b.time_based);
        assert_eq!(a.runtime, Some(Duration::from_secs(2)));
        assert_eq!(a.ramp_time, Some(Duration::from_millis(500)));
        assert_eq!((a.loops, b.loops), (1, 3));
        assert_eq!(b.work_bytes(), 6 * MIB);
        assert_eq!(b.span_bytes(), 2 * MIB);
    }

    #[test]
    fn time_based_needs_a_runtime_and_names_must_differ() {
        let e = parse("[a]\nsize=1m\ntime_based\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (3, "time_based"));
        assert!(parse("[a]\nsize=1m\ntime_based=0\n").is_ok());
        let e = parse("[a]\nsize=1m\n[b]\nstonewall\nsize=1m\nname=a\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (6, "name"));
        assert_eq!(parse("[a]\nsize=1m\nloops=0\n").unwrap_err().key, "loops");
        assert_eq!(
            parse("[a]\nsize=1m\nramp_time=x\n").unwrap_err().key,
            "ramp_time"
        );
    }

    #[test]
    fn a_count_too_large_and_a_week_long_runtime_say_so() {
        let e = parse("[a]\nsize=1m\nloops=9223372036854775808\n").unwrap_err();
        assert_eq!(e.key, "loops");
        assert!(e.reason.contains("is too large"), "{}", e.reason);
        let e = parse("[a]\nsize=1m\nloops=3x\n").unwrap_err();
        assert!(e.reason.contains("not a whole number"), "{}", e.reason);
        let e = parse("[a]\nsize=1m\ntime_based\nruntime=999999999\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (4, "runtime"));
        assert!(e.reason.contains("longer than 7 days"), "{}", e.reason);
        assert!(parse("[a]\nsize=1m\ntime_based\nruntime=7d\n").is_ok());
        let e = parse("[a]\nsize=1m\nramp_time=8d\nruntime=1\n").unwrap_err();
        assert_eq!(e.key, "ramp_time");
    }

    #[test]
    fn bad_values_are_refused() {
        for (text, key) in [
            ("[a]\nsize=1x\n", "size"),
            ("[a]\nsize=1m\nbs=100\n", "bs"),
            ("[a]\nsize=1m\nbs=0\n", "bs"),
            ("[a]\nsize=1m\niodepth=0\n", "iodepth"),
            ("[a]\nsize=1m\niodepth=many\n", "iodepth"),
            ("[a]\nsize=1m\nrw=randrw\n", "rw"),
            ("[a]\nsize=1m\ndirect=2\n", "direct"),
            ("[a]\nsize=1m\nruntime=ten\n", "runtime"),
            ("[a]\nsize=1m\nioengine=rbd\n", "ioengine"),
            ("[a]\nsize=$mb\n", "size"),
            ("[a]\nsize=\n", "size"),
            ("[a]\nsize=4k\nbs=8k\n", "bs"),
        ] {
            let e = parse(text).unwrap_err();
            assert_eq!(e.key, key, "{text:?}: {e}");
        }
    }

    #[test]
    fn structure_errors_are_refused() {
        assert_eq!(parse("").unwrap_err().key, "jobs");
        assert_eq!(parse("[global]\nsize=1m\n").unwrap_err().key, "jobs");
        assert_eq!(parse("size=1m\n[a]\n").unwrap_err().line, 1);
        assert_eq!(parse("[a\nsize=1m\n").unwrap_err().line, 1);
        assert_eq!(parse("[a]\nrw=read\n").unwrap_err().key, "size");
        assert_eq!(parse("include other.fio\n").unwrap_err().key, "include");
        assert_eq!(
            parse("[a]\nsize=1m\n[a]\nsize=1m\nstonewall\n")
                .unwrap_err()
                .key,
            "a"
        );
        let e = parse("[a]\nsize=1m\n[b]\nsize=1m\n").unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (3, "stonewall"));
    }

    #[test]
    fn global_applies_to_later_jobs_and_jobs_override_it() {
        let p = parse("[global]\nsize=8m\nbs=8k\n[a]\nbs=16k\n[global]\nbs=64k\n[b]\nstonewall\n")
            .unwrap();
        assert_eq!(p.jobs[0].bs, 16384);
        assert_eq!(p.jobs[1].bs, 65536);
        assert_eq!(p.jobs[1].size_bytes, 8 * MIB);
        assert_eq!(p.jobs[0].rw, Rw::Read);
        assert_eq!(p.jobs[0].iodepth, 1);
    }

    #[test]
    fn filename_is_ignored_with_a_warning() {
        let p = parse("[a]\nsize=1m\nfilename=/dev/sda\n").unwrap();
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("/dev/sda"));
    }

    #[test]
    fn spaces_around_equals_and_flags_are_accepted() {
        let p = parse("[a]\n size = 2m \n direct\n end_fsync = 1\n runtime=2s\n").unwrap();
        assert!(p.jobs[0].direct && p.jobs[0].end_fsync);
        assert_eq!(p.jobs[0].runtime, Some(Duration::from_secs(2)));
    }

    #[test]
    fn load_refuses_devices_and_huge_files() {
        let e = Profile::load(Path::new("/dev/zero")).unwrap_err();
        assert_eq!((e.line, e.key.as_str()), (0, "file"));
        assert!(e.reason.contains("regular file"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.fio");
        std::fs::write(&big, vec![b';'; (Profile::MAX_FILE_BYTES + 1) as usize]).unwrap();
        assert!(Profile::load(&big)
            .unwrap_err()
            .reason
            .contains("too large"));
        let missing = Profile::load(&dir.path().join("none.fio")).unwrap_err();
        assert!(missing.reason.contains("cannot read"), "{missing}");
    }
}
