//! Past ticks shown without Lua: what the window shows of a tick (the `World`, the errors the
//! HUD lists, each agent's `self.memory` text and held bytes for the inspector) kept so that
//! any tick of the recent history can be shown again in a millisecond or two, backwards as
//! fast as forwards.
//!
//! Kept, in the live run's order ([`Frames`]):
//! - a *segment* start: a copy of the world every [`FRAME_EVERY`] ticks, after every tick
//!   whose scripts asked for effects (they are on the copy, `World::pending`, and not in the
//!   kept decisions), and whenever an input was applied (taken just before the next tick, so
//!   it includes the input), with the keyboard direction and the HUD's errors then;
//! - every tick's decisions, as the script host returned them, minus those the simulation would
//!   only compare (an action equal to the agent's current one, with no error to clear);
//! - each agent's memory (its text, its held bytes and its JSON, for `world:memory(id)` at a
//!   past tick), when its text or held bytes changed.
//!
//! A tick T is shown by copying the segment start at or below T and stepping a plain
//! [`Simulation`] with the kept decisions (no Lua; at most [`FRAME_EVERY`] steps of movement).
//! Lua state is not part of a frame: branching or playing from T still needs a replay
//! (`history::Parked`). What is kept is bounded by [`FRAMES_MAX_BYTES`] (an estimate of the
//! heap it holds): past the cap the oldest segments go, and those ticks are shown by a replay
//! again. `tests/history.rs` checks that every tick shown so equals a replay's world.
//!
//! This file names no engine crate and draws nothing.

use agentbox_core::sim::{Decider, Decision, Simulation};
use agentbox_core::world::World;
use agentbox_lua::MemoryKeys;
use glam::IVec2;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;

/// A segment starts at least every this many ticks, so a tick is at most this many plain
/// steps away from a kept world.
pub const FRAME_EVERY: u64 = 64;

/// The most heap the frames may hold (estimated), 200 MB: 10 minutes of `scenes/crowd100.yaml`
/// (whose walkers switch between chasing and evading almost every tick, so nearly every
/// decision is kept) take about 140 MB by this estimate (docs/benchmarks.md); a run that
/// passes the cap keeps its most recent ticks.
pub const FRAMES_MAX_BYTES: usize = 200 << 20;

/// What the window shows of a tick: the world, the HUD's errors, the inspector's memory.
pub trait TickView {
    fn world(&self) -> &World;
    /// An agent's `self.memory`, pretty-printed (as [`crate::session::Session::memory_text`]).
    fn memory_text(&self, agent_id: &str) -> Option<String>;
    /// Bytes of Lua memory an agent holds (as [`crate::session::Session::memory_held`]).
    fn memory_held(&self, agent_id: &str) -> Option<usize>;
    /// The scene's and the scripts' load errors.
    fn current_errors(&self) -> Vec<String>;
    /// Every scripted agent's `self.memory` as JSON by id, what `world:memory(id)` reads.
    fn memories_json(&self) -> BTreeMap<String, serde_json::Value>;
}

impl TickView for crate::session::Session {
    fn world(&self) -> &World {
        crate::session::Session::world(self)
    }
    fn memory_text(&self, agent_id: &str) -> Option<String> {
        crate::session::Session::memory_text(self, agent_id)
    }
    fn memory_held(&self, agent_id: &str) -> Option<usize> {
        crate::session::Session::memory_held(self, agent_id)
    }
    fn current_errors(&self) -> Vec<String> {
        crate::session::Session::current_errors(self)
    }
    fn memories_json(&self) -> BTreeMap<String, serde_json::Value> {
        crate::session::Session::memories_json(self)
    }
}

/// One past tick, rebuilt from the frames.
pub struct Frame {
    pub tick: u64,
    world: World,
    errors: Vec<String>,
    memory: BTreeMap<String, Memory>,
}

impl TickView for Frame {
    fn world(&self) -> &World {
        &self.world
    }
    fn memory_text(&self, agent_id: &str) -> Option<String> {
        self.memory
            .get(agent_id)?
            .text
            .as_deref()
            .map(str::to_string)
    }
    fn memory_held(&self, agent_id: &str) -> Option<usize> {
        self.memory.get(agent_id)?.held
    }
    fn current_errors(&self) -> Vec<String> {
        self.errors.clone()
    }
    fn memories_json(&self) -> BTreeMap<String, serde_json::Value> {
        self.memory
            .iter()
            .filter_map(|(id, m)| Some((id.clone(), (**m.json.as_ref()?).clone())))
            .collect()
    }
}

