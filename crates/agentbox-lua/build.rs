//! Refuses to build the Lua host against a Lua without agentbox's patches.
//!
//! mlua-sys builds whatever `lua-src` Cargo resolved. The repository root's
//! `[patch.crates-io] lua-src` points it at `vendor/lua-src`, but Cargo ignores that patch (with
//! only a warning) when it does not match the version mlua-sys asks for, or in a workspace
//! without the section; the host would then link upstream Lua, and the link would fail on the
//! first missing function with a message that does not say why. mlua-sys (a direct dependency, `links =
//! "lua"`) says where the headers it built with are (`DEP_LUA_INCLUDE`): a `lua.h` without
//! `LUA_AGENTBOX_PATCHLEVEL` stops the build here, with a message that says why. The level
//! and the folder go to `src/ffi.rs` (its compile-time check and its tests).

use std::path::PathBuf;

fn main() {
    let Some(include) = std::env::var_os("DEP_LUA_INCLUDE").map(PathBuf::from) else {
        fail("mlua-sys did not say where the Lua it built is (no DEP_LUA_INCLUDE)");
    };
    let header = include.join("lua.h");
    println!("cargo:rerun-if-changed={}", header.display());
    let text = std::fs::read_to_string(&header)
        .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", header.display())));
    let level = text.lines().find_map(|line| {
        let rest = line.strip_prefix("#define")?.trim_start();
        Some(
            rest.strip_prefix("LUA_AGENTBOX_PATCHLEVEL")?
                .trim()
                .to_string(),
        )
    });
    match level {
        Some(level) if !level.is_empty() => {
            println!("cargo:rustc-env=AGENTBOX_LUA_PATCHLEVEL={level}");
            println!("cargo:rustc-env=AGENTBOX_LUA_INCLUDE={}", include.display());
        }
        _ => fail(&format!(
            "{} is upstream Lua, not agentbox's patched Lua (it has no LUA_AGENTBOX_PATCHLEVEL).\n\
             Cargo did not use `[patch.crates-io] lua-src = {{ path = \"vendor/lua-src\" }}`: \
             look above for \"patch `lua-src ...` was not used in the crate graph\".\n\
             Either mlua-sys now asks for another lua-src version than vendor/lua-src/Cargo.toml \
             has (move the series to it: vendor/lua-src/PATCHES.md), or this build's workspace \
             has no such [patch] section (a crate that depends on agentbox-lua needs it).",
            header.display()
        )),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: agentbox-lua must link agentbox's patched Lua.\n{message}");
    std::process::exit(1);
}
