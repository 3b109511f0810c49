//! The test as an object the window observes: a `state` property (ready → running →
//! finished, or failed; cancelling in between when asked to stop), a `fraction` property for
//! the progress bar, a `progress` signal for everything else the progress view shows, and the
//! final [`Report`]. It owns the [`Worker`] and reads its channel on the main loop, so the
//! window never blocks and never sees a thread.

use std::cell::{Cell, RefCell};

use agnostics_core::engine::{Event, Rerun, Sample};
use agnostics_core::profile::Rw;
use agnostics_core::report::Report;
use agnostics_core::sdtest::TestOptions;
use gtk::glib;
use gtk::glib::prelude::*;
use gtk::glib::subclass::prelude::*;

use crate::model::history_store::RecordOutcome;
use crate::model::worker::{self, Message, Worker};

/// Where a test is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, glib::Enum)]
#[enum_type(name = "AgnosticsRunState")]
pub enum RunState {
    /// Nothing running: the drive can be chosen (also after a cancelled test).
    #[default]
    Ready,
    /// The engine is measuring.
    Running,
    /// Asked to stop: the engine drains its I/O and removes its file.
    Cancelling,
    /// A report with verdicts (PASS or FAIL) is ready.
    Finished,
    /// An error stopped the test (refused target, drive full, drive removed, fio failure);
    /// the report's `error` says what happened and what to do.
    Failed,
}

/// What the running test is doing, for the progress view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    /// 1-based run number (0 before the first run starts).
    pub run: u32,
    /// How many runs at most.
    pub runs: u32,
    /// Why the run follows the one before it (`None` for the first).
    pub again: Option<Rerun>,
    /// 0-based index of the running phase.
    pub index: usize,
    /// Number of phases in the profile.
    pub count: usize,
    /// The phase's job name, e.g. `rand-4k-write` (empty before the first phase).
    pub name: String,
    /// The phase's pattern.
    pub rw: Rw,
    /// The phase's block size, bytes.
    pub bs: u64,
    /// The phase's queue depth.
    pub iodepth: u32,
    /// Fraction of the phase done, 0.0 to 1.0 (of its size or its time limit).
    pub fraction: f64,
    /// Average bandwidth of the phase so far, bytes per second.
    pub bw_bytes: f64,
    /// Average IOPS of the phase so far.
    pub iops: f64,
    /// True once the phase has a figure to show.
    pub measured: bool,
    /// The phase's per-second samples so far.
    pub samples: Vec<Sample>,
    /// Seconds since the running run started (all its phases so far).
    pub run_elapsed_s: f64,
}

impl Progress {
    /// Fraction of the whole run done, 0.0 to 1.0: the phases before the running one count
    /// whole, the running one by its own fraction.
    pub fn overall_fraction(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let done = self.index.min(self.count) as f64 + self.fraction.clamp(0.0, 1.0);
        (done / self.count as f64).clamp(0.0, 1.0)
    }

    /// Takes in that the phase has moved `bytes` bytes in `elapsed_s` seconds (its block size
    /// gives the I/O count).
    pub fn bytes_done(&mut self, bytes: u64, elapsed_s: f64) {
        let ios = bytes / self.bs.max(1);
        self.take_counts(bytes, ios, elapsed_s);
    }

    fn take_counts(&mut self, bytes: u64, ios: u64, elapsed_s: f64) {
        // No figure until the first I/O completes: "0.00 MB/s" would flash at each phase start.
        if elapsed_s > 0.0 && ios > 0 {
            self.bw_bytes = bytes as f64 / elapsed_s;
            self.iops = ios as f64 / elapsed_s;
            self.measured = true;
        }
    }

    /// Follows one event of the engine (warnings are not progress: they change nothing);
    /// returns the phase's new fraction done when the event moved it.
    fn follow(&mut self, event: Event) -> Option<f64> {
        match event {
            Event::RunStarted { run, runs, again } => {
                self.run = run;
                self.runs = runs;
                self.again = again;
                None
            }
            Event::PhaseStarted {
                run,
                index,
                count,
                name,
                rw,
                bs,
                iodepth,
            } => {
                *self = Progress {
                    run,
                    runs: self.runs,
                    again: self.again,
                    run_elapsed_s: self.run_elapsed_s,
                    index,
                    count,
                    rw,
                    bs,
                    iodepth,
                    name,
                    ..Progress::default()
                };
                Some(0.0)
            }
            Event::Progress {
                fraction,
                bytes,
                ios,
                elapsed_s,
                ..
            } => {
                self.fraction = fraction;
                self.take_counts(bytes, ios, elapsed_s);
                Some(fraction)
            }
            Event::Sample { sample, .. } => {
                self.samples.push(sample);
                None
            }
            Event::PhaseFinished { result, .. } => {
                self.fraction = 1.0;
                self.bw_bytes = result.bw_bytes;
                self.iops = result.iops;
                self.measured = result.ios > 0;
                if self.samples.is_empty() {
                    self.samples = result.samples;
                }
                Some(1.0)
            }
            Event::Warning(_) => None,
        }
    }
}