struct Segment {
    /// Ticks done when the world was copied.
    at: u64,
    /// Whether inputs applied at `at` are in `world` (then it stands for the ticks after
    /// `at` only; tick `at` itself is shown from the segment before).
    after_inputs: bool,
    world: World,
    keyboard: IVec2,
    errors: Vec<String>,
}

/// One agent's memory as kept: for the inspector (text, held bytes) and for `world:memory`
/// (JSON); all `None` for an agent the host does not run.
#[derive(Clone, Default)]
pub struct Memory {
    pub text: Option<Rc<str>>,
    pub held: Option<usize>,
    pub json: Option<Rc<serde_json::Value>>,
}

impl Memory {
    /// The heap it holds, estimated.
    fn bytes(&self) -> usize {
        48 + self.text.as_deref().map_or(0, str::len) * 2
    }
}

/// The memory of one agent, from a tick on.
type MemoryLog = Vec<(u64, Memory)>;

/// One agent's kept memories, and the key (`agentbox_lua::MemoryKeys`) of the memory its last
/// entry was made from: while the key stays the same nothing is formatted again.
#[derive(Default)]
struct AgentMemory {
    log: MemoryLog,
    /// Empty when unknown (no entry yet, the last entry made without a key, or cut away).
    key: Vec<u8>,
}

/// The kept frames of the live branch.
#[derive(Default)]
pub struct Frames {
    segments: VecDeque<Segment>,
    /// Decisions of tick `first_decision + i` at index `i`.
    decisions: VecDeque<Vec<(usize, Decision)>>,
    first_decision: u64,
    memory: BTreeMap<String, AgentMemory>,
    /// This tick's memory keys, filled by [`Frames::after_tick`]'s caller (kept to reuse).
    keys: MemoryKeys,
    /// Set by an input: the next tick starts a segment first.
    input_pending: bool,
    bytes: usize,
}

fn world_bytes(world: &World) -> usize {
    let cells = (world.grid().width() * world.grid().height()).max(0) as usize;
    std::mem::size_of::<World>()
        + cells * 16
        + world.agents.len() * (std::mem::size_of::<agentbox_core::world::Agent>() + 1024)
}

/// A kept decision (a target's id is shared with the world's, not copied).
const DECISION_BYTES: usize = std::mem::size_of::<(usize, Decision)>();

impl Frames {
    /// The estimated heap the frames hold.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// How many world copies, kept decisions and memory entries the frames hold.
    pub fn counts(&self) -> (usize, usize, usize) {
        (
            self.segments.len(),
            self.decisions.iter().map(Vec::len).sum(),
            self.memory.values().map(|m| m.log.len()).sum(),
        )
    }

    /// The first tick that can be shown from the frames.
    pub fn first_tick(&self) -> Option<u64> {
        self.segments.front().map(|s| s.at + s.after_inputs as u64)
    }

    /// An input was applied: the next tick starts a segment (with it) first.
    pub fn input(&mut self) {
        self.input_pending = true;
    }

    /// Called before a live tick `at + 1`, with the world after `at` ticks and its inputs.
    pub fn before_tick(&mut self, at: u64, world: &World, keyboard: IVec2, errors: Vec<String>) {
        if self.input_pending || self.segments.is_empty() {
            self.input_pending = false;
            self.push(Segment {
                at,
                after_inputs: true,
                world: world.clone(),
                keyboard,
                errors,
            });
        }
    }

    /// The decisions of the tick being run, as the host made them for `world` (before they
    /// are applied): those that only compare equal are not kept.
    pub fn decided(&mut self, tick: u64, world: &World, decisions: &[(usize, Decision)]) {
        if self.decisions.is_empty() {
            self.first_decision = tick;
        }
        let ascending = decisions.windows(2).all(|w| w[0].0 < w[1].0);
        let kept: Vec<(usize, Decision)> = decisions
            .iter()
            .filter(|(i, d)| {
                !ascending
                    || match (d, world.agents.get(*i)) {
                        (Decision::Act(a), Some(agent)) => {
                            agent.action != *a || agent.error.is_some()
                        }
                        _ => true,
                    }
            })
            .cloned()
            .collect();
        let mut kept = kept;
        kept.shrink_to_fit();
        self.bytes += kept.len() * DECISION_BYTES + 24;
        self.decisions.push_back(kept);
    }

