//! `agnostics-cli compare RUN RUN`: two recorded runs side by side, each figure with the ratio
//! (second / first) and each side's link ceiling where known; as text, JSON or Markdown (a
//! forum-ready table with no serial numbers or home paths).

use agnostics_core::history::compare;

use crate::args::CompareArgs;
use crate::history_open::{fail, not_recorded, open_for_reading, path, print_json};
use crate::output::{emit, To};
use agnostics_core::report::terminal_safe;

/// Runs `compare`; returns the exit status: 0, or 2 after an error said on stderr (a run that
/// is not in the history, a store that cannot be read).
pub fn main(args: &CompareArgs) -> i32 {
    let path = path();
    let history = match open_for_reading(&path) {
        Ok(Some(h)) => h,
        Ok(None) => return not_recorded(&args.left, &path),
        Err(e) => return fail(&e),
    };
    let left = match history.report(&args.left) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let right = match history.report(&args.right) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    let mut comparison = compare::compare(&left, &right);
    // The names people gave their drives are the history's, not the reports'.
    let drives = match history.drives() {
        Ok(d) => d,
        Err(e) => return fail(&e),
    };
    let name_of = |r: &agnostics_core::report::Report| {
        let id = r.drive.as_ref()?.id.clone();
        drives.iter().find(|d| d.id == id)?.name.clone()
    };
    if let Some(name) = name_of(&left) {
        comparison.left.label = name;
    }
    if let Some(name) = name_of(&right) {
        comparison.right.label = name;
    }
    if args.json {
        print_json(&comparison)
    } else if args.markdown {
        emit(
            To::Stdout,
            terminal_safe(&compare::comparison_markdown(&comparison)),
        )
    } else {
        emit(
            To::Stdout,
            terminal_safe(&compare::comparison_text(&comparison)),
        )
    }
}
