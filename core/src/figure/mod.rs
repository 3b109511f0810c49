//! The figure vocabulary every form shares: the [`Unit`] of a measured figure (and how it is
//! read from a phase), the standard test's phases ([`StandardPhase`]: fio job name, title for
//! people, unit, whether it is graded) and how figures are rounded for people ([`down`] for
//! figures compared with a target, [`nearest_text`] for descriptions). Pure: no I/O.

mod phase;
mod round;
pub mod unit;

pub use phase::{step_name, StandardPhase};
pub use round::{down, down_text, nearest_text, whole, ALLOWANCE};
pub use unit::Unit;
