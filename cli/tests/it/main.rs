//! The command line's integration tests, one program: a module per subject (each named for
//! what it tests; `cargo test -p agnostics-cli --test it -- shared_drive::` runs one), each
//! running the built `agnostics-cli` on real parts, under `agnostics_testkit`'s harness.
//! Shared helpers are in [`support`].

mod support;

mod r#break;
mod capacity;
mod capacity_fakes;
mod capacity_recovery;
mod card;
mod device_io;
mod generate;
mod grading;
mod health;
mod history;
mod history_abuse;
mod history_disk;
mod i18n;
mod json_shape;
mod leftovers;
mod paused;
mod pi_host;
mod profiles;
mod references;
mod run;
mod same_work;
mod scripts;
mod shared_drive;
mod stale_notice;
mod sustained;
mod throttled;

use agnostics_testkit::harness::{self, Test};

fn main() {
    let modules: Vec<(&str, Vec<Test>)> = vec![
        ("break", r#break::tests()),
        ("capacity", capacity::tests()),
        ("capacity_fakes", capacity_fakes::tests()),
        ("capacity_recovery", capacity_recovery::tests()),
        ("card", card::tests()),
        ("device_io", device_io::tests()),
        ("generate", generate::tests()),
        ("grading", grading::tests()),
        ("health", health::tests()),
        ("history", history::tests()),
        ("history_abuse", history_abuse::tests()),
        ("history_disk", history_disk::tests()),
        ("i18n", i18n::tests()),
        ("json_shape", json_shape::tests()),
        ("leftovers", leftovers::tests()),
        ("paused", paused::tests()),
        ("pi_host", pi_host::tests()),
        ("profiles", profiles::tests()),
        ("references", references::tests()),
        ("run", run::tests()),
        ("same_work", same_work::tests()),
        ("scripts", scripts::tests()),
        ("shared_drive", shared_drive::tests()),
        ("stale_notice", stale_notice::tests()),
        ("sustained", sustained::tests()),
        ("throttled", throttled::tests()),
    ];
    harness::run(
        modules
            .into_iter()
            .flat_map(|(module, tests)| harness::in_module(module, tests))
            .collect(),
    )
}
