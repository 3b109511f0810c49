//! The drive under test, below the report and the history: its [`identity`] (a hash stable
//! across reboots, readers and machines) and the [`provenance`] of a measurement (kernel,
//! engine, fio, profile, bus mode, board). Both read the card details and sysfs; neither knows
//! the report that carries them.

pub mod identity;
pub mod provenance;

pub use identity::{identify, DriveId, DriveIdentity, IdentityBasis, Volume};
pub use provenance::Provenance;
