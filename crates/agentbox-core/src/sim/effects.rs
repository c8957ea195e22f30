//! The between-ticks effects queue: what scripts asked for while deciding a tick (messages,
//! noises, spawns, removals, tile changes) is collected after the decisions
//! ([`collect`]: the events for that tick's line, the 64-a-tick inbox cap, the effects of
//! failed decisions dropped) and kept on the world (`World::pending`), then applied before the
//! next tick's decisions ([`apply`]), in agent order and then call order. So nothing a script
//! does reaches another agent during the tick it is decided in, and the same scene and seed
//! give the same bytes whatever order the decisions were evaluated in.
//!
//! It changes the world only through the same calls as the designer's edits
//! (`World::set_terrain` for tiles); it reads no clock and names no scripting engine.

use super::events::Event;
use crate::world::{centre_of, effects::MAX_INBOX, Deliveries, Effect, Heard, Letter, Tile, World};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Takes the effects of a tick's decisions (`(deciding agent index, effect)` in call order,
/// leaving the list empty) and keeps them on `world` to be applied before the next tick:
/// ordered by agent, then by
/// call; those of agents whose decision failed (`failed`) dropped, as their actions are;
/// messages past the 64 an agent may receive in a tick dropped. Their events (one `message`
/// per delivery, `noise`, `spawn`, `remove`, `tile`, then `messages_dropped`) go to `events`.
pub fn collect(
    world: &mut World,
    effects: &mut Vec<(usize, Effect)>,
    failed: &BTreeSet<usize>,
    events: &mut Vec<Event>,
) {
    // Stable: call order within an agent. Usually in agent order already: then the sort's
    // scratch buffer, a large allocation that made glibc consolidate every small block the
    // scripts' collector had just freed, is not made.
    if !effects.is_sorted_by_key(|(i, _)| *i) {
        effects.sort_by_key(|(i, _)| *i);
    }
    world.pending.reserve(effects.len());
    // Room for every event at once: a talking crowd's tick has one per receiver (about 11,600
    // for 20,000 walkers), and growing the list by doubling made a dozen large allocations a
    // tick, each copying the list and making glibc consolidate the blocks the scripts'
    // collector had just freed.
    events.reserve(
        effects
            .iter()
            .map(|(_, e)| match e {
                Effect::Message { to, .. } => to.len(),
                _ => 1,
            })
            .sum(),
    );
    // Messages received this tick, by receiver index (receivers are agents of this world):
    // the world's list, all zero, sized for this world at the first message.
    let mut received = std::mem::take(&mut world.inbox_counts.0);
    let mut counted = false;
    // Receivers in the order of their first dropped message, with its sender and the count.
    let mut dropped: Vec<(String, String, usize)> = Vec::new();
    for (index, mut effect) in effects.drain(..) {
        if failed.contains(&index) {
            continue;
        }
        match &mut effect {
            Effect::Message { from, to, .. } => {
                if !counted {
                    received.resize(world.agents.len(), 0);
                    counted = true;
                }
                to.retain(|receiver| {
                    let Some(n) = received.get_mut(receiver.index()) else {
                        return true; // not an agent of this world: dropped when delivered
                    };
                    *n += 1;
                    if *n as usize <= MAX_INBOX {
                        return true;
                    }
                    match dropped.iter_mut().find(|(r, _, _)| r == receiver.id()) {
                        Some((_, _, count)) => *count += 1,
                        None => dropped.push((receiver.id().to_string(), from.to_string(), 1)),
                    }
                    false
                });
                events.extend(to.iter().map(|receiver| Event::Message {
                    from: Arc::clone(from),
                    to: receiver.clone(),
                }));
            }
            Effect::Noise { from, loudness, .. } => events.push(Event::Noise {
                from: from.clone(),
                loudness: *loudness,
            }),
            Effect::Spawn { by, id, .. } => events.push(Event::Spawn {
                agent: id.clone(),
                by: by.clone(),
            }),
            Effect::Remove { agent } => events.push(Event::Remove {
                agent: agent.clone(),
            }),
            Effect::Tile { by, at, terrain } => events.push(Event::Tile {
                by: by.clone(),
                at: [at.x, at.y],
                terrain: world.terrain().get(*terrain).name.clone(),
            }),
        }
        world.pending.push(effect);
    }
    // Back to zero for the next tick: a receiver past its 64 kept its first 64 in the lists,
    // so going over the kept receivers clears every count made.
    if counted {
        for effect in &world.pending {
            if let Effect::Message { to, .. } = effect {
                for receiver in to {
                    if let Some(n) = received.get_mut(receiver.index()) {
                        *n = 0;
                    }
                }
            }
        }
    }
    world.inbox_counts.0 = received;
    events.extend(
        dropped
            .into_iter()
            .map(|(agent, from, count)| Event::MessagesDropped { agent, from, count }),
    );
}

