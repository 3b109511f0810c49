//! `agnostics-cli capacity --forget-recovery [FILE]`: the way out for a recovery file that can
//! never be put back (its card is gone for good, or the file is damaged). Lists the files of
//! interrupted device checks (which card, how large, when), then forgets them, or only FILE,
//! after a y/N question or `--yes`. A running check's file is never forgotten.

use std::path::Path;

use agnostics_core::capacity::recovery;
use agnostics_core::exit_code::ExitCode;
use agnostics_core::i18n::{fill, gettext};

use crate::args::CapacityArgs;
use crate::capacity_cmd::{ask, fail};
use crate::output::{emit, To};

/// Runs `capacity --forget-recovery [FILE]`; returns the exit status (0 when every file asked
/// for was forgotten or there was none, 2 otherwise).
pub fn main(args: &CapacityArgs, only: Option<&Path>) -> i32 {
    let dir = recovery::default_dir();
    let mut listed = recovery::list(&dir);
    if let Some(only) = only {
        let name = only.file_name();
        listed.retain(|l| l.path.file_name() == name);
        if listed.is_empty() {
            return fail(
                args,
                &fill(
                    &gettext("there is no recovery file {file} in {dir}"),
                    &[("file", &only.display()), ("dir", &dir.display())],
                ),
            );
        }
    }
    if listed.is_empty() {
        emit(
            To::Stdout,
            format!(
                "{}\n",
                fill(
                    &gettext("No recovery files in {dir}."),
                    &[("dir", &dir.display())]
                )
            ),
        );
        return ExitCode::Success.code();
    }
    for l in &listed {
        emit(To::Stdout, format!("{}\n", describe(l)));
    }
    let question = gettext(
        "Forget these recovery files? The sectors they saved are then lost for good. [y/N] ",
    );
    if !args.yes && !ask(&question) {
        return fail(
            args,
            &gettext("nothing forgotten; add --yes to forget without being asked"),
        );
    }
    let mut code = 0;
    for l in listed.iter().filter(|l| !l.running) {
        if let Err(e) = recovery::forget(&l.path) {
            code = fail(args, &format!("{}: {e}", l.path.display()));
        } else {
            let done = fill(&gettext("Forgot {file}."), &[("file", &l.path.display())]);
            emit(To::Stdout, format!("{done}\n"));
        }
    }
    if listed.iter().any(|l| l.running) {
        code = fail(
            args,
            &gettext("a running check's recovery file is not forgotten; wait for it to finish"),
        );
    }
    code
}

/// One recovery file in a line: its path, then its card and when, or why it cannot be used.
fn describe(l: &recovery::Listed) -> String {
    let what = match &l.header {
        Some(h) => fill(
            &gettext("a check of {disk} ({size}) begun {created}; saved sectors: {n}"),
            &[
                ("disk", &h.disk),
                ("size", &agnostics_core::units::si_bytes(h.size_bytes)),
                ("created", &h.created),
                ("n", &h.blocks),
            ],
        ),
        None => String::new(),
    };
    match (&l.problem, what.is_empty()) {
        (Some(p), true) => format!("{}: {p}", l.path.display()),
        (Some(p), false) => format!("{}: {what}; {p}", l.path.display()),
        (None, _) => format!("{}: {what}", l.path.display()),
    }
}
