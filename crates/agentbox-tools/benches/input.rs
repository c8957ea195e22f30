//! Bounded input: every scene file of 10 MB or less is accepted or refused in under a second.
//! Run with `cargo bench -p agentbox-tools --bench input`. It builds the worst shapes found so far, each about
//! 10 MB (flow nesting, block nesting, many small values, many waypoints, one huge map, long
//! lines, a huge `params` value, NUL bytes, invalid UTF-8, unclosed quotes and brackets), loads
//! each through `scene::load` from a scratch file, and prints the CPU time of this thread and
//! the first line of the answer. It also loads `/dev/zero`, `/dev/urandom` and a FIFO, which
//! must be refused before any reading. Not run in `cargo test`.

use agentbox_core::scene;
use agentbox_session::bench::thread_cpu_time;
use std::path::Path;

const TEN_MB: usize = 10 * 1000 * 1000;

fn head() -> String {
    "name: bench\nmap:\n  rows: |\n    ..........\n    ..........\n".to_string()
}

/// Repeats `unit` after `prefix` until the text is about 10 MB, then adds `suffix`.
fn fill(prefix: &str, unit: &str, suffix: &str) -> String {
    let mut s = String::with_capacity(TEN_MB + suffix.len());
    s.push_str(prefix);
    while s.len() + unit.len() + suffix.len() <= TEN_MB {
        s.push_str(unit);
    }
    s.push_str(suffix);
    s
}

fn cases() -> Vec<(&'static str, Vec<u8>)> {
    let half = TEN_MB / 2;
    let params = format!("{}agents:\n  - id: a\n    at: [0, 0]\n    params: ", head());
    let mut out: Vec<(&'static str, Vec<u8>)> = vec![
        (
            "flow nesting 5,000,000 deep",
            format!(
                "{params}{}{}\n",
                "[".repeat(half - 100),
                "]".repeat(half - 100)
            )
            .into(),
        ),
        (
            "flow nesting 32 deep, repeated",
            fill(
                &format!("{}waypoints:\n", head()),
                &format!("  - {}{}\n", "[".repeat(32), "]".repeat(32)),
                "",
            )
            .into(),
        ),
        (
            "block nesting `- - -`",
            fill(&format!("{params}\n      "), "- ", "x\n").into(),
        ),
        ("block nesting by indentation", {
            let mut s = format!("{params}\n");
            let mut depth = 6;
            while s.len() + depth + 4 < TEN_MB {
                s.push_str(&" ".repeat(depth));
                s.push_str("- \n");
                depth += 2;
            }
            s.into()
        }),
        (
            "many small values (waypoints)",
            fill(&format!("{}waypoints:\n", head()), "  - [1, 1]\n", "").into(),
        ),
        ("waypoints just under the value cap", {
            let mut s = format!("{}waypoints:\n", head());
            for _ in 0..124_000 {
                s.push_str("  - [1, 1]\n");
            }
            s.into()
        }),
        ("agents just under the value cap", {
            let mut s = format!("{}agents:\n", head());
            for i in 0..40_000 {
                s.push_str(&format!(
                    "  - {{ id: a{i}, at: [{}, 0], params: {{ n: 1 }} }}\n",
                    i % 10
                ));
            }
            s.into()
        }),
        ("many agents", {
            let mut s = format!("{}agents:\n", head());
            let mut i = 0;
            while s.len() < TEN_MB - 100 {
                s.push_str(&format!("  - {{ id: a{i}, at: [{}, 0] }}\n", i % 10));
                i += 1;
            }
            s.into()
        }),
        ("256 waypoints, all in sight", {
            let mut s = String::from("name: bench\nmap:\n  rows: |\n");
            for _ in 0..64 {
                s.push_str(&format!("    {}\n", ".".repeat(64)));
            }
            s.push_str("waypoints:\n");
            for i in 0..256 {
                s.push_str(&format!("  - [{}, {}]\n", (i * 7) % 64, (i * 13) % 64));
            }
            s.into()
        }),
        ("one map of 3,100 x 3,100 tiles", {
            let mut s = String::from("name: bench\nmap:\n  rows: |\n");
            while s.len() + 3105 < TEN_MB {
                s.push_str(&format!("    {}\n", ".".repeat(3100)));
            }
            s.into()
        }),
        ("one 10 MB line", fill("name: ", "x", "\n").into()),
        (
            "a 10 MB params string",
            fill(&format!("{params}\""), "y", "\"\nmap: {rows: \".\"}\n").into(),
        ),
        (
            "an unclosed quote",
            fill(&format!("{params}\""), "z ", "\n").into(),
        ),
        (
            "an unclosed bracket",
            fill(&format!("{params}["), "1, ", "\n").into(),
        ),
        ("keys of a huge mapping", {
            let mut s = format!("{params}\n");
            let mut i = 0;
            while s.len() < TEN_MB - 100 {
                s.push_str(&format!("      k{i}: {i}\n"));
                i += 1;
            }
            s.into()
        }),
        ("NUL bytes", vec![0u8; TEN_MB]),
        ("invalid UTF-8", vec![0xffu8; TEN_MB]),
        ("aliases", {
            let mut s = format!("{}x: &a [1, 2, 3]\ny:\n", head());
            while s.len() < TEN_MB - 100 {
                s.push_str("  - *a\n");
            }
            s.into()
        }),
    ];
    out.retain(|(_, bytes)| bytes.len() <= TEN_MB + 1000);
    out
}

fn measure(name: &str, path: &Path, size: Option<usize>) -> f64 {
    let start = thread_cpu_time();
    let answer = scene::load(path);
    let seconds = (thread_cpu_time() - start).as_secs_f64();
    let first = match &answer {
        Ok(s) => format!("ok ({} agents)", s.world.agents.len()),
        Err(e) => e
            .to_string()
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(110)
            .collect(),
    };
    let size = size.map_or("-".to_string(), |s| format!("{:.1} MB", s as f64 / 1e6));
    println!("{name:34} {size:>8} {:8.3} s  {first}", seconds);
    seconds
}

fn main() {
    let dir = std::env::temp_dir().join(format!("agentbox-input-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let mut worst: f64 = 0.0;
    for (i, (name, bytes)) in cases().into_iter().enumerate() {
        let path = dir.join(format!("case{i}.yaml"));
        std::fs::write(&path, &bytes).expect("the case");
        worst = worst.max(measure(name, &path, Some(bytes.len())));
        let _ = std::fs::remove_file(&path);
    }
    #[cfg(unix)]
    {
        for dev in ["/dev/zero", "/dev/urandom"] {
            worst = worst.max(measure(dev, Path::new(dev), None));
        }
        let fifo = dir.join("fifo.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            worst = worst.max(measure("a FIFO", &fifo, None));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "slowest: {worst:.3} s CPU (goal: under 1 s: {})",
        if worst < 1.0 { "MET" } else { "NOT MET" }
    );
}
