//! Hostile or broken surroundings: a program named by `AGNOSTICS_FIO` that prints fio's JSON
//! with figures that contradict each other is not a measurement, so the run is an ERROR (never
//! a PASS) and the program's own folder is gone afterwards. A profile whose direct jobs use a
//! block size the drive's sectors do not divide is refused before a byte is written, on both
//! engines, instead of failing at the first request as if the drive were failing.

use crate::support;

use std::path::{Path, PathBuf};

use agnostics_testkit::{require_program, test_files};
use serde_json::Value;
use support::{json, scratch, small_profile, Run};

/// One direction's figures as fio 3.33 prints them.
fn figures(io_bytes: u64, total_ios: u64, runtime_ms: u64, bw_bytes: f64, iops: f64) -> Value {
    serde_json::json!({
        "io_bytes": io_bytes,
        "total_ios": total_ios,
        "runtime": runtime_ms,
        "bw_bytes": bw_bytes,
        "iops": iops,
        "clat_ns": {"max": 1000.0, "percentile": {"50.000000": 500.0, "99.000000": 900.0}},
    })
}

/// Writes an executable "fio" into `dir` that prints one result document for the five jobs of
/// [`small_profile`] (prepare-file, seq-write, seq-read, rand-4k-write, rand-4k-read), every
/// job's active direction carrying `active`, and returns its path.
fn fake_fio(dir: &Path, active: &Value) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let idle = figures(0, 0, 0, 0.0, 0.0);
    let jobs: Vec<Value> = [true, true, false, true, false]
        .iter()
        .enumerate()
        .map(|(index, &writes)| {
            let (read, write) = if writes {
                (&idle, active)
            } else {
                (active, &idle)
            };
            serde_json::json!({
                "jobname": format!("job{index}"),
                "error": 0,
                "job_runtime": 1000,
                "read": read,
                "write": write,
            })
        })
        .collect();
    let doc = serde_json::json!({"fio version": "fio-3.33", "jobs": jobs});
    let json_path = dir.join("fake-fio.json");
    std::fs::write(&json_path, doc.to_string()).unwrap();
    let script = dir.join("fake-fio");
    let body = format!(
        "#!/bin/sh\ncase \"$1\" in --version) echo fio-3.33; exit 0;; esac\ncat '{}'\n",
        json_path.display()
    );
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// Runs the CLI with the fake fio on a fresh target and checks it refused to grade: exit 2,
/// verdict ERROR, kind `fio_failed`, a message saying the output contradicts itself, no test
/// folder left.
fn assert_refused(active: &Value, because: &str) {
    let dir = scratch();
    let target = dir.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let profile = small_profile(dir.path(), "4m");
    let fio = fake_fio(dir.path(), active);
    let out = Run::default_command()
        .env("AGNOSTICS_FIO", &fio)
        .args(["--json", "--runs", "1", "--engine", "fio"])
        .target(&target)
        .profile(&profile)
        .output();
    let doc = json(&out);
    assert_eq!(out.status.code(), Some(2), "{doc:#}");
    assert_eq!(doc["verdict"], "ERROR", "{doc:#}");
    assert_eq!(doc["error"]["kind"], "fio_failed", "{doc:#}");
    // The whole text is in the details when the message is shortened for people.
    let error = &doc["error"];
    let text = error["details"]
        .as_str()
        .or(error["message"].as_str())
        .unwrap_or_default();
    assert!(
        text.contains("contradicts itself") && text.contains(because),
        "{error:#}"
    );
    assert!(
        doc["runs"].as_array().is_some_and(|r| r.is_empty()),
        "{doc:#}"
    );
    assert_eq!(test_files(&target), Vec::<String>::new());
}

fn a_fio_claiming_a_rate_its_bytes_do_not_give_is_an_error() -> agnostics_testkit::Ran {
    require_program("sh")?;
    // 4 MiB in 1 ms is 4.2 GB/s, but it claims 10 TB/s.
    assert_refused(&figures(4 << 20, 1024, 1, 1e13, 1e9), "bw_bytes");
    Ok(())
}

fn a_fio_claiming_rates_over_no_time_is_an_error() -> agnostics_testkit::Ran {
    require_program("sh")?;
    assert_refused(&figures(4 << 20, 1024, 0, 5e7, 5000.0), "runtime of 0 ms");
    Ok(())
}

fn a_fio_whose_jobs_stop_short_of_their_size_is_an_error() -> agnostics_testkit::Ran {
    require_program("sh")?;
    // Rates that agree with one 4 KiB request in a second, on jobs of 4 MiB without a runtime.
    assert_refused(&figures(4096, 1, 1000, 4096.0, 1.0), "stopped early");
    Ok(())
}

fn real_fio_still_passes_the_checks() -> agnostics_testkit::Ran {
    require_program("fio")?;
    let dir = scratch();
    let profile = small_profile(dir.path(), "4m");
    let out = Run::default_command()
        .args(["--json", "--runs", "1", "--engine", "fio"])
        .target(dir.path())
        .profile(&profile)
        .output();
    let doc = json(&out);
    // Whatever the verdict (the machine's speed is not asserted), fio's own output is
    // consistent, so it is never refused as contradicting itself.
    assert!(
        !doc["error"].to_string().contains("contradicts itself"),
        "{doc:#}"
    );
    assert_eq!(doc["runs"].as_array().map(|r| r.len()), Some(1), "{doc:#}");
    Ok(())
}

