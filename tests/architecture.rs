//! The layering invariants of ARCHITECTURE.md, checked on the source: each engine crate is
//! named by exactly one module, and the core never names any of them.

mod common;
use std::path::Path;

/// Every `.rs` file under a folder, with its text.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((path.display().to_string(), text));
        }
    }
    out
}

/// Whether code (not comments) names a crate: `use krate` or `krate::`.
fn names(text: &str, krate: &str) -> bool {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .any(|l| l.contains(&format!("{krate}::")) || l.contains(&format!("use {krate}")))
}

#[test]
fn each_engine_crate_is_named_by_one_module_only() {
    let src = common::root().join("src");
    let owners = [
        ("mlua", "script"),
        ("macroquad", "render"),
        ("notify", "watch"),
    ];
    for (file, text) in sources(&src) {
        let module = Path::new(&file)
            .strip_prefix(&src)
            .unwrap()
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .into_owned();
        for (krate, owner) in owners {
            if names(&text, krate) {
                assert_eq!(module, owner, "{file} names {krate}; only src/{owner}/ may");
            }
        }
    }
}

#[test]
fn the_core_builds_on_nothing_above_it() {
    let src = common::root().join("src");
    // Lower layers must not reach up into higher ones.
    let rules: [(&str, &[&str]); 5] = [
        (
            "world",
            &[
                "crate::nav",
                "crate::movement",
                "crate::scene",
                "crate::sim",
                "crate::script",
                "crate::session",
                "crate::render",
                "crate::watch",
            ],
        ),
        (
            "nav",
            &[
                "crate::movement",
                "crate::scene",
                "crate::sim",
                "crate::script",
                "crate::session",
                "crate::render",
                "crate::watch",
            ],
        ),
        (
            "movement",
            &[
                "crate::scene",
                "crate::sim",
                "crate::script",
                "crate::session",
                "crate::render",
                "crate::watch",
            ],
        ),
        (
            "scene",
            &[
                "crate::sim",
                "crate::script",
                "crate::session",
                "crate::render",
                "crate::watch",
            ],
        ),
        (
            "sim",
            &[
                "crate::scene",
                "crate::script",
                "crate::session",
                "crate::render",
                "crate::watch",
            ],
        ),
    ];
    for (layer, forbidden) in rules {
        for (file, text) in sources(&src.join(layer)) {
            for f in forbidden {
                assert!(!names(&text, f), "{file} uses {f}");
            }
        }
    }
}
