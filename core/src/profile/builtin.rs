//! The built-in profiles, chosen by name (`--profile quick`): fio job files shipped in
//! `data/profiles/` (installed under `$datadir/agnostics/profiles/`) and built into the program.
//!
//! | name       | what                                                        | graded    |
//! |------------|-------------------------------------------------------------|-----------|
//! | `standard` | upstream agnostics' `sd_bench.fio`                          | A1 and A2 |
//! | `quick`    | the standard phases on a 32 MiB file: a first look          | no        |
//! | `qd1`      | 1 MiB sequential and 4 KiB random at queue depth 1          | no        |
//! | `matrix`   | CrystalDiskMark's SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, Q1T1 | no        |
//! | `sustained`| sequential writes past the write cache, read back and checked | no      |
//!
//! `sustained` is run by [`crate::sustained`], not by the engines: its job file names its
//! two phases.

use serde::{Deserialize, Serialize};

use crate::i18n::{gettext, gettext_noop};

use super::{Profile, ProfileError, SD_BENCH};

/// Which built-in profile, as a value a report carries. JSON: the name its reports give it,
/// `sd_bench` for the standard test (upstream's name, which its reports always had; `standard`
/// is read too) and the `--profile` name for the others (`quick`, `qd1`, `matrix`,
/// `sustained`).
///
/// A new built-in profile is one variant here and one row of [`ALL`] naming it (`which`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BuiltinProfile {
    /// The standard test, upstream's `sd_bench.fio`, graded against A1 and A2.
    #[serde(rename = "sd_bench", alias = "standard")]
    Standard,
    /// The standard test's steps on a small file.
    Quick,
    /// 1 MiB sequential and 4 KiB random at queue depth 1.
    Qd1,
    /// CrystalDiskMark's set.
    Matrix,
    /// Sequential writes past the write cache, read back and checked.
    Sustained,
}

impl BuiltinProfile {
    /// Its row of [`ALL`]: name, words, whether graded, job file.
    pub fn builtin(self) -> &'static Builtin {
        ALL.iter()
            .find(|b| b.which == self)
            .expect("every built-in profile has its row in ALL")
    }

    /// The built-in profile whose report name (its JSON: `sd_bench`, `qd1`, …) is `name`;
    /// `None` for any other name. For reports read back, whose JSON names the profile.
    pub fn from_report_name(name: &str) -> Option<BuiltinProfile> {
        use serde::de::value::{Error, StrDeserializer};
        BuiltinProfile::deserialize(StrDeserializer::<Error>::new(name)).ok()
    }
}

/// One built-in profile: its name, title and description (English; [`Builtin::title`] and
/// [`Builtin::description`] translate them), whether it is graded, and its job file's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// Which one it is, as a value.
    pub which: BuiltinProfile,
    /// The name `--profile` takes, e.g. `qd1`.
    pub name: &'static str,
    title: &'static str,
    description: &'static str,
    /// True only for `standard`: its runs are graded against A1/A2.
    pub graded: bool,
    /// The job file (`data/profiles/<name>.fio`).
    pub text: &'static str,
}

/// Every built-in profile, the standard one first (the default).
pub const ALL: [Builtin; 5] = [
    Builtin {
        which: BuiltinProfile::Standard,
        name: "standard",
        title: gettext_noop("Standard test"),
        description: gettext_noop("Raspberry Pi Diagnostics' own test, graded against A1 and A2"),
        graded: true,
        text: SD_BENCH,
    },
    Builtin {
        which: BuiltinProfile::Quick,
        name: "quick",
        title: gettext_noop("Quick check"),
        description: gettext_noop(
            "a first look, not the grade: the standard test's steps on a small file, about \
             half a minute on a slow card",
        ),
        graded: false,
        text: include_str!("../../../data/profiles/quick.fio"),
    },
    Builtin {
        which: BuiltinProfile::Qd1,
        name: "qd1",
        title: gettext_noop("One request at a time"),
        description: gettext_noop(
            "reads and writes with one request at a time (queue depth 1), 1 MiB sequential and \
             4 KiB random, as Jeff Geerling's and PiBenchmarks' tables publish them",
        ),
        graded: false,
        text: include_str!("../../../data/profiles/qd1.fio"),
    },
    Builtin {
        which: BuiltinProfile::Matrix,
        name: "matrix",
        title: gettext_noop("Like CrystalDiskMark"),
        description: gettext_noop(
            "the four tests of the PC program CrystalDiskMark, reads and writes, to set beside \
             its figures: 1 MiB sequential with 8 requests at a time and with one, 4 KiB random \
             with 32 and with one (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1)",
        ),
        graded: false,
        text: include_str!("../../../data/profiles/matrix.fio"),
    },
    Builtin {
        which: BuiltinProfile::Sustained,
        name: "sustained",
        title: gettext_noop("Sustained write"),
        description: gettext_noop(
            "writes up to 4 GiB in a row to find where the speed falls once the card's write \
             cache is full, then reads every byte back to check it",
        ),
        graded: false,
        text: include_str!("../../../data/profiles/sustained.fio"),
    },
];

