//! Every failure opens where it failed: `agentbox test` prints, for each failing check, the
//! command that opens its session; run under Xvfb from recorded input, the window opens paused
//! at the failing tick with the failing agent selected, and the decision strip shows the
//! replayed ticks' decisions (not grey "not recorded").

use crate::common;
use agentbox_session::history;
use common::*;
use std::ffi::OsStr;

/// The hunter cannot reach the prey by tick 20 (a reach failure about `hunter`), and passes
/// x = 5 later (an every-tick Lua check about no one agent).
const SCENE: &str = "\
name: failing
seed: 2
map:
  rows: |
    ..............
    ......#.......
    ......#.......
    ..............
agents:
  - { id: hunter, at: [0, 2], speed: 4, script: walk.lua }
  - { id: prey, at: [13, 2] }
expect:
  ticks: 60
  reach:
    - { agent: hunter, target: prey, within: 0.5, by_tick: 20 }
  lua:
    - name: hunter stays left of 5
      when: every_tick
      check: |
        if world:agent(\"hunter\").pos.x > 5 then return false, \"hunter passed x=5\" end
        return true
";

const WALK: &str = "\
return { decide = function(self, world)
  self:label(self.pos.x > 3 and \"near\" or \"far\")
  return move.path_to(world:agent(\"prey\"))
end }
";

/// Pixels of the selection ring's yellow.
fn yellow(path: &std::path::Path) -> usize {
    let (_, _, px) = read_rgba(path);
    px.chunks_exact(4)
        .filter(|p| p[0] > 0xf0 && (0xc0..0xe0).contains(&p[1]) && p[2] < 0x30)
        .count()
}

/// Pixels of a decision strip's colours (saturated, light) in the bottom-right panel, where a
/// strip of unrecorded ticks is grey.
fn strip_colour(path: &std::path::Path) -> usize {
    let (w, h, px) = read_rgba(path);
    let mut n = 0;
    for y in h * 80 / 100..h * 92 / 100 {
        for x in w * 62 / 100..w {
            let p = &px[((y * w + x) * 4) as usize..][..4];
            let (r, g, b) = (p[0] as i32, p[1] as i32, p[2] as i32);
            if (r - g).abs() + (g - b).abs() + (r - b).abs() > 60 && g > 0x90 {
                n += 1;
            }
        }
    }
    n
}

#[test]
fn a_failing_tests_command_opens_the_window_paused_at_the_failure_with_its_agent() {
    let dir = scratch(&[("fail.yaml", SCENE), ("walk.lua", WALK)]);
    let out = agentbox_in(dir.path(), &["test", "fail.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stdout(&out);
    let commands: Vec<&str> = said
        .lines()
        .filter_map(|l| l.trim().strip_prefix("open it: "))
        .collect();
    assert_eq!(
        commands,
        [
            "agentbox run fail.yaml --session fail.failed-1.session.json",
            "agentbox run fail.yaml --session fail.failed-2.session.json",
        ],
        "{said}"
    );
    let rec = history::load_recording(&dir.path().join("fail.failed-1.session.json")).unwrap();
    let focus = rec.focus.clone().expect("the session says where to open");
    assert_eq!((rec.ticks, focus.tick), (20, 20));
    assert_eq!(focus.agent.as_deref(), Some("hunter"));
    assert!(focus.why.starts_with("reach: `hunter`"), "{}", focus.why);

    // The printed command, as a designer pastes it, with recorded input: Ctrl+E after 30
    // frames saves what the window holds then.
    let input = r#"{"frame": 30, "key": "E", "ctrl": true}"#;
    std::fs::write(dir.path().join("save.jsonl"), input).unwrap();
    let shot = dir.path().join("opened.png");
    let mut args: Vec<&OsStr> = commands[0].split(' ').skip(1).map(OsStr::new).collect();
    args.extend(
        [
            "--frames",
            "40",
            "--input",
            "save.jsonl",
            "--screenshot",
            "opened.png",
        ]
        .map(OsStr::new),
    );
    let out = in_window(dir.path(), &args);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("opened fail.failed-1.session.json at tick 20: reach: `hunter`"),
        "{err}"
    );
    let saved = history::load_recording(&dir.path().join("fail.session.json")).unwrap();
    assert_eq!(
        saved.ticks, 20,
        "the window stayed paused at the failing tick"
    );
    let ring = yellow(&shot);
    assert!(ring > 40, "the hunter is selected ({ring} ring pixels)");
    let strip = strip_colour(&shot);
    assert!(
        strip > 500,
        "the decision strip shows the replayed ticks ({strip} coloured pixels)"
    );
    if let Ok(keep) = std::env::var("KEEP_SHOTS") {
        std::fs::copy(
            &shot,
            std::path::Path::new(&keep).join("failure-opened.png"),
        )
        .unwrap();
    }
}
