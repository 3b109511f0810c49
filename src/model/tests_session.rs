//! The **All Tests** session as an object the window and the tests view observe: a `state`
//! property (idle → running → finished; stopping in between when asked to stop), the list of
//! tests as a [`gio::ListStore`] of [`TestItem`]s (the built-in SD card test first, then the
//! scripts found), and the scripts' [`Worker`] while they run. Like [`crate::model::test_run::TestRun`]
//! for the SD card test, which the window runs first when it is selected: the session is told
//! when it ends ([`TestsSession::sd_ended`]).

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;
use std::path::PathBuf;

use agnostics_core::i18n::{fill, gettext};
use agnostics_core::scripts::{ScriptResult, ScriptTest, ScriptVerdict};
use agnostics_core::verdict::Verdict;
use gtk::gio;
use gtk::gio::prelude::*;
use gtk::glib;
use gtk::glib::subclass::prelude::*;

use crate::format::{script_verdict_text, verdict_text};
use crate::model::scripts_worker::ScriptMessage;
use crate::model::worker::Worker;

/// Where a session is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, glib::Enum)]
#[enum_type(name = "AgnosticsSessionState")]
pub enum SessionState {
    /// No session has run since the list was made or reset: no results.
    #[default]
    Idle,
    /// Tests run: the SD card test, then the scripts.
    Running,
    /// **Stop** was pressed: the running test is being stopped, the rest do not run.
    Stopping,
    /// The last session ended; its results are shown.
    Finished,
}

/// Where one test of the list is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, glib::Enum)]
#[enum_type(name = "AgnosticsTestState")]
pub enum TestState {
    /// Not run (or not yet) in this session: no result.
    #[default]
    Idle,
    /// Running.
    Running,
    /// Being stopped (cancel or timeout).
    Stopping,
    /// Ended: see [`TestItem::outcome`].
    Ended,
}

/// How a test of the list ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The SD card test: its verdict, or `None` when it was cancelled.
    Sd(Option<Verdict>),
    /// A script: its result (the capped display copy of its output).
    Script(Box<ScriptResult>),
}

mod item_imp {
    use super::*;

    #[derive(Debug, Default, glib::Properties)]
    #[properties(wrapper_type = super::TestItem)]
    pub struct TestItem {
        /// The test's name (plain text).
        #[property(get, construct_only)]
        pub name: RefCell<String>,
        /// What it does (plain text); the SD card test's follows the test chosen on the SD
        /// Card page.
        #[property(get, set)]
        pub description: RefCell<String>,
        /// **Run Test?**
        #[property(get, set, default = true)]
        pub selected: Cell<bool>,
        /// Where it is.
        #[property(get, builder(TestState::default()))]
        pub state: Cell<TestState>,
        /// The result column's text: PASS, FAIL, ERROR, Aborted, Timed out; empty without
        /// a result.
        #[property(get)]
        pub result: RefCell<String>,
        pub outcome: RefCell<Option<Outcome>>,
        /// The script; `None` for the built-in SD card test.
        pub script: RefCell<Option<ScriptTest>>,
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TestItem {
        const NAME: &'static str = "AgnosticsTestItem";
        type Type = super::TestItem;
    }

    #[glib::derived_properties]
    impl ObjectImpl for TestItem {}
}

/// What the SD card test of the **All Tests** list does: the test chosen on the SD Card page,
/// named `test` ("Standard test"), taking `time` ("about 2 minutes", as that page says it).
pub fn sd_test_description(test: &str, time: &str) -> String {
    fill(
        &gettext(
            "Runs the test chosen on the SD Card page ({test}, {time}) on the drive chosen there.",
        ),
        &[("test", &test), ("time", &time)],
    )
}

glib::wrapper! {
    /// One test of the **All Tests** list.
    pub struct TestItem(ObjectSubclass<item_imp::TestItem>);
}

impl TestItem {
    /// The built-in SD card test's item, described as `description` (see
    /// [`sd_test_description`]).
    pub fn sd_test(description: &str) -> TestItem {
        glib::Object::builder()
            .property("name", gettext("SD card speed test"))
            .property("description", description)
            .property("selected", true)
            .build()
    }

