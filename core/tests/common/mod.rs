//! Helpers shared by the integration tests (also included by cli/tests through #[path]).

pub mod locale;
pub mod po;