mod imp {
    use std::sync::OnceLock;

    use glib::subclass::Signal;

    use super::*;

    #[derive(Debug, Default, glib::Properties)]
    #[properties(wrapper_type = super::TestRun)]
    pub struct TestRun {
        /// Where the test is.
        #[property(get, builder(RunState::default()))]
        pub state: Cell<RunState>,
        /// Fraction of the running run done (all its phases), 0.0 to 1.0.
        #[property(get, minimum = 0.0, maximum = 1.0)]
        pub fraction: Cell<f64>,
        pub progress: RefCell<Progress>,
        pub options: RefCell<Option<TestOptions>>,
        pub report: RefCell<Option<Report>>,
        pub worker: RefCell<Option<Worker<Message>>>,
        /// When the running run started.
        pub run_started: Cell<Option<std::time::Instant>>,
        /// Where finished tests are recorded (`None`: the history's default path).
        pub history: RefCell<Option<std::path::PathBuf>>,
        /// What recording the last test gave.
        pub recorded: RefCell<Option<RecordOutcome>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TestRun {
        const NAME: &'static str = "AgnosticsTestRun";
        type Type = super::TestRun;
    }

    #[glib::derived_properties]
    impl ObjectImpl for TestRun {
        fn signals() -> &'static [Signal] {
            static SIGNALS: OnceLock<Vec<Signal>> = OnceLock::new();
            SIGNALS.get_or_init(|| {
                vec![
                    // The progress snapshot changed (phase, figure or samples).
                    Signal::builder("progress").build(),
                    // The engine has a warning for the user.
                    Signal::builder("warning")
                        .param_types([String::static_type()])
                        .build(),
                    // The test that ended was recorded in the history (or not; see
                    // `recorded`), after its state changed.
                    Signal::builder("recorded").build(),
                ]
            })
        }
    }
}

glib::wrapper! {
    /// One test at a time: start it, watch it, cancel it, read its report.
    pub struct TestRun(ObjectSubclass<imp::TestRun>);
}

impl Default for TestRun {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl TestRun {
    /// A test run in the ready state.
    pub fn new() -> TestRun {
        TestRun::default()
    }

    /// True while the engine runs or cleans up after a cancel.
    pub fn is_busy(&self) -> bool {
        matches!(self.state(), RunState::Running | RunState::Cancelling)
    }

    /// Starts a test with `opts` on a worker thread; the state becomes
    /// [`RunState::Running`] and later [`RunState::Finished`], [`RunState::Failed`] or (when
    /// cancelled) [`RunState::Ready`].
    ///
    /// Errors: the thread could not be created; the state stays as it was. Does nothing and
    /// returns `Ok` when a test is already running.
    pub fn start(&self, opts: TestOptions) -> std::io::Result<()> {
        if self.is_busy() {
            return Ok(());
        }
        let imp = self.imp();
        let worker = worker::spawn_test(opts.clone(), imp.history.borrow().clone())?;
        *imp.progress.borrow_mut() = Progress {
            runs: opts.runs.max(1),
            count: opts.profile.jobs.len(),
            ..Progress::default()
        };
        imp.options.replace(Some(opts));
        imp.report.replace(None);
        imp.recorded.replace(None);
        let this = self.downgrade();
        worker.attach(move |message| {
            let Some(this) = this.upgrade() else {
                return std::ops::ControlFlow::Break(());
            };
            this.handle(message);
            std::ops::ControlFlow::Continue(())
        });
        imp.worker.replace(Some(worker));
        self.set_fraction(0.0);
        self.set_state(RunState::Running);
        self.emit_by_name::<()>("progress", &[]);
        Ok(())
    }

    /// Asks the running test to stop. The engine finishes the I/O in flight and removes its
    /// test file; then the state returns to [`RunState::Ready`].
    pub fn cancel(&self) {
        if self.state() != RunState::Running {
            return;
        }
        if let Some(worker) = self.imp().worker.borrow().as_ref() {
            worker.cancel();
        }
        self.set_state(RunState::Cancelling);
    }

