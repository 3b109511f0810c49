//! `agnostics-cli run`: the standard test, with a progress bar on a terminal, the text report
//! (upstream's compat lines first) or `--json`, and the exit status of the verdict.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use agnostics_core::engine::{EngineKind, Event};
use agnostics_core::i18n::{fill, gettext, number};
use agnostics_core::profile::Profile;
use agnostics_core::report;
use agnostics_core::scripts;
use agnostics_core::sdtest::{self, TestOptions};
use agnostics_core::target;
use agnostics_core::units::mb_per_s;
use indicatif::{ProgressBar, ProgressStyle};

use crate::args::{EngineArg, RunArgs};

pub fn main(args: &RunArgs) -> i32 {
    let profile = match &args.profile {
        Some(path) => match Profile::load(path) {
            Ok(p) => p,
            Err(e) => {
                eprintln!(
                    "agnostics-cli: {}",
                    fill(&gettext("invalid profile: {error}"), &[("error", &e)])
                );
                return 2;
            }
        },
        None => Profile::sd_bench(),
    };
    let target_dir = args
        .target
        .clone()
        .unwrap_or_else(|| target::default_target(&args.sysfs_root));
    let opts = TestOptions {
        target: target_dir,
        profile,
        engine: match args.engine {
            EngineArg::Native => EngineKind::Native,
            EngineArg::Fio => EngineKind::Fio,
        },
        runs: args.runs,
        sysfs_root: args.sysfs_root.clone(),
    };

    let cancel = Arc::new(AtomicBool::new(false));
    let sigint = Arc::new(AtomicBool::new(false));
    let sigterm = Arc::new(AtomicBool::new(false));
    for (signal, flag) in [
        (signal_hook::consts::SIGINT, &sigint),
        (signal_hook::consts::SIGTERM, &sigterm),
    ] {
        // The cancel flag stops the engine; the second flag remembers which signal it was.
        let _ = signal_hook::flag::register(signal, Arc::clone(&cancel));
        let _ = signal_hook::flag::register(signal, Arc::clone(flag));
    }

    let bar = Progress::new(
        std::io::stderr().is_terminal() && !args.json,
        opts.profile.jobs.len(),
    );
    let on_event = |event: Event| bar.event(event);
    let report = sdtest::run(&opts, &cancel, &on_event);
    bar.finish();

    if args.json {
        match serde_json::to_string_pretty(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("agnostics-cli: {e}");
                return 2;
            }
        }
    } else {
        print!("{}", report::to_text(&report));
        if let Some(e) = &report.error {
            eprintln!("agnostics-cli: {} — {}", e.message, e.hint);
        }
    }
    // Like upstream, the SD card test's results go to ~/rpdiags.txt too.
    match write_log(&report) {
        Ok(path) if !args.json => eprintln!(
            "{}",
            fill(&gettext("Log: {path}"), &[("path", &path.display())])
        ),
        Ok(_) => {}
        Err(e) => eprintln!(
            "agnostics-cli: {}",
            fill(&gettext("warning: {error}"), &[("error", &e)])
        ),
    }
    let cancelled = report.error.as_ref().is_some_and(|e| e.kind == "cancelled");
    if cancelled && sigterm.load(Ordering::SeqCst) && !sigint.load(Ordering::SeqCst) {
        return 143;
    }
    report.exit_code()
}

/// Rewrites the log (`$AGNOSTICS_LOG`, else `~/rpdiags.txt`) with this test's results.
fn write_log(report: &report::Report) -> Result<std::path::PathBuf, scripts::ScriptError> {
    let path = match std::env::var_os("AGNOSTICS_LOG") {
        Some(p) => p.into(),
        None => scripts::default_log_path()?,
    };
    let mut log = scripts::LogWriter::create(&path)?;
    scripts::log_sd_test(&mut log, report);
    log.finish()
}

/// A progress bar on stderr (only on a terminal): phase name, fraction, live MB/s or IOPS.
struct Progress {
    bar: Option<ProgressBar>,
    phases: usize,
    state: Mutex<(u32, String)>,
}

impl Progress {
    fn new(enabled: bool, phases: usize) -> Progress {
        let bar = enabled.then(|| {
            let bar = ProgressBar::new(1000);
            bar.set_style(
                ProgressStyle::with_template("{prefix:>22} [{bar:30}] {percent:>3}% {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar())
                    .progress_chars("=> "),
            );
            bar
        });
        Progress {
            bar,
            phases,
            state: Mutex::new((1, String::new())),
        }
    }

    fn event(&self, event: Event) {
        let Some(bar) = &self.bar else { return };
        match event {
            Event::RunStarted { run, runs } => {
                if run > 1 {
                    bar.println(fill(
                        &gettext("Run {run} of {runs}"),
                        &[("run", &run), ("runs", &runs)],
                    ));
                }
                if let Ok(mut s) = self.state.lock() {
                    s.0 = run;
                }
            }
            Event::PhaseStarted { index, name, .. } => {
                bar.set_prefix(format!("{name} {}/{}", index + 1, self.phases));
                bar.set_position(0);
                if let Ok(mut s) = self.state.lock() {
                    s.1 = name;
                }
            }
            Event::Progress {
                fraction,
                bw_bytes,
                iops,
                ..
            } => {
                bar.set_position((fraction.clamp(0.0, 1.0) * 1000.0) as u64);
                let random = self
                    .state
                    .lock()
                    .map(|s| s.1.starts_with("rand"))
                    .unwrap_or(false);
                bar.set_message(if random {
                    format!("{} IOPS", number(iops, 0))
                } else {
                    format!("{} MB/s", number(mb_per_s(bw_bytes), 1))
                });
            }
            Event::Warning(w) => {
                bar.println(fill(&gettext("Warning: {warning}"), &[("warning", &w)]))
            }
            Event::PhaseFinished { .. } | Event::Sample { .. } => {}
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
