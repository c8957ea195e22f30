//! The host's memory on the agents' bill (issue 36): agents that fill a shared table to a
//! small cap never abort the process, whenever their stops fall; what the host keeps for a
//! script is bounded before it is copied (`plot` names with `--monitors`, `print` of any
//! string); and no message or trace line holds an address (`tests/hostile/` runs the corpus
//! with the same scan, `hostile::addresses`).

#![cfg(unix)]

use crate::common;

use common::{pos, scratch};

const WALKER: &str = "return { decide = function(self) return move.to({ x = 10, y = 3 }) end }\n";

/// A scene of `hoarders` agents running `hoard.lua` beside a walker, under a cap of `mb` MB.
fn hoarders_scene(hoarders: usize, mb: u64) -> String {
    let mut scene = format!(
        "name: hoarders\ntick_rate: 30\nbudget: {{ memory_mb: {mb} }}\nmap:\n  rows: |\n    ############\n    #..........#\n    #..........#\n    #..........#\n    ############\nagents:\n"
    );
    for i in 0..hoarders {
        scene.push_str(&format!(
            "  - {{ id: h{i}, at: [{}, 1], script: hoard.lua }}\n",
            1 + i
        ));
    }
    scene.push_str("  - { id: walker, at: [1, 3], script: walker.lua }\n");
    scene
}

/// A script that links `per_tick` small tables a tick into one module-level list (stopping
/// one agent frees none of it: the list is shared), each holding `payload` bytes.
fn hoard_script(per_tick: usize, payload: usize) -> String {
    format!(
        "local M = {{}}\nlocal hoard\nlocal pad = string.rep(\"p\", {payload})\nfunction M.decide(self, world)\n  for i = 1, {per_tick} do hoard = {{ next = hoard, pad .. i }} end\n  return move.stop()\nend\nreturn M\n"
    )
}

/// Runs a hoarders scene for `ticks`; the trace's lines, or what went wrong.
fn run_hoarders(
    hoarders: usize,
    mb: u64,
    per_tick: usize,
    payload: usize,
    ticks: u32,
) -> Result<Vec<serde_json::Value>, String> {
    let scene = hoarders_scene(hoarders, mb);
    let hoard = hoard_script(per_tick, payload);
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("hoard.lua", &hoard),
        ("walker.lua", WALKER),
    ]);
    let ticks = ticks.to_string();
    let args = [
        "headless",
        "scene.yaml",
        "--ticks",
        &ticks,
        "--trace",
        "-",
        "--allow-errors",
    ];
    let run = common::limited::run_limited(dir.path(), &args);
    let case = format!("{hoarders} hoarders, {mb} MB, {per_tick} x {payload} B a tick");
    if run.code != Some(0) {
        return Err(format!(
            "{case}: agentbox ended with {:?} (signal {:?}): {}",
            run.code,
            run.signal,
            run.stderr.lines().last().unwrap_or("")
        ));
    }
    Ok(run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line is JSON"))
        .collect())
}

/// The walker beside the hostile agents ended with no error at its goal, (10, 3).
fn assert_walker_arrived(last: &serde_json::Value) {
    let walker = agent(last, "walker");
    assert!(walker.get("error").is_none(), "{walker}");
    let (x, y) = pos(last, "walker");
    assert!(
        (x - 10.0).abs() < 0.05 && (y - 3.0).abs() < 0.05,
        "({x}, {y})"
    );
}

fn agent<'a>(line: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    line["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id)
        .unwrap()
}

#[test]
fn four_hoarders_at_a_small_cap_are_stopped_and_the_process_runs_on() {
    let lines = run_hoarders(4, 8, 20_000, 16, 90).unwrap();
    assert_eq!(lines.len(), 90);
    let last = lines.last().unwrap();
    for i in 0..4 {
        let h = agent(last, &format!("h{i}"));
        assert_eq!(h["error_kind"], "memory", "h{i}: {h}");
        assert_eq!(h["suspended"], true, "h{i}: {h}");
    }
    assert_walker_arrived(last);
}

#[test]
fn memory_stops_at_many_moments_never_abort_the_process() {
    // Caps, crowds and allocation sizes chosen so the stops fall at different points: inside
    // an allocation of a table or of a string, with a victim named or not, before or after
    // the cap is full, in the first tick or a later one.
    let mut failures = Vec::new();
    let cases: Vec<(usize, u64, usize, usize)> = [1, 2, 3, 4, 5, 7]
        .iter()
        .flat_map(|&hoarders| {
            [
                (8, 3_000, 0),
                (9, 50_000, 40),
                (12, 7_000, 700),
                (16, 500, 9_000),
            ]
            .into_iter()
            .map(move |(mb, per_tick, payload)| (hoarders, mb, per_tick, payload))
        })
        .collect();
    for chunk in cases.chunks(cases.len().div_ceil(2)) {
        let chunk = chunk.to_vec();
        failures.push(std::thread::spawn(move || {
            chunk
                .into_iter()
                .filter_map(|(h, mb, n, p)| run_hoarders(h, mb, n, p, 12).err())
                .collect::<Vec<_>>()
        }));
    }
    let failures: Vec<String> = failures
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn plot_names_are_bounded_before_they_are_copied() {
    let script = r#"
local M = {}
function M.decide(self, world)
  local big = string.rep("n", 1024 * 1024)
  for i = 1, 10 do pcall(plot, big, i) end
  plot("fine", 1)
  plot(big, 1)
end
return M
"#;
    let scene = "name: plots\nmap:\n  rows: |\n    .....\nagents:\n  - { id: p, at: [0, 0], script: p.lua }\n";
    let dir = scratch(&[("scene.yaml", scene), ("p.lua", script)]);
    let args = [
        "headless",
        "scene.yaml",
        "--ticks",
        "3",
        "--trace",
        "-",
        "--allow-errors",
        "--monitors",
        "m.csv",
    ];
    let run = common::limited::run_limited(dir.path(), &args);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("plot(name, value): a name is at most 64 bytes, got 1048576"),
        "{}",
        run.stderr
    );
    let csv = std::fs::read_to_string(dir.path().join("m.csv")).unwrap();
    // The long name never became a series: only `fine` was kept.
    assert_eq!(csv, "tick,name,value\n1,fine,1\n2,fine,1\n3,fine,1\n");
}

