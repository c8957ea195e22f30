//! The same scene and seed give a byte-identical trace in separate processes, even for scripts
//! whose behaviour hangs on what stock Lua makes differ between runs: the order `pairs` visits
//! string keys in (Lua seeds its string hash from the clock and addresses), `tostring` of
//! tables (addresses), the clock, and where a budget stops a runaway.

use crate::common;

use common::{agentbox_in, scratch, stderr, stdout};

const SCENE: &str = "name: order\nseed: 5\nmap:\n  rows: |\n    ....................\n    ....................\n    ....................\nagents:\n  - id: walker\n    at: [0, 1]\n    script: order.lua\n  - id: runaway\n    at: [0, 0]\n    script: runaway.lua\n";

/// Walks a table of string, number and boolean keys with `pairs` every tick and steers by the
/// order it saw; also mixes in `tostring` of a fresh table and `os.clock`.
const ORDER: &str = r#"
local M = {}
function M.decide(self, world)
  local t = {}
  for i = 1, 200 do t["key" .. i] = i end
  for i = 1, 50 do t[i * 1.5] = i end
  t[true] = 1
  t[false] = 2
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
                ],
            );
            assert!(out.status.success(), "{}", stderr(&out));
            stdout(&out)
        })
        .collect();
    assert_eq!(traces[0].lines().count(), 30);
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
