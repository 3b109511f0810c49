//! A history that cannot be written (corrupt, read-only, on a full disk, locked) costs one
//! warning, never the result or the exit status.

use super::*;

/// The one line of `out`'s stderr that warns, which must exist and be the only one.
pub(crate) fn one_warning(out: &Output) -> String {
    let err = stderr(out);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.to_lowercase().contains("warning"))
        .collect();
    assert_eq!(warnings.len(), 1, "stderr:\n{err}");
    warnings[0].to_owned()
}

/// A run whose history cannot be written: the JSON document, the exit status of its verdict,
/// the log written, and one warning naming the history; with `again`, a text run that warns
/// the same way.
pub(crate) fn still_reported(env: &Env, again: bool) -> String {
    let log = env.dir.path().join("rpdiags.txt");
    let _ = std::fs::remove_file(&log);
    let out = env.run(&["--json"]);
    let doc = support::json(&out);
    assert!(doc["error"].is_null(), "{doc:#}");
    assert_eq!(out.status.code(), Some(exit_code(&doc)), "{}", stderr(&out));
    assert!(log.is_file(), "the log was not written");
    let warning = one_warning(&out);
    assert!(warning.to_lowercase().contains("history"), "{warning}");
    if again {
        let out = env.run(&[]);
        assert!(stdout(&out).contains("Run 1"), "{}", stdout(&out));
        assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
        one_warning(&out);
    }
    warning
}

pub(crate) fn a_corrupt_history_costs_one_warning_not_the_result() -> Ran {
    let env = Env::new()?;
    std::fs::create_dir_all(env.history.parent().unwrap()).unwrap();
    std::fs::write(&env.history, vec![b'x'; 8192]).unwrap();
    let warning = still_reported(&env, false);
    println!("corrupt: {warning}");
    // The damaged file was moved aside, never overwritten, and the run went into a new one.
    let aside: Vec<PathBuf> = std::fs::read_dir(env.history.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), vec![b'x'; 8192]);
    assert!(
        warning.contains(&aside[0].display().to_string()),
        "{warning}"
    );
    assert_eq!(env.run_ids().len(), 1);
    // The next run has no warning.
    let out = env.run(&["--json"]);
    assert!(!stderr(&out).contains("warning"), "{}", stderr(&out));
    Ok(())
}

/// Clears the immutable attribute of a file on drop.
pub(crate) struct Immutable(PathBuf);

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

pub(crate) fn a_read_only_history_costs_one_warning_not_the_result() -> Ran {
    // Root can write any file whatever its mode; an immutable file (chattr +i) it cannot.
    require_root("a history file that root cannot write (chattr +i)")?;
    require_program("chattr")?;
    let env = Env::new()?;
    env.run_json(&[]);
    let before = env.run_ids();
    let status = Command::new("chattr")
        .arg("+i")
        .arg(&env.history)
        .status()
        .unwrap();
    require(
        status.success(),
        "chattr +i is not supported on /var/tmp's filesystem",
    )?;
    let _guard = Immutable(env.history.clone());
    let warning = still_reported(&env, true);
    println!("read-only: {warning}");
    assert_eq!(env.run_ids(), before);
    Ok(())
}

pub(crate) fn a_history_on_a_full_disk_costs_one_warning_not_the_result() -> Ran {
    require_root("a small tmpfs to fill")?;
    let env = Env::new()?;
    let full = agnostics_testkit::Tmpfs::new(1);
    // Fill it: the history's folder cannot even be made.
    {
        use std::io::Write;
        let mut f = std::fs::File::create(full.mount.join("filler")).unwrap();
        let block = vec![0u8; 64 << 10];
        while f.write_all(&block).is_ok() {}
        let _ = f.flush();
    }
    let history = full.mount.join("state/history.sqlite3");
    let out = env
        .run_cmd()
        .env("AGNOSTICS_HISTORY", &history)
        .args(["--json", "--runs", "1"])
        .target(&env.target)
        .profile(&env.profile)
        .output();
    let doc = support::json(&out);
    assert!(doc["error"].is_null(), "{doc:#}");
    assert_eq!(out.status.code(), Some(exit_code(&doc)));
    let warning = one_warning(&out);
    println!("full: {warning}");
    assert!(
        warning.contains(&full.mount.display().to_string()),
        "{warning}"
    );
    drop(full);
    Ok(())
}

pub(crate) fn a_locked_history_costs_one_warning_not_the_result() -> Ran {
    require_program("sqlite3")?;
    let env = Env::new()?;
    env.run_json(&[]);
    // Another program holds the write lock for the whole run (longer than the wait for it).
    let mut holder = Command::new("sqlite3")
        .arg(&env.history)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::{BufRead, Write};
        let stdin = holder.stdin.as_mut().unwrap();
        stdin
            .write_all(b"BEGIN EXCLUSIVE;\nSELECT 'locked';\n")
            .unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(holder.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "locked");
    }
    let out = env.run(&["--json"]);
    drop(holder.stdin.take());
    let _ = holder.wait();
    let doc = support::json(&out);
    assert!(doc["error"].is_null(), "{doc:#}");
    assert_eq!(out.status.code(), Some(exit_code(&doc)));
    let warning = one_warning(&out);
    println!("locked: {warning}");
    assert!(warning.to_lowercase().contains("history"), "{warning}");
    assert_eq!(
        env.run_ids().len(),
        1,
        "the locked run was recorded after all"
    );
    Ok(())
}
