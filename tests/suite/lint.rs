//! The generated `.luacheckrc` (from `crates/agentbox-lua/src/registry.rs`, via `agentbox api --write`)
//! makes luacheck know the sandbox and the Lua API: the shipped scripts pass clean, and a
//! misspelt `move.chsae` is flagged. These tests need luacheck; without it they fail and say
//! how to install it.

use crate::common;
use common::{agentbox, root};
use std::path::Path;
use std::process::{Command, Output};

/// Runs luacheck with the project's generated config on `targets`, from `dir`.
fn luacheck(dir: &Path, targets: &[&str]) -> Output {
    let config = root().join(".luacheckrc");
    match Command::new("luacheck")
        .args(["--no-color", "--formatter", "plain", "--config"])
        .arg(&config)
        .args(targets)
        .current_dir(dir)
        .output()
    {
        Ok(out) => out,
        Err(e) => panic!(
            "cannot run luacheck ({e}); install it with `apt-get install lua-check` (Debian's package of luacheck)"
        ),
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_shipped_scripts_pass_luacheck_clean() {
    let out = luacheck(&root(), &["scripts/"]);
    assert!(
        out.status.success(),
        "luacheck on scripts/:\n{}",
        text(&out)
    );
    assert!(text(&out).trim().is_empty(), "{}", text(&out));
}

#[test]
fn luacheck_flags_a_misspelt_api_function_and_what_the_sandbox_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let good = "local M = {}\nfunction M.decide(self, world)\n  return move.chase(world:agent(self.params.target))\nend\nreturn M\n";
    std::fs::write(dir.path().join("good.lua"), good).unwrap();
    let out = luacheck(dir.path(), &["good.lua"]);
    assert!(out.status.success(), "{}", text(&out));

    let typo = good.replace("move.chase", "move.chsae");
    std::fs::write(dir.path().join("typo.lua"), typo).unwrap();
    let out = luacheck(dir.path(), &["typo.lua"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("typo.lua:3:10: accessing undefined field 'chsae' of global 'move'"),
        "{}",
        text(&out)
    );

    let outside = "local M = {}\nfunction M.decide()\n  io.write(os.getenv('HOME'))\n  nav.path = nil\n  return move.stop()\nend\nreturn M\n";
    std::fs::write(dir.path().join("outside.lua"), outside).unwrap();
    let out = luacheck(dir.path(), &["outside.lua"]);
    let report = text(&out);
    for expected in [
        "outside.lua:3:3: accessing undefined variable 'io'",
        "outside.lua:3:12: accessing undefined field 'getenv' of global 'os'",
        "outside.lua:4:3: setting read-only field 'path' of global 'nav'",
    ] {
        assert!(report.contains(expected), "{expected}\nnot in:\n{report}");
    }
}

/// `agentbox api --luacheckrc` prints the committed file (the library test
/// `the_committed_stubs_and_page_are_up_to_date` compares every generated file too).
#[test]
fn the_committed_luacheckrc_is_the_generated_one() {
    let out = agentbox(&["api", "--luacheckrc"]);
    assert!(out.status.success());
    let committed = std::fs::read_to_string(root().join(".luacheckrc")).unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout) == committed,
        ".luacheckrc is out of date; regenerate with\n    cargo run --release -- api --write"
    );
}
