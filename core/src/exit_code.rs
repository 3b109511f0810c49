//! How every command of this program ends, as its exit status says: one vocabulary for the
//! CLI's commands and the desktop app, the numbers written once.
//!
//! 0 the check passed (PASS, a profile that only measures measured every job, a genuine drive,
//! a healthy one, every script passed) or the command did what it was asked; 1 it failed (FAIL,
//! a fake drive or one that loses data, a worn drive, a script that failed); 2 no verdict (an
//! error, an unsure check or one not checked far enough, bad input); 128 + the signal's number
//! when SIGINT, SIGTERM or SIGHUP stopped it (130, 143, 129), as shells report a program a
//! signal ended.

use crate::signals::StopSignal;

/// A command's end, as its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// 0: passed, or done.
    Success,
    /// 1: the check failed.
    Failed,
    /// 2: no verdict: an error, an unsure check, bad input.
    NoVerdict,
    /// 128 + the signal's number: a stop signal ended it.
    Stopped(StopSignal),
}

impl ExitCode {
    /// The status the process exits with: 0, 1, 2, or 128 + the signal's number.
    pub fn code(self) -> i32 {
        match self {
            ExitCode::Success => 0,
            ExitCode::Failed => 1,
            ExitCode::NoVerdict => 2,
            ExitCode::Stopped(signal) => 128 + signal.number(),
        }
    }

    /// [`ExitCode::Success`] when `passed`, else [`ExitCode::Failed`].
    pub fn passed_if(passed: bool) -> ExitCode {
        if passed {
            ExitCode::Success
        } else {
            ExitCode::Failed
        }
    }
}

impl From<ExitCode> for i32 {
    fn from(code: ExitCode) -> i32 {
        code.code()
    }
}

impl From<StopSignal> for ExitCode {
    fn from(signal: StopSignal) -> ExitCode {
        ExitCode::Stopped(signal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_end_has_its_number() {
        assert_eq!(i32::from(ExitCode::Success), 0);
        assert_eq!(i32::from(ExitCode::Failed), 1);
        assert_eq!(i32::from(ExitCode::NoVerdict), 2);
        assert_eq!(ExitCode::passed_if(false).code(), 1);
    }

    #[test]
    fn a_signal_gives_128_plus_its_number() {
        assert_eq!(ExitCode::from(StopSignal::Interrupt).code(), 130);
        assert_eq!(ExitCode::from(StopSignal::Terminate).code(), 143);
        assert_eq!(ExitCode::from(StopSignal::HangUp).code(), 129);
    }
}
