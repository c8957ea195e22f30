//! `headless --stop-when EXPR`: the run ends after the first tick where EXPR holds (checked
//! against the full trace), its trace is that run's first lines, and the exit codes: 5 when it
//! never held, 2 for a bad or raising expression (naming the tick), 3 for script errors first.
//! EXPR reads what `expect:` predicates read: memory and views' `label`.

use crate::common;
use common::*;
use serde_json::Value;

/// A walker heading east that labels itself "far" from x > 5 and counts ticks in memory.
const SCENE: &str = "\
name: stop-when
seed: 3
map:
  rows: |
    ............
    ............
agents:
  - { id: walker, at: [0, 0], speed: 2, script: walker.lua }
  - { id: post, at: [11, 1] }
";

const WALKER: &str = "\
return { decide = function(self, world)
  local m = self.memory
  m.n = (m.n or 0) + 1
  if self.pos.x > 5 then self:label(\"far\") end
  return move.to({ x = 11, y = 0 })
end }
";

fn run(
    dir: &std::path::Path,
    ticks: &str,
    stop_when: &str,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "headless",
        "scene.yaml",
        "--ticks",
        ticks,
        "--trace",
        "-",
        "--stop-when",
        stop_when,
    ];
    args.extend_from_slice(extra);
    agentbox_in(dir, &args)
}

fn lines(out: &std::process::Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a trace line is JSON"))
        .collect()
}

#[test]
fn it_stops_at_the_first_tick_where_the_expression_holds_in_the_full_trace() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", WALKER)]);
    let full = agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "100", "--trace", "-"],
    );
    assert!(full.status.success(), "{}", stderr(&full));
    let full = lines(&full);
    let first = full
        .iter()
        .position(|l| pos(l, "walker").0 > 4.05)
        .expect("the walker passes x = 4")
        + 1;
    let out = run(dir.path(), "100", "world:agent('walker').pos.x > 4.05", &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let stopped = lines(&out);
    assert_eq!(stopped.len(), first, "the trace has one line per tick run");
    assert_eq!(
        stopped[..],
        full[..first],
        "the trace is the full run's first lines"
    );
    assert_eq!(stopped.last().unwrap()["tick"], first as u64);
    assert!(
        stderr(&out).contains(&format!(
            "stopped at tick {first}: world:agent('walker').pos.x > 4.05"
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn it_reads_labels_and_memory_and_is_never_asked_before_tick_1() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", WALKER)]);
    let full = lines(&agentbox_in(
        dir.path(),
        &["headless", "scene.yaml", "--ticks", "100", "--trace", "-"],
    ));
    let labelled = full
        .iter()
        .position(|l| l["agents"][0]["label"].as_str() == Some("far"))
        .expect("the walker labels itself")
        + 1;
    let out = run(
        dir.path(),
        "100",
        "world:agent('walker').label == 'far'",
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&out).len(), labelled);
    // True from the start: still one tick is run.
    let out = run(
        dir.path(),
        "100",
        "world:memory('walker') == nil or true",
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(lines(&out).len(), 1);
    assert!(
        stderr(&out).contains("stopped at tick 1:"),
        "{}",
        stderr(&out)
    );
    let out = run(dir.path(), "100", "world:memory('walker').n == 7", &[]);
    assert_eq!(lines(&out).len(), 7, "{}", stderr(&out));
}

#[test]
fn an_expression_that_never_holds_exits_5_and_runs_every_tick() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", WALKER)]);
    let out = run(dir.path(), "40", "world:agent('walker').pos.x > 1e9", &[]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert_eq!(lines(&out).len(), 40);
    assert!(stderr(&out).contains("never held"), "{}", stderr(&out));
}

#[test]
fn a_bad_or_raising_expression_is_a_located_error_and_exit_2() {
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", WALKER)]);
    let out = run(dir.path(), "40", "world:agent('walker').pos.x >", &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--stop-when:1:"), "{}", stderr(&out));
    assert!(lines(&out).is_empty(), "nothing ran");
    let out = run(
        dir.path(),
        "40",
        "world:tick() >= 6 and world:agent('nobody').pos.x > 0",
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("at tick 6") && err.contains("--stop-when:1:"),
        "{err}"
    );
}

#[test]
fn script_errors_exit_3_before_a_stop_that_never_held() {
    let broken = "return { decide = function(self, world) error('boom') end }\n";
    let dir = scratch(&[("scene.yaml", SCENE), ("walker.lua", broken)]);
    let out = run(dir.path(), "10", "false", &[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
}

#[test]
fn it_stops_a_branched_run_too() {
    let east = "return { decide = function(self, world) return move.to({ x = 11, y = 0 }) end }\n";
    let west = "return { decide = function(self, world) return move.to({ x = 0, y = 1 }) end }\n";
    let dir = scratch(&[
        ("scene.yaml", SCENE),
        ("walker.lua", east),
        ("west.lua", west),
    ]);
    let out = run(
        dir.path(),
        "100",
        "world:agent('walker').pos.y > 0.5",
        &["--branch-at", "3", "--replace", "walker.lua=west.lua"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let stopped = lines(&out);
    let last = stopped.last().expect("ticks ran");
    assert!(stopped.len() > 3, "it held after the branch");
    assert!(pos(last, "walker").1 > 0.5);
    assert!(pos(&stopped[stopped.len() - 2], "walker").1 <= 0.5);
}
