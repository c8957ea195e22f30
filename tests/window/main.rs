//! The window's tests, as one test binary: each module drives `agentbox run` under a virtual
//! X display (`xvfb-run`, Mesa's software OpenGL; see `common::window_command`) with recorded
//! input and reads its screenshot, stderr and saved files. They need `xvfb-run` (the README's
//! setup line and `.ci/run` install it).
//!
//! A binary of their own, apart from the headless `suite`, so that a machine without Xvfb can
//! still run every headless test (`cargo test --test suite`). A new window test goes into a
//! module here; `suite`'s `layout` module checks that no test file is left out.
//!
//! Tests run in parallel threads of this one process, so each writes only into its own
//! temporary folder and changes nothing the process shares (current folder, environment).
//!
//! Run one subject with a filter on its module: `cargo test --release --test window window_overlays::`.

#[path = "../common/mod.rs"]
mod common;

mod window;
mod window_agent_edits;
mod window_clips;
mod window_console;
mod window_docking;
mod window_failures;
mod window_memory_edit;
mod window_overlays;
mod window_questions;
mod window_search;
mod window_timetravel;
mod window_tunables;
