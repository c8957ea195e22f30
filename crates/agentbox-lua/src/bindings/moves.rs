//! `move.*`: the movement primitives. Each returns an action for `decide` to return; a
//! target is an agent view, an agent id or a position `{x, y}`.
//!
//! - `stop()`, `chase(t)`, `evade(t)`, `to(pos)`, `path_to(tile, opts)`: the first five.
//! - `flow_to(t)`: the shared flow field towards `t`'s tile (`nav.flow`).
//! - `waypoints(goal)`, `tank_to(goal)`: the waypoint route and the tank-battle A*.
//! - `basic_chase(t)`, `basic_evade(t)`: each axis one unit towards / away per step.
//! - `los_chase(t)`: Bresenham path on tiles, rebuilt when the target moves (free agents:
//!   straight at the target).
//! - `intercept(t)`: chase the point `St = Sprey + Vprey * |Sr| / |Vr|`.
//! - `potential{target = t, A = 200, B = 50, n = 1, m = 2, obstacle = 2, range = 3}`:
//!   Lennard-Jones `U = -A/r^n + B/r^m`; evade with `A = 0`.
//! - `swarm{kind = k, A = 100, B = 200, n = 1, m = 2, target = t, target_A = 20, target_B = 0,
//!   target_n = 1, target_m = 2, obstacle = 2, range = 8}`: every other agent of kind `k`
//!   within `range` with (A, B, n, m), an optional leader with the `target_` values.
//! - `wander_avoid(t)`: straight at `t` while in sight, a random step otherwise.
//! - `trace_around(goal, {variant = "improved" | "basic" | "sight", hand = "left" | "right"})`.
//! - `follow_crumbs(leader, {trail = 15})`: the newest of at most `trail` crumbs first.
//! - `follow_road{terrain = "road"}`, `wall_trace{hand = "left" | "right"}`.
//!
//! The one-target primitives have a raw twin (`raw.rs`) that hands out the action already made
//! for a target agent; the functions here make it. None of them changes the world: the action
//! is carried out by the simulation.

use super::options::{
    hand_option, lennard_jones, number, obstacle_and_range, optional_target, path_options,
    CHASE_LJ, SWARM_LJ,
};
use super::{p, steering, with_world, Binding, Charge, Home, Library, Make};
use crate::convert::{make_action, to_point, to_target, to_tile, Arg};
use crate::errors::located;
use crate::raw::{self, MakeAction};
use agentbox_core::world::{Action, LennardJones, PotentialSpec, Target, TraceVariant};
use mlua::{Lua, Table, Value};
use std::rc::Rc;

/// The `move` library, in the order its table is made.
pub const MOVE: Library = Library {
    home: Home::Move,
    heading: "move: movement primitives",
    doc: "Rust-native movement primitives: each returns an action for `decide` to return.",
    bindings: &[
        STOP,
        CHASE,
        EVADE,
        FLOW_TO,
        TO,
        PATH_TO,
        WAYPOINTS,
        TANK_TO,
        BASIC_CHASE,
        BASIC_EVADE,
        LOS_CHASE,
        INTERCEPT,
        WANDER_AVOID,
        POTENTIAL,
        SWARM,
        TRACE_AROUND,
        FOLLOW_CRUMBS,
        FOLLOW_ROAD,
        WALL_TRACE,
        steering::ARRIVE,
        steering::WANDER,
        steering::SEPARATE,
        steering::ALIGN,
        steering::COHERE,
        steering::AVOID_WALLS,
        steering::FOLLOW,
        steering::FOLLOW_PATH,
        steering::BLEND,
        steering::FIRST,
    ],
};

/// An action to hand back to Lua: made (and listed in the action book) when converted.
pub struct NewAction(pub Action);

impl mlua::IntoLua for NewAction {
    fn into_lua(self, lua: &Lua) -> mlua::Result<Value> {
        make_action(lua, self.0).map(Value::UserData)
    }
}

pub const STOP: Binding = Binding {
    name: "move.stop",
    params: &[],
    returns: &[("agentbox.Action", "Stand still.")],
    doc: "Stand still this tick.",
    charge: Charge::None,
    make: Make::Function(|lua| {
        // Actions are read-only, so every call returns the same object.
        let stop = make_action(lua, Action::Stop)?;
        lua.create_function(move |_, ()| Ok(stop.clone()))
    }),
};

