//! The native engine: O_DIRECT with aligned buffers, real queue depth through io_uring, or a
//! pool of `iodepth` threads doing pread/pwrite where io_uring is refused.

use super::testfile::TestFile;
use super::{EngineError, PhaseResult, RunContext};
use crate::profile::Profile;

/// Runs the profile's jobs in order on `file`.
pub fn run_profile(
    profile: &Profile,
    file: &TestFile,
    ctx: &RunContext<'_>,
    io_path: &mut String,
) -> Result<Vec<PhaseResult>, EngineError> {
    let _ = (profile, file, ctx, io_path);
    Err(EngineError::FioFailed {
        message: "native engine not built yet".into(),
    })
}
