//! A scene saved while it runs, as it reaches the agents: which agents' own entries changed
//! and in which fields ([`diff`]), and putting that into the running world ([`apply`]) so
//! every agent keeps its situation (position, velocity, route, breadcrumbs) and takes only
//! the fields the designer changed. `at` moves the agent; an entry added adds an agent, one
//! removed removes it; agents the scripts spawned are kept and the ones they removed stay
//! removed.
//!
//! Plain data in, plain data out: it reads no file and knows no script host. The session
//! tells the host about the edits (so `self.memory` is kept and `self.params` follows), and
//! the simulation writes them on the next tick's trace line (`sim::Event::Reload`).

use super::{Agent, Brain, World};
use std::collections::{HashMap, HashSet};

/// A field of an agent's scene entry, named as the scene file names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    At,
    Kind,
    Speed,
    Params,
    Sense,
    Radius,
    Size,
    Script,
    Control,
    Breadcrumbs,
    Motion,
    TurnRate,
    MaxForce,
    Avoid,
    Route,
}

impl Field {
    /// The scene key this field is written as (`at`, `speed`, `script`...).
    pub fn name(self) -> &'static str {
        match self {
            Field::At => "at",
            Field::Kind => "kind",
            Field::Speed => "speed",
            Field::Params => "params",
            Field::Sense => "sense",
            Field::Radius => "radius",
            Field::Size => "size",
            Field::Script => "script",
            Field::Control => "control",
            Field::Breadcrumbs => "breadcrumbs",
            Field::Motion => "motion",
            Field::TurnRate => "turn_rate",
            Field::MaxForce => "max_force",
            Field::Avoid => "avoid",
            Field::Route => "route",
        }
    }
}

/// What a new version of a scene changes for its agents.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edits {
    /// Agents in both versions whose entry changed, with the fields that did, in the new
    /// version's order.
    pub changed: Vec<(String, Vec<Field>)>,
    /// Agents only the new version lists, in its order.
    pub added: Vec<String>,
    /// Agents only the old version listed, in its order.
    pub removed: Vec<String>,
}

impl Edits {
    /// Whether the new version changes no agent.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }

    /// The edits in words, for the terminal: `runner speed, guard-2 at params, drone-9
    /// added, drone-10 removed` (empty when none).
    pub fn summary(&self) -> String {
        let mut parts: Vec<String> = self
            .changed
            .iter()
            .map(|(id, fields)| {
                let names: Vec<&str> = fields.iter().map(|f| f.name()).collect();
                format!("{id} {}", names.join(" "))
            })
            .collect();
        parts.extend(self.added.iter().map(|id| format!("{id} added")));
        parts.extend(self.removed.iter().map(|id| format!("{id} removed")));
        parts.join(", ")
    }
}

/// The fields in which two versions of one agent's entry differ, both as their scene built
/// them (`ignore` names fields not to compare for this agent: tunable params, a spawn group's
/// redrawn places).
pub fn fields_changed(old: &Agent, new: &Agent, ignore: &Ignore) -> Vec<Field> {
    let mut out = Vec::new();
    let mut check = |field: Field, differs: bool| {
        if differs && !ignore.fields.contains(&field) {
            out.push(field);
        }
    };
    check(Field::At, old.pos != new.pos);
    check(Field::Kind, old.kind != new.kind);
    check(Field::Speed, old.speed != new.speed);
    check(Field::Params, !same_params(old, new, &ignore.params));
    check(Field::Sense, old.sense != new.sense);
    check(Field::Radius, old.radius != new.radius);
    check(Field::Size, old.size != new.size);
    let brain = old.brain != new.brain;
    let scripted = matches!(old.brain, Brain::Script(_)) || matches!(new.brain, Brain::Script(_));
    check(Field::Script, brain && scripted);
    check(Field::Control, brain && !scripted);
    check(Field::Breadcrumbs, old.crumbs.max != new.crumbs.max);
    check(Field::Motion, old.motion != new.motion);
    check(Field::TurnRate, old.turn_rate != new.turn_rate);
    check(Field::MaxForce, old.max_force != new.max_force);
    check(Field::Avoid, old.avoid_horizon != new.avoid_horizon);
    check(Field::Route, old.walk.tiles != new.walk.tiles);
    out
}

/// What not to compare for one agent.
#[derive(Clone, Debug, Default)]
pub struct Ignore {
    /// Fields left out.
    pub fields: Vec<Field>,
    /// Params left out of `params` (tunables: a running agent keeps its live value).
    pub params: Vec<String>,
}

