//! A scene's `monitors:` while it runs: each value (a Lua expression of `world`) every K ticks,
//! in a Lua state of its own (made here with the scene's seed and budget, like `metrics`), and
//! each name the scripts `plot`, folded per tick by its rule (sum, mean or last). The window's
//! plots panel and `--monitors FILE.csv` read the points; compare and sweep lines end with the
//! values at the last tick (`"monitors":{...}`).
//!
//! Never changes a run: the values run in another Lua state and `plot` only adds to a tally the
//! trace never reads. Costs nothing unless asked: a run without `--monitors` evaluates values
//! once, after its last tick, and collects plots during that tick only.
//!
//! It must not draw, write files or hold the run's Lua state.

use agentbox_core::expect::Metrics;
use agentbox_core::scene::file::{MonitorsSpec, PlotRule};
use agentbox_core::world::World;
use agentbox_lua::plot::Tally;
use agentbox_lua::ScriptHost;
use std::collections::BTreeMap;
use std::rc::Rc;

/// Ticks between two evaluations of the values when the scene does not say.
pub const DEFAULT_EVERY: u64 = 10;

/// One point: a tick, a name and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub tick: u64,
    pub name: String,
    pub value: f64,
}

/// The monitors of one run.
pub struct Monitors {
    /// Compiled values by name (none when the scene has no values).
    host: Option<ScriptHost>,
    values: Vec<(String, Result<usize, String>)>,
    every: u64,
    rules: BTreeMap<String, PlotRule>,
    /// Each name's latest value (null: its expression failed).
    latest: BTreeMap<String, Option<f64>>,
}

impl Monitors {
    /// Compiles the values; one that does not compile is null at every point. What they
    /// `print` goes where `echo` says.
    pub fn new(
        spec: &MonitorsSpec,
        seed: u64,
        instructions: u64,
        echo: agentbox_lua::Echo,
    ) -> Result<Monitors, String> {
        let mut host = None;
        let mut values = Vec::new();
        if !spec.values.is_empty() {
            let mut h =
                ScriptHost::new(seed).map_err(|e| format!("cannot start Lua for monitors: {e}"))?;
            h.set_instruction_budget(instructions);
            h.set_print_echo(echo);
            for (name, code) in &spec.values {
                values.push((name.clone(), h.compile_metric(name, code)));
            }
            host = Some(h);
        }
        Ok(Monitors {
            host,
            values,
            every: spec.every.unwrap_or(DEFAULT_EVERY).max(1),
            rules: spec.plots.clone(),
            latest: BTreeMap::new(),
        })
    }

    /// Whether the scene has anything to monitor.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.rules.is_empty()
    }

    /// Whether the values are due after this tick.
    pub fn due(&self, tick: u64) -> bool {
        tick.is_multiple_of(self.every)
    }

    /// The rule a plotted name is folded by.
    pub fn rule(&self, name: &str) -> PlotRule {
        self.rules.get(name).copied().unwrap_or_default()
    }

    /// The points after a tick: the plots of the tick, and the values if `evaluate`.
    pub fn observe(
        &mut self,
        world: &Rc<World>,
        plots: BTreeMap<String, Tally>,
        evaluate: bool,
    ) -> Vec<Point> {
        let tick = world.tick;
        let mut out = Vec::new();
        if evaluate {
            if let Some(host) = &mut self.host {
                for (name, handle) in &self.values {
                    let value = handle
                        .as_ref()
                        .ok()
                        .and_then(|h| host.run_metric(*h, world).ok());
                    self.latest.insert(name.clone(), value);
                    if let Some(value) = value {
                        out.push(Point {
                            tick,
                            name: name.clone(),
                            value,
                        });
                    }
                }
            }
        }
        for (name, t) in plots {
            if t.count == 0 {
                continue;
            }
            let value = match self.rule(&name) {
                PlotRule::Sum => t.sum,
                PlotRule::Mean => t.sum / t.count as f64,
                PlotRule::Last => t.last,
            };
            self.latest.insert(name.clone(), Some(value));
            out.push(Point { tick, name, value });
        }
        out
    }

    /// Each name's latest value.
    pub fn latest(&self) -> &BTreeMap<String, Option<f64>> {
        &self.latest
    }
}

/// A text field for a CSV line: quoted when it holds a comma, a quote or a line break.
pub fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plots_fold_by_their_rule_and_values_fail_to_null() {
        let spec: MonitorsSpec = serde_saphyr::from_str(
            "every: 5\nvalues: { tick: world:tick(), bad: error('x') }\nplots: { n: sum, x: last }\n",
        )
        .unwrap();
        let mut m = Monitors::new(&spec, 1, 100_000, agentbox_lua::Echo::Stderr).unwrap();
        assert!(m.due(10) && !m.due(11));
        let mut world = World::from_ascii(&["..."]);
        world.tick = 10;
        let world = Rc::new(world);
        let t = |sum, count, last| Tally { sum, count, last };
        let plots = BTreeMap::from([
            ("n".to_string(), t(3.0, 3, 1.0)),
            ("x".to_string(), t(5.0, 2, 4.0)),
            ("m".to_string(), t(5.0, 2, 4.0)),
        ]);
        let points = m.observe(&world, plots, true);
        let got: Vec<(String, f64)> = points.into_iter().map(|p| (p.name, p.value)).collect();
        assert_eq!(
            got,
            vec![
                ("tick".to_string(), 10.0),
                ("m".to_string(), 2.5),
                ("n".to_string(), 3.0),
                ("x".to_string(), 4.0)
            ]
        );
        assert_eq!(m.latest()["bad"], None);
        assert_eq!(csv_field("a=1,b=2"), "\"a=1,b=2\"");
    }
}
