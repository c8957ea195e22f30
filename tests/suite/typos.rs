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

#[test]
fn check_compiles_expect_lua_checks_and_points_at_a_broken_one() {
    let extra = "expect:\n  ticks: 5\n  lua:\n    - check: return true\n    - name: near\n      check: return world:agent(\"prey\").pos.x <\n";
    let script = "return { decide = function(self, world) return move.stop() end }\n";
    let dir = scratch(&[("s.yaml", &scene(extra)), ("hunter.lua", script)]);
    let out = agentbox_in(dir.path(), &["check", "s.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("s.yaml:18:7: error: expect check `near` does not compile: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// Runs `script` as `hunter` (with agents `hunter` and `thief`) for a few ticks headless and
/// returns its error lines.
fn run_errors(script: &str) -> Vec<String> {
    let yaml = scene("").replace("id: prey", "id: thief");
    let dir = scratch(&[("s.yaml", &yaml), ("hunter.lua", script)]);
    let out = agentbox_in(dir.path(), &["headless", "s.yaml", "--ticks", "3"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    stderr(&out)
        .lines()
        .filter(|l| l.contains(": error: "))
        .map(String::from)
        .collect()
}

fn decide(body: &str) -> String {
    format!("local M = {{}}\nfunction M.decide(self, world)\n  {body}\nend\nreturn M\n")
}

#[test]
fn a_misspelt_name_that_runs_fails_with_the_same_hint_as_check() {
    assert_eq!(
        run_errors(&decide("return move.chsae(\"thief\")")),
        ["hunter.lua:3: error: move.chsae is not in the API (did you mean move.chase?) (agent hunter)"]
    );
    assert_eq!(
        run_errors(&decide("return move.to(world:neerest(self, \"thief\"))")),
        ["hunter.lua:3: error: world:neerest is not in the API (did you mean world:nearest?) (agent hunter)"]
    );
    // Reads of the real names and the script's own fields are untouched.
    let own = "function nav.mine() return 1 end\nlocal M = {}\nfunction M.decide(self, world)\n  \
               assert(nav.mine() == 1 and world:tick() >= 0)\n  return move.chase(\"thief\")\nend\nreturn M\n";
    let dir = scratch(&[
        ("s.yaml", &scene("").replace("id: prey", "id: thief")),
        ("hunter.lua", own),
    ]);
    let out = agentbox_in(dir.path(), &["headless", "s.yaml", "--ticks", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn an_unknown_agent_id_passed_on_as_nil_is_named_with_the_closest_id() {
    assert_eq!(
        run_errors(&decide("return move.chase(world:agent(\"theif\"))")),
        ["hunter.lua:3: error: bad argument #1 to 'move.chase': expected a position like {x = 1, y = 2} or {1, 2}, got nil, which world:agent(\"theif\") returned: no agent has that id (did you mean \"thief\"?) (agent hunter)"]
    );
    // A nil from elsewhere is not blamed on an earlier lookup of another decision.
    let elsewhere = "local M = {}\nfunction M.decide(self, world)\n  \
                     if world:tick() == 0 then assert(world:agent(\"nobody\") == nil) return move.stop() end\n  \
                     return move.chase(self.memory.target)\nend\nreturn M\n";
    let errors = run_errors(elsewhere);
    assert_eq!(
        errors[0],
        "hunter.lua:4: error: bad argument #1 to 'move.chase': expected a position like {x = 1, y = 2} or {1, 2}, got nil (agent hunter)"
    );
}

#[test]
fn world_agents_given_a_kind_says_how_to_write_the_filter() {
    assert_eq!(
        run_errors(&decide("return move.chase(world:agents(\"guard\")[1])")),
        ["hunter.lua:3: error: world:agents takes a filter table, not a string: to list the agents of kind \"guard\", write world:agents({kind = \"guard\"}) (agent hunter)"]
    );
    assert_eq!(
        run_errors(&decide("return move.chase(world:agents(5)[1])")),
        ["hunter.lua:3: error: world:agents takes a filter table like {kind = \"guard\", within = 5} or nothing, got integer (agent hunter)"]
    );
}

/// Runs `emmylua_check` with `DIR/.luarc.json` on `DIR/scripts`, from `dir`; its text report.
/// Without the tool the test fails, saying how to install it.
fn emmylua_check(dir: &std::path::Path) -> (bool, String) {
    let out = std::process::Command::new("emmylua_check")
        .args(["--config", ".luarc.json", "scripts"])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run emmylua_check ({e}); install emmylua_check (cargo install emmylua_check --locked)")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The diagnostics of a text report as `file:line:column [code]`, for the codes of names a
/// script reads that the API (or the stubs) lack.
fn name_diagnostics(report: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut lines = report.lines();
    while let Some(line) = lines.next() {
        let code = [
            "[undefined-field]",
            "[undefined-global]",
            "[type-not-found]",
        ]
        .into_iter()
        .find(|c| line.trim_end().ends_with(c));
        if let Some(code) = code {
            let at = lines.next().unwrap_or_default();
            found.push(format!("{} {code}", at.trim().trim_start_matches("--> ")));
        }
    }
    found
}

/// `agentbox api --write DIR` sets up a designer's folder: with its files, EmmyLua flags the
/// typos `check` flags (the library classes need no annotation; `world:` needs the
/// `---@param world agentbox.World` the shipped scripts carry), and the shipped scripts
/// have none of them.
#[test]
fn emmylua_check_with_the_written_config_flags_typos_and_passes_the_shipped_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let out = agentbox_in(dir.path(), &["api", "--write", "designer"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let folder = dir.path().join("designer");
    for file in ["types/agentbox.lua", ".luarc.json", ".luacheckrc"] {
        let written = std::fs::read_to_string(folder.join(file)).unwrap();
        let committed = std::fs::read_to_string(common::root().join(file)).unwrap();
        assert!(
            written == committed,
            "{file} differs from the committed one"
        );
    }
    assert!(
        !folder.join("docs").exists(),
        "the reference page is agentbox's own"
    );

    std::fs::create_dir(folder.join("scripts")).unwrap();
    for entry in std::fs::read_dir(common::root().join("scripts")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            folder.join("scripts").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    let (_, report) = emmylua_check(&folder);
    assert_eq!(name_diagnostics(&report), Vec::<String>::new(), "{report}");

    let annotated = "local M = {}\n---@param self agentbox.Self\n---@param world agentbox.World\n\
        function M.decide(self, world)\n  local prey = world:agent(\"prey\")\n\
        if nav.lose(self, prey) then return move.chsae(prey) end\n\
        return move.to(world:neerest(self, \"prey\"))\nend\nreturn M\n";
    std::fs::write(folder.join("scripts/typo.lua"), annotated).unwrap();
    let (_, report) = emmylua_check(&folder);
    let typos: Vec<String> = name_diagnostics(&report)
        .into_iter()
        .filter(|d| d.starts_with("typo.lua"))
        .collect();
    assert_eq!(
        typos,
        [
            "typo.lua:6:8 [undefined-field]",
            "typo.lua:6:42 [undefined-field]",
            "typo.lua:7:22 [undefined-field]",
        ],
        "{report}"
    );
    for name in ["`lose`", "`chsae`", "`neerest`"] {
        assert!(
            report.contains(&format!("Undefined field {name}")),
            "{report}"
        );
    }
}

/// `--write` with no folder writes into the current one.
#[test]
fn api_write_defaults_to_the_current_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = agentbox_in(dir.path(), &["api", "--write"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        common::stdout(&out),
        "wrote types/agentbox.lua\nwrote .luarc.json\nwrote .luacheckrc\n"
    );
    assert!(dir.path().join("types/agentbox.lua").is_file());
}
