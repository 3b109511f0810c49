//! Reading fio's `--output-format=json` output: the JSON documents in stdout (after any
//! non-JSON lines fio prints first, such as `fio: io_u error …` on a full disk), each job found
//! by its `jobname` (the section name the program gave it in the job file), never by position:
//! adding a job must not shift any other value. A missing job or value is an error, never a
//! zero.

use serde::Deserialize;

use crate::engine::{LatencyUs, PhaseResult};
use crate::profile::Job;

/// One of fio's JSON documents (the final result, or a `--status-interval` snapshot).
#[derive(Debug, Clone, Deserialize)]
pub struct FioOutput {
    /// The jobs, in fio's order.
    pub jobs: Vec<FioJob>,
}

/// One job of fio's JSON output.
#[derive(Debug, Clone, Deserialize)]
pub struct FioJob {
    /// The section name.
    pub jobname: String,
    /// The job's errno (0 when it went well).
    #[serde(default)]
    pub error: i32,
    /// Milliseconds the job ran (0 before it starts, in snapshots).
    #[serde(default)]
    pub job_runtime: u64,
    /// Errors fio went on after (`continue_on_error`); fio prints it with that option only.
    #[serde(default)]
    pub total_err: Option<u64>,
    /// Read statistics.
    pub read: Option<FioDirection>,
    /// Write statistics.
    pub write: Option<FioDirection>,
}

/// Statistics of one direction (`read` or `write`) of a job. Every field is optional here so
/// that a missing one is reported by name.
#[derive(Debug, Clone, Deserialize)]
pub struct FioDirection {
    /// Bytes transferred.
    pub io_bytes: Option<u64>,
    /// Bandwidth, bytes per second.
    pub bw_bytes: Option<f64>,
    /// I/O operations per second.
    pub iops: Option<f64>,
    /// Milliseconds.
    pub runtime: Option<u64>,
    /// I/O operations.
    pub total_ios: Option<u64>,
    /// Completion latency, ns.
    pub clat_ns: Option<FioLatency>,
}

/// fio's completion latency block.
#[derive(Debug, Clone, Deserialize)]
pub struct FioLatency {
    /// Largest, ns.
    pub max: Option<f64>,
    /// Percentiles by their fio key (`"50.000000"`), ns.
    pub percentile: Option<std::collections::BTreeMap<String, f64>>,
}

impl FioJob {
    /// Bytes moved in either direction (for progress).
    pub fn io_bytes(&self) -> u64 {
        let r = self.read.as_ref().and_then(|d| d.io_bytes).unwrap_or(0);
        let w = self.write.as_ref().and_then(|d| d.io_bytes).unwrap_or(0);
        r + w
    }
}

/// Every JSON document in fio's stdout, in order. Text outside the documents (fio's error
/// lines, printed before the JSON) is skipped: a document starts at a `{` that begins a line.
pub fn documents(stdout: &str) -> Vec<serde_json::Value> {
    let mut found = Vec::new();
    let mut rest = stdout;
    while let Some(start) = next_object_start(rest) {
        let text = &rest[start..];
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde_json::Value>();
        match stream.next() {
            Some(Ok(value)) => {
                found.push(value);
                rest = &text[stream.byte_offset()..];
            }
            _ => rest = &text[1..],
        }
    }
    found
}

/// The byte index of the next `{` at the start of a line (or of the text).
fn next_object_start(text: &str) -> Option<usize> {
    if text.starts_with('{') {
        return Some(0);
    }
    text.find("\n{").map(|i| i + 1)
}

