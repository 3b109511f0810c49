//! fio's own example job files (107 of them, from fio's source) against the profile parser:
//! each is accepted with at least one job, or refused with an error naming the file, the key
//! and, when it has one, a line that holds that key. No file may panic the parser.
//!
//! The files are GPL, so they are not in this repository: they are looked for in
//! `shared/fixtures/fio-jobs` beside the checkout ([`agnostics_testkit::fio_jobs_dir`]); without
//! them the test is reported as ignored (and fails under `AGNOSTICS_STRICT=1`).

use std::collections::BTreeMap;

use agnostics_core::profile::{Profile, ProfileError};

/// How many of fio's example job files the parser accepts (docs/measurement.md states it, with the
/// tally of reasons this test prints: the first reason of each refused file).
const ACCEPTED: usize = 4;

/// The group a refusal falls in, for the tally: the key outside the subset, or the key whose
/// value is.
fn reason_group(e: &ProfileError) -> String {
    if e.reason.contains("not in the supported subset") {
        format!("unsupported key `{}`", e.key)
    } else if e.reason.contains("`$` variables") {
        "`$` variables".into()
    } else if e.key == "numjobs" && e.reason.contains("group_reporting") {
        "numjobs > 1 without group_reporting".into()
    } else {
        format!("unsupported value of `{}`", e.key)
    }
}

fn fio_example_files_are_accepted_or_refused_without_panic() -> agnostics_testkit::Ran {
    let Some(dir) = agnostics_testkit::fio_jobs_dir() else {
        return agnostics_testkit::skip(
            "needs fio's example job files in shared/fixtures/fio-jobs beside the checkout",
        );
    };
    let mut accepted = 0;
    let mut refused = 0;
    let mut groups: BTreeMap<String, usize> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("read the fio-jobs folder") {
        let path = entry.expect("a folder entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("fio") {
            continue;
        }
        match Profile::load(&path) {
            Ok(p) => {
                accepted += 1;
                assert!(!p.jobs.is_empty(), "{}: no jobs", path.display());
            }
            Err(e) => {
                refused += 1;
                *groups.entry(reason_group(&e)).or_default() += 1;
                assert_eq!(e.file, path.display().to_string());
                assert!(!e.key.is_empty(), "{e}");
                if e.line > 0 {
                    let text = std::fs::read_to_string(&path).expect("read the job file");
                    let line = text.lines().nth(e.line - 1).unwrap_or("");
                    assert!(
                        line.contains(e.key.trim_start_matches('['))
                            || e.key == "size"
                            || e.key == "stonewall",
                        "{e}: line is {line:?}"
                    );
                }
            }
        }
    }
    let mut tally: Vec<(String, usize)> = groups.into_iter().collect();
    tally.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    eprintln!("{accepted} accepted, {refused} refused:");
    for (group, count) in &tally {
        eprintln!("  {count:3}  {group}");
    }
    assert!(accepted + refused >= 100, "{accepted} + {refused}");
    assert_eq!(accepted, ACCEPTED, "accepted files");
    assert!(
        refused > 0,
        "fio's examples include jobs the parser must refuse"
    );
    Ok(())
}

agnostics_testkit::test_list!(fio_example_files_are_accepted_or_refused_without_panic);
