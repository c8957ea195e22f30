//! The generated `.luacheckrc` (from `crates/agentbox-lua/src/registry.rs`, via `agentbox api --write`)
//! makes luacheck know the sandbox and the Lua API: the shipped scripts pass clean, and a
//! misspelt `move.chsae` is flagged. These tests need luacheck; without it they fail and say
//! how to install it.
//!
//! `agentbox check`'s own linter (`agentbox_lua::lint`) takes any script without crashing: one
//! nested or chained too deep to lint is a located warning, one larger than a script file may
//! be gets the loader's error, and the scene still loads when Lua compiles it.

use crate::common;
use common::{agentbox, agentbox_in, root, scratch, stderr};
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

/// A scene whose one agent runs `hunter.lua`: a valid script whose third line is `M.x = `
/// followed by `value`.
fn deep_scene(value: &str) -> tempfile::TempDir {
    let yaml = "name: Deep\nmap:\n  rows: |\n    ########\n    #......#\n    ########\n\
                agents:\n  - id: hunter\n    at: [1, 1]\n    script: hunter.lua\n";
    let script = format!(
        "local M = {{}}\nfunction M.decide(self, world) return move.stop() end\nM.x = {value}\nreturn M\n"
    );
    scratch(&[("s.yaml", yaml), ("hunter.lua", &script)])
}

/// The warning `check` prints for a script too deep to lint at `line:column`.
fn too_deep(line: usize, column: usize) -> String {
    format!("hunter.lua:{line}:{column}: warning: too deeply nested to lint: over 1000 levels of brackets, blocks and operators here")
}

#[test]
fn check_takes_a_long_left_associative_chain_lua_compiles_with_a_located_warning() {
    // 400k operands, 1.6 MB: Lua compiles it in a loop; the tree a parser builds nests 400k deep.
    let dir = deep_scene(&format!("1{}", " + 1".repeat(400_000)));
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // `M.x = 1` then an operator every 4 columns from column 9: the 1001st is past the bound.
    assert_eq!(
        stderr(&out).lines().collect::<Vec<_>>(),
        [too_deep(3, 9 + 4 * 1000).as_str()]
    );
    let out = agentbox_in(dir.path(), &["headless", "s.yaml", "--ticks", "3"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn check_takes_deeply_nested_brackets_tables_and_bodies_without_crashing() {
    let depth = 100_000;
    // Where the 1001st level opens: the value starts at column 7; a body's parameter list is
    // a level while it is read.
    for (open, close, column) in [
        ("(", ")", 7 + 1000),
        ("{", "}", 7 + 1000),
        ("function() return ", " end", 7 + 18 * 999 + 8),
    ] {
        let value = format!("{}1{}", open.repeat(depth), close.repeat(depth));
        let dir = deep_scene(&value);
        let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
        // Lua refuses to compile it (its own nesting limit), at the line where it gave up; the
        // linter warns where it stopped.
        let refused = "hunter.lua:3: error: chunk has too many syntax levels near ";
        assert_eq!(out.status.code(), Some(1), "{open}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains(&too_deep(3, column)), "{open}: {err}");
        assert!(err.contains(refused), "{open}: {err}");
        let out = agentbox_in(dir.path(), &["headless", "s.yaml", "--ticks", "3"]);
        assert_eq!(out.status.code(), Some(3), "{open}: {}", stderr(&out));
        assert!(stderr(&out).contains(refused), "{open}: {}", stderr(&out));
    }
}

#[test]
fn check_refuses_a_script_larger_than_the_loader_reads_once() {
    let dir = deep_scene(&format!("1 -- {}", "x".repeat(4 * 1024 * 1024)));
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).trim(),
        "hunter.lua: error: cannot read script: larger than 4 MiB, the most a file may have"
    );
}

#[test]
fn check_warns_where_a_script_sets_a_weak_mode_and_still_passes() {
    let dir = deep_scene("setmetatable({}, { __mode = \"k\" })");
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).lines().collect::<Vec<_>>(),
        [format!(
            "hunter.lua:3:26: warning: {}",
            agentbox_lua::lint::WEAK_MODE_WARNING
        )
        .as_str()]
    );
}
