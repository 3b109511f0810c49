//! `agnostics-cli profiles [--json]`: the built-in profiles `--profile NAME` takes, a line
//! each (name, graded or not, what it measures), or a JSON array of `{name, title,
//! description, graded, size_bytes, jobs}`.

use agnostics_core::exit_code::ExitCode;
use agnostics_core::i18n::gettext;
use agnostics_core::profile::builtin;
use serde::Serialize;

use crate::args::ProfilesArgs;
use crate::output::{emit, To};

/// One built-in profile in the JSON list.
#[derive(Serialize)]
struct Entry {
    name: &'static str,
    title: String,
    description: String,
    graded: bool,
    /// The test file's size, bytes.
    size_bytes: u64,
    /// The fio job names, in the order they run.
    jobs: Vec<String>,
}

/// Runs the subcommand; returns the exit status (0, or 2 when stdout fails).
pub fn main(args: &ProfilesArgs) -> i32 {
    let entries: Vec<Entry> = builtin::ALL
        .iter()
        .map(|b| {
            let profile = b.profile();
            Entry {
                name: b.name,
                title: b.title(),
                description: b.description(),
                graded: b.graded,
                size_bytes: profile.file_size_bytes(),
                jobs: profile.jobs.iter().map(|j| j.name.clone()).collect(),
            }
        })
        .collect();
    if args.json {
        return match serde_json::to_string_pretty(&entries) {
            Ok(text) => emit(To::Stdout, format!("{text}\n")),
            Err(e) => {
                emit(To::Stderr, format!("agnostics-cli: {e}\n"));
                ExitCode::NoVerdict.code()
            }
        };
    }
    let graded = gettext("graded");
    let not_graded = gettext("not graded");
    let width = graded.chars().count().max(not_graded.chars().count());
    let mut out = String::new();
    for e in &entries {
        let mark = if e.graded { &graded } else { &not_graded };
        out.push_str(&format!(
            "{:<8}  {:<width$}  {}\n",
            e.name, mark, e.description
        ));
    }
    emit(To::Stdout, out)
}