    /// The item of `script`.
    pub fn script(script: ScriptTest) -> TestItem {
        let item: TestItem = glib::Object::builder()
            .property("name", &script.name)
            .property("description", &script.description)
            .property("selected", true)
            .build();
        item.imp().script.replace(Some(script));
        item
    }

    /// The script it runs; `None` for the built-in SD card test.
    pub fn script_test(&self) -> Option<ScriptTest> {
        self.imp().script.borrow().clone()
    }

    /// How it ended, once it has in this session.
    pub fn outcome(&self) -> Option<Outcome> {
        self.imp().outcome.borrow().clone()
    }

    /// The script's result, once it ended.
    pub fn script_result(&self) -> Option<ScriptResult> {
        match self.imp().outcome.borrow().as_ref() {
            Some(Outcome::Script(result)) => Some((**result).clone()),
            _ => None,
        }
    }

    fn set_state(&self, state: TestState) {
        if self.imp().state.replace(state) != state {
            self.notify_state();
        }
    }

    fn set_outcome(&self, outcome: Option<Outcome>) {
        let text = match &outcome {
            None => String::new(),
            Some(Outcome::Sd(Some(verdict))) => verdict_text(*verdict),
            Some(Outcome::Sd(None)) => script_verdict_text(ScriptVerdict::Aborted),
            Some(Outcome::Script(result)) => script_verdict_text(result.verdict),
        };
        let ended = outcome.is_some();
        self.imp().outcome.replace(outcome);
        if *self.imp().result.borrow() != text {
            self.imp().result.replace(text);
            self.notify_result();
        }
        self.set_state(if ended {
            TestState::Ended
        } else {
            TestState::Idle
        });
    }
}

/// What **Run Tests** found to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Begun {
    /// Nothing is selected: nothing started.
    NothingChosen,
    /// A session is already running: nothing started.
    Busy,
    /// Started: the window runs the SD card test first when `sd`, else the scripts.
    Started {
        /// The SD card test is selected.
        sd: bool,
    },
}

mod imp {
    use super::*;

    #[derive(Debug, glib::Properties)]
    #[properties(wrapper_type = super::TestsSession)]
    pub struct TestsSession {
        /// Where the session is.
        #[property(get, builder(SessionState::default()))]
        pub state: Cell<SessionState>,
        /// True once the scripts are listed.
        #[property(get)]
        pub loaded: Cell<bool>,
        /// The SD card test's item, then one per script.
        pub items: gio::ListStore,
        /// The scripts of the running session, in the worker's order.
        pub running: RefCell<Vec<TestItem>>,
        /// True while the session's SD card test runs.
        pub sd_pending: Cell<bool>,
        pub worker: RefCell<Option<Worker<ScriptMessage>>>,
        /// What stopped the last session or spoiled its log, for people.
        pub error: RefCell<Option<String>>,
        /// Counts the listings started: a late answer about an earlier one is dropped.
        pub generation: Cell<u64>,
        /// Where scripts are looked for besides `agnostics/` under `$XDG_DATA_DIRS`.
        pub script_dirs: RefCell<Vec<PathBuf>>,
    }

    impl Default for TestsSession {
        fn default() -> Self {
            let items = gio::ListStore::new::<super::TestItem>();
            let standard = agnostics_core::profile::builtin::ALL[0];
            let description = super::sd_test_description(
                &standard.title(),
                &crate::format::about_time(standard.profile().slow_card_duration()),
            );
            items.append(&super::TestItem::sd_test(&description));
            TestsSession {
                state: Cell::default(),
                loaded: Cell::default(),
                items,
                running: RefCell::default(),
                sd_pending: Cell::default(),
                worker: RefCell::default(),
                error: RefCell::default(),
                generation: Cell::default(),
                script_dirs: RefCell::default(),
            }
        }
    }

    #[glib::object_subclass]
    impl ObjectSubclass for TestsSession {
        const NAME: &'static str = "AgnosticsTestsSession";
        type Type = super::TestsSession;
    }