    /// Called after live tick `at`: keeps the memory that changed and, every
    /// [`FRAME_EVERY`] ticks, the world. `keys` writes every agent's memory key (in
    /// `world.agents`' order); an agent whose key is the one its last entry was made from is
    /// not formatted again (`memory` and `json` are not called for it).
    #[allow(clippy::too_many_arguments)]
    pub fn after_tick(
        &mut self,
        at: u64,
        world: &World,
        keyboard: IVec2,
        errors: impl FnOnce() -> Vec<String>,
        keys: impl FnOnce(&mut MemoryKeys),
        held: impl Fn(&str) -> Option<usize>,
        memory: impl Fn(&str) -> Option<String>,
        json: impl Fn(&str) -> Option<serde_json::Value>,
    ) {
        keys(&mut self.keys);
        for (i, agent) in world.agents.iter().enumerate() {
            let kept = match self.memory.get_mut(agent.id.as_str()) {
                Some(kept) => kept,
                None => self.memory.entry(agent.id.clone()).or_default(),
            };
            let key = self.keys.get(i);
            let held = held(&agent.id);
            if let (Some(key), Some((_, last))) = (key, kept.log.last()) {
                if !kept.key.is_empty() && kept.key == key {
                    // The memory is the last entry's: only the bytes held can differ.
                    if last.held != held {
                        let m = Memory {
                            held,
                            ..last.clone()
                        };
                        self.bytes += m.bytes();
                        kept.log.push((at, m));
                    }
                    continue;
                }
            }
            let text = memory(&agent.id);
            let same = kept
                .log
                .last()
                .is_some_and(|(_, m)| m.text.as_deref() == text.as_deref() && m.held == held);
            if !same {
                let m = Memory {
                    text: text.map(Rc::from),
                    held,
                    json: json(&agent.id).map(Rc::new),
                };
                self.bytes += m.bytes();
                kept.log.push((at, m));
            }
            // The last entry now stands for this very memory (made from it, or found equal to
            // it), so its key does: a memory rebuilt each tick with the same contents is
            // formatted once more, not on every tick after.
            kept.key.clear();
            kept.key.extend_from_slice(key.unwrap_or_default());
        }
        // A tick whose scripts asked for effects (messages, spawns...) starts a segment: the
        // kept decisions do not hold them, so the ticks after are stepped from this world,
        // which does (`World::pending`).
        if at.is_multiple_of(FRAME_EVERY) || !world.pending.is_empty() {
            self.push(Segment {
                at,
                after_inputs: false,
                world: world.clone(),
                keyboard,
                errors: errors(),
            });
        }
        while self.bytes > FRAMES_MAX_BYTES && self.segments.len() > 2 {
            self.drop_oldest();
        }
    }

    fn push(&mut self, s: Segment) {
        self.bytes += world_bytes(&s.world) + s.errors.iter().map(String::len).sum::<usize>();
        self.segments.push_back(s);
    }

    /// Forgets the oldest segment and the decisions and memory only it needed.
    fn drop_oldest(&mut self) {
        let Some(old) = self.segments.pop_front() else {
            return;
        };
        self.bytes = self.bytes.saturating_sub(world_bytes(&old.world));
        let from = self.segments.front().map_or(u64::MAX, |s| s.at);
        while self.first_decision < from {
            let Some(d) = self.decisions.pop_front() else {
                break;
            };
            self.bytes = self.bytes.saturating_sub(d.len() * DECISION_BYTES + 24);
            self.first_decision += 1;
        }
        for kept in self.memory.values_mut() {
            // Keep the last entry at or before `from`: it is the memory then.
            let log = &mut kept.log;
            let keep_from = log.partition_point(|(t, _)| *t <= from).saturating_sub(1);
            for (_, m) in log.drain(..keep_from) {
                self.bytes = self.bytes.saturating_sub(m.bytes());
            }
        }
    }