fn a_direct_block_size_the_sectors_do_not_divide_is_refused_before_writing(
) -> agnostics_testkit::Ran {
    agnostics_testkit::require_root("a loop device with 4096-byte sectors")?;
    require_program("losetup")?;
    require_program("mkfs.ext4")?;
    require_program("fio")?;
    let fs = agnostics_testkit::LoopFs::builder(96)
        .sector_size(4096)
        .mount();
    let dir = scratch();
    let profile = dir.path().join("bs512.fio");
    std::fs::write(
        &profile,
        "[global]\nsize=4m\ndirect=1\n[prepare-file]\nrw=write\nbs=512\n",
    )
    .unwrap();
    for engine in ["native", "fio"] {
        let (doc, message) = profile_error(engine, &fs.mount, &profile);
        assert!(
            message.contains("bs=512") && message.contains("4096"),
            "{engine}: {message}"
        );
        assert!(
            doc["runs"].as_array().is_some_and(|r| r.is_empty()),
            "{doc:#}"
        );
        assert_eq!(test_files(&fs.mount), Vec::<String>::new(), "{engine}");
    }
    // A block size the sectors divide runs.
    std::fs::write(
        &profile,
        "[global]\nsize=4m\ndirect=1\n[prepare-file]\nrw=write\nbs=4k\n",
    )
    .unwrap();
    let out = Run::default_command()
        .args(["--json", "--runs", "1"])
        .target(&fs.mount)
        .profile(&profile)
        .output();
    let doc = json(&out);
    assert_eq!(doc["runs"].as_array().map(|r| r.len()), Some(1), "{doc:#}");
    Ok(())
}

fn a_job_file_saved_with_a_byte_order_mark_is_read() {
    let dir = scratch();
    let profile = dir.path().join("bom.fio");
    std::fs::write(
        &profile,
        "\u{feff}[prepare-file]\r\nrw=write\r\nsize=1m\r\nbs=64k\r\n",
    )
    .unwrap();
    let out = Run::default_command()
        .args(["--json", "--runs", "1"])
        .target(dir.path())
        .profile(&profile)
        .output();
    let doc = json(&out);
    assert_ne!(doc["error"]["kind"], "profile", "{doc:#}");
    assert_eq!(
        doc["runs"][0]["phases"][0]["name"], "prepare-file",
        "{doc:#}"
    );
}

/// `agnostics-cli --json --runs 1 --engine ENGINE` of `profile` in `target`, which must end
/// with exit status 2 and the error kind `profile`: the document and the error's message.
fn profile_error(engine: &str, target: &Path, profile: &Path) -> (serde_json::Value, String) {
    let out = Run::default_command()
        .args(["--json", "--runs", "1", "--engine", engine])
        .target(target)
        .profile(profile)
        .output();
    let doc = json(&out);
    assert_eq!(out.status.code(), Some(2), "{engine}: {doc:#}");
    assert_eq!(doc["error"]["kind"], "profile", "{engine}: {doc:#}");
    let message = doc["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (doc, message)
}

/// A job that does all its work inside its `ramp_time` (1 MiB of reads, a 30 s ramp) has
/// measured nothing: both engines say which job and why (kind `profile`, advice
/// `ramp_longer_than_job`), not ERROR 0.00 MB/s without a word or fio's missing percentiles.
fn a_job_that_ends_inside_its_ramp_time_says_so() -> agnostics_testkit::Ran {
    require_program("fio")?;
    let dir = scratch();
    let profile = dir.path().join("ramp.fio");
    std::fs::write(
        &profile,
        "[global]\nioengine=libaio\ndirect=1\nsize=1m\n\n[prepare-file]\nrw=write\nbs=64k\n\n\
         [short]\nstonewall\nrw=read\nbs=64k\nramp_time=30\n",
    )
    .unwrap();
    for engine in ["native", "fio"] {
        let (doc, message) = profile_error(engine, dir.path(), &profile);
        assert!(
            message.contains("short ended inside its ramp_time (30 s)"),
            "{engine}: {message}"
        );
        assert!(
            doc["advice"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["kind"] == "ramp_longer_than_job"),
            "{engine}: {:#}",
            doc["advice"]
        );
        assert!(
            test_files(dir.path()).is_empty(),
            "{engine}: test file left"
        );
    }
    Ok(())
}

agnostics_testkit::test_list!(
    a_job_that_ends_inside_its_ramp_time_says_so,
    a_job_file_saved_with_a_byte_order_mark_is_read,
    a_direct_block_size_the_sectors_do_not_divide_is_refused_before_writing,
    a_fio_claiming_a_rate_its_bytes_do_not_give_is_an_error,
    a_fio_claiming_rates_over_no_time_is_an_error,
    a_fio_whose_jobs_stop_short_of_their_size_is_an_error,
    real_fio_still_passes_the_checks,
);
