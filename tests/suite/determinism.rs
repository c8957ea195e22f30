//! The same scene and seed give a byte-identical trace in separate processes, even for scripts
//! whose behaviour hangs on what stock Lua makes differ between runs: the order `pairs` visits
//! string keys in (Lua seeds its string hash from the clock and addresses) and tables,
//! functions and coroutines in (hashed by their addresses), `tostring` of tables (addresses),
//! the clock, and where a budget stops a runaway. And what one script sees never depends on
//! what another does: `tostring`'s numbers and the order of table keys are counted per agent.

use crate::common;

use common::{agentbox_in, scratch, stderr, stdout};

const SCENE: &str = "name: order\nseed: 5\nmap:\n  rows: |\n    ....................\n    ....................\n    ....................\nagents:\n  - id: walker\n    at: [0, 1]\n    script: order.lua\n  - id: runaway\n    at: [0, 0]\n    script: runaway.lua\n";

/// Walks a table of string, number, boolean, table, function and coroutine keys with `pairs`
/// every tick and steers by the order it saw; also mixes in `tostring` of a fresh table and
/// `os.clock`.
const ORDER: &str = r#"
local M = {}
local kept = {}
function M.decide(self, world)
  local t = {}
  for i = 1, 200 do t["key" .. i] = i end
  for i = 1, 50 do t[i * 1.5] = i end
  t[true] = 1
  t[false] = 2
  for i = 1, 60 do t[{}] = i end
  for i = 1, 20 do t[function() return i end] = i end
  for i = 1, 10 do t[coroutine.create(function() end)] = i end
  kept[#kept + 1] = {}
  for i, k in ipairs(kept) do t[k] = i end
  -- Its memory, written to the trace, holds a table keyed by tables.
  local by_table = {}
  for i = 1, 6 do by_table[{ i }] = { n = i } end
  self.memory.by_table = by_table
  local h = 0
  for k, v in pairs(t) do
    h = (h * 31 + #tostring(k) + (type(v) == "number" and v or 0)) % 1000003
  end
  h = (h + #tostring({}) + math.floor(os.clock() * 60)) % 1000003
  self.memory.h = h
  return move.to({ x = h % 20, y = (h // 20) % 3 })
end
return M
"#;

/// Writes into its memory until the budget stops it: where it stops must not vary.
const RUNAWAY: &str = r#"
local M = {}
function M.decide(self, world)
  local n = 0
  while true do
    n = n + 1
    self.memory.n = n
  end
end
return M
"#;

#[test]
fn five_processes_give_the_same_trace() {
    let dir = scratch(&[
        ("s.yaml", SCENE),
        ("order.lua", ORDER),
        ("runaway.lua", RUNAWAY),
    ]);
    let traces: Vec<String> = (0..5)
        .map(|_| {
            let out = agentbox_in(
                dir.path(),
                &[
                    "headless",
                    "s.yaml",
                    "--ticks",
                    "30",
                    "--trace",
                    "-",
                    "--allow-errors",
                    "--trace-memory",
                ],
            );
            assert!(out.status.success(), "{}", stderr(&out));
            stdout(&out)
        })
        .collect();
    assert_eq!(traces[0].lines().count(), 30);
    assert!(traces[0].contains("\"by_table\""), "{}", traces[0]);
    // The walker moved: the order it saw decides where it goes.
    assert!(traces[0].contains("\"action\":\"to\""), "{}", traces[0]);
    assert!(
        traces[0].contains("\"suspended\":true"),
        "the runaway was stopped"
    );
    for (i, t) in traces.iter().enumerate().skip(1) {
        assert!(t == &traces[0], "run {i} differs from run 0");
    }
}

/// A `headless` run whose script failed exits 3 unless `--allow-errors` is given; a clean run
/// exits 0, a broken scene 1 and a bad flag 2.
#[test]
fn headless_exit_codes_say_what_failed() {
    let dir = scratch(&[
        ("s.yaml", SCENE),
        ("order.lua", ORDER),
        ("runaway.lua", RUNAWAY),
        (
            "clean.yaml",
            "name: clean\nmap:\n  rows: |\n    ....\nagents:\n  - id: w\n    at: [0, 0]\n    script: order.lua\n",
        ),
        ("broken.yaml", "name: broken\nmap: [\n"),
    ]);
    let code = |args: &[&str]| agentbox_in(dir.path(), args).status.code();
    assert_eq!(code(&["headless", "s.yaml", "--ticks", "3"]), Some(3));
    assert_eq!(
        code(&["headless", "s.yaml", "--ticks", "3", "--allow-errors"]),
        Some(0)
    );
    assert_eq!(code(&["headless", "clean.yaml", "--ticks", "3"]), Some(0));
    assert_eq!(code(&["headless", "broken.yaml", "--ticks", "3"]), Some(1));
    assert_eq!(code(&["headless", "s.yaml", "--tics", "3"]), Some(2));
}

/// A walker that prints what it can see of object numbers and key order every tick:
/// `tostring` of a fresh table and of its own `self`, `%p`, a tile of its path, and the order
/// `pairs` visits a table keyed by its path's tiles and by tables it made in.
const NOTICING_WALKER: &str = r#"
local M = {}
function M.decide(self, world)
  local path = nav.path(self.pos, { x = 18, y = 3 }) or {}
  local by_tile, mine = {}, {}
  for i, tile in ipairs(path) do by_tile[tile] = i end
  for i = 1, 20 do mine[{}] = i end
  local order = {}
  for _, i in pairs(by_tile) do order[#order + 1] = i end
  for _, i in pairs(mine) do order[#order + 1] = i end
  print(tostring({}), tostring(self), string.format("%p", {}),
        path[1] and tostring(path[1]) or "-", table.concat(order, ","))
  return move.to({ x = 18, y = 3 })
end
return M
"#;

/// A neighbour that does nothing.
const QUIET: &str = "return { decide = function() return move.stop() end }\n";

/// A neighbour that makes and prints many tables, functions and coroutines and asks for paths
/// over the whole map (making the shared tiles in its own order) before the walker decides.
const LOUD: &str = r#"
local M = {}
local keep = {}
function M.decide(self, world)
  for i = 1, 3000 do
    local t = { i }
    keep[i % 500 + 1] = t
    if i % 3 == 0 then local _ = tostring(t) .. string.format("%p", function() end) end
    if i % 100 == 0 then keep[i % 7 + 501] = coroutine.create(print) end
  end
  for y = 0, 4 do
    for x = 19, 0, -3 do
      local path = nav.path(self.pos, { x = x, y = y }) or {}
      for _, tile in ipairs(path) do local _ = tostring(tile) end
    end
  end
  return move.stop()
end
return M
"#;

/// The walker's printed lines of a run beside `neighbour`.
fn walker_prints(neighbour: &str) -> Vec<String> {
    prints_beside(NOTICING_WALKER, neighbour)
}

/// The printed lines of `walker` in a run beside `neighbour`.
fn prints_beside(walker: &str, neighbour: &str) -> Vec<String> {
    let scene = "name: neighbours\nseed: 3\nmap:\n  rows: |\n    ....................\n    ....................\n    ....................\n    ....................\n    ....................\nagents:\n  - id: neighbour\n    at: [0, 0]\n    script: neighbour.lua\n  - id: walker\n    at: [0, 3]\n    script: walker.lua\n";
    let dir = scratch(&[
        ("s.yaml", scene),
        ("neighbour.lua", neighbour),
        ("walker.lua", walker),
    ]);
    let out = agentbox_in(
        dir.path(),
        &["headless", "s.yaml", "--ticks", "20", "--trace", "-"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .flat_map(|line| {
            let tick: serde_json::Value = serde_json::from_str(line).unwrap();
            tick["events"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["type"] == "print" && e["agent"] == "walker")
                .map(|e| e["text"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn what_a_walker_sees_of_object_numbers_does_not_depend_on_its_neighbour() {
    let beside_quiet = walker_prints(QUIET);
    let beside_loud = walker_prints(LOUD);
    assert_eq!(beside_quiet.len(), 20, "{beside_quiet:?}");
    assert!(
        beside_quiet[0].contains("table: #1\ttable: #2\t"),
        "the walker's own numbers start at 1: {}",
        beside_quiet[0]
    );
    for (tick, (quiet, loud)) in beside_quiet.iter().zip(&beside_loud).enumerate() {
        assert_eq!(
            quiet,
            loud,
            "tick {}: the walker saw its neighbour",
            tick + 1
        );
    }
}

/// A walker that puts 50 tables it keeps nowhere else into a weak-keyed table every tick and
/// prints how many it still holds.
const WEAK_WALKER: &str = r#"
local M = {}
local seen = setmetatable({}, { __mode = "k" })
function M.decide(self, world)
  for i = 1, 50 do seen[{ i }] = i end
  local n = 0
  for _ in pairs(seen) do n = n + 1 end
  print("weak keys kept: " .. n)
  return move.to({ x = 18, y = 3 })
end
return M
"#;

/// A neighbour that allocates (and drops) 20,000 tables a tick, so the shared collector runs
/// far more often than the walker alone would make it.
const ALLOCATING: &str = r#"
local M = {}
function M.decide(self, world)
  for i = 1, 20000 do local _ = { i, i } end
  return move.stop()
end
return M
"#;

#[test]
fn what_a_walkers_weak_table_keeps_does_not_depend_on_its_neighbour() {
    let beside_quiet = prints_beside(WEAK_WALKER, QUIET);
    let beside_busy = prints_beside(WEAK_WALKER, ALLOCATING);
    // A script's weak table holds its entries like a plain table: the collector, which every
    // agent shares, would otherwise decide what it keeps, so how much the neighbour allocates.
    let expected: Vec<String> = (1..=20)
        .map(|tick| format!("walker.lua:8: weak keys kept: {}", 50 * tick))
        .collect();
    assert_eq!(beside_quiet, expected, "beside a quiet neighbour");
    assert_eq!(beside_busy, expected, "beside an allocating neighbour");
}