    /// A copy of what the running test is doing.
    pub fn progress(&self) -> Progress {
        self.imp().progress.borrow().clone()
    }

    /// The options of the last test started.
    pub fn options(&self) -> Option<TestOptions> {
        self.imp().options.borrow().clone()
    }

    /// The report of the last test that ended (finished, failed or cancelled).
    pub fn report(&self) -> Option<Report> {
        self.imp().report.borrow().clone()
    }

    /// True when the last test ended because it was cancelled.
    pub fn was_cancelled(&self) -> bool {
        self.imp()
            .report
            .borrow()
            .as_ref()
            .and_then(|r| r.error.as_ref())
            .is_some_and(|e| e.is_cancelled())
    }

    /// Records finished tests in the history at `path` instead of the default one
    /// (`$AGNOSTICS_HISTORY`, else the user's state folder).
    pub fn set_history_path(&self, path: Option<std::path::PathBuf>) {
        self.imp().history.replace(path);
    }

    /// The history finished tests are recorded in (see [`TestRun::set_history_path`]).
    pub fn history_path(&self) -> std::path::PathBuf {
        self.imp()
            .history
            .borrow()
            .clone()
            .unwrap_or_else(crate::model::history_store::default_path)
    }

    /// What recording the last test in the history gave, once it ended.
    pub fn recorded(&self) -> Option<RecordOutcome> {
        self.imp().recorded.borrow().clone()
    }

    /// Connects to the `recorded` signal: the test that ended went to the history (or why
    /// not: [`TestRun::recorded`]).
    pub fn connect_recorded<F: Fn(&TestRun) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("recorded", false, move |values| {
            if let Some(Ok(run)) = values.first().map(|v| v.get::<TestRun>()) {
                f(&run);
            }
            None
        })
    }

    /// Connects to the `progress` signal.
    pub fn connect_progress<F: Fn(&TestRun) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("progress", false, move |values| {
            if let Some(Ok(run)) = values.first().map(|v| v.get::<TestRun>()) {
                f(&run);
            }
            None
        })
    }

    /// Connects to the `warning` signal (a message for people).
    pub fn connect_warning<F: Fn(&TestRun, &str) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("warning", false, move |values| {
            let run = values.first().and_then(|v| v.get::<TestRun>().ok());
            let text = values.get(1).and_then(|v| v.get::<String>().ok());
            if let (Some(run), Some(text)) = (run, text) {
                f(&run, &text);
            }
            None
        })
    }

    fn set_state(&self, state: RunState) {
        if self.imp().state.replace(state) != state {
            self.notify_state();
        }
    }

    fn set_fraction(&self, fraction: f64) {
        let fraction = if fraction.is_finite() {
            fraction.clamp(0.0, 1.0)
        } else {
            0.0
        };
        if self.imp().fraction.replace(fraction) != fraction {
            self.notify_fraction();
        }
    }

    fn handle(&self, message: Message) {
        match message {
            Message::Event(event) => self.handle_event(event),
            Message::Recorded(outcome) => {
                self.imp().recorded.replace(Some(*outcome));
            }
            Message::Finished(report) => {
                self.finish(*report);
                if self.imp().recorded.borrow().is_some() {
                    self.emit_by_name::<()>("recorded", &[]);
                }
            }
        }
    }

    fn handle_event(&self, event: Event) {
        if let Event::Warning(text) = event {
            self.emit_by_name::<()>("warning", &[&text]);
            return;
        }
        let imp = self.imp();
        if matches!(event, Event::RunStarted { .. }) {
            imp.run_started.set(Some(std::time::Instant::now()));
        }
        let overall = {
            let mut progress = imp.progress.borrow_mut();
            let moved = progress.follow(event);
            progress.run_elapsed_s = imp
                .run_started
                .get()
                .map_or(0.0, |t| t.elapsed().as_secs_f64());
            moved.map(|_| progress.overall_fraction())
        };
        if let Some(fraction) = overall {
            self.set_fraction(fraction);
        }
        self.emit_by_name::<()>("progress", &[]);
    }

    fn finish(&self, report: Report) {
        let imp = self.imp();
        // The thread has sent its last message and is ending: joining it is immediate.
        drop(imp.worker.take());
        let state = match &report.error {
            Some(e) if e.is_cancelled() => RunState::Ready,
            Some(_) => RunState::Failed,
            None => RunState::Finished,
        };
        imp.report.replace(Some(report));
        self.set_state(state);
    }
}
