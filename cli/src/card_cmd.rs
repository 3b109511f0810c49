//! `agnostics-cli card`.

use crate::args::CardArgs;

pub fn main(args: &CardArgs) -> i32 {
    let _ = args;
    eprintln!("agnostics-cli card: not built yet");
    2
}
