//! The command line, as clap derives it (also used to generate the man page and completions).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Test whether an SD card (or any drive) is fast enough for a Raspberry Pi.
///
/// Without a subcommand, runs the standard SD card test (upstream agnostics' sd_bench.fio)
/// in /var/tmp and grades it against the SD Association's A1 and A2 minimums.
#[derive(Debug, Parser)]
#[command(
    name = "agnostics-cli",
    version,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the SD card test (the default).
    Run(RunArgs),
    /// List the built-in profiles (`--profile NAME`): name, graded or not, what it measures.
    Profiles(ProfilesArgs),
    /// List the published figures shipped with the program, each with its source (shown
    /// beside a run's own figures when the method and the Raspberry Pi model match).
    References(ReferencesArgs),
    /// List the writable mounted filesystems the test can run on.
    Targets(TargetsArgs),
    /// Identify the card or drive: decode an SD card's registers (CID, CSD, SCR, SD Status).
    Card(CardArgs),
    /// Run agnostics test scripts (#NAME=/#DESC= shell tests) and write ~/rpdiags.txt.
    Scripts(ScriptsArgs),
    /// The runs recorded on this machine (newest first), and what to do with them: show, name a
    /// drive, import, export, forget.
    History(HistoryArgs),
    /// Compare two recorded runs figure by figure (the ratio of each, the links' ceilings).
    Compare(CompareArgs),
    /// Is the card genuine? Check in seconds that it keeps data over its whole claimed
    /// capacity (fake cards wrap or lose data beyond their real size).
    ///
    /// By default through a file of the program's own in the mounted card's filesystem (ext4
    /// or XFS; nothing else on it is written); with --device, on the whole unmounted device
    /// (root; every sector written is saved first and put back after). Exit status: 0 genuine,
    /// 1 fake or loses data, 2 unsure, not checked far enough, or an error, 130/143 stopped by
    /// SIGINT/SIGTERM.
    Capacity(CapacityArgs),
    /// How healthy is the drive? What the kernel logged about it since boot, its own wear
    /// report, its speed against its first tests and any capacity check that found it fake,
    /// weighed into one verdict with what to do; in seconds, writing nothing. Exit status: 0
    /// healthy or unknown, 1 worn or failing, 2 an error.
    Health(HealthArgs),
    /// Write the man page or shell completions (for packagers).
    #[command(hide = true)]
    Generate(GenerateArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// The built-in engine: O_DIRECT, io_uring or a thread pool.
    Native,
    /// The installed fio program.
    Fio,
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Directory to test in (default: /var/tmp, or a mounted SD card when /var/tmp is not on one).
    #[arg(long, value_name = "DIR")]
    pub target: Option<PathBuf>,
    /// A built-in profile (standard, quick, qd1, matrix; see `profiles`) or a fio job file (a
    /// documented subset of fio's format). An argument with a `/` or ending in `.fio` is a file;
    /// a built-in name wins over a file of the same name (write ./NAME for the file).
    #[arg(long, value_name = "NAME|FILE")]
    pub profile: Option<PathBuf>,
    /// Which engine measures.
    #[arg(long, value_enum, default_value_t = EngineArg::Native)]
    pub engine: EngineArg,
    /// Run the test up to N times, stopping at the first run that passes (upstream: 3).
    #[arg(long, value_name = "N", default_value_t = agnostics_core::sdtest::UPSTREAM_RUNS, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub runs: u32,
    /// Print one JSON document on stdout instead of text.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the results table as Markdown, ready for a forum post (the matrix and qd1
    /// profiles' tables, else a table of the jobs); no serial numbers or paths.
    #[arg(long)]
    pub markdown: bool,
    /// Do not record this run in the history (see `history`).
    #[arg(long)]
    pub no_history: bool,
    /// Under each phase, also show what the drive itself did: the bytes and requests its
    /// block device read and wrote (the kernel's counters) and the most requests in flight.
    #[arg(long, short = 'v', conflicts_with_all = ["json", "markdown"])]
    pub verbose: bool,
    /// Read sysfs from DIR instead of /sys: the card, link and device stack behind the target
    /// are read there (DIR/dev/block/MAJ:MIN …), as with `card --sysfs-root`.
    #[arg(long, value_name = "DIR", default_value = "/sys")]
    pub sysfs_root: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct ProfilesArgs {
    /// Print JSON instead of a line each.
    #[arg(long)]
    pub json: bool,
}

/// `agnostics-cli references`.
#[derive(Debug, Args)]
pub struct ReferencesArgs {
    /// Print JSON (the shipped sources, each with its rows) instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct TargetsArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Read sysfs from DIR instead of /sys.
    #[arg(long, value_name = "DIR", default_value = "/sys", hide = true)]
    pub sysfs_root: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct CardArgs {
    /// The disk to identify (e.g. mmcblk0, sda); default: the one behind the default target.
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Read sysfs from DIR instead of /sys (DIR/block/mmcblk0/device/cid …).
    #[arg(long, value_name = "DIR", default_value = "/sys")]
    pub sysfs_root: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ScriptsArgs {
    /// Also look for *.sh tests in DIR (may be given more than once).
    #[arg(long = "dir", value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// List the tests found, run nothing.
    #[arg(long)]
    pub list: bool,
    /// Give up on a test after SECS seconds (then SIGTERM, and SIGKILL 5 s later).
    #[arg(long, value_name = "SECS", default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("writes").args(["device", "forget_recovery"])))]
pub struct CapacityArgs {
    /// Directory on the card to check through (default: as `run`: /var/tmp, or a mounted SD
    /// card when /var/tmp is not on one).
    #[arg(long, value_name = "DIR", conflicts_with = "device")]
    pub target: Option<PathBuf>,
    /// Check the whole unmounted device instead (e.g. /dev/sdb; root). Its partitions must not
    /// be mounted; the original data at every spot is saved to a recovery file first and put
    /// back after, also when stopped.
    #[arg(long, value_name = "DEVICE")]
    pub device: Option<PathBuf>,
    /// With --device: write without asking (otherwise asked on a terminal, refused elsewhere).
    /// With --forget-recovery: forget without asking.
    #[arg(long, short = 'y', requires = "writes")]
    pub yes: bool,
    /// List the recovery files of interrupted device checks (their card, size, when) and
    /// forget them, or only FILE: the sectors they saved are then lost for good. For a file
    /// that can never be put back (its card is gone, or the file is damaged). Asks first,
    /// unless --yes; a running check's file is never forgotten.
    #[arg(long, value_name = "FILE", num_args = 0..=1, conflicts_with_all = ["target", "json"])]
    pub forget_recovery: Option<Option<PathBuf>>,
    /// Base spots spread over the drive (each brings its power-of-two aliases).
    #[arg(long, value_name = "N", default_value_t = agnostics_core::capacity::plan::DEFAULT_SPOTS, value_parser = clap::value_parser!(u32).range(2..=4096))]
    pub spots: u32,
    /// Print one JSON document on stdout instead of text (its fields: docs/capacity.md).
    #[arg(long)]
    pub json: bool,
    /// Do not record this check in the history.
    #[arg(long)]
    pub no_history: bool,
    /// Read sysfs from DIR instead of /sys.
    #[arg(long, value_name = "DIR", default_value = "/sys", hide = true)]
    pub sysfs_root: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct HealthArgs {
    /// Directory on the drive (default: as `run`: /var/tmp, or a mounted SD card when
    /// /var/tmp is not on one).
    #[arg(long, value_name = "DIR", conflicts_with = "device")]
    pub target: Option<PathBuf>,
    /// The disk instead (e.g. mmcblk0, sda); its runs in the history are found only when the
    /// disk itself has an identity (an SD card's CID, a USB or NVMe serial).
    #[arg(long, value_name = "NAME")]
    pub device: Option<String>,
    /// Print JSON instead of text (its fields: docs/health.md).
    #[arg(long)]
    pub json: bool,
    /// Read sysfs from DIR instead of /sys.
    #[arg(long, value_name = "DIR", default_value = "/sys", hide = true)]
    pub sysfs_root: PathBuf,
    /// Read the kernel log from FILE (records as /dev/kmsg gives them) instead of /dev/kmsg.
    #[arg(long, value_name = "FILE", default_value = "/dev/kmsg", hide = true)]
    pub kernel_log: PathBuf,
}

#[derive(Debug, Clone, Args)]
pub struct GenerateArgs {
    /// What to write: man, bash, zsh or fish.
    #[arg(value_parser = ["man", "bash", "zsh", "fish"])]
    pub what: String,
    /// Directory to write it to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out_dir: PathBuf,
}

/// `history`: without a subcommand, the list of recorded runs.
#[derive(Debug, Clone, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: Option<HistoryCommand>,
    #[command(flatten)]
    pub list: HistoryListArgs,
}

#[derive(Debug, Clone, Subcommand)]
pub enum HistoryCommand {
    /// Print a recorded run's report, as the run printed it.
    Show(HistoryShowArgs),
    /// List the drives with recorded runs: id, name, kind, how many runs, the latest.
    Drives(HistoryDrivesArgs),
    /// Give a drive a name of your own (an empty name removes it).
    Name(HistoryNameArgs),
    /// Add the runs of JSON reports (`run --json`, or `history export`) from other machines.
    Import(HistoryImportArgs),
    /// Print the recorded runs: JSON reports (serial numbers removed) or a CSV table.
    Export(HistoryExportArgs),
    /// Remove a run, every run of a drive, or the whole history.
    Forget(HistoryForgetArgs),
    /// List the capacity checks (`agnostics-cli capacity`), newest first.
    Capacity(HistoryCapacityArgs),
}

#[derive(Debug, Clone, Args)]
pub struct HistoryCapacityArgs {
    /// Only this drive's checks: its id (or the first 6 or more characters of it) or its name.
    #[arg(long, value_name = "ID")]
    pub drive: Option<String>,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Which runs a list or an export covers.
#[derive(Debug, Clone, Args)]
pub struct HistoryFilterArgs {
    /// Only this drive's runs: its id (or the first 6 or more characters of it) or its name.
    #[arg(long, value_name = "ID")]
    pub drive: Option<String>,
    /// Only runs of this profile: a built-in name (standard, quick, …; see `profiles`), or a job
    /// file's name without `.fio`.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct HistoryListArgs {
    #[command(flatten)]
    pub filter: HistoryFilterArgs,
    /// Print a JSON array instead of a table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV (a header row, then a row per run) instead of a table.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Clone, Args)]
pub struct HistoryShowArgs {
    /// The run or capacity check: its id, or the first 6 or more characters of it (as
    /// `history` and `history capacity` list them).
    #[arg(value_name = "RUN")]
    pub run: String,
    /// Print the report's JSON document instead of text.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the results table as Markdown, ready for a forum post.
    #[arg(long)]
    pub markdown: bool,
}

#[derive(Debug, Clone, Args)]
pub struct HistoryDrivesArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Args)]
pub struct HistoryNameArgs {
    /// The drive: its id, the first 6 or more characters of it (as `history` lists it), or its
    /// current name.
    #[arg(value_name = "DRIVE")]
    pub drive: String,
    /// The name, e.g. "Kitchen Pi card"; "" removes the name.
    #[arg(value_name = "NAME")]
    pub name: String,
}

#[derive(Debug, Clone, Args)]
pub struct HistoryImportArgs {
    /// JSON files: one report (`run --json`) or an array of them (`history export`) each.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct HistoryExportArgs {
    /// Only this drive's runs: its id (or the first 6 or more characters of it) or its name.
    #[arg(long, value_name = "ID")]
    pub drive: Option<String>,
    /// Print a JSON array of the reports, which `history import` reads (the default).
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV (a header row, then a row per run with its four figures) instead.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["run", "drive", "all"])))]
pub struct HistoryForgetArgs {
    /// The run to remove: its id, or the first 6 or more characters of it.
    #[arg(value_name = "RUN")]
    pub run: Option<String>,
    /// Remove every run of this drive (and its name): its id, 6 or more of its first
    /// characters, or its name.
    #[arg(long, value_name = "ID")]
    pub drive: Option<String>,
    /// Remove every run.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The first run (the reference): its id or the first 6 or more characters of it.
    #[arg(value_name = "RUN")]
    pub left: String,
    /// The second run, compared with the first.
    #[arg(value_name = "RUN")]
    pub right: String,
    /// Print JSON instead of text.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print the comparison as a Markdown table, ready for a forum post.
    #[arg(long)]
    pub markdown: bool,
}