    #[glib::derived_properties]
    impl ObjectImpl for TestsSession {}
}

glib::wrapper! {
    /// The list of all tests and one press of **Run Tests** at a time.
    pub struct TestsSession(ObjectSubclass<imp::TestsSession>);
}

impl Default for TestsSession {
    fn default() -> Self {
        glib::Object::new()
    }
}

impl TestsSession {
    /// A session in the idle state listing only the SD card test.
    pub fn new() -> TestsSession {
        TestsSession::default()
    }

    /// Describes the SD card test as running `test`, taking `time` (the SD Card page's
    /// choice, as that page says it).
    pub fn describe_sd_test(&self, test: &str, time: &str) {
        let items = &self.imp().items;
        let sd = (0..items.n_items())
            .filter_map(|i| items.item(i).and_downcast::<TestItem>())
            .find(|item| item.imp().script.borrow().is_none());
        if let Some(item) = sd {
            item.set_description(sd_test_description(test, time));
        }
    }

    /// The tests: a [`gio::ListStore`] of [`TestItem`]s, the SD card test first.
    pub fn items(&self) -> gio::ListStore {
        self.imp().items.clone()
    }

    /// The items, in list order.
    pub fn item_list(&self) -> Vec<TestItem> {
        self.imp()
            .items
            .iter::<TestItem>()
            .filter_map(Result::ok)
            .collect()
    }

    /// True while a session runs or is being stopped.
    pub fn is_busy(&self) -> bool {
        matches!(self.state(), SessionState::Running | SessionState::Stopping)
    }

    /// Where scripts are looked for besides `agnostics/` under `$XDG_DATA_DIRS` (`--dir`).
    pub fn script_dirs(&self) -> Vec<PathBuf> {
        self.imp().script_dirs.borrow().clone()
    }

    /// Looks for scripts in `dirs` too from the next listing on.
    pub fn set_script_dirs(&self, dirs: Vec<PathBuf>) {
        self.imp().script_dirs.replace(dirs);
    }

    /// A listing of the scripts starts: returns its number for [`TestsSession::set_scripts`].
    pub fn begin_listing(&self) -> u64 {
        let imp = self.imp();
        let generation = imp.generation.get() + 1;
        imp.generation.set(generation);
        self.set_loaded(false);
        generation
    }

    /// Lists the SD card test and `scripts` (every test selected, no results, the state
    /// idle), when `generation` is the last listing started and no session runs; returns
    /// whether it did.
    pub fn set_scripts(&self, generation: u64, scripts: Vec<ScriptTest>) -> bool {
        let imp = self.imp();
        if imp.generation.get() != generation || self.is_busy() {
            return false;
        }
        let description = imp
            .items
            .item(0)
            .and_downcast::<TestItem>()
            .map(|item| item.description())
            .unwrap_or_default();
        let mut items: Vec<glib::Object> = vec![TestItem::sd_test(&description).upcast()];
        items.extend(scripts.into_iter().map(|s| TestItem::script(s).upcast()));
        imp.items.splice(0, imp.items.n_items(), &items);
        self.set_state(SessionState::Idle);
        self.set_loaded(true);
        true
    }

    /// **Run Tests**: clears every result and starts a session of the selected tests.
    pub fn begin(&self) -> Begun {
        if self.is_busy() {
            return Begun::Busy;
        }
        let items = self.item_list();
        let sd = items
            .iter()
            .any(|i| i.script_test().is_none() && i.selected());
        let scripts: Vec<TestItem> = items
            .iter()
            .filter(|i| i.script_test().is_some() && i.selected())
            .cloned()
            .collect();
        if !sd && scripts.is_empty() {
            return Begun::NothingChosen;
        }
        for item in &items {
            item.set_outcome(None);
        }
        let imp = self.imp();
        imp.running.replace(scripts);
        imp.error.replace(None);
        imp.sd_pending.set(sd);
        if sd {
            if let Some(item) = items.iter().find(|i| i.script_test().is_none()) {
                item.set_state(TestState::Running);
            }
        }
        self.set_state(SessionState::Running);
        Begun::Started { sd }
    }

