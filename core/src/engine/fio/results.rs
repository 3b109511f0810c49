//! fio's final output turned into the phases' results, or into the error that names what went
//! wrong (a job's errno, fio's exit, a job or value missing from its JSON).

use super::jobfile::section_name;
use super::output::{final_output, FioOutput, JobProblem};
use crate::engine::{EngineError, PhaseResult};
use crate::profile::Profile;

/// fio's own error lines (`fio: …`) from both streams, at most a few, joined.
fn fio_messages(stdout: &str, stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .chain(stdout.lines().take_while(|l| !l.starts_with('{')))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let fio_lines: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("fio:"))
        .collect();
    let chosen = if fio_lines.is_empty() {
        lines
    } else {
        fio_lines
    };
    chosen.into_iter().take(4).collect::<Vec<_>>().join("; ")
}

/// Turns fio's output (its whole stdout and stderr, and how it exited) into one result per
/// job of `profile`, in profile order, each found under its section name
/// ([`super::jobfile::section_name`] of its index: `job0`, `job1`, …) and named after the profile's
/// job.
///
/// Errors: the cause a job's errno names ([`EngineError::from_fio_errno`]: ENOSPC/EDQUOT →
/// [`EngineError::NoSpace`], EROFS → [`EngineError::ReadOnly`], ENOENT/ELOOP/ESTALE →
/// [`EngineError::TestFileGone`], EIO/ENODEV/ENXIO → [`EngineError::Io`]);
/// [`EngineError::FioFailed`] (with fio's own `fio: …` lines) when a job reports another
/// error, fio exited with a failure, or a job or value is missing from its JSON.
pub fn results_from_output(
    profile: &Profile,
    stdout: &str,
    stderr: &str,
    status: std::process::ExitStatus,
) -> Result<Vec<PhaseResult>, EngineError> {
    results_from_parsed(profile, final_output(stdout), stdout, stderr, status)
}

/// [`results_from_output`] with fio's final JSON already read from `stdout` (`parsed`, or why
/// it could not be), for a caller that looks at it first.
///
/// Errors: as [`results_from_output`].
pub fn results_from_parsed(
    profile: &Profile,
    parsed: Result<FioOutput, String>,
    stdout: &str,
    stderr: &str,
    status: std::process::ExitStatus,
) -> Result<Vec<PhaseResult>, EngineError> {
    let messages = fio_messages(stdout, stderr);
    let failed = |what: String| EngineError::FioFailed {
        message: if messages.is_empty() {
            what
        } else {
            format!("{what}: {messages}")
        },
    };
    // A job's own error says most about what happened; look at those first.
    if let Ok(out) = &parsed {
        for (index, job) in profile.jobs.iter().enumerate() {
            if let Some(found) = out.job(&section_name(index)) {
                let op = if job.rw.is_write() { "write" } else { "read" };
                if let Some(e) = EngineError::from_fio_errno(&job.name, op, found.error) {
                    return Err(e);
                }
                if found.error != 0 {
                    let errno = std::io::Error::from_raw_os_error(found.error);
                    return Err(failed(format!("job {} failed ({errno})", job.name)));
                }
            }
        }
    }
    if !status.success() {
        return Err(failed(format!("fio exited with {status}")));
    }
    let out = parsed.map_err(failed)?;
    let mut results = Vec::with_capacity(profile.jobs.len());
    for (index, job) in profile.jobs.iter().enumerate() {
        match out.phase(job, &section_name(index)) {
            Ok(result) => results.push(result),
            Err(JobProblem::Missing) => {
                return Err(failed(format!("no job named {} in fio's output", job.name)))
            }
            Err(JobProblem::Error(errno)) => {
                let errno = std::io::Error::from_raw_os_error(errno);
                return Err(failed(format!("job {} failed ({errno})", job.name)));
            }
            Err(JobProblem::MissingValue(key)) => {
                return Err(failed(format!(
                    "fio's output for job {} has no {key}",
                    job.name
                )))
            }
            Err(JobProblem::EndedInRamp) => {
                return Err(EngineError::EndedInRamp {
                    phase: job.name.clone(),
                    ramp_ms: job
                        .ramp_time
                        .map_or(0, |r| u64::try_from(r.as_millis()).unwrap_or(u64::MAX)),
                })
            }
            Err(JobProblem::Inconsistent(why)) => {
                return Err(failed(format!(
                    "fio's output for job {} contradicts itself: {why}",
                    job.name
                )))
            }
        }
    }
    Ok(results)
}
