//! What the pages observe and the bridges to threads, with no widgets: [`test_run`] (the SD
//! card test's state object: idle, running with its progress, finished with a report, failed)
//! and [`tests_session`] (the **All Tests** list's state: each script's verdict and log);
//! [`worker`] (the one bridge from a thread to the main loop, used by the engine's run and by
//! [`scripts_worker`] for the test scripts); [`history_store`] (the run history, read and
//! written off the main loop) and [`rpdiags`] (the `~/rpdiags.txt` log every result goes to);
//! [`capacity_check`] (the capacity check's state object), run by [`capacity_worker`] and
//! kept by [`capacity_history`]; [`connected`] (which of the history's drives are mounted now);
//! [`health_worker`] (the Health group's look at a drive).

pub mod capacity_check;
pub mod capacity_history;
pub mod capacity_worker;
pub mod connected;
pub mod health_worker;
pub mod history_store;
pub mod rpdiags;
pub mod scripts_worker;
pub mod test_run;
pub mod tests_session;
pub mod worker;
