//! `agnostics-cli`: the Raspberry Pi SD card test without a desktop (links no GTK).
//!
//! `agnostics-cli [run]` runs the standard test (or `--profile NAME|FILE`); `profiles` lists
//! the built-in profiles; `targets` lists where it can run; `card`
//! decodes the card's registers; `scripts` runs agnostics test scripts; `history` lists and
//! manages the recorded runs and `compare` sets two of them side by side; `capacity` checks
//! that a card keeps data over its whole claimed size; `health` says how worn a drive is.
//! Exit status: 0 PASS (capacity: genuine; health: healthy or unknown), 1 FAIL (capacity:
//! fake or loses data; health: worn or failing), 2 error or refused (capacity: also unsure or
//! not checked far enough), 130 cancelled by SIGINT.

mod args;
mod capacity_cmd;
mod capacity_forget;
mod card_cmd;
mod compare_cmd;
mod generate;
mod health_cmd;
mod history_capacity;
mod history_cmd;
mod history_open;
mod output;
mod profiles_cmd;
mod references_cmd;
mod run_cmd;
mod scripts_cmd;
mod stop_signals;
mod targets_cmd;

use clap::Parser;

use args::{Cli, Command};

fn main() {
    agnostics_core::i18n::init(&agnostics_core::i18n::locale_dir(
        option_env!("LOCALEDIR").unwrap_or("/usr/share/locale"),
    ));
    let cli = Cli::parse();
    let code = match cli.command {
        None => run_cmd::main(&cli.run),
        Some(Command::Run(ref a)) => run_cmd::main(a),
        Some(Command::Profiles(ref a)) => profiles_cmd::main(a),
        Some(Command::References(ref a)) => references_cmd::main(a),
        Some(Command::Targets(ref a)) => targets_cmd::main(a),
        Some(Command::Card(ref a)) => card_cmd::main(a),
        Some(Command::Scripts(ref a)) => scripts_cmd::main(a),
        Some(Command::History(ref a)) => history_cmd::main(a),
        Some(Command::Compare(ref a)) => compare_cmd::main(a),
        Some(Command::Capacity(ref a)) => match &a.forget_recovery {
            Some(which) => capacity_forget::main(a, which.as_deref()),
            None => capacity_cmd::main(a),
        },
        Some(Command::Health(ref a)) => health_cmd::main(a),
        Some(Command::Generate(ref a)) => generate::main(a),
    };
    std::process::exit(code);
}
