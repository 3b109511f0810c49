//! The report: the one result type of a test, from the engine to the CLI's text and JSON, the
//! desktop app's rows and the `rpdiags.txt` log.
//!
//! JSON shape (`serde_json::to_string(&report)`): `schema_version` ([`SCHEMA_VERSION`]),
//! `run_id`, `verdict`, `a2_verdict`, `engine`, `io_path`,
//! `profile`, `target` {`path`, `device`, `transport`, `fs_type`, …}, `card`, `runs` [ {`run`,
//! `verdict`, `a2_verdict`, `phases` [ {`name`, `bytes`, `ios`, `seconds`, `bw_bytes`, `iops`,
//! `lat_us` {`p50`, `p99`, `max`}, `samples`, …} ], `checks` [ {`name`, `standard`, `value`,
//! `unit`, `target`, `verdict`, `reason`} ] } ], `error` (null or {`kind`, `message`, `hint`}),
//! `warnings`, `advice`, `findings` (the card's claims against the measurement), `drive` (null
//! or {`id`, `basis`}: [`crate::drive::DriveIdentity`]), `measured_with`
//! ([`crate::drive::Provenance`]), and `references` when published figures stand beside the
//! card's ([`published::ReferenceLine`]; absent when there are none).
//!
//! A profile that only measures (`quick`, `qd1`, `matrix`) adds `"graded": false` at the top
//! (absent, meaning true, for graded runs, so the standard test's document is unchanged); its
//! `verdict`, `a2_verdict` and each run's verdicts are `NOT_GRADED` when every job was measured
//! (`ERROR` on an error), its runs' `checks` are empty, and `matrix` and `qd1` add `table`
//! ([`table::ResultTable`]). The `sustained` profile's runs add `sustained`
//! ([`crate::sustained::SustainedResult`]).

mod error;
mod label;
pub mod published;
mod safe;
pub mod table;
mod text;

use serde::{Deserialize, Serialize};

pub use error::{shorten, ErrorKind, ErrorReport, SHORT_MESSAGE_CHARS};
pub use label::drive_label;
pub use safe::{is_bidi_control, terminal_safe, visible, without_home};
pub use table::ResultTable;
pub use text::{compat_lines, to_text, to_text_verbose};

use crate::advice::Advice;
use crate::card::CardInfo;
use crate::engine::{EngineKind, IoPath, PhaseResult};
use crate::exit_code::ExitCode;
use crate::profile::{BuiltinProfile, Profile};
use crate::signals::StopSignal;
use crate::target_dir::{TargetInfo, Transport};
use crate::verdict::{Check, Metric, Standard, Verdict};

/// Which profile ran. JSON: `name`, `source` and `size_bytes`; which built-in profile it was
/// is not written, it is read back from `name` when `source` is null.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ProfileInfoJson")]
pub struct ProfileInfo {
    /// Short name (`sd_bench` for the built-in standard test).
    pub name: String,
    /// The job file, `None` for a built-in profile.
    pub source: Option<String>,
    /// Size of the test file, bytes.
    pub size_bytes: u64,
    /// Which built-in profile ran; `None` for a job file of one's own.
    #[serde(skip_serializing)]
    pub builtin: Option<BuiltinProfile>,
}

/// A [`ProfileInfo`] as its JSON has it.
#[derive(Deserialize)]
struct ProfileInfoJson {
    name: String,
    source: Option<String>,
    size_bytes: u64,
}

impl From<ProfileInfoJson> for ProfileInfo {
    fn from(json: ProfileInfoJson) -> ProfileInfo {
        ProfileInfo::new(json.name, json.source, json.size_bytes)
    }
}

impl ProfileInfo {
    /// The profile called `name`, read from the job file `source` (`None` for a built-in
    /// one), with a test file of `size_bytes`: a built-in profile when `source` is `None` and
    /// `name` is a built-in's report name ([`BuiltinProfile::from_report_name`]), as a report
    /// read back gives them.
    pub fn new(name: String, source: Option<String>, size_bytes: u64) -> ProfileInfo {
        let builtin = match source {
            None => BuiltinProfile::from_report_name(&name),
            Some(_) => None,
        };
        ProfileInfo {
            name,
            source,
            size_bytes,
            builtin,
        }
    }

    /// What the report says of `profile`, which ran on a test file of `size_bytes`.
    pub fn of(profile: &Profile, size_bytes: u64) -> ProfileInfo {
        ProfileInfo {
            name: profile.name.clone(),
            source: profile.source.as_ref().map(|p| p.display().to_string()),
            size_bytes,
            builtin: profile.builtin,
        }
    }
}

