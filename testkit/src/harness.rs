//! A test harness for `harness = false` test files, with libtest's output and flags
//! (`--list`, filters, `--exact`, `--ignored`, `--test-threads`), in which a test that cannot
//! run here says so: it returns [`Skip`] with its reason and is reported as *ignored* with that
//! reason, never as passed. With `AGNOSTICS_STRICT=1` (CI sets it) a skipped test fails instead,
//! so that a machine lacking root, a tool or a fixture cannot turn a red suite green.
//!
//! A test file lists its tests with [`main!`]:
//!
//! ```
//! fn refuses_tmpfs_target() -> agnostics_testkit::Ran {
//!     agnostics_testkit::require_root("mounts a tmpfs")?;
//!     // …
//!     Ok(())
//! }
//! fn parses_sizes() { /* a test that always runs may return () */ }
//! agnostics_testkit::main!(refuses_tmpfs_target, parses_sizes);
//! ```

use std::path::Path;

/// The environment variable that turns every skip into a failure (`1`).
pub const STRICT_ENV: &str = "AGNOSTICS_STRICT";

/// Why a test did not run here: a missing prerequisite (root, a program, a fixture, a device).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip(pub String);

/// What a test that may be skipped returns: `Ok(())` when it ran (its assertions panic on
/// failure), `Err(Skip)` when it could not run here.
pub type Ran = Result<(), Skip>;

/// `Err(Skip(reason))`: the test cannot run here.
pub fn skip(reason: impl Into<String>) -> Ran {
    Err(Skip(reason.into()))
}

/// `Ok(())` when `met`, else a skip with `reason`.
pub fn require(met: bool, reason: impl Into<String>) -> Ran {
    if met {
        Ok(())
    } else {
        skip(reason)
    }
}

/// Skips unless running as root; `what` says what root is needed for (e.g. "a loop device").
pub fn require_root(what: &str) -> Ran {
    require(crate::is_root(), format!("needs root ({what})"))
}

/// Skips unless `program` is found in `PATH` (or is a path to an executable file).
pub fn require_program(program: &str) -> Ran {
    require(
        find_program(program),
        format!("needs {program} (not found in PATH)"),
    )
}

/// Skips unless `path` exists; `what` names it for the reason (e.g. "fio's example job files").
pub fn require_path(path: &Path, what: &str) -> Ran {
    require(path.exists(), format!("needs {what} at {}", path.display()))
}

/// True when `program` is an executable in `PATH`, or a path to one.
pub fn find_program(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let is_exe = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return is_exe(Path::new(program));
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| is_exe(&dir.join(program))))
        .unwrap_or(false)
}

/// True when `AGNOSTICS_STRICT=1`.
pub fn strict() -> bool {
    std::env::var(STRICT_ENV).is_ok_and(|v| v == "1")
}

/// What a test function may return: `()` (it always runs) or [`Ran`].
pub trait Outcome {
    /// `Ran` for the harness.
    fn into_ran(self) -> Ran;
}

impl Outcome for () {
    fn into_ran(self) -> Ran {
        Ok(())
    }
}

impl Outcome for Ran {
    fn into_ran(self) -> Ran {
        self
    }
}

/// One test: its name and body.
pub struct Test {
    name: String,
    body: Box<dyn FnOnce() -> Ran + Send>,
    /// Run in a process of its own, with this environment added ([`Test::in_own_process`]).
    own_process: Option<Vec<(String, String)>>,
}

impl std::fmt::Debug for Test {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Test").field("name", &self.name).finish()
    }
}

impl Test {
    /// A test named `name` running `body`.
    pub fn new<O: Outcome>(
        name: impl Into<String>,
        body: impl FnOnce() -> O + Send + 'static,
    ) -> Test {
        Test {
            name: name.into(),
            body: Box::new(move || body().into_ran()),
            own_process: None,
        }
    }

