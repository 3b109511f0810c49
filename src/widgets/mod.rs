//! Leaf widgets the pages share: the PASS/FAIL badge, the live chart and the trend chart, the
//! drive chooser's row, the card group, the health group, the log view, a test's row, the
//! results' rows, **Save report**'s dialog, message dialogs' headings, a capacity verdict's
//! tone, and the box whose buttons wrap in a narrow window.

pub mod badge;
pub mod card_group;
pub mod chart;
pub mod chart_area;
pub mod chart_text;
pub mod drive_row;
pub mod health_group;
pub mod log_view;
pub mod message_dialog;
pub mod results_rows;
pub mod save_report;
pub mod sustained_chart;
pub mod test_row;
pub mod tone;
pub mod trend_axis;
pub mod trend_chart;
pub mod trend_series;
pub mod wrap_box;

pub use badge::Badge;
pub use chart::Chart;
pub use drive_row::DriveRow;
pub use trend_chart::TrendChart;
pub use wrap_box::WrapBox;