/// Where the test ran, as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetReport {
    /// The target directory.
    pub path: String,
    /// The disk that did the I/O (e.g. `mmcblk0`), or null when there is none.
    pub device: Option<String>,
    /// The filesystem's own device (e.g. `mmcblk0p2`, `dm-0`).
    pub partition: Option<String>,
    /// How the disk is attached.
    pub transport: Transport,
    /// The filesystem type.
    pub fs_type: String,
    /// Vendor/model from sysfs, when known.
    pub model: Option<String>,
    /// Bytes free before the test.
    pub free_bytes: u64,
}

impl<'a> From<&'a TargetReport> for crate::drive::Volume<'a> {
    fn from(target: &'a TargetReport) -> crate::drive::Volume<'a> {
        crate::drive::Volume {
            path: std::path::Path::new(&target.path),
            partition: target.partition.as_deref(),
            fs_type: &target.fs_type,
        }
    }
}

impl TargetReport {
    /// The report's view of a checked target.
    pub fn from_info(info: &TargetInfo) -> TargetReport {
        TargetReport {
            path: info.path.display().to_string(),
            device: info.device.as_ref().map(|d| d.disk.clone()),
            partition: info.device.as_ref().map(|d| d.name.clone()),
            transport: info.transport,
            fs_type: info.fs_type.clone(),
            model: info.device.as_ref().and_then(|d| d.model.clone()),
            free_bytes: info.free_bytes,
        }
    }
}

/// One run of the whole profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// 1-based run number.
    pub run: u32,
    /// The A1 verdict of this run (upstream's verdict).
    pub verdict: Verdict,
    /// The A2 verdict of this run.
    pub a2_verdict: Verdict,
    /// One result per phase, in profile order.
    pub phases: Vec<PhaseResult>,
    /// A1 checks then A2 checks.
    pub checks: Vec<Check>,
    /// The sustained write test's findings ([`crate::sustained::SustainedResult`]); absent
    /// (JSON: no key) for every other profile.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sustained: Option<Box<crate::sustained::SustainedResult>>,
}

impl RunReport {
    /// The check of `metric` against `standard`.
    pub fn check(&self, metric: Metric, standard: Standard) -> Option<&Check> {
        self.checks
            .iter()
            .find(|c| c.metric == metric && c.standard == standard)
    }

    /// The result of the phase named `name`.
    pub fn phase(&self, name: &str) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.name == name)
    }
}

/// The version of the JSON document this program writes ([`Report::schema_version`]): 2 adds
/// `schema_version`, `run_id`, `drive` and `measured_with`. A document without
/// `schema_version` is version 1, the first shape.
pub const SCHEMA_VERSION: u32 = 2;

/// The whole result of a test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The document's version ([`SCHEMA_VERSION`] when written by this program; 1 when the
    /// document has none).
    #[serde(default = "schema_v1")]
    pub schema_version: u32,
    /// The test's unique id: 32 lowercase hex digits (128 random bits), made with the report.
    /// Empty in version 1 documents (the history then derives one from the document).
    #[serde(default)]
    pub run_id: String,
    /// The program and version, e.g. `agnostics 0.1.0`.
    pub program: String,
    /// Local start time, RFC 3339.
    pub started: String,
    /// Overall verdict: A1, like upstream. PASS when a run passed; ERROR when a test error
    /// stopped it or nothing was measured.
    pub verdict: Verdict,
    /// The A2 verdict of the same run.
    pub a2_verdict: Verdict,
    /// True when the device is an SD card, so the SD targets rate it; false: reference only.
    pub sd_graded: bool,
    /// The engine.
    pub engine: EngineKind,
    /// The I/O path the engine used (JSON `io_uring`, `threads`, `fio libaio`, …; `""` when
    /// nothing ran).
    #[serde(with = "io_path_or_empty")]
    pub io_path: Option<IoPath>,
    /// The profile.
    pub profile: ProfileInfo,
    /// Where it ran; `None` only when the target could not even be inspected.
    pub target: Option<TargetReport>,
    /// False for a profile that only measures ([`crate::profile::Profile::graded`]); not in
    /// the JSON when true.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub graded: bool,
    /// The card or drive, when identified.
    pub card: Option<CardInfo>,
    /// Each run, in order.
    pub runs: Vec<RunReport>,
    /// The error that stopped the test, or null.
    pub error: Option<ErrorReport>,
    /// Warnings for people (caching filesystem, ignored profile keys, thread-pool fallback).
    pub warnings: Vec<String>,
    /// Advice, most important first.
    pub advice: Vec<Advice>,
    /// What the card claims against what was measured, and figures the link cannot carry
    /// (see [`crate::card::claims`]).
    #[serde(default)]
    pub findings: Vec<crate::card::Finding>,
    /// The results in the form the profile's users know ([`table::table`]): the `matrix` and
    /// `qd1` profiles' tables; not in the JSON for other profiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<ResultTable>,
    /// The drive's identity: a hash of its stable identifiers, never a serial number
    /// ([`crate::drive::identify`]); null when the drive could not be identified.
    #[serde(default)]
    pub drive: Option<crate::drive::DriveIdentity>,
    /// How the test was measured: program, engine, profile and its hash, kernel, Pi model,
    /// CPU governor, SoC temperature, throttling, SD bus mode ([`crate::drive::Provenance`]).
    #[serde(default)]
    pub measured_with: Option<crate::drive::Provenance>,
    /// Published figures beside the card's own ([`crate::references::beside`]): rows of the
    /// method the profile measures and of the Raspberry Pi model the test ran on, each with
    /// its source. Never a grade; not in the JSON when there are none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<published::ReferenceLine>,
}

