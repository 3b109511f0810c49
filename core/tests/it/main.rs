//! The engine's integration tests, one program: a module per subject (each named for what it
//! tests; `cargo test -p agnostics-core --test it -- native_engine::` runs one), on real
//! parts, under `agnostics_testkit`'s harness. Shared helpers are in [`common`].
//!
//! Some tests run this program again as a child: inside a throttled disk's cgroup (a task
//! named `module/task`, served by [`child`]), as another user, or as a second writer (a test
//! of its own, picked with `--exact`). A test that changes what the process shares (the
//! environment, the locale) runs in a process of its own (`Test::in_own_process`).

mod common;

mod break_testfile;
mod builtin_profiles;
mod card_claims;
mod card_fixtures;
mod doc_paths;
mod engine_errors;
mod fio_engine;
mod fio_examples;
mod grading;
mod history;
mod history_abuse;
mod history_links;
mod history_recover;
mod i18n_text;
mod layers;
mod native_engine;
mod no_space;
mod pi_a2;
mod po_catalogues;
mod profile_keys;
mod references;
mod run_dir;
mod scripts;
mod sustained_data;
mod target;
mod testfile;
mod throttled;
mod typed_events;
mod write_data;

use std::path::Path;

use agnostics_core::engine::PhaseResult;
use agnostics_testkit::harness::{self, Test};

/// A throttled child's task, `module/task`, done by that module.
fn child(task: &str, dir: &Path) -> Vec<PhaseResult> {
    let (module, task) = task
        .split_once('/')
        .unwrap_or_else(|| panic!("a child's task is module/task: {task}"));
    match module {
        "builtin_profiles" => builtin_profiles::child_run(task, dir),
        "engine_errors" => engine_errors::child_run(task, dir),
        "profile_keys" => profile_keys::throttled_child_run(task, dir),
        "throttled" => throttled::throttled_child_run(task, dir),
        other => panic!("no module {other} serves children"),
    }
}

fn main() {
    if agnostics_testkit::serve_child(child) || run_dir::serve_child() || target::serve_child() {
        return;
    }
    let modules: Vec<(&str, Vec<Test>)> = vec![
        ("break_testfile", break_testfile::tests()),
        ("builtin_profiles", builtin_profiles::tests()),
        ("card_claims", card_claims::tests()),
        ("card_fixtures", card_fixtures::tests()),
        ("doc_paths", doc_paths::tests()),
        ("engine_errors", engine_errors::tests()),
        ("fio_engine", fio_engine::tests()),
        ("fio_examples", fio_examples::tests()),
        ("grading", grading::tests()),
        ("history", history::tests()),
        ("history_abuse", history_abuse::tests()),
        ("history_links", history_links::tests()),
        ("history_recover", history_recover::tests()),
        ("i18n_text", i18n_text::tests()),
        ("layers", layers::tests()),
        ("native_engine", native_engine::tests()),
        ("no_space", no_space::tests()),
        ("pi_a2", pi_a2::tests()),
        ("po_catalogues", po_catalogues::tests()),
        ("profile_keys", profile_keys::tests()),
        ("references", references::tests()),
        ("run_dir", run_dir::tests()),
        ("scripts", scripts::tests()),
        ("sustained_data", sustained_data::tests()),
        ("target", target::tests()),
        ("testfile", testfile::tests()),
        ("throttled", throttled::tests()),
        ("typed_events", typed_events::tests()),
        ("write_data", write_data::tests()),
    ];
    harness::run(
        modules
            .into_iter()
            .flat_map(|(module, tests)| harness::in_module(module, tests))
            .collect(),
    )
}
