//! `check` and `test`: load scenes, lint and compile their scripts and compile their metrics and
//! `expect.lua` checks, or run their `expect:` sections.

use super::say;
use agentbox_core::expect::{Metrics, Predicates};
use agentbox_core::scene;
use agentbox_lua::{lint, ScriptHost};
use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
/// Scene files named by the arguments: files as given, folders' `.yaml`/`.yml` files sorted.
/// A folder's scenarios that `hunt` wrote (`NAME.hunt-N.yaml`, failing by construction) are
/// passed over, with a line saying so; named as files they are taken.
pub(super) fn scene_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    use agentbox_session::experiment::hunt::is_hunt_scenario;
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .into_iter()
                .flatten()
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
                .collect();
            found.sort();
            let (hunts, scenes): (Vec<PathBuf>, Vec<PathBuf>) =
                found.into_iter().partition(|p| is_hunt_scenario(p));
            if let Some(first) = hunts.first() {
                eprintln!(
                    "{}: passed over {} scenario(s) agentbox hunt wrote ({}{}); name one to take it",
                    path.display(),
                    hunts.len(),
                    first.display(),
                    if hunts.len() > 1 { ", ..." } else { "" }
                );
            }
            out.extend(scenes);
        } else {
            out.push(path.clone());
        }
    }
    out
}

