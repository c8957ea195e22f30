//! agentbox: a sandbox where game designers prototype agent AI. A YAML scene describes a tile
//! map and its agents; each agent's decisions come from a hot-reloaded Lua script that calls
//! Rust-native movement primitives and A*; a macroquad window shows it, and the same
//! simulation runs headless. See `ARCHITECTURE.md` for the map of the modules.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod bench;
pub mod cli;
pub mod expect;
pub mod experiment;
pub mod files;
pub mod history;
pub mod movement;
pub mod movingai;
pub mod nav;
pub mod paths;
pub mod realtime;
pub mod render;
pub mod scene;
pub mod script;
pub mod session;
pub mod sim;
pub mod testrun;
pub mod watch;
pub mod world;
