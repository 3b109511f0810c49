//! The capacity check as an object the window observes, as [`super::test_run::TestRun`] is
//! for the SD card test: a `state` property (idle → preparing → asking → checking →
//! finished, or failed; cancelling in between when asked to stop), a `progress` signal, the
//! plan's [`Cost`] to ask with, and the final [`CapacityReport`]. It owns the thread
//! ([`super::capacity_worker`]) and reads its channel on the main loop.

use std::cell::{Cell, RefCell};
use std::path::PathBuf;

use agnostics_core::capacity::{CapacityOptions, CapacityReport, Cost, Event, Phase};
use gtk::glib;
use gtk::glib::prelude::*;
use gtk::glib::subclass::prelude::*;

use crate::model::capacity_worker::{self, Failure, Message, Running};

/// Where a capacity check is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, glib::Enum)]
#[enum_type(name = "AgnosticsCheckState")]
pub enum CheckState {
    /// Nothing running (also after a cancelled check).
    #[default]
    Idle,
    /// Making the check's file, choosing the spots, timing a few reads; nothing written yet.
    Preparing,
    /// The plan is known ([`CapacityCheck::cost`]): waiting for **Check** or **Cancel**.
    Asking,
    /// Writing and reading the spots.
    Checking,
    /// Asked to stop: the check removes its file.
    Cancelling,
    /// A verdict is ready ([`CapacityCheck::report`]).
    Finished,
    /// No verdict ([`CapacityCheck::failure`] says why).
    Failed,
}

/// What the check is doing, for the page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckProgress {
    /// The phase.
    pub phase: Phase,
    /// Spots done in it.
    pub done: u64,
    /// Spots in it (0 until known).
    pub total: u64,
    /// Share of the whole check done, 0 to 1.
    pub fraction: f64,
}

impl Default for CheckProgress {
    fn default() -> Self {
        CheckProgress {
            phase: Phase::Planning,
            done: 0,
            total: 0,
            fraction: 0.0,
        }
    }
}

mod imp {
    use std::sync::OnceLock;

    use glib::subclass::Signal;

    use super::*;

    #[derive(Debug, Default, glib::Properties)]
    #[properties(wrapper_type = super::CapacityCheck)]
    pub struct CapacityCheck {
        /// Where the check is.
        #[property(get, builder(CheckState::default()))]
        pub state: Cell<CheckState>,
        pub progress: Cell<CheckProgress>,
        pub cost: Cell<Option<Cost>>,
        pub target: RefCell<Option<PathBuf>>,
        pub report: RefCell<Option<CapacityReport>>,
        pub failure: RefCell<Option<Failure>>,
        /// What recording the last report gave: `Some(None)` kept, `Some(Some(why))` not.
        pub recorded: RefCell<Option<Option<String>>>,
        pub running: RefCell<Option<Running>>,
        /// Where finished checks are recorded (`None`: the history's default path).
        pub history: RefCell<Option<PathBuf>>,
        /// The options of the next check (tests use fewer spots).
        pub options: RefCell<Option<CapacityOptions>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for CapacityCheck {
        const NAME: &'static str = "AgnosticsCapacityCheck";
        type Type = super::CapacityCheck;
    }

    #[glib::derived_properties]
    impl ObjectImpl for CapacityCheck {
        fn signals() -> &'static [Signal] {
            static SIGNALS: OnceLock<Vec<Signal>> = OnceLock::new();
            SIGNALS.get_or_init(|| {
                vec![
                    // The progress changed.
                    Signal::builder("progress").build(),
                    // The finished check went to the history (or not; see `recorded`).
                    Signal::builder("recorded").build(),
                ]
            })
        }
    }
}

glib::wrapper! {
    /// One capacity check at a time: start it, answer its plan, watch it, cancel it, read its
    /// report.
    pub struct CapacityCheck(ObjectSubclass<imp::CapacityCheck>);
}

impl Default for CapacityCheck {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl CapacityCheck {
    /// True from the start until the file is gone.
    pub fn is_busy(&self) -> bool {
        !matches!(
            self.state(),
            CheckState::Idle | CheckState::Finished | CheckState::Failed
        )
    }

    /// Starts the check of the drive behind the folder `target`: the state becomes
    /// [`CheckState::Preparing`], then [`CheckState::Asking`] with the plan's cost.
    ///
    /// Errors: the thread could not be created. Does nothing while a check runs.
    pub fn start(&self, target: PathBuf) -> std::io::Result<()> {
        if self.is_busy() {
            return Ok(());
        }
        let imp = self.imp();
        let opts = imp.options.borrow().clone().unwrap_or_default();
        let running =
            capacity_worker::spawn_check(target.clone(), opts, imp.history.borrow().clone())?;
        let this = self.downgrade();
        running.worker.attach(move |message| {
            let Some(this) = this.upgrade() else {
                return std::ops::ControlFlow::Break(());
            };
            this.handle(message);
            std::ops::ControlFlow::Continue(())
        });
        imp.running.replace(Some(running));
        imp.target.replace(Some(target));
        imp.progress.set(CheckProgress::default());
        imp.cost.set(None);
        imp.report.replace(None);
        imp.failure.replace(None);
        imp.recorded.replace(None);
        self.set_state(CheckState::Preparing);
        Ok(())
    }