/// Whether applying `world`'s pending effects changes the agent list or where agents stand
/// (a spawn, a removal or a tile change), so the simulation must treat it as a change of the
/// agents from outside.
pub fn changes_agents(world: &World) -> bool {
    world
        .pending
        .iter()
        .any(|e| !matches!(e, Effect::Message { .. } | Effect::Noise { .. }))
}

/// Applies the pending effects, before the next tick's decisions: last tick's deliveries are
/// forgotten and the new ones given; tiles are set; agents leave; spawned agents are added
/// at the end of the list, in order; an agent whose tile a change blocked is moved to the
/// nearest free tile (a `pushed` event in `events`).
pub fn apply(world: &mut World, events: &mut Vec<Event>) {
    if std::mem::take(&mut world.delivered) {
        // Kept for this tick's receivers: a talking crowd spent as much freeing last tick's
        // deliveries and allocating new ones as delivering.
        let spare = &mut world.spare_deliveries;
        for agent in &mut world.agents {
            if let Some(d) = agent.deliveries.take() {
                spare.keep(d);
            }
        }
    }
    let mut pending = std::mem::take(&mut world.pending);
    if pending.is_empty() {
        world.pending = pending;
        return;
    }
    let tick = world.tick.saturating_sub(1);
    // Deliveries first, while the index still names every agent; which comes first of a
    // delivery and its receiver's removal shows nowhere.
    for effect in &pending {
        match effect {
            Effect::Message { from, to, msg } => {
                for receiver in to {
                    // The index the call saw, unless the agent list changed since.
                    if let Some(i) = world.resolve(receiver) {
                        deliveries(world, i).inbox.push(Letter {
                            from: Arc::clone(from),
                            tick,
                            msg: msg.clone(),
                        });
                    }
                }
            }
            Effect::Noise {
                from,
                pos,
                kind,
                hearers,
                ..
            } => {
                for (hearer, distance) in hearers {
                    if let Some(i) = world.agent_index(hearer) {
                        deliveries(world, i).heard.push(Heard {
                            from: from.clone(),
                            pos: *pos,
                            kind: kind.clone(),
                            distance: *distance,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    let mut tiles_changed = false;
    for effect in &pending {
        if let Effect::Tile { at, terrain, .. } = effect {
            tiles_changed |= world.set_terrain_by_script(*at, *terrain);
        }
    }
    let leaving: BTreeSet<&str> = pending
        .iter()
        .filter_map(|e| match e {
            Effect::Remove { agent } => Some(agent.as_str()),
            _ => None,
        })
        .collect();
    if !leaving.is_empty() {
        world.agents.retain(|a| !leaving.contains(a.id.as_str()));
    }
    let first_spawned = world.agents.len();
    // The list grows once for the tick's spawns, not by doubling on the way.
    let spawns = pending.iter().filter(|e| matches!(e, Effect::Spawn { .. }));
    world.agents.reserve(spawns.count());
    for effect in pending.drain(..) {
        if let Effect::Spawn {
            id,
            kind,
            at,
            params,
            ..
        } = effect
        {
            if let Some(agent) = spawned(world, id, kind, at, params) {
                world.agents.push(agent);
            }
        }
    }
    // Only a new agent can bring a new `KIND-N` number (a removed one's stays the highest).
    world.note_numbers_from(first_spawned);
    // The emptied queue keeps its room for the effects of the tick being decided.
    if world.pending.is_empty() {
        world.pending = pending;
    }
    let suspects = if tiles_changed { 0 } else { first_spawned };
    for i in suspects..world.agents.len() {
        let tile = world.agents[i].tile();
        if !world.is_blocked(tile) {
            continue;
        }
        if let Some(free) = nearest_free(world, tile) {
            let agent = &mut world.agents[i];
            agent.pos = centre_of(free);
            agent.stepping = None;
            agent.route = None;
            events.push(Event::Pushed {
                agent: agent.id.clone(),
                to: [free.x, free.y],
            });
        }
    }
}

/// Agent `i`'s deliveries for this tick, made on first use.
fn deliveries(world: &mut World, i: usize) -> &mut Deliveries {
    world.delivered = true;
    let (agents, spare) = (&mut world.agents, &mut world.spare_deliveries);
    agents[i].deliveries.get_or_insert_with(|| spare.take())
}

/// A new agent `id` made like the template of `kind`, standing on `at`, with `params` merged
/// over the template's; `None` if the scene no longer has that kind.
fn spawned(
    world: &World,
    id: String,
    kind: String,
    at: Tile,
    params: serde_json::Map<String, serde_json::Value>,
) -> Option<crate::world::Agent> {
    let template = world.templates.get(&kind)?;
    let mut agent = crate::world::Agent::spawned_from(template, id, kind, at, world.seed);
    if params.is_empty() {
        // Keeps sharing the template's map.
    } else if let serde_json::Value::Object(own) = std::sync::Arc::make_mut(&mut agent.params) {
        own.extend(params);
    } else {
        agent.params = crate::world::Params::new(serde_json::Value::Object(params));
    }
    Some(agent)
}

/// The free tile nearest to `tile` (by straight distance; ties in reading order), searched in
/// growing squares until no later square can hold a nearer one.
pub fn nearest_free(world: &World, tile: Tile) -> Option<Tile> {
    let (w, h) = (world.grid().width(), world.grid().height());
    let tile = tile.clamp(Tile::ZERO, Tile::new(w - 1, h - 1).max(Tile::ZERO));
    let mut best: Option<(i64, i32, i32)> = None;
    for ring in 0..w.max(h) {
        if best.is_some_and(|(d2, _, _)| (ring as i64).pow(2) > d2) {
            break;
        }
        for y in tile.y - ring..=tile.y + ring {
            // The square's edge only: whole rows at the top and bottom, two cells between.
            let edge_row = (y - tile.y).abs() == ring;
            let step = if edge_row {
                1
            } else {
                (2 * ring).max(1) as usize
            };
            for x in (tile.x - ring..=tile.x + ring).step_by(step) {
                let at = Tile::new(x, y);
                if world.is_blocked(at) {
                    continue;
                }
                let d = at - tile;
                let key = ((d.x as i64).pow(2) + (d.y as i64).pow(2), y, x);
                if best.is_none_or(|b| key < b) {
                    best = Some(key);
                }
            }
        }
    }
    best.map(|(_, y, x)| Tile::new(x, y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scripted_tile_is_not_the_designers_and_paint_makes_it_theirs() {
        let mut world = World::from_ascii(&["...", ".#.", "..."]);
        let floor = world.terrain().by_name("floor").unwrap();
        let wall = world.terrain().by_name("wall").unwrap();
        world.set_terrain_by_script(Tile::new(1, 1), floor);
        world.set_terrain_by_script(Tile::new(0, 0), wall);
        assert!(!world.is_blocked(Tile::new(1, 1)));
        let saved = world.designers_map();
        assert!(saved.is_blocked(Tile::new(1, 1)) && !saved.is_blocked(Tile::new(0, 0)));
        world.set_terrain(Tile::new(0, 0), wall);
        assert!(
            world.designers_map().is_blocked(Tile::new(0, 0)),
            "painted by the designer"
        );
    }

    /// A row of five tiles with agents "a", "b" and "c" on its first three.
    fn three_in_a_row() -> World {
        let mut world = World::from_ascii(&["....."]);
        world.agents = ["a", "b", "c"]
            .iter()
            .enumerate()
            .map(|(x, id)| crate::world::Agent::new(*id, Tile::new(x as i32, 0)))
            .collect();
        world
    }

    #[test]
    fn a_message_reaches_its_receiver_by_id_when_the_agent_list_changed_since_the_call() {
        use crate::world::AgentRef;
        let mut world = three_in_a_row();
        let message = |to: &[(usize, &str)]| Effect::Message {
            from: "a".into(),
            to: to.iter().map(|&(i, id)| AgentRef::new(id, i)).collect(),
            msg: Arc::new(serde_json::json!(1)),
        };
        let mut events = Vec::new();
        collect(
            &mut world,
            &mut vec![(0, message(&[(1, "b")])), (0, message(&[(2, "c")]))],
            &BTreeSet::new(),
            &mut events,
        );
        assert_eq!(events.len(), 2, "{events:?}");
        // An edit from outside between the ticks: "a" goes, so "b" is at 0 and "c" at 1.
        world.agents.remove(0);
        apply(&mut world, &mut events);
        let inbox = |i: usize| {
            let d = world.agents[i].deliveries.as_deref();
            d.map_or(0, |d| d.inbox.len())
        };
        assert_eq!((inbox(0), inbox(1)), (1, 1), "b and c each got theirs");
    }

    #[test]
    fn each_tick_counts_its_own_64_messages_an_agent() {
        use crate::world::AgentRef;
        let mut world = three_in_a_row();
        // Ticks with 70 messages to "b", then 64 to "b" and 1 to "c", then 70 to "b" again:
        // the counts of one tick must not carry into the next.
        for (to_b, to_c, dropped) in [(70, 0, Some(6)), (64, 1, None), (70, 0, Some(6))] {
            let mut effects: Vec<(usize, Effect)> = (0..to_b)
                .map(|_| (0, AgentRef::new("b", 1)))
                .chain((0..to_c).map(|_| (0, AgentRef::new("c", 2))))
                .map(|(i, to)| {
                    let msg = Arc::new(serde_json::json!(1));
                    let from = "a".into();
                    (
                        i,
                        Effect::Message {
                            from,
                            to: vec![to],
                            msg,
                        },
                    )
                })
                .collect();
            let mut events = Vec::new();
            collect(&mut world, &mut effects, &BTreeSet::new(), &mut events);
            let delivered = |id: &str| {
                let to = |e: &&Event| matches!(e, Event::Message { to, .. } if to.id() == id);
                events.iter().filter(to).count()
            };
            assert_eq!(delivered("b"), to_b.min(64), "{events:?}");
            assert_eq!(delivered("c"), to_c);
            let count = events.iter().find_map(|e| match e {
                Event::MessagesDropped { count, .. } => Some(*count),
                _ => None,
            });
            assert_eq!(count, dropped);
            apply(&mut world, &mut events);
        }
    }

    #[test]
    fn a_blocked_tile_pushes_to_the_nearest_free_one() {
        let world = World::from_ascii(&["###", "##.", "###"]);
        assert_eq!(nearest_free(&world, Tile::new(0, 1)), Some(Tile::new(2, 1)));
    }
}
