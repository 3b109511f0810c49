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
    /// List the writable mounted filesystems the test can run on.
    Targets(TargetsArgs),
    /// Identify the card or drive: decode an SD card's registers (CID, CSD, SCR, SD Status).
    Card(CardArgs),
    /// Run agnostics test scripts (#NAME=/#DESC= shell tests) and write ~/rpdiags.txt.
    Scripts(ScriptsArgs),
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
pub struct GenerateArgs {
    /// What to write: man, bash, zsh or fish.
    #[arg(value_parser = ["man", "bash", "zsh", "fish"])]
    pub what: String,
    /// Directory to write it to.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub out_dir: PathBuf,
}