pub(super) fn check(paths: &[PathBuf]) -> io::Result<ExitCode> {
    let mut failures = 0;
    let files = scene_files(paths);
    if files.is_empty() {
        eprintln!("error: no scene files found");
        return Ok(ExitCode::FAILURE);
    }
    for file in files {
        let scene = match scene::load(&file) {
            Ok(s) => s,
            Err(errors) => {
                for e in &errors.0 {
                    eprintln!("{e}");
                }
                failures += 1;
                continue;
            }
        };
        // Warnings do not fail the check.
        for w in &scene.warnings {
            eprintln!("{w}");
        }
        let mut host = match ScriptHost::new(scene.world.seed) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("error: cannot start Lua: {e}");
                return Ok(ExitCode::FAILURE);
            }
        };
        let mut ok = true;
        for script in &scene.scripts {
            if let Err(e) = host.load(script) {
                eprintln!("{}", e.as_str());
                ok = false;
            }
        }
        // The scripts and the modules they require as they load, each linted once.
        let mut sources: BTreeSet<PathBuf> = scene.scripts.clone();
        sources.extend(host.required_files());
        for source in &sources {
            ok &= lint_file(source);
        }
        // The scene's text, read once, locates a broken metric or check at its key.
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        ok &= compile_metrics(&file, &text, &scene, &mut host);
        ok &= compile_predicates(&file, &text, &scene, &mut host);
        if ok {
            say(format_args!(
                "ok: {} ({} agents, {} scripts)\n",
                file.display(),
                scene.world.agents.len(),
                scene.scripts.len()
            ))?;
        } else {
            failures += 1;
        }
    }
    Ok(if failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Prints a located error for every name `path` reads that the Lua API does not have and a
/// located warning for every `__mode` it sets (see `agentbox_lua::lint`); whether there was no
/// error. The file is read as the loader reads it (a
/// script file's size bound, regular files only): one it cannot read is left to the compile
/// step, which reports it. A script too deep to lint is a located warning, not a failure: Lua
/// judges whether it compiles.
fn lint_file(path: &Path) -> bool {
    use agentbox_core::files::{Disk, FileKind, Files};
    let Ok(bytes) = Disk.read(path, FileKind::Script) else {
        return true;
    };
    let findings = match lint::lint(&String::from_utf8_lossy(&bytes)) {
        Ok(findings) => findings,
        Err(not) => {
            eprintln!(
                "{}:{}:{}: warning: {}",
                path.display(),
                not.line,
                not.column,
                not.message
            );
            return true;
        }
    };
    for f in &findings {
        let severity = match f.severity {
            lint::Severity::Error => "error",
            lint::Severity::Warning => "warning",
        };
        eprintln!(
            "{}:{}:{}: {severity}: {}",
            path.display(),
            f.line,
            f.column,
            f.message
        );
    }
    findings
        .iter()
        .all(|f| f.severity == lint::Severity::Warning)
}

/// Compiles the scene's `metrics:` and `monitors.values` as a run does, printing each that
/// does not compile at its key in the scene file; whether all compiled.
fn compile_metrics(file: &Path, text: &str, scene: &scene::Scene, host: &mut ScriptHost) -> bool {
    let sections = [
        ("metrics", "metric", &scene.metrics),
        ("monitors.values", "monitor value", &scene.monitors.values),
    ];
    let mut ok = true;
    for (section, what, entries) in sections {
        for (name, code) in entries {
            if let Err(e) = host.compile_metric(name, code) {
                let (line, column) = scene::entry_key_at(text, section, name).unwrap_or((1, 1));
                eprintln!(
                    "{}:{line}:{column}: error: {what} `{name}` does not compile: {e}",
                    file.display()
                );
                ok = false;
            }
        }
    }
    ok
}

/// Compiles the scene's `expect.lua` checks as `test` does, printing each that does not
/// compile at its `check:` key in the scene file; whether all compiled.
fn compile_predicates(
    file: &Path,
    text: &str,
    scene: &scene::Scene,
    host: &mut ScriptHost,
) -> bool {
    let Some(expect) = &scene.expect else {
        return true;
    };
    let mut ok = true;
    for (i, spec) in expect.lua.iter().enumerate() {
        let name = spec.name_or_index(i);
        if let Err(e) = host.compile_predicate(&name, &spec.check) {
            let item = format!("expect.lua.{i}");
            let (line, column) = scene::entry_key_at(text, &item, "check").unwrap_or((1, 1));
            eprintln!(
                "{}:{line}:{column}: error: expect check `{name}` does not compile: {e}",
                file.display()
            );
            ok = false;
        }
    }
    ok
}

/// A path as one shell word (quoted when it holds more than plain characters).
pub(super) fn shell_word(path: &Path) -> String {
    agentbox_session::shell::shell_word(&path.display().to_string())
}

/// `test`: run the scenes' `expect:` sections in parallel and print one line per scene; each
/// failing check is followed by the command that opens its session (written `to`).
pub(super) fn test(
    paths: &[PathBuf],
    jobs: Option<usize>,
    to: &agentbox_session::testrun::SessionsTo,
) -> io::Result<ExitCode> {
    use agentbox_session::testrun::{run_all, Outcome};
    use std::io::IsTerminal;
    let default = [PathBuf::from("scenes")];
    let files = scene_files(if paths.is_empty() { &default } else { paths });
    if files.is_empty() {
        eprintln!("error: no scene files found");
        return Ok(ExitCode::FAILURE);
    }
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(files.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    let (mut passed, mut failed) = (0, 0);
    // The first output error, kept until the runner returns.
    let mut written = Ok(());
    run_all(&files, jobs, to, |path, outcome| {
        bar.inc(1);
        let line = bar.suspend(|| match outcome {
            Outcome::Passed { ticks } => {
                passed += 1;
                say(format_args!("pass {} ({ticks} ticks)\n", path.display()))
            }
            Outcome::Failed(reasons) => {
                failed += 1;
                say(format_args!("FAIL {}\n", path.display()))?;
                for r in reasons {
                    say(format_args!("    {}\n", r.reason))?;
                    match &r.session {
                        Some(Ok(file)) => say(format_args!(
                            "      open it: agentbox run {} --session {}\n",
                            shell_word(path),
                            shell_word(file)
                        ))?,
                        Some(Err(e)) => say(format_args!("      (no session file: {e})\n"))?,
                        None => {}
                    }
                }
                Ok(())
            }
            Outcome::Skipped => Ok(()),
        });
        written = std::mem::replace(&mut written, Ok(())).and(line);
    });
    bar.finish_and_clear();
    written?;
    if passed + failed == 0 {
        eprintln!("error: none of these scenes has an `expect:` section");
        return Ok(ExitCode::FAILURE);
    }
    say(format_args!("{passed} passed, {failed} failed\n"))?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
