//! `agnostics-cli scripts`.

use crate::args::ScriptsArgs;

pub fn main(args: &ScriptsArgs) -> i32 {
    let _ = args;
    eprintln!("agnostics-cli scripts: not built yet");
    2
}
