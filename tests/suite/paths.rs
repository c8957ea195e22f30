//! `agentbox paths` on the MovingAI maps shipped in `data/movingai/`: every checked query
//! optimal, and a doctored scenario file noticed.

use crate::common;

use common::{agentbox, scratch, stderr, stdout};
use std::path::PathBuf;

fn movingai() -> PathBuf {
    let dir = common::root().join("data/movingai");
    assert!(
        dir.join("arena2.map").is_file(),
        "MovingAI maps not found at {}: they are part of the repository",
        dir.display()
    );
    dir
}

/// The header and every `step`-th query of a scenario file.
fn every(scen: &str, step: usize) -> String {
    let text = std::fs::read_to_string(movingai().join(scen)).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for line in lines.step_by(step) {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// (queries, optimal, suboptimal, unsolved) from the summary line, which must be the last.
fn summary(out: &str) -> (usize, usize, usize, usize) {
    let last = out.lines().last().expect("some output");
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words[0], "paths:", "{last}");
    assert!(last.ends_with(" us/query"), "{last}");
    let n = |i: usize| words[i].parse::<usize>().unwrap();
    assert_eq!(
        (words[2], words[4], words[6], words[8]),
        ("queries,", "optimal,", "suboptimal,", "unsolved,")
    );
    (n(1), n(3), n(5), n(7))
}

#[test]
fn every_checked_query_of_the_five_maps_is_optimal() {
    let dir = movingai();
    // All of arena2 and Berlin; a spread subset of the larger files to keep the suite quick.
    for (map, step) in [
        ("arena2", 1),
        ("Berlin_0_512", 1),
        ("random512-10-0", 2),
        ("8room_000", 2),
        ("maze512-1-0", 8),
    ] {
        let tmp = scratch(&[("q.scen", &every(&format!("{map}.map.scen"), step))]);
        let map_path = dir.join(format!("{map}.map"));
        let scen = tmp.path().join("q.scen");
        let out = agentbox(&[
            "paths",
            "--map",
            map_path.to_str().unwrap(),
            "--scen",
            scen.to_str().unwrap(),
            "--rounds",
            "1",
        ]);
        let (queries, optimal, sub, unsolved) = summary(&stdout(&out));
        assert!(queries > 100, "{map}: {queries}");
        assert_eq!(
            (optimal, sub, unsolved),
            (queries, 0, 0),
            "{map}: {}",
            stderr(&out)
        );
        assert!(out.status.success(), "{map}");
    }
}

#[test]
fn plain_astar_is_optimal_too() {
    let dir = movingai();
    let tmp = scratch(&[("q.scen", &every("arena2.map.scen", 3))]);
    let out = agentbox(&[
        "paths",
        "--map",
        dir.join("arena2.map").to_str().unwrap(),
        "--scen",
        tmp.path().join("q.scen").to_str().unwrap(),
        "--algo",
        "astar,auto",
        "--rounds",
        "2",
    ]);
    let text = stdout(&out);
    let (q, o, _, _) = summary(&text);
    assert_eq!(q, o);
    assert!(out.status.success());
    // The landmark distances are built once, timed apart from the queries.
    assert!(
        text.lines()
            .any(|l| l.starts_with("landmarks: 16 built once in ")),
        "{text}"
    );
    // Both searches timed, in the order asked, by CPU time over the rounds.
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("landmarks: "))
        .collect();
    assert!(lines[0].contains("2 round(s)"), "{text}");
    assert!(
        lines[1].starts_with("astar ") && lines[2].starts_with("auto "),
        "{text}"
    );
    for line in &lines[1..3] {
        assert!(
            line.contains(" us/query (min ") && line.contains("median query "),
            "{line}"
        );
    }
    // The summary's mean is the first search's (A*, far slower than jump point search).
    let mean = |line: &str| -> f64 {
        line.split_whitespace()
            .skip_while(|w| *w != "mean")
            .nth(1)
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(mean(lines[1]), mean(lines.last().unwrap()));
    assert!(mean(lines[1]) > mean(lines[2]), "{text}");
}

#[test]
fn a_wrong_optimal_length_is_noticed() {
    let dir = movingai();
    let mut text = every("arena2.map.scen", 10);
    // Doctor the last query's optimal length.
    let last = text.trim_end().lines().last().unwrap().to_string();
    let mut fields: Vec<String> = last.split('\t').map(String::from).collect();
    let real: f64 = fields[8].parse().unwrap();
    fields[8] = format!("{:.8}", real + 0.5);
    text = text.replace(&last, &fields.join("\t"));
    let tmp = scratch(&[("bad.scen", &text)]);
    let out = agentbox(&[
        "paths",
        "--map",
        dir.join("arena2.map").to_str().unwrap(),
        "--scen",
        tmp.path().join("bad.scen").to_str().unwrap(),
    ]);
    let (q, o, s, u) = summary(&stdout(&out));
    assert_eq!((o, s, u), (q - 1, 1, 0));
    assert!(!out.status.success());
    let err = stderr(&out);
    let line_no = text.lines().count();
    assert!(
        err.contains(&format!("bad.scen:{line_no}: path length")),
        "{err}"
    );
}

#[test]
fn bad_files_and_names_are_clear_errors() {
    let dir = movingai();
    let tmp = scratch(&[
        (
            "broken.map",
            "type octile\nheight 2\nwidth 3\nmap\n...\n..\n",
        ),
        ("off.scen", "version 1\n0\tm\t3\t2\t0\t0\t99\t0\t1\n"),
    ]);
    let out = agentbox(&[
        "paths",
        "--map",
        tmp.path().join("broken.map").to_str().unwrap(),
        "--scen",
        tmp.path().join("off.scen").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("broken.map:6: error:"),
        "{}",
        stderr(&out)
    );
    let out = agentbox(&[
        "paths",
        "--map",
        dir.join("arena2.map").to_str().unwrap(),
        "--scen",
        tmp.path().join("off.scen").to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert!(!out.status.success());
    assert!(
        err.contains("off.scen:2: error: ") && err.contains("is outside the map or blocked"),
        "{err}"
    );
    let out = agentbox(&[
        "paths",
        "--map",
        dir.join("arena2.map").to_str().unwrap(),
        "--scen",
        dir.join("arena2.map.scen").to_str().unwrap(),
        "--algo",
        "bogus",
    ]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("unknown --algo"), "{}", stderr(&out));
}
