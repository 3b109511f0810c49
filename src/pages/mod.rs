//! The pages of the window's views, each its own widget with its own state (and template,
//! where it has one). The SD Card view: [`ready`] (choose a drive and a profile), [`running`]
//! (phase, progress, live figure, chart), [`results`] (PASS/FAIL rows, advice, the card),
//! [`capacity`] (the capacity check's progress and verdict). The
//! All Tests view: [`all_tests`]. The History view: [`history`] (drives, a drive, a run, a
//! comparison), which moves between its pages by [`history::HistoryPage`].

pub mod all_tests;
pub mod capacity;
pub mod history;
pub mod ready;
pub mod results;
pub mod running;

pub use all_tests::TestsView;
pub use capacity::CapacityView;
pub use history::{HistoryPage, HistoryView};
pub use ready::ReadyView;
pub use results::ResultsView;
pub use running::ProgressView;