    /// **Check** in answer to the plan: the spots are written.
    pub fn go(&self) {
        if self.state() != CheckState::Asking {
            return;
        }
        if let Some(running) = self.imp().running.borrow().as_ref() {
            let _ = running.answer.send(true);
        }
        self.set_state(CheckState::Checking);
    }

    /// Stops the check (also **Cancel** in answer to the plan): its file is removed, then the
    /// state returns to [`CheckState::Idle`].
    pub fn cancel(&self) {
        if !matches!(
            self.state(),
            CheckState::Preparing | CheckState::Asking | CheckState::Checking
        ) {
            return;
        }
        if let Some(running) = self.imp().running.borrow().as_ref() {
            running.worker.cancel();
            let _ = running.answer.send(false);
        }
        self.set_state(CheckState::Cancelling);
    }

    /// What the check is doing.
    pub fn progress(&self) -> CheckProgress {
        self.imp().progress.get()
    }

    /// The plan's cost, once known.
    pub fn cost(&self) -> Option<Cost> {
        self.imp().cost.get()
    }

    /// The folder of the check started last.
    pub fn target(&self) -> Option<PathBuf> {
        self.imp().target.borrow().clone()
    }

    /// The report of the last check that gave a verdict.
    pub fn report(&self) -> Option<CapacityReport> {
        self.imp().report.borrow().clone()
    }

    /// Why the last check gave no verdict (also when it was cancelled).
    pub fn failure(&self) -> Option<Failure> {
        self.imp().failure.borrow().clone()
    }

    /// What recording the last report in the history gave: `Some(None)` when it was kept,
    /// `Some(Some(why))` when not; `None` before that.
    pub fn recorded(&self) -> Option<Option<String>> {
        self.imp().recorded.borrow().clone()
    }

    /// Records finished checks in the history at `path` instead of the default one.
    pub fn set_history_path(&self, path: Option<PathBuf>) {
        self.imp().history.replace(path);
    }

    /// Checks with `opts` from the next start (the core's defaults otherwise).
    pub fn set_options(&self, opts: CapacityOptions) {
        self.imp().options.replace(Some(opts));
    }

    /// Connects to the `progress` signal.
    pub fn connect_progress<F: Fn(&CapacityCheck) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("progress", false, move |values| {
            if let Some(Ok(check)) = values.first().map(|v| v.get::<CapacityCheck>()) {
                f(&check);
            }
            None
        })
    }

    /// Connects to the `recorded` signal.
    pub fn connect_recorded<F: Fn(&CapacityCheck) + 'static>(&self, f: F) -> glib::SignalHandlerId {
        self.connect_local("recorded", false, move |values| {
            if let Some(Ok(check)) = values.first().map(|v| v.get::<CapacityCheck>()) {
                f(&check);
            }
            None
        })
    }

    fn set_state(&self, state: CheckState) {
        if self.imp().state.replace(state) != state {
            self.notify_state();
        }
    }

    fn handle(&self, message: Message) {
        let imp = self.imp();
        match message {
            Message::Event(Event::Planned(cost)) => {
                imp.cost.set(Some(cost));
                if self.state() == CheckState::Preparing {
                    self.set_state(CheckState::Asking);
                }
            }
            Message::Event(Event::Phase { phase, total }) => self.follow(phase, 0, total),
            Message::Event(Event::Progress { phase, done, total }) => {
                self.follow(phase, done, total)
            }
            Message::Event(Event::Recovered(_) | Event::Note(_)) => {}
            Message::Finished(result) => self.finish(result),
            Message::Recorded(outcome) => {
                imp.recorded.replace(Some(outcome));
                self.emit_by_name::<()>("recorded", &[]);
            }
        }
    }

    fn follow(&self, phase: Phase, done: u64, total: u64) {
        let imp = self.imp();
        let fraction =
            capacity_worker::overall_fraction(imp.cost.get().as_ref(), phase, done, total);
        imp.progress.set(CheckProgress {
            phase,
            done,
            total,
            fraction,
        });
        self.emit_by_name::<()>("progress", &[]);
    }

    fn finish(&self, result: Result<Box<CapacityReport>, Failure>) {
        let imp = self.imp();
        // The thread may still send `Recorded`: it stays until the next check (or the
        // window) drops it, when joining it is immediate.
        let state = match result {
            Ok(report) => {
                imp.report.replace(Some(*report));
                CheckState::Finished
            }
            Err(failure) if failure.kind == capacity_worker::FailureKind::Cancelled => {
                imp.failure.replace(Some(failure));
                CheckState::Idle
            }
            Err(failure) => {
                imp.failure.replace(Some(failure));
                CheckState::Failed
            }
        };
        self.set_state(state);
    }

    /// True when the last check ended because it was cancelled.
    pub fn was_cancelled(&self) -> bool {
        self.imp()
            .failure
            .borrow()
            .as_ref()
            .is_some_and(|f| f.kind == capacity_worker::FailureKind::Cancelled)
    }
}
