//! The rules of ARCHITECTURE.md that the compiler cannot check by itself.
//!
//! The layers are crates, so Cargo already refuses a crate that reaches up (the core cannot
//! name the Lua host: it is not among its dependencies). What is left is checked here:
//! - the core's resolved dependency tree holds no scripting engine, window or file watcher, and
//!   each engine crate is named by exactly one manifest;
//! - inside the core, each module names only the modules below it (one crate, so the compiler
//!   allows any order);
//! - the core reads no clock and draws no unseeded random number.

use crate::common;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The engine crates and the one crate of the workspace allowed to name each.
const ENGINES: [(&str, &str); 4] = [
    ("mlua", "crates/agentbox-lua"),
    ("macroquad", "crates/agentbox-window"),
    ("egui-macroquad", "crates/agentbox-window"),
    ("notify", "crates/agentbox-session"),
];

/// What each module of the core may name in the core, besides itself, bottom-up.
const CORE_RULES: &[(&str, &[&str])] = &[
    ("files", &[]),
    ("lru", &[]),
    ("movingai", &["files"]),
    ("world", &[]),
    ("nav", &["world", "lru"]),
    ("movement", &["world", "nav"]),
    ("scene", &["world", "files"]),
    ("sim", &["world", "nav", "movement"]),
    ("expect", &["world", "scene", "sim"]),
];

fn manifests() -> Vec<PathBuf> {
    let root = common::root();
    let mut found = vec![root.join("Cargo.toml")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        if manifest.is_file() {
            found.push(manifest);
        }
    }
    found.sort();
    found
}

/// The dependency names a manifest declares (the keys of its dependency tables).
fn declared_dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line.trim_matches(['[', ']']).ends_with("dependencies");
            continue;
        }
        if in_dependencies && !line.starts_with('#') {
            if let Some((key, _)) = line.split_once('=') {
                let key = key.trim();
                names.push(key.split('.').next().unwrap_or(key).to_string());
            }
        }
    }
    names
}

#[test]
fn each_engine_crate_is_named_by_one_manifest() {
    let root = common::root();
    let mut owners: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for manifest in manifests() {
        let text = std::fs::read_to_string(&manifest).unwrap();
        let dir = manifest.parent().unwrap().strip_prefix(&root).unwrap();
        let dir = if dir.as_os_str().is_empty() {
            ".".to_string()
        } else {
            dir.to_string_lossy().into_owned()
        };
        let declared = declared_dependencies(&text);
        for (engine, _) in ENGINES {
            if declared.iter().any(|d| d == engine) {
                owners.entry(engine).or_default().push(dir.clone());
            }
        }
    }
    for (engine, owner) in ENGINES {
        assert_eq!(
            owners.get(engine).map(Vec::as_slice),
            Some([owner.to_string()].as_slice()),
            "{engine} must be named by {owner}/Cargo.toml alone"
        );
    }
}

#[test]
fn the_core_depends_on_no_engine() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "agentbox-core",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .current_dir(common::root())
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "{}", common::stderr(&out));
    let tree = common::stdout(&out);
    let crates: Vec<&str> = tree.lines().filter_map(|l| l.split(' ').next()).collect();
    assert!(crates.contains(&"agentbox-core"), "{tree}");
    assert!(
        crates.contains(&"glam"),
        "the tree lists the core's dependencies: {tree}"
    );
    for engine in [
        "mlua",
        "mlua-sys",
        "macroquad",
        "miniquad",
        "egui",
        "notify",
    ] {
        assert!(
            !crates
                .iter()
                .any(|c| *c == engine || c.starts_with(&format!("{engine}-"))),
            "agentbox-core depends on {engine}:\n{tree}"
        );
    }
}

/// Every `.rs` file under `dir`, with its path relative to `dir`.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                found.push((path.strip_prefix(dir).unwrap().to_path_buf(), text));
            }
        }
    }
    found.sort();
    found
}

/// The top-level modules a source names through `crate::` (`crate::nav::Search`, and each
/// branch of `crate::{nav::Search, world}`), with their line numbers.
fn crate_paths(source: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in source.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or("");
                for branch in group.split(',') {
                    let name: String = branch
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        found.push((n + 1, name));
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.push((n + 1, name));
            }
            rest = after;
        }
    }
    found
}

#[test]
fn the_core_modules_name_only_the_modules_below_them() {
    let src = common::root().join("crates/agentbox-core/src");
    let mut problems = Vec::new();
    let mut checked = 0;
    for (relative, text) in sources(&src) {
        let module = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if module == "lib" {
            continue;
        }
        let Some((_, allowed)) = CORE_RULES.iter().find(|(m, _)| *m == module) else {
            problems.push(format!(
                "{}: module `{module}` has no rule",
                relative.display()
            ));
            continue;
        };
        checked += 1;
        for (line, named) in crate_paths(&text) {
            if named != module && !allowed.contains(&named.as_str()) {
                problems.push(format!(
                    "{}:{line}: `{module}` names `crate::{named}`",
                    relative.display()
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} core files found");
    assert!(
        problems.is_empty(),
        "layer rules broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_core_reads_no_clock_and_no_unseeded_randomness() {
    let src = common::root().join("crates/agentbox-core/src");
    let mut problems = Vec::new();
    for (relative, text) in sources(&src) {
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for banned in [
                "Instant",
                "SystemTime",
                "thread_rng",
                "rand::random",
                "OsRng",
            ] {
                if code.contains(banned) {
                    problems.push(format!("{}:{}: {banned}", relative.display(), n + 1));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the core must stay deterministic:\n{}",
        problems.join("\n")
    );
}

// The checkers themselves.

#[test]
fn grouped_and_inline_crate_paths_are_found() {
    let found = crate_paths(
        "use crate::{sim::Decider, world};\nlet x = crate::nav::f(); // crate::scene\n",
    );
    assert_eq!(
        found,
        [(1, "sim".into()), (1, "world".into()), (2, "nav".into())]
    );
}

#[test]
fn dependency_keys_are_read_from_every_dependency_table() {
    let manifest = "[package]\nname = \"x\"\n[dependencies]\nmlua = \"1\"\nglam.workspace = true\n\
                    [target.'cfg(unix)'.dev-dependencies]\nlibc = \"0.2\"\n[features]\nnotify = []\n";
    assert_eq!(declared_dependencies(manifest), ["mlua", "glam", "libc"]);
}
