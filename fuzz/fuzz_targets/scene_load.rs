//! The scene loader on arbitrary bytes: it must return a scene or located errors, never panic,
//! and (with `-timeout=1`) answer any input within a second.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let _ = agentbox_core::scene::parse(Path::new("fuzz.yaml"), data);
});
