//! Every YAML and Lua block of the README and of `docs/*.md` works as written, so a designer
//! who copies one gets what the page promises.
//!
//! - A ```` ```yaml ```` block is a whole scene: `agentbox check` must accept it and
//!   `agentbox headless` must run it for a few ticks with no script error.
//! - A ```` ```lua ```` block that ends with `return M` (or any `return NAME`) is a whole
//!   script: a one-agent scene runs it through `agentbox check` (compiled, its body run, its
//!   `decide` found). Any other Lua block is a piece of a script (a function to paste in): it is
//!   compiled, not run, by agentbox's own Lua through the sandbox's `load`.
//! - A block that is deliberately a piece of a scene (`spawn:` alone) or needs context the page
//!   gives around it carries `<!-- fragment -->` on the line just above its fence, visible in
//!   the Markdown source; only those are skipped. Other languages (`sh`, `json`, `text`) are
//!   not checked.
//!
//! Each block is written into a scratch copy of the project's layout (`scenes/` beside a copy
//! of `scripts/`), so a scene's `script: ../scripts/x.lua` finds the shipped script as it would
//! from `scenes/`. Each block is padded with blank lines so that a line number in an error is
//! the line in the Markdown file; every failure names the file and the line of the block.

use crate::common;

use common::{agentbox_in, root, stderr, stdout};
use std::path::{Path, PathBuf};

/// A fenced code block of a Markdown file.
struct Block {
    /// The Markdown file, relative to the project root.
    doc: String,
    /// The 1-based line of the opening fence.
    line: usize,
    lang: String,
    /// The body, the fence's indentation removed, padded with `line` blank lines so that its
    /// line numbers are the Markdown file's.
    padded: String,
    /// Marked `<!-- fragment -->` on the line above the fence.
    fragment: bool,
}

impl Block {
    fn place(&self) -> String {
        format!("{}:{}", self.doc, self.line)
    }

    /// A whole script: it ends by returning its module table.
    fn is_script(&self) -> bool {
        let last = self.padded.lines().rev().find(|l| !l.trim().is_empty());
        last.is_some_and(|l| {
            let l = l.trim();
            l.starts_with("return ") && l[7..].chars().all(|c| c.is_alphanumeric() || c == '_')
        })
    }
}

/// README.md and every `docs/*.md`, relative to the project root.
fn docs() -> Vec<String> {
    let mut out = vec!["README.md".to_string()];
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    out.extend(pages);
    out
}

/// The fenced blocks of one Markdown file, in order.
fn blocks(doc: &str) -> Vec<Block> {
    blocks_of_text(doc, &std::fs::read_to_string(root().join(doc)).unwrap())
}

/// The fenced blocks of `text`, the Markdown file `doc`.
fn blocks_of_text(doc: &str, text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        let Some(info) = trimmed.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let indent = lines[i].len() - trimmed.len();
        let open = i;
        let mut body = "\n".repeat(open + 1);
        i += 1;
        while i < lines.len() && lines[i].trim() != "```" {
            let line = lines[i];
            body.push_str(
                line.get(indent.min(line.len() - line.trim_start().len())..)
                    .unwrap(),
            );
            body.push('\n');
            i += 1;
        }
        assert!(
            i < lines.len(),
            "{doc}:{}: a code block is never closed",
            open + 1
        );
        let fragment = open > 0 && lines[open - 1].trim().starts_with("<!-- fragment");
        out.push(Block {
            doc: doc.to_string(),
            line: open + 1,
            lang: info.trim().to_string(),
            padded: body,
            fragment,
        });
        i += 1;
    }
    out
}

/// A scratch project: `scripts/` copied from the repository, and an empty `scenes/`.
fn project() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(&root().join("scripts"), &dir.path().join("scripts"));
    std::fs::create_dir_all(dir.path().join("scenes")).unwrap();
    dir
}

/// The scratch file name of a block: its Markdown file's name with `/` as `_`, so the errors
/// `agentbox` prints (`scenes/README.md.yaml:130:5: error: ...`) name the page.
fn scratch_name(block: &Block, ext: &str) -> String {
    format!("{}.{ext}", block.doc.replace('/', "_"))
}

