//! The io_uring path on an architecture this build has no io_uring bindings for (32-bit arm,
//! as on Raspberry Pi OS armhf, and 32-bit x86): the ring can never be set up, so
//! [`IoChoice::Auto`](super::IoChoice::Auto) measures with the pool of threads (with its
//! warning) and [`IoChoice::Uring`](super::IoChoice::Uring) is an error.

use std::io;

use super::plan::OffsetPlan;
use super::stats::Meter;
use super::{Ending, Failure, PhaseIo};

/// Whether this build has the io_uring path: not here.
pub const BUILT: bool = false;

/// An io_uring instance, which cannot exist in this build (no value of this type can be made).
#[derive(Debug)]
pub enum Uring {}

impl Uring {
    /// Always fails: error kind [`io::ErrorKind::Unsupported`], naming the architecture.
    pub fn new(_entries: u32) -> io::Result<Uring> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "this build of agnostics has no io_uring support on {}",
                std::env::consts::ARCH
            ),
        ))
    }

    /// How many requests the ring holds at once (never called: there is no ring).
    pub fn capacity(&self) -> usize {
        match *self {}
    }

    /// Runs one phase (never called: there is no ring).
    pub fn run_phase(
        &mut self,
        _io: &PhaseIo<'_>,
        _plan: &mut OffsetPlan,
        _meter: &mut Meter<'_>,
    ) -> Result<Ending, Failure> {
        match *self {}
    }
}