pub const CHASE: Binding = Binding {
    name: "move.chase",
    params: &[p("target", "agentbox.Target", "Who or where to run at.")],
    returns: &[("agentbox.Action", "The chase.")],
    doc: "Steer straight at the target's current position at full speed (line-of-sight chase).",
    charge: Charge::None,
    make: Make::Function(|lua| target_fn(lua, CHASE.name, MakeAction::Chase)),
};

pub const EVADE: Binding = Binding {
    name: "move.evade",
    params: &[
        p("target", "agentbox.Target", "Who or where to run from."),
        p("opts?", "{predict?: number}", "Run from where the target will be in `predict` seconds, its velocity held (default 0: where it is)."),
    ],
    returns: &[("agentbox.Action", "The evasion.")],
    doc: "Steer straight away from the target's current position (or, with `predict`, its predicted one: Reynolds' evasion) at full speed.",
    charge: Charge::None,
    make: Make::Function(|lua| {
        target_fn_with(lua, EVADE.name, MakeAction::Evade, Some(steering::evade_with))
    }),
};

pub const FLOW_TO: Binding = Binding {
    name: "move.flow_to",
    params: &[p("goal", "agentbox.Target", "Who or where to walk to (its current tile).")],
    returns: &[("agentbox.Action", "The flow-field walk.")],
    doc: "Walk the shared flow field towards the goal's tile, from tile centre to tile centre: one Dijkstra field per goal tile, map and body size (`nav.flow`), shared by every agent walking there, so a crowd costs one search. A moving goal gets the field of the tile it stands on (recent ones stay cached). The agent stands still on the goal's tile and where the goal cannot be reached.",
    charge: Charge::None,
    make: Make::Function(|lua| target_fn(lua, FLOW_TO.name, MakeAction::FlowTo)),
};

/// A `move.*` function taking a target and returning an action built from it: the mlua
/// function reads any target and caches the action it makes for a target agent; its raw twin
/// (`raw::target`) hands that action out again.
fn target_fn(lua: &Lua, name: &'static str, make: MakeAction) -> mlua::Result<mlua::Function> {
    target_fn_with(lua, name, make, None)
}

/// An options table after the target, read by `with_opts` into the action instead of `make`.
type WithOpts = fn(&Lua, Target, &Table) -> mlua::Result<Action>;

/// [`target_fn`] whose second argument, when it is a table, is read by `with_opts` (the raw
/// twin hands such calls to the full function).
fn target_fn_with(
    lua: &Lua,
    name: &'static str,
    make: MakeAction,
    with_opts: Option<WithOpts>,
) -> mlua::Result<mlua::Function> {
    let context = raw::get(lua)?;
    let actions = lua.create_table()?;
    let cache = context.new_cache(make);
    let kept = actions.clone();
    let kept_context = Rc::clone(&context);
    let full = lua.create_function(move |lua, (target, opts): (Value, Value)| {
        with_world(lua, name, |w| {
            if let (Some(read), Value::Table(opts)) = (with_opts, &opts) {
                let target = to_target(lua, w, &target, Arg::new(name, 1))?;
                return make_action(lua, read(lua, target, opts)?);
            }
            let context = &kept_context;
            match context.view_index(&target) {
                // A view of this round stands for its agent whatever its fields say now.
                Some(j) => {
                    let Some(target) = raw::target_of(w, j) else {
                        return make_action(
                            lua,
                            make.make(to_target(lua, w, &target, Arg::new(name, 1))?),
                        );
                    };
                    let ud = make_action(lua, make.make(target))?;
                    raw::remember(context, &kept, cache, j)?;
                    Ok(ud)
                }
                None => make_action(
                    lua,
                    make.make(to_target(lua, w, &target, Arg::new(name, 1))?),
                ),
            }
        })
    })?;
    raw::target(lua, &context, full, cache, actions)
}

pub const TO: Binding = Binding {
    name: "move.to",
    params: &[p("point", "agentbox.PosLike", "Where to go.")],
    returns: &[("agentbox.Action", "The move.")],
    doc: "Go straight to a point and stop on it (no planning).",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(to)),
};

fn to(lua: &Lua, point: Value) -> mlua::Result<NewAction> {
    let point = to_point(lua, &point, Arg::new(TO.name, 1))?;
    Ok(NewAction(Action::To(point)))
}