#[test]
fn print_writes_invalid_utf8_as_replacement_characters() {
    let script = "return { decide = function(self) print(\"caf\\xe9\", \"\\xff!\") return move.stop() end }\n";
    let scene = "name: utf8\nmap:\n  rows: |\n    .....\nagents:\n  - { id: p, at: [0, 0], script: p.lua }\n";
    let dir = scratch(&[("scene.yaml", scene), ("p.lua", script)]);
    let out = common::agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "1", "--trace", "-"],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    let line: serde_json::Value =
        serde_json::from_str(common::stdout(&out).lines().next().unwrap()).unwrap();
    let printed = line["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "print")
        .unwrap_or_else(|| panic!("no print event: {line}"));
    assert_eq!(printed["text"], "p.lua:1: caf\u{fffd}\t\u{fffd}!");
}

/// Agents named after a binding: each fills its memory to its quota at its own tick (linking
/// small tables until the VM refuses one, inside a `pcall`), then calls its binding, which must
/// make a fresh result. The reporter (same script: module locals are shared) prints what each
/// call raised.
const AT_QUOTA: &str = r#"
local CALLS = {
  agents = function(self, world) return world:agents() end,
  heard = function(self) return self:heard() end,
  touching = function(self) return self:touching() end,
  path = function(self, _, goal) return nav.path(self.pos, goal) end,
  next = function(self, _, _, field) return field:next(self.pos) end,
}
local ORDER = { "agents", "heard", "touching", "path", "next" }
local reached, raised = {}, {}
for _, name in ipairs(ORDER) do reached[name], raised[name] = false, false end
local M = {}
function M.decide(self, world)
  local call = CALLS[self.id]
  if call and world:tick() == 1 + #self.id then
    -- Everything the call needs is made before the quota is full.
    local goal, field = { x = 9, y = 2 }, nav.flow({ x = 9, y = 2 })
    local _ = self.pos.x
    local hoard
    pcall(function() while true do hoard = { hoard } end end)
    reached[self.id] = true
    local _, err = pcall(call, self, world, goal, field)
    raised[self.id] = err
  elseif self.id == "reporter" and world:tick() == 20 then
    for _, name in ipairs(ORDER) do print("at quota:", name, reached[name], tostring(raised[name])) end
  end
  return move.stop()
end
return M
"#;

/// Walks to (10, 3), calling bindings that make fresh tables every tick.
const BUSY_WALKER: &str = "return { decide = function(self, world)\n  local _ = world:agents()\n  local _ = self:inbox()\n  local _ = self:heard()\n  return move.to({ x = 10, y = 3 })\nend }\n";

#[test]
fn a_binding_called_at_a_full_quota_returns_its_refusal_and_the_scene_goes_on() {
    // The VM refuses an allocation over the agent's quota on its own; mlua must make every
    // allocation of a binding in a protected call, so the refusal comes back to the binding
    // as an error (mlua's `memory error: ...`) and its Rust frames return, instead of a
    // `longjmp` through them (the VM's bare `not enough memory`), which skipped their
    // destructors: undefined behaviour, whatever it seemed to do.
    let names = ["agents", "heard", "touching", "path", "next"];
    let mut scene = String::from(
        "name: at-quota\ntick_rate: 30\nbudget: { memory_mb: 8 }\nmap:\n  rows: |\n    ############\n    #..........#\n    #..........#\n    #..........#\n    ############\nagents:\n",
    );
    for (i, name) in names.iter().enumerate() {
        scene.push_str(&format!(
            "  - {{ id: {name}, at: [{}, 1], script: at_quota.lua }}\n",
            1 + i
        ));
    }
    scene.push_str("  - { id: reporter, at: [9, 1], script: at_quota.lua }\n");
    scene.push_str("  - { id: walker, at: [1, 3], script: walker.lua }\n");
    let dir = scratch(&[
        ("scene.yaml", &scene),
        ("at_quota.lua", AT_QUOTA),
        ("walker.lua", BUSY_WALKER),
    ]);
    let args = [
        "headless",
        "scene.yaml",
        "--ticks",
        "90",
        "--trace",
        "-",
        "--allow-errors",
    ];
    let run = common::limited::run_limited(dir.path(), &args);
    assert_eq!(run.code, Some(0), "signal {:?}: {}", run.signal, run.stderr);
    let lines: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line is JSON"))
        .collect();
    assert_eq!(lines.len(), 90);
    let last = lines.last().unwrap();
    for name in names {
        let a = agent(last, name);
        assert_eq!(a["error_kind"], "memory", "{name}: {a}");
        assert_eq!(a["suspended"], true, "{name}: {a}");
        let error = a["error"].as_str().unwrap();
        assert!(
            error.contains("memory limit exceeded (an agent may hold 2 MB"),
            "{name}: {error}"
        );
        let said = format!("at quota:\t{name}\ttrue\tmemory error: not enough memory");
        assert!(
            run.stderr.contains(&said),
            "{name}'s binding was reached at the full quota and returned its refusal as an \
             error (not a longjmp through it): {}",
            run.stderr
        );
    }
    assert_walker_arrived(last);
}
