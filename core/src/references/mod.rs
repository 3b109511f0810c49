//! Published figures shipped with the program, and the SD cards whose command queueing Linux
//! keeps off: data, not code (`data/references/*.toml`, built in with `include_str!`).
//!
//! - [`load`]: the sources and their rows as shipped ([`sources`], [`Source`], [`Row`],
//!   [`Figure`], [`Method`]); every row carries its source's address.
//! - [`matching`]: the rows beside a finished test ([`beside`]): only rows of the method the
//!   test's profile measures (the standard test's phases, or the `qd1` profile's) and of the
//!   Raspberry Pi model the test ran on (`/proc/device-tree/model`, read under the sysfs root
//!   as `firmware/devicetree/base/model`, in the report's `measured_with.pi_model`). Shown as facts beside the card's own figures,
//!   never as a grade.
//! - [`quirks`]: the kernel's quirk entries that turn an SD card's cache, and with it command
//!   queueing, off, matched by the card's CID (a fact of the card: [`crate::card::quirks`]).

pub mod load;
pub mod matching;

pub use crate::card::quirks::{self, cqe_quirk, CqeQuirk};
pub use load::{sources, Figure, Method, Row, Source};
pub use matching::{beside, ReferenceLine};