    /// Forgets everything after tick `to` (a branch there).
    pub fn cut(&mut self, to: u64) {
        while self
            .segments
            .back()
            .is_some_and(|s| s.at > to || (s.at == to && s.after_inputs))
        {
            if let Some(s) = self.segments.pop_back() {
                self.bytes = self.bytes.saturating_sub(world_bytes(&s.world));
            }
        }
        let keep = to.saturating_sub(self.first_decision) as usize;
        while self.decisions.len() > keep {
            self.decisions.pop_back();
        }
        for kept in self.memory.values_mut() {
            kept.log.retain(|(t, _)| *t <= to);
            // The last entry may be gone: its key is no longer known.
            kept.key.clear();
        }
        self.input_pending = false;
    }

    /// Tick `to` as the live run showed it after `to` ticks (before the inputs applied
    /// then), if the frames reach it.
    pub fn frame(&self, to: u64) -> Option<Frame> {
        let i = self
            .segments
            .iter()
            .rposition(|s| s.at < to || (s.at == to && !s.after_inputs))?;
        let start = &self.segments[i];
        let mut sim = Simulation::new(start.world.clone());
        sim.set_keyboard(start.keyboard);
        for t in start.at..to {
            let d = self
                .decisions
                .get(t.checked_sub(self.first_decision)? as usize)?;
            sim.step(&mut Kept(d));
        }
        let world = sim.world().clone();
        let memory = world
            .agents
            .iter()
            .map(|a| (a.id.clone(), self.memory_at(&a.id, to)))
            .collect();
        Some(Frame {
            tick: to,
            world,
            errors: start.errors.clone(),
            memory,
        })
    }
}

impl Frames {
    /// Shows `visit` every tick from `from` to `to` (both included, as [`Frames::frame`] would
    /// show each), in order, stepping one plain simulation along (no Lua, no copy per tick)
    /// until `visit` breaks. False if the frames do not reach `from` (nothing visited).
    pub fn walk(
        &self,
        from: u64,
        to: u64,
        mut visit: impl FnMut(u64, &Rc<World>) -> std::ops::ControlFlow<()>,
    ) -> bool {
        let Some(i) = self
            .segments
            .iter()
            .rposition(|s| s.at < from || (s.at == from && !s.after_inputs))
        else {
            return false;
        };
        let start = &self.segments[i];
        let mut sim = Simulation::new(start.world.clone());
        sim.set_keyboard(start.keyboard);
        let mut next = i + 1;
        let mut t = start.at;
        loop {
            if t >= from && visit(t, sim.world_rc()).is_break() {
                return true;
            }
            if t >= to {
                return true;
            }
            // Inputs applied after tick `t` start a segment that holds them.
            while let Some(s) = self.segments.get(next).filter(|s| s.at <= t) {
                if s.at == t && s.after_inputs {
                    sim = Simulation::new(s.world.clone());
                    sim.set_keyboard(s.keyboard);
                }
                next += 1;
            }
            let Some(d) = t
                .checked_sub(self.first_decision)
                .and_then(|k| self.decisions.get(k as usize))
            else {
                return true;
            };
            sim.step(&mut Kept(d));
            t += 1;
        }
    }

    /// Agent `id`'s memory as kept after tick `to` (all `None` if none was kept).
    pub fn memory_at(&self, id: &str, to: u64) -> Memory {
        self.memory
            .get(id)
            .map(|kept| &kept.log)
            .and_then(|log| {
                let n = log.partition_point(|(t, _)| *t <= to);
                n.checked_sub(1).map(|k| log[k].1.clone())
            })
            .unwrap_or_default()
    }

    /// Every agent's memory JSON after tick `to`, by id (what `world:memory(id)` reads then).
    pub fn memories_json_at(&self, to: u64) -> BTreeMap<String, serde_json::Value> {
        self.memory
            .keys()
            .filter_map(|id| {
                let json = self.memory_at(id, to).json?;
                Some((id.clone(), (*json).clone()))
            })
            .collect()
    }

    /// The ticks the frames can show: from [`Frames::first_tick`] to the last decided tick.
    pub fn ticks(&self) -> Option<(u64, u64)> {
        let first = self.first_tick()?;
        Some((first, self.first_decision + self.decisions.len() as u64))
    }
}

/// Hands a tick's kept decisions to the simulation.
struct Kept<'a>(&'a [(usize, Decision)]);

impl Decider for Kept<'_> {
    fn decide(&mut self, _world: &Rc<World>) -> Vec<(usize, Decision)> {
        self.0.to_vec()
    }
}