pub const PATH_TO: Binding = Binding {
    name: "move.path_to",
    params: &[
        p("goal", "agentbox.PosLike", "The goal (rounded to its tile)."),
        p("opts?", "agentbox.PathOptions", "Search options; the agent's scene `size` is used when opts.size is smaller."),
    ],
    returns: &[("agentbox.Action", "The route following.")],
    doc: "Follow an A* route to a tile; re-planned natively when the goal, the options or the map change. With no route the agent stands still and the reason (`blocked`, `unreachable`, `off_map`) shows as `no_path` in the trace and in the window's inspector.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(path_to)),
};

fn path_to(lua: &Lua, (goal, opts): (Value, Option<Table>)) -> mlua::Result<NewAction> {
    let goal = to_tile(lua, &goal, Arg::new(PATH_TO.name, 1))?;
    let opts = path_options(lua, opts, PATH_TO.name, true)?;
    Ok(NewAction(Action::PathTo(goal, Box::new(opts))))
}

pub const WAYPOINTS: Binding = Binding {
    name: "move.waypoints",
    params: &[p("goal", "agentbox.PosLike", "The goal tile.")],
    returns: &[("agentbox.Action", "The waypoint travel.")],
    doc: "Travel the waypoint route to the goal (see `nav.waypoint_route`), each leg along its Bresenham line.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(waypoints)),
};

fn waypoints(lua: &Lua, goal: Value) -> mlua::Result<NewAction> {
    let goal = to_tile(lua, &goal, Arg::new(WAYPOINTS.name, 1))?;
    Ok(NewAction(Action::Waypoints(goal)))
}

pub const TANK_TO: Binding = Binding {
    name: "move.tank_to",
    params: &[p("goal", "agentbox.PosLike", "The goal tile.")],
    returns: &[("agentbox.Action", "The tank drive.")],
    doc: "The tank-battle A*: plan for the agent's `size` body with 4 directions, cost 1 a step and a Manhattan estimate, and drive turn-and-drive legs; with no route it stays put.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(tank_to)),
};

fn tank_to(lua: &Lua, goal: Value) -> mlua::Result<NewAction> {
    let goal = to_tile(lua, &goal, Arg::new(TANK_TO.name, 1))?;
    Ok(NewAction(Action::TankTo(goal)))
}

pub const BASIC_CHASE: Binding = Binding {
    name: "move.basic_chase",
    params: &[p("target", "agentbox.Target", "Who or where to run at.")],
    returns: &[("agentbox.Action", "The basic chase.")],
    doc: "Basic chase on tiles: each step, move each axis one tile towards the target (a bent trail: diagonal first, then straight).",
    charge: Charge::None,
    make: Make::Function(|lua| target_fn(lua, BASIC_CHASE.name, MakeAction::BasicChase)),
};

pub const BASIC_EVADE: Binding = Binding {
    name: "move.basic_evade",
    params: &[p("target", "agentbox.Target", "Who or where to run from.")],
    returns: &[("agentbox.Action", "The basic evasion.")],
    doc: "Basic evade on tiles: each step, move each axis one tile away from the threat (an axis both stand level on does not move).",
    charge: Charge::None,
    make: Make::Function(|lua| target_fn(lua, BASIC_EVADE.name, MakeAction::BasicEvade)),
};

pub const LOS_CHASE: Binding = Binding {
    name: "move.los_chase",
    params: &[p("target", "agentbox.Target", "Who or where to run at.")],
    returns: &[("agentbox.Action", "The line-of-sight chase.")],
    doc: "Line-of-sight chase on tiles: walk a Bresenham line to the target, rebuilt whenever the target moves to another tile.",
    charge: Charge::None,
    make: Make::Function(|lua| target_fn(lua, LOS_CHASE.name, MakeAction::LosChase)),
};

pub const INTERCEPT: Binding = Binding {
    name: "move.intercept",
    params: &[p("target", "agentbox.Target", "The prey.")],
    returns: &[("agentbox.Action", "The interception.")],
    doc: "Intercept: aim at where the prey will be (its velocity times the closing time), so a slower predator can cut off a faster prey.",
    charge: Charge::None,
    make: Make::Function(|lua| target_fn(lua, INTERCEPT.name, MakeAction::Intercept)),
};

pub const WANDER_AVOID: Binding = Binding {
    name: "move.wander_avoid",
    params: &[p("target", "agentbox.Target", "Where to head.")],
    returns: &[("agentbox.Action", "The random-movement avoidance.")],
    doc: "Random-movement obstacle avoidance: straight at the target while it is in sight, otherwise a seeded random heading held for half a second.",
    charge: Charge::None,
    make: Make::Function(|lua| target_fn(lua, WANDER_AVOID.name, MakeAction::WanderAvoid)),
};

