//! The standard test's five phases (upstream agnostics' `sd_bench` job file): their fio job
//! names, their titles for people and the unit each is judged by. A profile may name its jobs
//! otherwise, so a phase's name stays text; [`StandardPhase::from_job_name`] is the bridge.

use super::Unit;

/// One phase of the standard test, in the order it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StandardPhase {
    /// `prepare-file`: lays out the test file; not a figure.
    PrepareFile,
    /// `seq-write`: sequential write, graded (A1/A2 sustained sequential write).
    SeqWrite,
    /// `seq-read`: sequential read, measured only.
    SeqRead,
    /// `rand-4k-write`: random 4 KiB write, graded (IOPS).
    Rand4kWrite,
    /// `rand-4k-read`: random 4 KiB read, graded (IOPS).
    Rand4kRead,
}

impl StandardPhase {
    /// Every phase, in the order the standard test runs them.
    pub const ALL: [StandardPhase; 5] = [
        StandardPhase::PrepareFile,
        StandardPhase::SeqWrite,
        StandardPhase::SeqRead,
        StandardPhase::Rand4kWrite,
        StandardPhase::Rand4kRead,
    ];

    /// The fio job name: `prepare-file`, `seq-write`, `seq-read`, `rand-4k-write`,
    /// `rand-4k-read`.
    pub fn job_name(self) -> &'static str {
        match self {
            StandardPhase::PrepareFile => "prepare-file",
            StandardPhase::SeqWrite => "seq-write",
            StandardPhase::SeqRead => "seq-read",
            StandardPhase::Rand4kWrite => "rand-4k-write",
            StandardPhase::Rand4kRead => "rand-4k-read",
        }
    }

    /// The phase a fio job name names, `None` for the jobs of other profiles.
    pub fn from_job_name(name: &str) -> Option<StandardPhase> {
        StandardPhase::ALL
            .into_iter()
            .find(|p| p.job_name() == name)
    }

    /// The phase's title for people, translated: `Preparing the test file`, `Sequential
    /// write`, `Sequential read`, `Random 4K write`, `Random 4K read`.
    pub fn title(self) -> String {
        use crate::i18n::gettext;
        match self {
            StandardPhase::PrepareFile => gettext("Preparing the test file"),
            StandardPhase::SeqWrite => gettext("Sequential write"),
            StandardPhase::SeqRead => gettext("Sequential read"),
            StandardPhase::Rand4kWrite => gettext("Random 4K write"),
            StandardPhase::Rand4kRead => gettext("Random 4K read"),
        }
    }

    /// The unit of the phase's figure as measured: bytes per second for the sequential
    /// phases, IOPS for the random ones; `None` for `prepare-file`, which is no figure.
    pub fn unit(self) -> Option<Unit> {
        match self {
            StandardPhase::PrepareFile => None,
            StandardPhase::SeqWrite | StandardPhase::SeqRead => Some(Unit::BytesPerSecond),
            StandardPhase::Rand4kWrite | StandardPhase::Rand4kRead => Some(Unit::Iops),
        }
    }

    /// True for the phases the A1/A2 checks grade: `seq-write`, `rand-4k-write`,
    /// `rand-4k-read` (the phases of [`crate::verdict::Metric`]).
    pub fn is_graded(self) -> bool {
        matches!(
            self,
            StandardPhase::SeqWrite | StandardPhase::Rand4kWrite | StandardPhase::Rand4kRead
        )
    }
}

/// A step of the test as people know it, for a message: the standard phase's title in quotes
/// (“Preparing the test file” for `prepare-file`), translated; another job's name as it is.
pub fn step_name(job: &str) -> String {
    match StandardPhase::from_job_name(job) {
        Some(p) => crate::i18n::fill(
            // Translators: a step of the test named in a message, e.g. “Sequential write”.
            &crate::i18n::gettext("“{step}”"),
            &[("step", &p.title())],
        ),
        None => job.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verdict::Metric;

    #[test]
    fn the_phases_are_the_builtin_profiles_jobs_in_order() {
        let jobs: Vec<String> = crate::profile::Profile::sd_bench()
            .jobs
            .iter()
            .map(|j| j.name.clone())
            .collect();
        let names: Vec<&str> = StandardPhase::ALL.iter().map(|p| p.job_name()).collect();
        assert_eq!(jobs, names);
        for p in StandardPhase::ALL {
            assert_eq!(StandardPhase::from_job_name(p.job_name()), Some(p));
        }
        assert_eq!(StandardPhase::from_job_name("burst"), None);
        assert_eq!(StandardPhase::from_job_name("Seq-Write"), None);
    }

    #[test]
    fn the_graded_phases_are_the_metrics_phases() {
        let metrics = [Metric::SeqWrite, Metric::RandWrite, Metric::RandRead];
        let graded: Vec<_> = StandardPhase::ALL
            .into_iter()
            .filter(|p| p.is_graded())
            .collect();
        assert_eq!(graded, metrics.map(Metric::standard_phase));
    }

    #[test]
    fn each_figure_phase_has_the_unit_of_its_pattern() {
        let profile = crate::profile::Profile::sd_bench();
        for p in StandardPhase::ALL.into_iter().skip(1) {
            let job = profile.job(p.job_name()).unwrap();
            assert_eq!(p.unit(), Some(Unit::judging(job.rw)));
        }
        assert_eq!(StandardPhase::PrepareFile.unit(), None);
        assert_eq!(StandardPhase::Rand4kRead.title(), "Random 4K read");
    }
}