/// Runs `agentbox ARGS` in `dir`; a failure's report, or None.
fn fails(dir: &Path, args: &[&str]) -> Option<String> {
    let out = agentbox_in(dir, args);
    (!out.status.success()).then(|| {
        format!(
            "`agentbox {}` exits {:?}:\n{}{}",
            args.join(" "),
            out.status.code(),
            stdout(&out),
            stderr(&out)
        )
    })
}

/// A scene block: checked, then run for a few ticks.
fn check_scene(dir: &Path, block: &Block) -> Option<String> {
    let scene = PathBuf::from("scenes").join(scratch_name(block, "yaml"));
    std::fs::write(dir.join(&scene), &block.padded).unwrap();
    let scene = scene.to_str().unwrap();
    fails(dir, &["check", scene]).or_else(|| fails(dir, &["headless", scene, "--ticks", "5"]))
}

/// A one-agent scene that runs `script` (relative to `scenes/`).
fn wrapper_scene(script: &str) -> String {
    format!(
        "name: wrapper\nmap:\n  rows: |\n    .....\n    .....\nagents:\n  - id: a\n    at: [1, 1]\n    script: {script}\n"
    )
}

/// A Lua block: a whole script is loaded by `check`; a piece is compiled with `load`, inside
/// a script that `check` loads.
fn check_lua(dir: &Path, block: &Block) -> Option<String> {
    let name = scratch_name(block, "lua");
    let script = if block.is_script() {
        block.padded.clone()
    } else {
        // A long bracket no line of the block can close.
        let mut level = String::new();
        while block.padded.contains(&format!("]{level}]")) {
            level.push('=');
        }
        format!(
            "local piece = [{level}[{}]{level}]\n\
             local compiled, err = load(piece, \"={}\")\n\
             if not compiled then error(err, 0) end\n\
             return {{ decide = function() return move.stop() end }}\n",
            block.padded, block.doc
        )
    };
    std::fs::write(dir.join("scripts").join(&name), script).unwrap();
    let scene = format!("scenes/lua_{name}.yaml");
    std::fs::write(
        dir.join(&scene),
        wrapper_scene(&format!("../scripts/{name}")),
    )
    .unwrap();
    fails(dir, &["check", &scene])
}

#[test]
fn every_yaml_and_lua_block_of_the_docs_works() {
    let dir = project();
    let (mut checked, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for doc in docs() {
        for block in blocks(&doc) {
            if !matches!(block.lang.as_str(), "yaml" | "lua") {
                continue;
            }
            if block.fragment {
                skipped += 1;
                continue;
            }
            checked += 1;
            let failed = if block.lang == "yaml" {
                check_scene(dir.path(), &block)
            } else {
                check_lua(dir.path(), &block)
            };
            if let Some(why) = failed {
                failures.push(format!(
                    "{}: this {} block fails: {why}",
                    block.place(),
                    block.lang
                ));
            }
        }
    }
    assert!(
        checked >= 5,
        "the docs' blocks were found ({checked} checked)"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} blocks fail ({skipped} fragments skipped); mark a deliberate piece with \
         `<!-- fragment -->` on the line above its fence:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_broken_block_is_named_by_its_file_and_line() {
    // The checker itself: a scene with a wrong key and a script that does not compile, each
    // reported at its line in the Markdown file.
    let doc = "x\n\n```yaml\nname: Bad\nmap:\n  rows: |\n    ...\nagents: []\nsped: 3\n```\n\
               <!-- fragment -->\n```yaml\nnot: checked\n```\n\n```lua\nfunction f(\n```\n";
    let dir = project();
    let parsed = blocks_of_text("docs/selftest.md", doc);
    assert_eq!(parsed.len(), 3);
    assert!(parsed[1].fragment && !parsed[0].fragment && !parsed[2].fragment);
    let scene = check_scene(dir.path(), &parsed[0]).expect("a misspelt key fails");
    assert!(scene.contains("docs_selftest.md.yaml:9:"), "{scene}");
    let lua = check_lua(dir.path(), &parsed[2]).expect("an unclosed function fails");
    assert!(lua.contains("docs/selftest.md:17:"), "{lua}");
}
