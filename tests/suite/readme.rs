//! The README says what is true: its tutorial is the shipped guard and its first step runs,
//! docs/scenes.md's table lists every shipped scene, and the links of the README and of every
//! page under docs/ lead to files that exist. (`doc_blocks` checks their YAML and Lua blocks.)

use crate::common;

use common::{root, scratch, trace};

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The text of the section that starts with `heading` (up to the next `## ` heading).
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("README has no {heading:?}"));
    let rest = &text[start + heading.len()..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    &rest[..end]
}

/// The fenced code blocks of `text` in `lang`, in order.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let fence = format!("```{lang}\n");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&fence) {
        let body = &rest[at + fence.len()..];
        let end = body.find("```").expect("a closed code block");
        out.push(body[..end].to_string());
        rest = &body[end..];
    }
    out
}

#[test]
fn the_tutorial_is_the_shipped_guard() {
    let text = readme();
    let tutorial = section(&text, "## Tutorial: a guard");
    let yaml = blocks(tutorial, "yaml");
    let shipped_scene = std::fs::read_to_string(root().join("scenes/guard.yaml")).unwrap();
    assert_eq!(
        yaml.first(),
        Some(&shipped_scene),
        "step 1 is scenes/guard.yaml"
    );
    let lua = blocks(tutorial, "lua");
    let shipped_script = std::fs::read_to_string(root().join("scripts/guard.lua")).unwrap();
    assert_eq!(
        lua.last(),
        Some(&shipped_script),
        "step 5 is scripts/guard.lua"
    );
}

#[test]
fn the_tutorials_first_step_patrols() {
    let text = readme();
    let tutorial = section(&text, "## Tutorial: a guard");
    let step2 = blocks(tutorial, "lua").into_iter().next().unwrap();
    let scene = std::fs::read_to_string(root().join("scenes/guard.yaml"))
        .unwrap()
        .replace("../scripts/guard.lua", "step2.lua");
    let tmp = scratch(&[("guard.yaml", &scene), ("step2.lua", &step2)]);
    let scene_path = tmp.path().join("guard.yaml");
    let lines = trace(scene_path.to_str().unwrap(), 600, &[]);
    let mut corners = Vec::new();
    for line in &lines {
        let guard = &line["agents"][0];
        assert_eq!(guard["id"], "guard");
        assert!(guard.get("error").is_none(), "{guard}");
        assert_eq!(guard["action"], "path_to", "step 2 only patrols: {guard}");
        let at = (
            guard["x"].as_f64().unwrap().round() as i64,
            guard["y"].as_f64().unwrap().round() as i64,
        );
        if [(2, 2), (11, 2), (11, 8), (2, 8)].contains(&at) && corners.last() != Some(&at) {
            corners.push(at);
        }
    }
    // Round the loop in order: the start, then each waypoint, and back.
    assert!(
        corners.starts_with(&[(2, 2), (11, 2), (11, 8), (2, 8)]),
        "{corners:?}"
    );
}

#[test]
fn every_shipped_scene_is_in_the_table() {
    let text = std::fs::read_to_string(root().join("docs/scenes.md")).unwrap();
    let table = section(&text, "## Shipped scenes");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("scenes")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".yaml") && !table.contains(&format!("| `scenes/{name}` |")) {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "not in docs/scenes.md's scene table: {missing:?}"
    );
}

#[test]
fn links_to_files_lead_somewhere() {
    let mut dead = Vec::new();
    let mut docs = vec!["README.md".to_string(), "ARCHITECTURE.md".to_string()];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            docs.push(format!("docs/{name}"));
        }
    }
    for doc in &docs {
        let text = std::fs::read_to_string(root().join(doc)).unwrap();
        let base = root().join(doc).parent().unwrap().to_path_buf();
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            let tail = &rest[at + 2..];
            let end = tail.find(')').unwrap_or(tail.len());
            let target = tail[..end].split('#').next().unwrap();
            if !target.is_empty() && !target.contains("://") && !base.join(target).exists() {
                dead.push(format!("{doc}: {target}"));
            }
            rest = &tail[end..];
        }
    }
    assert!(dead.is_empty(), "links to missing files: {dead:?}");
}