/// The last of fio's JSON documents in `stdout` that has a `jobs` list (fio's final result
/// comes after its status snapshots). Errors: no such document (the text is fio's message).
pub fn final_output(stdout: &str) -> Result<FioOutput, String> {
    let mut last_error = None;
    for value in documents(stdout).into_iter().rev() {
        if value.get("jobs").is_none() {
            continue;
        }
        match serde_json::from_value::<FioOutput>(value) {
            Ok(out) => return Ok(out),
            Err(e) => last_error = Some(e.to_string()),
        }
    }
    Err(match last_error {
        Some(e) => format!("fio's JSON output is not as expected: {e}"),
        None => "fio printed no JSON result".to_owned(),
    })
}

/// Why a job's result cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobProblem {
    /// No job of that name in fio's output.
    Missing,
    /// The job reports this errno.
    Error(i32),
    /// A value is absent (named, e.g. `write.bw_bytes`).
    MissingValue(String),
    /// The job did all its work within its `ramp_time`: no request completed after it.
    EndedInRamp,
    /// The values contradict each other or the job (what, in words): a rate that is not the
    /// job's bytes or requests over its runtime, or a job without a time limit that did not
    /// cover its size. fio itself never prints such a result; a program that does is not
    /// measuring.
    Inconsistent(String),
}

impl FioOutput {
    /// The job named `name`, found by name.
    pub fn job(&self, name: &str) -> Option<&FioJob> {
        self.jobs.iter().find(|j| j.jobname == name)
    }

    /// The measured result of `job`, found in fio's output under the section name `section`
    /// (see [`super::jobfile::section_name`]) and read from the direction it runs (`write` for
    /// writes); the result carries the profile's job name. Latency is fio's completion latency
    /// (`clat_ns`) in µs, percentiles capped at the maximum.
    ///
    /// Errors: the job is missing, reports an error, or lacks a value.
    pub fn phase(&self, job: &Job, section: &str) -> Result<PhaseResult, JobProblem> {
        let found = self.job(section).ok_or(JobProblem::Missing)?;
        if found.error != 0 {
            return Err(JobProblem::Error(found.error));
        }
        let dir_name = if job.rw.is_write() { "write" } else { "read" };
        let missing = |what: &str| JobProblem::MissingValue(format!("{dir_name}.{what}"));
        let dir = if job.rw.is_write() {
            found.write.as_ref()
        } else {
            found.read.as_ref()
        }
        .ok_or_else(|| JobProblem::MissingValue(dir_name.to_owned()))?;
        let bytes = dir.io_bytes.ok_or_else(|| missing("io_bytes"))?;
        let ios = dir.total_ios.ok_or_else(|| missing("total_ios"))?;
        // A job with nothing measured after its ramp: no bytes, and fio prints no latency
        // percentiles for it.
        let no_percentiles = dir.clat_ns.as_ref().is_none_or(|c| c.percentile.is_none());
        if job.ramp_time.is_some() && (bytes == 0 || no_percentiles) {
            return Err(JobProblem::EndedInRamp);
        }
        let runtime_ms = dir.runtime.ok_or_else(|| missing("runtime"))?;
        let bw_bytes = dir.bw_bytes.ok_or_else(|| missing("bw_bytes"))?;
        let iops = dir.iops.ok_or_else(|| missing("iops"))?;
        let clat = dir.clat_ns.as_ref().ok_or_else(|| missing("clat_ns"))?;
        let max = clat.max.ok_or_else(|| missing("clat_ns.max"))?;
        let percentiles = clat
            .percentile
            .as_ref()
            .ok_or_else(|| missing("clat_ns.percentile"))?;
        let pct = |key: &str| {
            percentiles
                .get(key)
                .copied()
                .ok_or_else(|| missing(&format!("clat_ns.percentile.{key}")))
        };
        let p50 = pct("50.000000")?;
        let p99 = pct("99.000000")?;
        check_consistent(job, bytes, ios, runtime_ms, bw_bytes, iops)
            .map_err(JobProblem::Inconsistent)?;
        Ok(PhaseResult {
            name: job.name.clone(),
            rw: job.rw,
            bs: job.bs,
            iodepth: job.iodepth,
            bytes,
            ios,
            seconds: runtime_ms as f64 / 1000.0,
            bw_bytes,
            iops,
            // fio's percentiles are the upper ends of its histogram buckets and can exceed
            // the exact maximum for short jobs; they are capped at it.
            lat_us: LatencyUs {
                p50: p50.min(max) / 1000.0,
                p99: p99.min(max) / 1000.0,
                max: max / 1000.0,
            },
            samples: Vec::new(),
            stopped_by_runtime: job.time_based
                || match job.ramp_time {
                    None => bytes < job.work_bytes(),
                    // Part of the work was done before measuring began, so bytes cannot
                    // tell; a measured time that reached the runtime can.
                    Some(_) => job
                        .runtime
                        .is_some_and(|r| u128::from(runtime_ms) + 100 >= r.as_millis()),
                },
            device_io: None,
            // fio keeps the profile's depth: it allocates iodepth × bs of buffers.
            depth_limit: None,
        })
    }
}