pub const POTENTIAL: Binding = Binding {
    name: "move.potential",
    params: &[p("opts", "{target: agentbox.Target, A?: number, B?: number, n?: number, m?: number, obstacle?: number, range?: number}", "The target, Lennard-Jones parameters (attraction A, repulsion B, exponents n and m), obstacle repulsion and range in tiles.")],
    returns: &[("agentbox.Action", "The potential-function movement.")],
    doc: "Potential-function movement: the Lennard-Jones force U(r) = -A/r^n + B/r^m towards a target, pushed off obstacles.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(potential)),
};

fn potential(lua: &Lua, opts: Table) -> mlua::Result<NewAction> {
    let what = POTENTIAL.name;
    with_world(lua, what, |w| {
        let target = optional_target(lua, w, &opts, what)?;
        if target.is_none() {
            return Err(located(lua, "move.potential: needs a target, e.g. move.potential{target = prey}; use move.swarm for a swarm"));
        }
        let lj = lennard_jones(lua, &opts, "", CHASE_LJ, what)?;
        let (obstacle, range) = obstacle_and_range(lua, &opts, what, 3.0)?;
        Ok(NewAction(Action::Potential(Box::new(PotentialSpec {
            target,
            lj,
            swarm: None,
            swarm_lj: SWARM_LJ,
            obstacle,
            range,
        }))))
    })
}

pub const SWARM: Binding = Binding {
    name: "move.swarm",
    params: &[p("opts", "{kind: string, A?: number, B?: number, n?: number, m?: number, target?: agentbox.Target, target_A?: number, target_B?: number, target_n?: number, target_m?: number, obstacle?: number, range?: number}", "The swarm's kind, Lennard-Jones parameters between mates, an optional target with its own parameters (target_*), obstacle repulsion and range in tiles.")],
    returns: &[("agentbox.Action", "The swarming.")],
    doc: "Swarm with the agents of a kind: Lennard-Jones attraction and repulsion between mates (and towards an optional target).",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(swarm)),
};

fn swarm(lua: &Lua, opts: Table) -> mlua::Result<NewAction> {
    let what = SWARM.name;
    with_world(lua, what, |w| {
        let kind: String = match opts.get::<Value>("kind")? {
            Value::String(s) => crate::bounded::name(&s)
                .map_err(|why| located(lua, format!("move.swarm: kind {why}")))?,
            _ => return Err(located(lua, "move.swarm: needs the kind of the swarm's members, e.g. move.swarm{kind = \"bird\"}")),
        };
        let swarm_lj = lennard_jones(lua, &opts, "", SWARM_LJ, what)?;
        let target = optional_target(lua, w, &opts, what)?;
        let target_lj = lennard_jones(
            lua,
            &opts,
            "target_",
            LennardJones {
                a: 20.0,
                b: 0.0,
                n: 1.0,
                m: 2.0,
            },
            what,
        )?;
        let (obstacle, range) = obstacle_and_range(lua, &opts, what, 8.0)?;
        Ok(NewAction(Action::Potential(Box::new(PotentialSpec {
            target,
            lj: target_lj,
            swarm: Some(kind),
            swarm_lj,
            obstacle,
            range,
        }))))
    })
}

pub const TRACE_AROUND: Binding = Binding {
    name: "move.trace_around",
    params: &[
        p("goal", "agentbox.Target", "Where to go."),
        p("opts?", "{variant?: \"basic\"|\"improved\"|\"sight\", hand?: \"left\"|\"right\"}", "The tracing variant (default improved) and the hand kept on the wall (default left)."),
    ],
    returns: &[("agentbox.Action", "The obstacle tracing.")],
    doc: "Tracing around obstacles on tiles: head for the goal, follow an obstacle's edge when blocked, leave it by the variant's rule.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(trace_around)),
};

