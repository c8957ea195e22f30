//! agentbox's session layer: one running scene with its scripts ([`session::Session`]),
//! questions asked of its world ([`ask`]), its exact history and time travel ([`history`]), experiments over seeds and variants
//! ([`experiment`]), file watching ([`watch`]), the runner behind `agentbox test`
//! ([`testrun`]), realtime pacing ([`realtime`]), `agentbox bench` ([`bench`]) and
//! `agentbox paths` ([`paths`]), and the quoting of the command lines it prints ([`shell`]).
//!
//! It drives the core and the Lua host and never draws: the window (`agentbox-window`) and the
//! command line sit above it.

pub mod ask;
pub mod bench;
pub mod experiment;
pub mod history;
pub mod paths;
pub mod realtime;
pub mod session;
pub mod shell;
pub mod testrun;
pub mod watch;
