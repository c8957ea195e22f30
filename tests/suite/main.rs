//! The headless integration tests, as one test binary: each module is one subject (a command,
//! a guarantee, a corpus), and all of them share `tests/common`. The tests run the built
//! `agentbox` binary or call the workspace's crates; none needs a display.
//!
//! One binary instead of a file each because each test binary links the workspace's crates,
//! mlua and the patched Lua with them, and linking is most of a test build: one link replaces
//! twenty-eight. A new test goes into a module here (a new subject is a new `mod`), never into
//! a file directly under `tests/`, which Cargo would not build (`autotests = false`); `layout`
//! checks that.
//!
//! Tests run in parallel threads of this one process, so a test must not change what the
//! process shares: no `set_current_dir`, no `set_var`, and scratch files in its own temporary
//! folder (`common::scratch`, `tempfile::tempdir`), never at a fixed path.
//!
//! Run one subject with a filter on its module: `cargo test --release --test suite golden::`.

#[path = "../common/mod.rs"]
mod common;

mod acts;
mod architecture;
mod bounded_input;
mod bounds;
mod budget;
mod cli;
mod determinism;
mod doc_blocks;
mod experiment;
mod find;
mod flow;
mod golden;
mod headless;
mod history;
mod host_memory;
mod hostile;
mod hunt;
mod labels;
mod layout;
mod lint;
mod live_save;
mod memory;
mod memory_shares;
mod nav;
mod paths;
mod pipes;
mod primitives;
mod readme;
mod reload;
mod scene_errors;
mod scene_fuzz;
mod schema;
mod soak;
mod standalone;
mod steering;
mod stop_when;
mod sweep;
mod tools;
mod tune;
mod typos;
