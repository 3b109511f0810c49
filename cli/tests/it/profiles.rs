//! The built-in profiles on the command line: `profiles [--json]`, and real runs of `qd1` and
//! `matrix` by name in a scratch folder on a disk filesystem: exit 0, `"graded": false`, verdict
//! NOT_GRADED, no checks, and the table in the JSON (its figures those of its jobs), the text and
//! `--markdown` (the same rows).

use crate::support;

use agnostics_core::report::{table, Report};
use support::{cli, json, scratch};

fn profiles_lists_each_builtin() {
    let out = cli().args(["profiles", "--json"]).output().unwrap();
    assert!(out.status.success());
    let doc = json(&out);
    let names: Vec<&str> = doc
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["standard", "quick", "qd1", "matrix", "sustained"]);
    let graded: Vec<bool> = doc
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["graded"].as_bool().unwrap())
        .collect();
    assert_eq!(graded, [true, false, false, false, false]);
    assert_eq!(doc[1]["size_bytes"], 32 * 1024 * 1024);
    let text = cli().arg("profiles").output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(text.lines().nth(2).unwrap().starts_with("qd1 "), "{text}");
    assert!(text.contains("not graded"), "{text}");
}

fn run(name: &str, extra: &[&str]) -> std::process::Output {
    let dir = scratch();
    let out = cli()
        .args(["run", "--profile", name, "--target"])
        .arg(dir.path())
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{name} {extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn ungraded_runs_show_their_table_in_every_form() {
    for (name, first_row) in [("qd1", "1M sequential read"), ("matrix", "SEQ1M Q8T1")] {
        let out = run(name, &["--json"]);
        let doc = json(&out);
        assert_eq!(doc["graded"], false, "{name}");
        assert_eq!(doc["verdict"], "NOT_GRADED");
        assert_eq!(doc["a2_verdict"], "NOT_GRADED");
        assert_eq!(doc["runs"].as_array().unwrap().len(), 1);
        assert_eq!(doc["runs"][0]["checks"], serde_json::json!([]));
        assert_eq!(doc["table"]["form"], name);
        let report: Report = serde_json::from_value(doc).unwrap();
        let t = report.table.clone().unwrap();
        // The same figures as its jobs' (compared as shown: JSON may move the last bit).
        assert_eq!(
            table::grid(&t),
            table::grid(&table::table(&report).unwrap()),
            "{name}: the table is its jobs'"
        );
        let (_, body) = table::grid(&t);
        assert_eq!(body[0][0], first_row);
        let markdown = table::to_markdown(&report);
        for line in &body {
            assert!(
                markdown.contains(&format!("| {} |", line.join(" | "))),
                "{markdown}"
            );
        }

        let text = String::from_utf8(run(name, &[]).stdout).unwrap();
        assert!(text.contains(first_row), "{text}");
        assert!(text.contains("not graded"), "{text}");
        assert!(
            !text.contains("KB/sec") && !text.contains("ERROR"),
            "{text}"
        );
        assert!(!text.contains("A1:"), "{text}");
        let md = String::from_utf8(run(name, &["--markdown"]).stdout).unwrap();
        let rows = |s: &str| -> Vec<String> {
            s.lines()
                .filter(|l| l.starts_with("| ") && !l.starts_with("|  |"))
                .map(|l| l.split(" | ").next().unwrap().to_owned())
                .collect()
        };
        assert_eq!(rows(&md), rows(&markdown), "{md}");
        assert!(!md.contains("/var/") && !md.contains("/root"), "{md}");
    }
}

agnostics_testkit::test_list!(
    profiles_lists_each_builtin,
    ungraded_runs_show_their_table_in_every_form
);
