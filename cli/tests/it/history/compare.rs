//! `compare` and `history show --markdown`: both runs side by side with their ratio, and no
//! serial number or home folder in what may be shared.

use super::*;

pub(crate) fn compare_shows_both_runs_and_the_ratio_without_serials_or_home() -> Ran {
    let env = Env::new()?;
    // The target inside a home folder, on an SD card with a serial number.
    let home = env.dir.path().join("home/pi");
    let target = home.join("cardtest");
    std::fs::create_dir_all(&target).unwrap();
    let sysfs = card_behind(&env.dir.path().join("sysfs-home"), &target);
    let run = |target: &Path, sysfs: Option<&Path>| {
        let mut c = env.cli();
        c.env("HOME", &home)
            .args(["run", "--json", "--runs", "1", "--target"])
            .arg(target)
            .arg("--profile")
            .arg(&env.profile);
        if let Some(s) = sysfs {
            c.arg("--sysfs-root").arg(s);
        }
        let out = c.output().unwrap();
        let doc = support::json(&out);
        assert!(doc["error"].is_null(), "{doc:#}");
        doc
    };
    let left = run(&target, Some(&sysfs));
    assert_eq!(left["card"]["kind"], "SD", "{:#}", left["card"]);
    let right = run(&env.target, None);
    let (l, r) = (run_id(&left), run_id(&right));

    let text = env.ok(&["compare", &l[..8], &r[..8]]);
    println!("{text}");
    let ratio = |line: &str| line.contains("Sequential write") && line.contains('×');
    assert!(text.lines().any(ratio), "{text}");
    assert!(text.contains("Left:") && text.contains("Right:"), "{text}");
    assert_private("compare", &text, &home);

    let md = env.ok(&["compare", &l, &r, "--markdown"]);
    println!("{md}");
    assert!(md.contains("| ") && md.contains("---"), "{md}");
    assert!(md.lines().any(|l| l.starts_with('|') && ratio(l)), "{md}");
    assert_private("compare --markdown", &md, &home);

    // The stored documents, shown or exported: the folder under the home is `~/…`.
    let shown = env.ok(&["history", "show", &l, "--json"]);
    assert_private("history show --json", &shown, &home);
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(
        shown["target"]["path"], "~/cardtest",
        "{:#}",
        shown["target"]
    );
    let exported = env.ok(&["history", "export"]);
    assert_private("history export", &exported, &home);

    assert_compare_json(&env, &l, &r, &home);

    // The store and its exports keep no serial either.
    let exported = env.ok(&["history", "export"]);
    for s in SERIALS {
        assert!(!exported.to_lowercase().contains(s), "export has {s}");
    }
    let shown = env.ok(&["history", "show", &l, "--json"]);
    for s in SERIALS {
        assert!(!shown.to_lowercase().contains(s), "show has {s}");
    }
    Ok(())
}

/// `compare L R --json` of the runs `l` and `r`: both runs named, the seq-write ratio that of
/// its figures, and nothing of the home folder `home`.
fn assert_compare_json(env: &Env, l: &str, r: &str, home: &Path) {
    let json: Value = serde_json::from_str(&env.ok(&["compare", l, r, "--json"])).unwrap();
    assert_eq!(json["left"]["run"], l);
    assert_eq!(json["right"]["run"], r);
    let seq_write = json["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["phase"] == "seq-write")
        .unwrap_or_else(|| panic!("{json:#}"));
    let (a, b) = (
        seq_write["left"].as_f64().unwrap(),
        seq_write["right"].as_f64().unwrap(),
    );
    assert!(
        (seq_write["ratio"].as_f64().unwrap() - b / a).abs() < 1e-6,
        "{seq_write}"
    );
    assert_private("compare --json", &json.to_string(), home);
}

pub(crate) fn run_markdown_has_no_serials_or_home_path() -> Ran {
    let env = Env::new()?;
    let home = env.dir.path().join("home/pi");
    let target = home.join("cardtest");
    std::fs::create_dir_all(&target).unwrap();
    let sysfs = card_behind(&env.dir.path().join("sysfs-home"), &target);
    let out = env
        .cli()
        .env("HOME", &home)
        .args(["run", "--markdown", "--runs", "1", "--target"])
        .arg(&target)
        .arg("--profile")
        .arg(&env.profile)
        .arg("--sysfs-root")
        .arg(&sysfs)
        .output()
        .unwrap();
    let md = stdout(&out);
    println!("{md}");
    assert!(
        md.contains("| seq-write") || md.contains("| Job"),
        "{md}\n{}",
        stderr(&out)
    );
    assert_private("run --markdown", &md, &home);
    // A run that fails (no room for the file) does not put the path in the table either.
    let full = home.join("no-such-folder");
    let out = env
        .run_cmd()
        .env("HOME", &home)
        .args(["--markdown", "--runs", "1"])
        .target(&full)
        .profile(&env.profile)
        .output();
    assert_eq!(out.status.code(), Some(2));
    assert_private("run --markdown of an error", &stdout(&out), &home);
    Ok(())
}