fn trace_around(lua: &Lua, (goal, opts): (Value, Option<Table>)) -> mlua::Result<NewAction> {
    let what = TRACE_AROUND.name;
    with_world(lua, what, |w| {
        let goal = to_target(lua, w, &goal, Arg::new(what, 1))?;
        let variant = opts
            .as_ref()
            .map(|o| o.get::<Value>("variant"))
            .transpose()?
            .unwrap_or(Value::Nil);
        let variant = match crate::bounded::choice(&variant, &["improved", "basic", "sight"]) {
            Ok(None | Some(0)) => TraceVariant::Improved,
            Ok(Some(1)) => TraceVariant::Basic,
            Ok(Some(_)) => TraceVariant::Sight,
            Err(got) => {
                return Err(located(
                    lua,
                    format!("{what}: variant must be basic, improved or sight, got {got}"),
                ))
            }
        };
        let hand = hand_option(lua, opts.as_ref(), what)?;
        Ok(NewAction(Action::TraceAround {
            goal,
            variant,
            hand,
        }))
    })
}

pub const FOLLOW_CRUMBS: Binding = Binding {
    name: "move.follow_crumbs",
    params: &[
        p("leader", "string|agentbox.AgentView", "The agent whose breadcrumbs to follow."),
        p("opts?", "{trail?: integer}", "How many of its newest crumbs to look at (default 15, as in the book)."),
    ],
    returns: &[("agentbox.Action", "The breadcrumb following.")],
    doc: "Breadcrumb pathfinding: step onto the newest crumb of the leader's trail found around the follower.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(follow_crumbs)),
};

fn follow_crumbs(lua: &Lua, (leader, opts): (Value, Option<Table>)) -> mlua::Result<NewAction> {
    let what = FOLLOW_CRUMBS.name;
    with_world(lua, what, |w| {
        let Target::Agent(leader) = to_target(lua, w, &leader, Arg::new(what, 1))? else {
            return Err(located(
                lua,
                "move.follow_crumbs: give the agent (or its id) whose crumbs to follow",
            ));
        };
        let trail = number(
            lua,
            opts.as_ref(),
            "trail",
            agentbox_core::movement::crumbs::BOOK_TRAIL_LENGTH as f64,
            what,
            |x| (1.0..=100_000.0).contains(&x) && x.fract() == 0.0,
            "a whole number from 1 to 100000",
        )? as usize;
        Ok(NewAction(Action::FollowCrumbs {
            leader: leader.into(),
            trail,
        }))
    })
}

pub const FOLLOW_ROAD: Binding = Binding {
    name: "move.follow_road",
    params: &[p("opts?", "{terrain?: string}", "The terrain that counts as road (default \"road\").")],
    returns: &[("agentbox.Action", "The road following.")],
    doc: "Path following on roads: weigh the 8 neighbours (road, and the current direction) and step to the best.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(follow_road)),
};

fn follow_road(lua: &Lua, opts: Option<Table>) -> mlua::Result<NewAction> {
    let what = FOLLOW_ROAD.name;
    with_world(lua, what, |w| {
        let terrain = opts
            .as_ref()
            .map(|o| o.get::<Value>("terrain"))
            .transpose()?
            .unwrap_or(Value::Nil);
        let terrain = match &terrain {
            Value::Nil => "road".to_string(),
            Value::String(s) => match crate::bounded::within(s, crate::bounded::NAME_BYTES) {
                Ok(name) if w.terrain().by_name(&name).is_some() => name,
                _ => String::new(),
            },
            _ => String::new(),
        };
        if terrain.is_empty() || w.terrain().by_name(&terrain).is_none() {
            let got = match opts
                .as_ref()
                .map(|o| o.get::<Value>("terrain"))
                .transpose()?
            {
                Some(v @ Value::String(_)) => crate::bounded::describe(&v),
                Some(Value::Nil) | None => "\"road\"".to_string(),
                Some(other) => crate::bounded::describe(&other),
            };
            return Err(located(
                lua,
                format!("{what}: no terrain named {got} in this scene"),
            ));
        }
        Ok(NewAction(Action::FollowRoad { terrain }))
    })
}

pub const WALL_TRACE: Binding = Binding {
    name: "move.wall_trace",
    params: &[p("opts?", "{hand?: \"left\"|\"right\"}", "The hand kept on the wall (default left).")],
    returns: &[("agentbox.Action", "The wall tracing.")],
    doc: "Wall tracing on tiles: relative to its facing, try turning to the hand's side, straight ahead, the other side, then back.",
    charge: Charge::None,
    make: Make::Function(|lua| lua.create_function(wall_trace)),
};

fn wall_trace(lua: &Lua, opts: Option<Table>) -> mlua::Result<NewAction> {
    let hand = hand_option(lua, opts.as_ref(), WALL_TRACE.name)?;
    Ok(NewAction(Action::WallTrace(hand)))
}