fn schema_v1() -> u32 {
    1
}

/// A new run id: 128 random bits as 32 lowercase hex digits.
pub fn new_run_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Report {
    /// The report of a test of `profile` with `engine` that has not measured anything yet:
    /// verdict ERROR, no target, no runs, no error, the profile's warnings.
    pub fn new(engine: EngineKind, profile: ProfileInfo, warnings: Vec<String>) -> Report {
        Report {
            schema_version: SCHEMA_VERSION,
            run_id: new_run_id(),
            program: format!("agnostics {}", crate::VERSION),
            started: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            verdict: Verdict::Error,
            a2_verdict: Verdict::Error,
            sd_graded: false,
            graded: true,
            engine,
            io_path: None,
            profile,
            target: None,
            card: None,
            runs: Vec::new(),
            error: None,
            warnings,
            advice: Vec::new(),
            findings: Vec::new(),
            table: None,
            drive: None,
            measured_with: None,
            references: Vec::new(),
        }
    }

    /// The same document without raw serial numbers or the user's home folder: the CID's
    /// product serial (`card.cid.psn`) and the kernel's `card.sysfs.serial` are removed
    /// (null), and `$HOME` is written `~` in `target.path`, the error's message and details
    /// and the warnings ([`without_home`]). The history stores and exports only redacted
    /// documents, and the app saves them; the drive stays known by [`Report::drive`]'s hash.
    pub fn redacted(&self) -> Report {
        let mut r = self.clone();
        if let Some(t) = &mut r.target {
            t.path = without_home(&t.path);
        }
        if let Some(e) = &mut r.error {
            e.message = without_home(&e.message);
            e.details = e.details.as_deref().map(without_home);
        }
        for w in &mut r.warnings {
            *w = without_home(w);
        }
        if let Some(drive) = &mut r.drive {
            drive.name = None;
        }
        if let Some(card) = &mut r.card {
            if let Some(cid) = &mut card.cid {
                cid.psn = None;
            }
            if let Some(ids) = &mut card.sysfs {
                ids.serial = None;
            }
        }
        r
    }

    /// The report of a test refused before it started (e.g. a profile that cannot be read):
    /// a document with every field of a measured one, verdict ERROR, no runs, `error` set and
    /// `advice` the one piece given.
    pub fn refused(
        engine: EngineKind,
        profile: ProfileInfo,
        error: ErrorReport,
        advice: Advice,
    ) -> Report {
        let mut report = Report::new(engine, profile, Vec::new());
        report.error = Some(error);
        report.advice.push(advice);
        report
    }

    /// The run the overall verdict comes from: the first that passed (or was measured without
    /// grading), else the last.
    pub fn deciding_run(&self) -> Option<&RunReport> {
        self.runs
            .iter()
            .find(|r| matches!(r.verdict, Verdict::Pass | Verdict::NotGraded))
            .or_else(|| self.runs.last())
    }

    /// The process exit status for this report ([`ExitCode`]): 0 PASS (or NOT_GRADED: every
    /// job of a profile that only measures was measured), 1 FAIL, 2 ERROR, 130 cancelled (as
    /// by SIGINT).
    pub fn exit_code(&self) -> i32 {
        if self.error.as_ref().is_some_and(ErrorReport::is_cancelled) {
            return ExitCode::Stopped(StopSignal::Interrupt).code();
        }
        self.verdict.exit_code().code()
    }
}

