//! The CLI's one way to write text: [`emit`], on stdout for results (reports, JSON, lists) or
//! on stderr for messages (errors, warnings, what a signal does), never panicking.

use std::io::Write;

use agnostics_core::exit_code::ExitCode;

/// Where [`emit`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum To {
    /// Standard output: the results.
    Stdout,
    /// Standard error: messages for the person at the terminal.
    Stderr,
}

/// Writes `text` (UTF-8 text or, for a script's output, any bytes) as it is (callers end their
/// lines with `\n`) to `to` and flushes. Returns an
/// exit status: 0, or 2 when stdout fails (said on stderr). Never panics: a closed pipe
/// (`| head`) is not a failure, and a failing stderr (a hung-up terminal) is ignored, so that
/// it cannot turn a cancel into a panic or a lost exit status.
pub(crate) fn emit(to: To, text: impl AsRef<[u8]>) -> i32 {
    let text = text.as_ref();
    let written = match to {
        To::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(text).and_then(|()| out.flush())
        }
        To::Stderr => {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(text).and_then(|()| err.flush());
            Ok(())
        }
    };
    match written {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(e) => {
            emit(To::Stderr, format!("agnostics-cli: {e}\n"));
            ExitCode::NoVerdict.code()
        }
    }
}