fn same_params(a: &Agent, b: &Agent, skip: &[String]) -> bool {
    match (a.params.as_object(), b.params.as_object()) {
        (Some(x), Some(y)) if !skip.is_empty() => {
            let kept = |m: &serde_json::Map<String, serde_json::Value>| {
                m.iter()
                    .filter(|(k, _)| !skip.iter().any(|s| s == *k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect::<serde_json::Map<_, _>>()
            };
            kept(x) == kept(y)
        }
        _ => a.params == b.params,
    }
}

/// The edits from the agents of one version of a scene (`old`, as it built them) to the next
/// (`new`); `ignore` says, per agent id, what not to compare. O(agents): agents are matched
/// by id, each looked for first at its own index (a save usually keeps the order).
pub fn diff(old: &[Agent], new: &[Agent], ignore: &dyn Fn(&str) -> Ignore) -> Edits {
    let mut old_at: Option<HashMap<&str, usize>> = None;
    let mut edits = Edits::default();
    let mut seen: HashSet<&str> = HashSet::with_capacity(new.len());
    for (i, fresh) in new.iter().enumerate() {
        seen.insert(fresh.id.as_str());
        let before = match old.get(i) {
            Some(o) if o.id == fresh.id => Some(o),
            _ => old_at
                .get_or_insert_with(|| {
                    old.iter()
                        .enumerate()
                        .map(|(j, a)| (a.id.as_str(), j))
                        .collect()
                })
                .get(fresh.id.as_str())
                .map(|&j| &old[j]),
        };
        match before {
            None => edits.added.push(fresh.id.clone()),
            Some(before) => {
                let fields = fields_changed(before, fresh, &ignore(&fresh.id));
                if !fields.is_empty() {
                    edits.changed.push((fresh.id.clone(), fields));
                }
            }
        }
    }
    edits.removed = old
        .iter()
        .filter(|a| !seen.contains(a.id.as_str()))
        .map(|a| a.id.clone())
        .collect();
    edits
}

/// Puts a new version of the scene's agents (`new`, as it built them; `edits` from [`diff`])
/// into the running world: a running agent takes the changed fields of its entry and keeps
/// the rest of its state; an added entry is added as built; a removed one is removed. Agents
/// in neither version (spawned by scripts) keep running, in their order, after the scene's;
/// an agent of both versions that is no longer running (a script removed it) stays removed.
/// A changed `params` takes the file's params but keeps the running value of the params
/// `ignore` leaves out (tunables). Returns the edits as they were applied: an edit of an
/// agent that is not running is dropped, and so is an added entry whose id already runs.
pub fn apply(
    world: &mut World,
    old: &[Agent],
    new: &[Agent],
    edits: &Edits,
    ignore: &dyn Fn(&str) -> Ignore,
) -> Edits {
    let changed: HashMap<&str, &[Field]> = edits
        .changed
        .iter()
        .map(|(id, f)| (id.as_str(), f.as_slice()))
        .collect();
    // The usual save: the running agents are the new version's, in its order (none added,
    // removed or spawned), so the changed ones take their fields in place and none moves.
    let same_agents = edits.added.is_empty()
        && edits.removed.is_empty()
        && world.agents.len() == new.len()
        && world.agents.iter().zip(new).all(|(a, b)| a.id == b.id);
    if same_agents {
        let mut applied = Edits::default();
        if !changed.is_empty() {
            for (agent, fresh) in world.agents.iter_mut().zip(new) {
                if let Some(fields) = changed.get(fresh.id.as_str()) {
                    take_fields(agent, fresh, fields, &ignore(&fresh.id).params);
                    applied.changed.push((fresh.id.clone(), fields.to_vec()));
                }
            }
        }
        return applied;
    }
    let added: HashSet<&str> = edits.added.iter().map(String::as_str).collect();
    let listed: HashSet<&str> = old.iter().chain(new).map(|a| a.id.as_str()).collect();
    // The running agents, moved (not cloned) out by id; the ones the scripts spawned keep
    // their running order.
    let mut spawned = Vec::new();
    let mut running: HashMap<String, Agent> = HashMap::with_capacity(world.agents.len());
    for agent in std::mem::take(&mut world.agents) {
        if listed.contains(agent.id.as_str()) {
            running.insert(agent.id.clone(), agent);
        } else {
            spawned.push(agent);
        }
    }
    let mut applied = Edits::default();
    let mut agents = Vec::with_capacity(new.len() + spawned.len());
    for fresh in new {
        match running.remove(&fresh.id) {
            Some(mut agent) => {
                if let Some(fields) = changed.get(fresh.id.as_str()) {
                    take_fields(&mut agent, fresh, fields, &ignore(&fresh.id).params);
                    applied.changed.push((fresh.id.clone(), fields.to_vec()));
                }
                agents.push(agent);
            }
            None if added.contains(fresh.id.as_str()) => {
                applied.added.push(fresh.id.clone());
                agents.push(fresh.clone());
            }
            // Removed by a script: it stays removed.
            None => {}
        }
    }
    applied.removed = (edits.removed.iter())
        .filter(|id| running.contains_key(id.as_str()))
        .cloned()
        .collect();
    let ids: HashSet<&str> = agents.iter().map(|a| a.id.as_str()).collect();
    let spawned: Vec<Agent> = spawned
        .into_iter()
        .filter(|a| !ids.contains(a.id.as_str()))
        .collect();
    drop(ids);
    agents.extend(spawned);
    world.agents = agents;
    applied
}

/// Copies `fields` of an agent's new entry (`fresh`) onto the running agent; `live_params`
/// keep their running values.
fn take_fields(agent: &mut Agent, fresh: &Agent, fields: &[Field], live_params: &[String]) {
    for field in fields {
        match field {
            Field::At => {
                agent.pos = fresh.pos;
                agent.vel = fresh.vel;
                agent.route = None;
                agent.stepping = None;
                agent.memory = fresh.memory.clone();
            }
            Field::Kind => agent.kind = fresh.kind.clone(),
            Field::Speed => agent.speed = fresh.speed,
            Field::Params => {
                // The scene's new map, shared as loaded, but with the tunables' live values.
                let mut params = fresh.params.clone();
                let live: Vec<(&String, &serde_json::Value)> = match agent.params.as_object() {
                    Some(from) => live_params
                        .iter()
                        .filter(|name| params.get(name.as_str()).is_some())
                        .filter_map(|name| Some((name, from.get(name)?)))
                        .collect(),
                    None => Vec::new(),
                };
                if !live.is_empty() {
                    if let Some(to) = std::sync::Arc::make_mut(&mut params).as_object_mut() {
                        for (name, value) in live {
                            to.insert(name.clone(), value.clone());
                        }
                    }
                }
                agent.params = params;
            }
            Field::Sense => agent.sense = fresh.sense,
            Field::Radius => agent.radius = fresh.radius,
            Field::Size => {
                agent.size = fresh.size;
                agent.route = None;
            }
            Field::Script | Field::Control => {
                agent.brain = fresh.brain.clone();
                agent.error = None;
                agent.suspended = false;
            }
            Field::Breadcrumbs => {
                agent.crumbs.max = fresh.crumbs.max;
                agent.crumbs.tiles.truncate(fresh.crumbs.max);
            }
            Field::Motion => {
                agent.motion = fresh.motion;
                agent.stepping = None;
                agent.memory = fresh.memory.clone();
            }
            Field::TurnRate => agent.turn_rate = fresh.turn_rate,
            Field::MaxForce => agent.max_force = fresh.max_force,
            Field::Avoid => agent.avoid_horizon = fresh.avoid_horizon,
            Field::Route => agent.walk = fresh.walk.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{DVec2, IVec2};

    fn agent(id: &str, x: i32) -> Agent {
        Agent::new(id, IVec2::new(x, 0))
    }

    fn world(agents: Vec<Agent>) -> World {
        let mut w = World::from_ascii(&["...................."]);
        w.agents = agents;
        w
    }

    #[test]
    fn a_changed_speed_is_taken_and_the_rest_of_the_running_state_kept() {
        let old = vec![agent("a", 0), agent("b", 1)];
        let mut new = old.clone();
        new[0].speed = 2.0;
        let mut running = old.clone();
        running[0].pos = DVec2::new(7.5, 0.0);
        running[0].vel = DVec2::new(4.0, 0.0);
        let mut w = world(running);
        let edits = diff(&old, &new, &|_| Ignore::default());
        assert_eq!(edits.changed, vec![("a".to_string(), vec![Field::Speed])]);
        let applied = apply(&mut w, &old, &new, &edits, &|_| Ignore::default());
        assert_eq!(applied.summary(), "a speed");
        assert_eq!(w.agents[0].speed, 2.0);
        assert_eq!(w.agents[0].pos, DVec2::new(7.5, 0.0));
        assert_eq!(w.agents[0].vel, DVec2::new(4.0, 0.0));
    }

    #[test]
    fn at_moves_added_and_removed_entries_come_and_go_and_scripts_choices_stay() {
        let old = vec![agent("a", 0), agent("b", 1), agent("gone", 2)];
        let new = vec![agent("a", 5), agent("b", 1), agent("c", 3)];
        // The scripts removed b and spawned s-1; a walked on.
        let mut running = vec![agent("a", 0), agent("gone", 2), agent("s-1", 9)];
        running[0].pos = DVec2::new(1.5, 0.0);
        let mut w = world(running);
        let edits = diff(&old, &new, &|_| Ignore::default());
        let applied = apply(&mut w, &old, &new, &edits, &|_| Ignore::default());
        let ids: Vec<&str> = w.agents.iter().map(|a| a.id.as_str()).collect();
        assert_eq!(ids, ["a", "c", "s-1"]);
        assert_eq!(w.agents[0].pos, DVec2::new(5.0, 0.0));
        assert_eq!(applied.summary(), "a at, c added, gone removed");
    }

    #[test]
    fn an_edited_params_keeps_the_live_value_of_a_tunable() {
        let mut old = vec![agent("a", 0)];
        old[0].params = std::sync::Arc::new(serde_json::json!({"gain": 1, "mode": "calm"}));
        let mut new = old.clone();
        new[0].params = std::sync::Arc::new(serde_json::json!({"gain": 1, "mode": "angry"}));
        let mut running = old.clone();
        running[0].params = std::sync::Arc::new(serde_json::json!({"gain": 3, "mode": "calm"}));
        let mut w = world(running);
        let tunable = |_: &str| Ignore {
            fields: vec![],
            params: vec!["gain".into()],
        };
        let edits = diff(&old, &new, &tunable);
        apply(&mut w, &old, &new, &edits, &tunable);
        assert_eq!(
            *w.agents[0].params,
            serde_json::json!({"gain": 3, "mode": "angry"})
        );
    }
}