/// The share by which fio's rates may differ from bytes (or requests) over runtime: fio
/// derives them from the same counters (`bw_bytes` is `io_bytes × 1000 / runtime` rounded down,
/// `iops` is `total_ios × 1000 / runtime`), so anything beyond rounding is not a measurement.
const RATE_TOLERANCE: f64 = 0.01;

/// Checks that fio's figures for `job` agree with each other: `bw_bytes` and `iops` are the
/// job's `io_bytes` and `total_ios` over its `runtime` (ms; not checked when 0, where fio prints
/// no rate), and a job without a time limit or ramp covered its whole work (size in whole
/// blocks × loops × numjobs). Errors: what
/// disagrees, in words.
fn check_consistent(
    job: &Job,
    bytes: u64,
    ios: u64,
    runtime_ms: u64,
    bw_bytes: f64,
    iops: f64,
) -> Result<(), String> {
    if !bw_bytes.is_finite() || !iops.is_finite() || bw_bytes < 0.0 || iops < 0.0 {
        return Err(format!(
            "rates {bw_bytes} bytes/s and {iops} IOPS are not measurements"
        ));
    }
    if runtime_ms > 0 {
        let seconds = runtime_ms as f64 / 1000.0;
        let agrees = |claimed: f64, count: u64| {
            let derived = count as f64 / seconds;
            (claimed - derived).abs() <= derived * RATE_TOLERANCE + 1.0
        };
        if !agrees(bw_bytes, bytes) {
            return Err(format!(
                "bw_bytes {bw_bytes} is not io_bytes {bytes} over runtime {runtime_ms} ms"
            ));
        }
        if !agrees(iops, ios) {
            return Err(format!(
                "iops {iops} is not total_ios {ios} over runtime {runtime_ms} ms"
            ));
        }
    } else if bw_bytes > 0.0 || iops > 0.0 {
        return Err(format!(
            "rates {bw_bytes} bytes/s and {iops} IOPS over a runtime of 0 ms"
        ));
    }
    let whole = job.work_bytes();
    if job.runtime.is_none() && job.ramp_time.is_none() && bytes < whole {
        return Err(format!(
            "it stopped early: io_bytes {bytes} of its size {whole}, with no runtime limit"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_text_before_the_json() {
        let docs = documents("fio: something went wrong {not json}\n{\"a\": 1}\n");
        assert_eq!(docs, vec![serde_json::json!({"a": 1})]);
    }

    #[test]
    fn reads_consecutive_documents() {
        let docs = documents("{\"a\": 1}\n{\"a\": 2}\nfio: late line\n{\"a\": 3}\n");
        assert_eq!(docs.len(), 3);
        assert_eq!(docs[2]["a"], 3);
    }

    #[test]
    fn no_json_is_an_error() {
        assert!(final_output("fio: failed to start\n").is_err());
        assert!(final_output("").is_err());
        assert!(final_output("{\"jobs\": 3}\n").is_err());
    }
}
