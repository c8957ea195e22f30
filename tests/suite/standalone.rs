//! The repository stands alone: no file of it points outside it. The documents the project was
//! started from lived beside it (a `shared` folder one level up, with a design note, an
//! algorithm summary and numbered source documents); a fresh clone has none of them, so any
//! mention is a dead reference. Sources are cited by their published titles instead (see
//! `docs/algorithms.md`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository's files: tracked and untracked-but-not-ignored ones from git when it is
/// there, else every file under the root except `target/` and `.git/`.
fn files() -> Vec<PathBuf> {
    let git = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(root())
        .output();
    if let Ok(out) = git {
        if out.status.success() && !out.stdout.is_empty() {
            return out
                .stdout
                .split(|&b| b == 0)
                .filter(|s| !s.is_empty())
                .map(|s| root().join(String::from_utf8_lossy(s).as_ref()))
                .filter(|p| p.is_file())
                .collect();
        }
    }
    let mut found = Vec::new();
    walk(&root(), &mut found);
    found
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "target" && name != ".git" {
                walk(&path, found);
            }
        } else {
            found.push(path);
        }
    }
}

/// What in `text` points outside the repository, as (line, the matched text).
fn outside_references(text: &str) -> Vec<(usize, String)> {
    // Spelled in pieces so this file does not find itself.
    let exact = [
        concat!("../", "shared"),
        concat!("DESIGN", ".md"),
        concat!("ALGORITHMS", ".md"),
    ];
    let seed = concat!("seed ", "00");
    let mut hits = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for word in exact {
            if line.contains(word) {
                hits.push((i + 1, word.to_string()));
            }
        }
        let lower = line.to_lowercase();
        let mut from = 0;
        while let Some(at) = lower[from..].find(seed) {
            let end = from + at + seed.len();
            if lower[end..].starts_with(|c: char| c.is_ascii_digit()) {
                hits.push((i + 1, line[from + at..end + 1].to_string()));
            }
            from = end;
        }
    }
    hits
}

#[test]
fn the_checker_finds_what_it_must() {
    let text = format!(
        "fine line\nsee {}/x\nthe {}3 source\n{}.md and {}.md\nseed 42, seed 01\n",
        concat!("..", "/shared"),
        concat!("Seed", " 00"),
        concat!("DESIGN", ""),
        concat!("ALGORITHMS", "")
    );
    let hits: Vec<usize> = outside_references(&text).iter().map(|h| h.0).collect();
    assert_eq!(hits, vec![2, 3, 4, 4]);
    let seeded = format!("{}{}", concat!("SEED ", "00"), "4 and seed 1 and seed 00x");
    assert_eq!(
        outside_references(&seeded),
        vec![(1, format!("{}4", concat!("SEED ", "00")))]
    );
    // Our own algorithm page is not the outside summary.
    assert!(outside_references("see docs/algorithms.md").is_empty());
}

#[test]
fn no_file_points_outside_the_repository() {
    let files = files();
    assert!(
        files.iter().any(|p| p.ends_with("Cargo.toml")),
        "the file list misses Cargo.toml: {} files",
        files.len()
    );
    let mut bad = Vec::new();
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (line, what) in outside_references(&text) {
            let rel = path.strip_prefix(root()).unwrap_or(path);
            bad.push(format!("{}:{line}: {what}", rel.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "references to files outside the repository (cite the published source or \
         docs/algorithms.md instead):\n{}",
        bad.join("\n")
    );
}