    /// The test's name, as `--list` prints it and filters match it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// This test, run in a process of its own: this test program again, with `env` added to
    /// its environment, running this test alone (`--exact NAME --test-threads 1`); its output
    /// is shown here, a skip it reports is this test's skip, a failure this test's failure.
    /// For a test that changes what the whole process shares (`std::env::set_var`, the locale)
    /// in a program whose other tests run beside it. In that child (it has [`OWN_PROCESS_ENV`]
    /// set to the test's name, as the harness runs it) the test's own body runs.
    pub fn in_own_process(mut self, env: &[(&str, &str)]) -> Test {
        self.own_process = Some(
            env.iter()
                .map(|&(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        );
        self
    }

    /// This test with `module::` before its name (`native_engine::cancel_stops_promptly`), for
    /// a program that gathers the tests of several modules: a filter selects by module.
    pub fn in_module(self, module: &str) -> Test {
        Test {
            name: format!("{module}::{}", self.name),
            ..self
        }
    }

    fn into_trial(self, strict: bool) -> libtest_mimic::Trial {
        let own = std::env::var_os(OWN_PROCESS_ENV).is_some_and(|n| n == *self.name);
        let body: Box<dyn FnOnce() -> Ran + Send> = match (self.own_process, own) {
            (Some(env), false) => {
                let name = self.name.clone();
                Box::new(move || run_in_own_process(&name, &env))
            }
            (Some(_), true) => {
                let body = self.body;
                Box::new(move || run_as_own_process(body))
            }
            (None, _) => self.body,
        };
        libtest_mimic::Trial::ignorable_test(self.name, move || match body() {
            Ok(()) => Ok(libtest_mimic::Completion::Completed),
            Err(Skip(reason)) if strict => Err(format!(
                "not run: {reason}; {STRICT_ENV}=1 fails on any test that cannot run"
            )
            .into()),
            Err(Skip(reason)) => Ok(libtest_mimic::Completion::ignored_with(reason)),
        })
    }
}

/// The environment variable naming the one test a child started by
/// [`Test::in_own_process`] runs.
pub const OWN_PROCESS_ENV: &str = "AGNOSTICS_TEST_OWN_PROCESS";

/// The environment variable naming the file in which that child writes its test's outcome:
/// `ok`, or `skip` and the reason on the next line.
const OWN_PROCESS_OUTCOME_ENV: &str = "AGNOSTICS_TEST_OWN_PROCESS_OUTCOME";

/// The parent's side of [`Test::in_own_process`]: runs the test named `name` alone in this
/// program started again, and reads its outcome from the file the child writes.
fn run_in_own_process(name: &str, env: &[(String, String)]) -> Ran {
    let exe = std::env::current_exe().expect("the test program's path");
    let outcome = tempfile::NamedTempFile::new().expect("a file for the child's outcome");
    let out = std::process::Command::new(&exe)
        .args(["--exact", name, "--test-threads", "1"])
        .env(OWN_PROCESS_ENV, name)
        .env(OWN_PROCESS_OUTCOME_ENV, outcome.path())
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{name}: start {}: {e}", exe.display()));
    // The test's own output; libtest's lines about the one test are this process's to print.
    let line = format!("test {name} ... ");
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        if !(l.starts_with("test result: ") || l.starts_with("running 1 test")) {
            println!("{}", l.strip_prefix(&line).unwrap_or(l));
        }
    }
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "{name} in a process of its own: {}",
        out.status
    );
    let written = std::fs::read_to_string(outcome.path()).expect("the child's outcome");
    match written.split_once('\n') {
        Some(("skip", reason)) => skip(reason),
        _ if written == "ok" => Ok(()),
        _ => panic!("{name}: its process did not run it"),
    }
}

/// The child's side: runs `body` and writes its outcome where the parent reads it.
fn run_as_own_process(body: Box<dyn FnOnce() -> Ran + Send>) -> Ran {
    let ran = body();
    if let Some(path) = std::env::var_os(OWN_PROCESS_OUTCOME_ENV) {
        let text = match &ran {
            Ok(()) => "ok".to_owned(),
            Err(Skip(reason)) => format!("skip\n{reason}"),
        };
        std::fs::write(&path, text).expect("write the outcome for the parent");
    }
    ran
}

/// `tests` with `module::` before each name ([`Test::in_module`]).
pub fn in_module(module: &str, tests: Vec<Test>) -> Vec<Test> {
    tests.into_iter().map(|t| t.in_module(module)).collect()
}

/// Runs `tests` with the command line's libtest flags and exits with libtest's status.
pub fn run(tests: Vec<Test>) -> ! {
    let args = libtest_mimic::Arguments::from_args();
    run_with(args, tests)
}

/// Runs `tests` one after another on the calling thread (GTK's main thread, for UI tests),
/// whatever `--test-threads` says, and exits with libtest's status.
pub fn run_on_this_thread(tests: Vec<Test>) -> ! {
    conclude_on_this_thread(tests).exit()
}

/// As [`run_on_this_thread`], but returns libtest's conclusion instead of exiting, so that the
/// caller can drop what the tests shared (a scratch folder) before it calls
/// [`Conclusion::exit`](libtest_mimic::Conclusion::exit).
pub fn conclude_on_this_thread(tests: Vec<Test>) -> libtest_mimic::Conclusion {
    let mut args = libtest_mimic::Arguments::from_args();
    args.test_threads = Some(1);
    conclude(args, tests)
}

fn run_with(args: libtest_mimic::Arguments, tests: Vec<Test>) -> ! {
    conclude(args, tests).exit()
}

fn conclude(args: libtest_mimic::Arguments, tests: Vec<Test>) -> libtest_mimic::Conclusion {
    let strict = strict();
    let trials = tests.into_iter().map(|t| t.into_trial(strict)).collect();
    libtest_mimic::run(&args, trials)
}

/// `fn main()` for a `harness = false` test file: runs the named test functions (each returning
/// `()` or [`Ran`]) under [`run`].
#[macro_export]
macro_rules! main {
    ($($test:path),+ $(,)?) => {
        fn main() {
            $crate::harness::run($crate::tests![$($test),+])
        }
    };
}

/// The named test functions (each returning `()` or [`Ran`]) as a `Vec<Test>` for [`run`] or
/// [`run_on_this_thread`], for a test file that writes its own `main` (one that is also the
/// child process of one of its tests, for instance).
#[macro_export]
macro_rules! tests {
    ($($test:path),+ $(,)?) => {
        vec![
            $($crate::harness::Test::new(
                $crate::harness::__last_segment(stringify!($test)),
                $test,
            )),+
        ]
    };
}

/// `pub(crate) fn tests() -> Vec<Test>` listing the named test functions (each returning `()`
/// or [`Ran`]), for a module of a program that gathers several: its `main` runs every
/// module's list, each under the module's name ([`in_module`]).
#[macro_export]
macro_rules! test_list {
    ($($test:path),+ $(,)?) => {
        pub(crate) fn tests() -> Vec<$crate::harness::Test> {
            $crate::tests![$($test),+]
        }
    };
}

#[doc(hidden)]
pub fn __last_segment(path: &str) -> String {
    path.rsplit("::").next().unwrap_or(path).trim().to_owned()
}
