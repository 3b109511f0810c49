//! What a trend chart draws: one line per test phase, each a figure run after run.

use chrono::{DateTime, FixedOffset};

/// One run's figure: when the run started and its value (bytes per second or IOPS).
#[derive(Debug, Clone, PartialEq)]
pub struct TrendPoint {
    /// When the run started, with the offset it was recorded in.
    pub when: DateTime<FixedOffset>,
    /// The figure, in the chart's unit (bandwidth in bytes per second).
    pub value: f64,
}

/// One line of the chart: a phase's figure run after run, oldest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TrendSeries {
    /// The phase's name for people, e.g. "Sequential write" (the legend).
    pub name: String,
    /// Its points, oldest first.
    pub points: Vec<TrendPoint>,
    /// The phase's A1 minimum in the chart's unit (bandwidth in bytes per second), when the
    /// A1 class grades it.
    pub target: Option<f64>,
}
