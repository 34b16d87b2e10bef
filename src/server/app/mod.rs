//! The application as a whole: the command line, the one wiring from settings to
//! providers and an executor, the HTTP router, and start-up and shutdown.

pub mod cli;
pub mod router;
pub mod startup;
pub mod wiring;
