//! `agnostics-cli targets`.

use crate::args::TargetsArgs;

pub fn main(args: &TargetsArgs) -> i32 {
    let _ = args;
    eprintln!("agnostics-cli targets: not built yet");
    2
}