/// `Report::io_path` in JSON: the path's name, or `""` when there is none (the document's
/// shape from before the field was typed).
mod io_path_or_empty {
    use super::IoPath;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(path: &Option<IoPath>, s: S) -> Result<S::Ok, S::Error> {
        match path {
            Some(p) => p.serialize(s),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<IoPath>, D::Error> {
        let text = String::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        IoPath::parse(&text)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown I/O path {text:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::sample::measured as phase;

    #[test]
    fn compat_lines_match_upstream_form() {
        let run = RunReport::grade(
            1,
            vec![
                phase("seq-write", 5251.0 * 1024.0 + 100.0, 1.0),
                phase("rand-4k-write", 0.0, 612.4),
                phase("rand-4k-read", 0.0, 1200.0),
            ],
        );
        assert_eq!(
            compat_lines(&run),
            [
                "Sequential write speed 5251 KB/sec (target 10000) - FAIL",
                "Random write speed 612 IOPS (target 500) - PASS",
                "Random read speed 1200 IOPS (target 1500) - FAIL",
                "Note that sequential write speed declines over time as a card is used - your card may require reformatting",
            ]
        );
        assert_eq!(run.verdict, Verdict::Fail);
    }

    #[test]
    fn missing_values_print_error_not_pass() {
        let run = RunReport::grade(1, vec![]);
        let lines = compat_lines(&run);
        assert_eq!(
            lines[0],
            "Sequential write speed ERROR KB/sec (target 10000) - ERROR"
        );
        assert_eq!(lines.len(), 3);
        assert_eq!(run.verdict, Verdict::Error);
    }

    #[test]
    fn error_kinds_keep_their_snake_case_names() {
        let names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for kind in ErrorKind::ALL {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
            assert_eq!(serde_json::from_value::<ErrorKind>(json).unwrap(), kind);
            let snake = format!("{kind:?}")
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let sep = (i > 0 && c.is_uppercase()).then_some('_');
                    sep.into_iter().chain(c.to_lowercase())
                })
                .collect::<String>();
            assert_eq!(kind.as_str(), snake);
        }
        assert!(serde_json::from_str::<ErrorKind>(r#""broken""#).is_err());
    }

    #[test]
    fn a_profile_s_json_is_its_name_source_and_size_and_reads_back_typed() {
        use crate::profile::BuiltinProfile;
        let qd1 = ProfileInfo::of(&BuiltinProfile::Qd1.builtin().profile(), 4096);
        assert_eq!(qd1.builtin, Some(BuiltinProfile::Qd1));
        let json = serde_json::to_value(&qd1).unwrap();
        let spelled = serde_json::json!({"name": "qd1", "source": null, "size_bytes": 4096});
        assert_eq!(json, spelled);
        assert_eq!(serde_json::from_value::<ProfileInfo>(json).unwrap(), qd1);
        let standard = ProfileInfo::of(&crate::profile::Profile::sd_bench(), 1);
        assert_eq!(serde_json::to_value(&standard).unwrap()["name"], "sd_bench");
        assert_eq!(standard.builtin, Some(BuiltinProfile::Standard));
        let own = serde_json::json!({"name": "qd1", "source": "/home/pi/qd1.fio", "size_bytes": 1});
        assert_eq!(
            serde_json::from_value::<ProfileInfo>(own).unwrap().builtin,
            None
        );
    }

    #[test]
    fn a_refused_run_has_every_field_of_a_measured_one() {
        let profile = ProfileInfo::new("bad".into(), Some("/tmp/bad.fio".into()), 0);
        let refused = Report::refused(
            EngineKind::Native,
            profile.clone(),
            ErrorReport::new(ErrorKind::Profile, "invalid".into(), "fix it".into()),
            Advice::FixTheProfile,
        );
        assert_eq!(refused.verdict, Verdict::Error);
        assert_eq!(refused.exit_code(), 2);
        let doc = serde_json::to_value(&refused).unwrap();
        let measured =
            serde_json::to_value(Report::new(EngineKind::Native, profile, vec![])).unwrap();
        let keys = |v: &serde_json::Value| -> Vec<String> {
            v.as_object().unwrap().keys().cloned().collect()
        };
        assert_eq!(keys(&doc), keys(&measured));
        assert_eq!(doc["error"]["kind"], "profile");
        assert_eq!(doc["io_path"], "");
        assert_eq!(doc["advice"][0]["kind"], "fix_the_profile");
        let back: Report = serde_json::from_value(doc).unwrap();
        assert_eq!(back.io_path, None);
        assert!(!back.error.unwrap().is_cancelled());
    }
}
