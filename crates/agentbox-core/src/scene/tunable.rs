//! Tunables: numbers in an agent's or a spawn group's `params` declared with a range,
//! `{ value: 3, min: 1, max: 8, step: 0.5 }`. Scripts see only the value; the scene keeps the
//! list (named `OWNER.PARAM`: the agent's id or the group's kind) for the window's sliders and
//! for `agentbox sweep`. Checking and listing only: it must not change a running world.

use super::build::Checker;
use super::file::{SceneFile, TunableSpec};
use serde_json::Value;

/// One tunable as the scene declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct Tunable {
    /// `OWNER.PARAM`.
    pub name: String,
    /// The agent's id, or the spawn group's kind.
    pub owner: String,
    /// Whether the owner is a spawn group (its agents have the kind `owner`).
    pub group: bool,
    pub param: String,
    pub value: f64,
    pub min: f64,
    pub max: f64,
    pub step: Option<f64>,
}

/// Whether a param's value is a tunable's declaration.
fn declared(v: &Value) -> bool {
    v.as_object().is_some_and(|m| m.contains_key("value"))
}

/// Checks the tunables of one `params` mapping at `path` (`agents.0.params`).
pub(super) fn check(c: &mut Checker, path: &str, params: &Value) {
    let Some(map) = params.as_object() else {
        return;
    };
    for (name, v) in map {
        if !declared(v) {
            continue;
        }
        let at = format!("{path}.{name}");
        match serde_json::from_value::<TunableSpec>(v.clone()) {
            Err(e) => c.error(
                &at,
                format!("a tunable is {{ value: V, min: A, max: B, step: S }} with numbers: {e}"),
            ),
            Ok(t) => {
                let finite = [t.value, t.min, t.max].iter().all(|x| x.is_finite());
                if !finite || t.min >= t.max {
                    c.error(
                        &at,
                        "a tunable's min must be below its max (finite numbers)",
                    );
                } else if t.value < t.min || t.value > t.max {
                    c.error(
                        &format!("{at}.value"),
                        format!(
                            "value {} is outside min..max ({}..{})",
                            t.value, t.min, t.max
                        ),
                    );
                }
                if t.step.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
                    c.error(&format!("{at}.step"), "a tunable's step must be above 0");
                }
            }
        }
    }
}

/// `params` as scripts see them: each tunable replaced by its value.
pub(super) fn plain(params: &Value) -> Value {
    match params.as_object() {
        Some(map) if map.values().any(declared) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if declared(v) {
                        v.get("value").cloned().unwrap_or(Value::Null)
                    } else {
                        v.clone()
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        _ => params.clone(),
    }
}

/// Every tunable of a checked scene: agents' first, then spawn groups', each in params order.
pub(super) fn list(spec: &SceneFile) -> Vec<Tunable> {
    let owners = spec
        .agents
        .iter()
        .map(|a| (&a.id, false, &a.params))
        .chain(spec.spawn.iter().map(|s| (&s.kind, true, &s.params)));
    let mut out = Vec::new();
    for (owner, group, params) in owners {
        let Some(map) = params.as_ref().and_then(Value::as_object) else {
            continue;
        };
        for (param, v) in map {
            let Ok(t) = serde_json::from_value::<TunableSpec>(v.clone()) else {
                continue;
            };
            let name = format!("{owner}.{param}");
            // A second group of the same kind names the same tunables: the first one counts.
            if out.iter().any(|x: &Tunable| x.name == name) {
                continue;
            }
            out.push(Tunable {
                name,
                owner: owner.clone(),
                group,
                param: param.clone(),
                value: t.value,
                min: t.min,
                max: t.max,
                step: t.step,
            });
        }
    }
    out
}

impl Tunable {
    /// The value in a world: its first agent's param, else the scene's value.
    pub fn value_in(&self, world: &crate::world::World) -> f64 {
        world
            .agents
            .iter()
            .find(|a| self.applies_to(&a.id, &a.kind))
            .and_then(|a| a.params.get(&self.param)?.as_f64())
            .unwrap_or(self.value)
    }

    /// Whether an agent (by id and kind) takes this tunable's value.
    pub fn applies_to(&self, id: &str, kind: &str) -> bool {
        if self.group {
            kind == self.owner
                && id
                    .strip_prefix(self.owner.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
        } else {
            id == self.owner
        }
    }

    /// A value moved into the range and onto the step.
    pub fn clamp(&self, v: f64) -> f64 {
        let v = v.clamp(self.min, self.max);
        match self.step {
            Some(s) => (self.min + ((v - self.min) / s).round() * s).clamp(self.min, self.max),
            None => v,
        }
    }
}
