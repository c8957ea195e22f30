//! agentbox's core: the world as plain data, navigation queries, the movement primitives, the
//! scene loader, the fixed-step simulation and expectations.
//!
//! Everything here is deterministic and headless: no scripting engine, window, file watcher or
//! clock. Decisions come in through [`sim::Decider`]; the Lua host (`agentbox-lua`) is one
//! implementation of it, a Rust closure is another. See `ARCHITECTURE.md` for the crate map.

pub mod expect;
pub mod files;
mod lru;
pub mod movement;
pub mod movingai;
pub mod nav;
pub mod scene;
pub mod sim;
pub mod world;
