//! The window's parts: the drive chooser, the running test's view with its chart, the results
//! with their PASS/FAIL badges and the card group, the list of all tests.

pub mod badge;
pub mod card_group;
pub mod chart;
mod chart_font;
pub mod compare_view;
pub mod drive_row;
pub mod history_view;
pub mod log_view;
pub mod progress_view;
pub mod ready_view;
mod results_rows;
pub mod results_view;
pub mod save_report;
pub mod test_row;
pub mod tests_view;
pub mod trend_chart;

pub use badge::Badge;
pub use chart::Chart;
pub use compare_view::CompareView;
pub use drive_row::DriveRow;
pub use history_view::HistoryView;
pub use progress_view::ProgressView;
pub use ready_view::ReadyView;
pub use results_view::ResultsView;
pub use tests_view::TestsView;
pub use trend_chart::TrendChart;