impl Builtin {
    /// The built-in profile called `name` (exact, lower case), if any.
    pub fn find(name: &str) -> Option<&'static Builtin> {
        ALL.iter().find(|b| b.name == name)
    }

    /// The title for people, translated (e.g. "Quick check").
    pub fn title(&self) -> String {
        gettext(self.title)
    }

    /// One line for people, translated, saying what it measures and whether it is graded.
    pub fn description(&self) -> String {
        gettext(self.description)
    }

    /// The parsed profile. Its name is the built-in name, except the standard one, which
    /// keeps upstream's `sd_bench` (the name its reports always had); `source` is `None`.
    pub fn profile(&self) -> Profile {
        let file = format!("{}.fio (built in)", self.name);
        let mut profile = Profile::parse(self.text, &file, None)
            .unwrap_or_else(|e| panic!("the built-in profile {} is invalid: {e}", self.name));
        if self.which != BuiltinProfile::Standard {
            profile.name = self.name.to_owned();
        }
        profile.builtin = Some(self.which);
        profile
    }
}

/// The names of the built-in profiles, comma-separated, for messages.
pub fn names() -> String {
    ALL.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
}

impl Profile {
    /// The profile `--profile ARG` names. The rule: an argument with a `/` or ending in `.fio`
    /// is always a file; otherwise a built-in name ([`ALL`]) wins; any other word is read as a
    /// file (`--profile myjob`). So a file called `quick` in the current folder is `./quick`.
    /// Errors: [`Profile::load`]'s, with the built-in names added when the argument was a bare
    /// word.
    pub fn by_name_or_path(arg: &std::path::Path) -> Result<Profile, ProfileError> {
        let text = arg.to_string_lossy();
        let path_like = text.contains('/') || text.ends_with(".fio");
        if !path_like {
            if let Some(builtin) = Builtin::find(&text) {
                return Ok(builtin.profile());
            }
        }
        Profile::load(arg).map_err(|mut e| {
            if !path_like {
                e.reason = crate::i18n::fill(
                    &gettext("{reason} (and it is not a built-in profile: {names})"),
                    &[("reason", &e.reason), ("names", &names())],
                );
            }
            e
        })
    }

    /// Whether the test grades this profile's runs against A1/A2: false only for the built-in
    /// profiles that are not graded (`quick`, `qd1`, `matrix`, as [`Builtin::profile`] gives
    /// them); every job file the user gives is graded, as before.
    pub fn graded(&self) -> bool {
        self.builtin.is_none_or(|b| b.builtin().graded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_only_standard_is_graded() {
        for b in &ALL {
            let p = b.profile();
            assert!(!p.jobs.is_empty(), "{}", b.name);
            assert!(p.warnings.is_empty(), "{}: {:?}", b.name, p.warnings);
            assert_eq!(p.graded(), b.graded, "{}", b.name);
            assert_eq!(b.graded, b.name == "standard");
            assert!(!b.title().is_empty() && !b.description().is_empty());
        }
        assert_eq!(
            Builtin::find("standard").unwrap().profile(),
            Profile::sd_bench()
        );
        assert!(Profile::sd_bench().graded());
    }

    #[test]
    fn a_builtin_is_spelled_as_its_reports_always_named_it() {
        for b in &ALL {
            let report_name = b.profile().name;
            assert_eq!(serde_json::to_value(b.which).unwrap(), report_name.as_str());
            assert_eq!(
                BuiltinProfile::from_report_name(&report_name),
                Some(b.which)
            );
            assert_eq!(b.which.builtin(), b);
            assert_eq!(b.profile().builtin, Some(b.which));
        }
        let standard = BuiltinProfile::from_report_name("standard");
        assert_eq!(standard, Some(BuiltinProfile::Standard));
        assert_eq!(BuiltinProfile::from_report_name("myjob"), None);
    }

    #[test]
    fn names_win_over_bare_words_and_paths_are_files() {
        let p = Profile::by_name_or_path(std::path::Path::new("qd1")).unwrap();
        assert_eq!((p.name.as_str(), p.source.is_none()), ("qd1", true));
        let e = Profile::by_name_or_path(std::path::Path::new("nonesuch")).unwrap_err();
        assert!(
            e.reason.contains("standard, quick, qd1, matrix, sustained"),
            "{e}"
        );
        let e = Profile::by_name_or_path(std::path::Path::new("./qd1")).unwrap_err();
        assert!(!e.reason.contains("built-in"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("qd1.fio");
        std::fs::write(&file, include_str!("../../../data/profiles/qd1.fio")).unwrap();
        let p = Profile::by_name_or_path(&file).unwrap();
        assert_eq!(p.source.as_deref(), Some(file.as_path()));
        assert!(p.graded(), "a user's file is graded");
    }

    #[test]
    fn shipped_standard_is_sd_bench() {
        let linked = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../data/profiles/standard.fio"
        ))
        .unwrap();
        assert_eq!(linked, SD_BENCH);
    }
}
