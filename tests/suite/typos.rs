//! Typos in scripts and scenes are caught before they run: `agentbox check` lints every script
//! a scene uses for names the Lua API does not have (`agentbox_lua::lint`) and compiles the
//! scene's metrics; the same mistakes, when they do run, fail with the same hint.

use crate::common;
use common::{agentbox_in, scratch, stderr};

/// A scene with one scripted agent `hunter` (script `hunter.lua`), a `prey` and `extra`
/// YAML appended.
fn scene(extra: &str) -> String {
    format!(
        "name: Typos\nmap:\n  rows: |\n    ########\n    #......#\n    ########\n\
         agents:\n  - id: hunter\n    at: [1, 1]\n    script: hunter.lua\n  - id: prey\n    at: [6, 1]\n{extra}"
    )
}

/// A script whose typos sit on a branch taken late (after tick 100), as in the issue.
const LATE_TYPOS: &str = "local M = {}\n\
function M.decide(self, world)\n\
  local prey = world:agent(\"prey\")\n\
  if world:tick() > 100 then\n\
    if nav.lose(self, prey) then\n\
      return move.chsae(prey)\n\
    end\n\
    return move.to(world:neerest(self, \"prey\"))\n\
  end\n\
  return move.stop()\n\
end\n\
return M\n";

#[test]
fn check_flags_every_misspelt_api_name_with_its_place_and_a_suggestion() {
    let dir = scratch(&[("s.yaml", &scene("")), ("hunter.lua", LATE_TYPOS)]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines: Vec<String> = stderr(&out).lines().map(String::from).collect();
    assert_eq!(
        lines,
        [
            "hunter.lua:5:4: error: nav.lose is not in the API (did you mean nav.los?)",
            "hunter.lua:6:8: error: move.chsae is not in the API (did you mean move.chase?)",
            "hunter.lua:8:16: error: world:neerest is not in the API (did you mean world:nearest?)",
        ]
    );
}

#[test]
fn check_flags_typos_in_required_modules_and_not_a_scripts_own_names() {
    let module = "local M = {}\nfunction M.step(t) return move.chsae(t) end\nreturn M\n";
    let script = "local steer = require(\"steer\")\n\
        local nav = { lose = true }\n\
        function move.zigzag(t) return move.chase(t) end\n\
        local M = {}\n\
        function M.decide(self, world)\n\
          local function pick(move) return move.lose end\n\
          if nav.lose and pick({}) then return move.zigzag(\"prey\") end\n\
          return steer.step(\"prey\")\n\
        end\n\
        return M\n";
    let dir = scratch(&[
        ("s.yaml", &scene("")),
        ("hunter.lua", script),
        ("steer.lua", module),
    ]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out).trim(),
        "steer.lua:2:27: error: move.chsae is not in the API (did you mean move.chase?)"
    );
}

#[test]
fn every_shipped_scene_checks_clean() {
    let out = common::agentbox(&["check", "scenes/"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("error"), "{}", stderr(&out));
}

#[test]
fn check_compiles_metrics_and_monitor_values_and_points_at_a_broken_one() {
    let extra =
        "metrics:\n  gap: world:agent(\"prey\").pos.x\n  broken: world:agent(\"prey\").pos.x +\n\
                 monitors:\n  values:\n    fine: 1\n    bad: local = 3\n";
    let script = "return { decide = function(self, world) return move.stop() end }\n";
    let dir = scratch(&[("s.yaml", &scene(extra)), ("hunter.lua", script)]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("s.yaml:15:3: error: metric `broken` does not compile: "),
        "{err}"
    );
    assert!(
        err.contains("s.yaml:19:5: error: monitor value `bad` does not compile: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "{err}");
}
