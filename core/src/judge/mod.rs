//! The judge of the SD card test: every rule that makes a run PASS, FAIL, ERROR or NOT_GRADED,
//! for a live test and for a stored one alike. It stands above [`crate::report`] (the data
//! and its text, table and JSON forms, which judge nothing) and below [`crate::sdtest`] (which
//! measures, then asks the judge) and [`crate::history`] (which judges every stored run again).
//!
//! - [`checks`](mod@checks): a run's figures against the A1 and A2 minimums
//!   ([`crate::verdict::targets`]), and which job may stand for a check;
//! - `profile`: one run of a profile graded ([`RunReport::grade`],
//!   [`RunReport::grade_profile`]) or only measured ([`RunReport::measured`]);
//! - `not_graded`, `counters`, `shared`: not graded, and why: a cache answered, the drive's own
//!   counters fall short (`counters_short`), another test shared the drive
//!   (`not_graded_shared`), a figure the link cannot carry, A2 on a host that does not queue
//!   commands ([`crate::card::CardInfo::a2_not_graded_reason`]);
//! - `settle`: a finished test's verdicts from its runs;
//! - `regrade`: a stored document judged again from its own figures ([`Report::regraded`],
//!   [`Report::contradictions`]).
//!
//! [`RunReport::grade`]: crate::report::RunReport::grade
//! [`RunReport::grade_profile`]: crate::report::RunReport::grade_profile
//! [`RunReport::measured`]: crate::report::RunReport::measured
//! [`Report::regraded`]: crate::report::Report::regraded
//! [`Report::contradictions`]: crate::report::Report::contradictions

pub mod checks;
mod counters;
mod not_graded;
mod profile;
mod regrade;
mod settle;
mod shared;

pub use checks::{checks, checks_for, grade, job_problem, MIN_SEQ_BS, RANDOM_BS};
pub(crate) use counters::counters_short;
pub(crate) use settle::{settle, Settled};
pub(crate) use shared::not_graded_shared;