    /// True while the session's SD card test runs (the window's SD card flow).
    pub fn sd_pending(&self) -> bool {
        self.imp().sd_pending.get()
    }

    /// The session's SD card test ended: `verdict`, or `None` when it was cancelled (then,
    /// or when **Stop** was pressed, the scripts do not run). Does nothing when no SD card
    /// test of a session was running.
    pub fn sd_ended(&self, verdict: Option<Verdict>) -> bool {
        let imp = self.imp();
        if !imp.sd_pending.replace(false) {
            return false;
        }
        if let Some(item) = self.item_list().first() {
            item.set_outcome(Some(Outcome::Sd(verdict)));
        }
        if verdict.is_none() || self.state() == SessionState::Stopping {
            imp.running.borrow_mut().clear();
        }
        true
    }

    /// The scripts this session runs (after the SD card test), in order.
    pub fn scripts(&self) -> Vec<ScriptTest> {
        self.imp()
            .running
            .borrow()
            .iter()
            .filter_map(TestItem::script_test)
            .collect()
    }

    /// The scripts run on `worker`: its messages move their items, its last one ends the
    /// session.
    pub fn run_scripts(&self, worker: Worker<ScriptMessage>) {
        let this = self.downgrade();
        worker.attach(move |message| {
            let Some(this) = this.upgrade() else {
                return ControlFlow::Break(());
            };
            this.handle(message);
            ControlFlow::Continue(())
        });
        self.imp().worker.replace(Some(worker));
    }

    fn handle(&self, message: ScriptMessage) {
        let item = |index: usize| self.imp().running.borrow().get(index).cloned();
        match message {
            ScriptMessage::Started { index } => {
                if let Some(item) = item(index) {
                    item.set_state(TestState::Running);
                }
            }
            ScriptMessage::Stopping { index, .. } => {
                if let Some(item) = item(index) {
                    item.set_state(TestState::Stopping);
                }
            }
            ScriptMessage::Finished { index, result } => {
                if let Some(item) = item(index) {
                    item.set_outcome(Some(Outcome::Script(result)));
                }
            }
            ScriptMessage::Done(outcome) => self.finish(outcome.err()),
        }
    }

    /// **Stop**: the running test is stopped, the rest do not run. Returns true when the
    /// session's SD card test runs, which the window stops.
    pub fn cancel(&self) -> bool {
        if self.state() != SessionState::Running {
            return false;
        }
        self.set_state(SessionState::Stopping);
        if let Some(worker) = self.imp().worker.borrow().as_ref() {
            worker.cancel();
        }
        self.sd_pending()
    }

    /// The session is over (`error`: what stopped it, for people): the state becomes
    /// finished.
    pub fn finish(&self, error: Option<String>) {
        let imp = self.imp();
        // The worker's thread has sent its last message: joining it is immediate.
        drop(imp.worker.take());
        imp.running.borrow_mut().clear();
        imp.sd_pending.set(false);
        imp.error.replace(error);
        for item in self.item_list() {
            if matches!(item.state(), TestState::Running | TestState::Stopping) {
                item.set_state(TestState::Idle);
            }
        }
        self.set_state(SessionState::Finished);
    }

    /// What stopped the last session or spoiled its log, for people.
    pub fn error(&self) -> Option<String> {
        self.imp().error.borrow().clone()
    }

    /// **Reset**: no results, every test selected, the state idle (not while a session runs).
    pub fn reset(&self) {
        if self.is_busy() {
            return;
        }
        for item in self.item_list() {
            item.set_outcome(None);
            item.set_selected(true);
        }
        self.set_state(SessionState::Idle);
    }

    fn set_state(&self, state: SessionState) {
        if self.imp().state.replace(state) != state {
            self.notify_state();
        }
    }

    fn set_loaded(&self, loaded: bool) {
        if self.imp().loaded.replace(loaded) != loaded {
            self.notify_loaded();
        }
    }
}
