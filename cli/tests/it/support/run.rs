//! [`Run`]: one `agnostics-cli` invocation of a test, built up and run to the end.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};

use agnostics_testkit::ThrottledDisk;

/// An `agnostics-cli` invocation with the tests' environment ([`super::cli`]'s: English, a
/// log, a fresh history and a private lock folder of its own), its arguments in the order
/// given, and the exit status it must end with:
///
/// ```ignore
/// let doc = Run::new().target(dir).profile(&profile).runs(1).expect_exit(0).json();
/// ```
#[derive(Debug)]
pub struct Run {
    cmd: Command,
    exit: Option<i32>,
}

impl Default for Run {
    fn default() -> Run {
        Run::new()
    }
}

impl Run {
    /// `agnostics-cli run`.
    pub fn new() -> Run {
        let mut run = Run::default_command();
        run.cmd.arg("run");
        run
    }

    /// `agnostics-cli` with no subcommand (which runs the test, as `run` does).
    pub fn default_command() -> Run {
        Run {
            cmd: super::cli(),
            exit: None,
        }
    }

    /// `agnostics-cli run` started inside `disk`'s throttle group.
    pub fn inside(disk: &ThrottledDisk) -> Run {
        let mut cmd = disk.command(Path::new(env!("CARGO_BIN_EXE_agnostics-cli")));
        super::test_environment(&mut cmd);
        cmd.arg("run");
        Run { cmd, exit: None }
    }

    /// `--target DIR`.
    pub fn target(self, dir: impl AsRef<OsStr>) -> Run {
        self.arg("--target").arg(dir)
    }

    /// `--profile FILE`.
    pub fn profile(self, file: impl AsRef<OsStr>) -> Run {
        self.arg("--profile").arg(file)
    }

    /// `--runs N`.
    pub fn runs(self, n: u32) -> Run {
        self.arg("--runs").arg(n.to_string())
    }

    /// `--engine NAME` (`native`, `fio`).
    pub fn engine(self, name: &str) -> Run {
        self.arg("--engine").arg(name)
    }

    /// One more argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Run {
        self.cmd.arg(arg);
        self
    }

    /// More arguments.
    pub fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Run {
        self.cmd.args(args);
        self
    }

    /// An environment variable set (or replaced) for the program.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Run {
        self.cmd.env(key, value);
        self
    }

    /// The exit status the program must end with; [`output`](Run::output) and the others
    /// panic (with its output) when it ends otherwise. Without, any status is taken.
    pub fn expect_exit(mut self, code: i32) -> Run {
        self.exit = Some(code);
        self
    }

    /// The command as built, for a test that starts it itself (to signal or feed it). The
    /// expected exit status is not checked.
    pub fn command(self) -> Command {
        self.cmd
    }

    /// Runs the program to the end and returns its output.
    ///
    /// # Panics
    /// When it cannot start, or ends with a status other than the one expected.
    pub fn output(mut self) -> Output {
        let out = self.cmd.output().expect("agnostics-cli runs");
        if let Some(code) = self.exit {
            assert_eq!(
                out.status.code(),
                Some(code),
                "exit status of {:?}\nstdout:\n{}\nstderr:\n{}",
                self.cmd,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        out
    }

    /// With `--json`: runs to the end and returns the JSON document on stdout.
    ///
    /// # Panics
    /// As [`output`](Run::output), and when stdout is not one JSON document.
    pub fn json(self) -> serde_json::Value {
        super::json(&self.arg("--json").output())
    }

    /// Runs to the end and returns stdout as text.
    ///
    /// # Panics
    /// As [`output`](Run::output).
    pub fn text(self) -> String {
        String::from_utf8_lossy(&self.output().stdout).into_owned()
    }
}
