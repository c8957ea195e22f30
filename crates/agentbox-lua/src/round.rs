//! A round of decisions: the host's side of it. Every scripted agent's turn is planned once
//! ([`Turns`], reused while nothing it depends on changes); an agent whose slot, module,
//! `init`/`on_reload` or view is new is readied through mlua first
//! ([`ScriptHost::prepare_one`]), then every agent's `decide` is called by the raw loop
//! (`decide_loop.rs`), which hands each outcome back through [`FastRound`].
//!
//! It reads the world lent for the round and never changes it; the decisions go back to the
//! simulation.

use crate::agents::{clear_memory, Slots};
use crate::budget::{self, Budget, Stop};
use crate::calls::{display, in_script, stop_error};
use crate::decide_loop::{self, Batch, Outcome, Ready};
use crate::sandbox::Rngs;
use crate::views::{self, Views};
use crate::{errors, output, ScriptHost};
use agentbox_core::sim::Decision;
use agentbox_core::world::script_error::error_line;
use agentbox_core::world::{Agent, Brain, ErrorKind, Roster, ScriptError, World};
use mlua::{MultiValue, Table, Value};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::c_int;
use std::path::Path;
use std::rc::Rc;

impl ScriptHost {
    /// One round of decisions, with `world` lent to Lua.
    pub(crate) fn decide_round(&mut self, world: &World) -> Vec<(usize, Decision)> {
        self.raw.views.begin_round(world);
        self.agents.slots.begin_round(world.roster());
        self.agents.reserve(world.agents.len());
        // A failure here only means views are made one by one on first use.
        let _ = self.raw.views.prepare(&self.lua, world);
        // Likewise new agents' slots, in one raw call (else each is made by `prepare_one`).
        let _ = (self.agents).make_slots(&self.lua, &self.raw.views, &self.modules, world);
        self.plan_turns(world);
        // Sized for every agent up front: growing it by doubling copied megabytes per tick.
        let mut out = Vec::with_capacity(world.agents.len());
        let mut index = 0;
        while index < world.agents.len() {
            let agent = &world.agents[index];
            let Brain::Script(script) = &agent.brain else {
                index += 1;
                continue;
            };
            if agent.suspended {
                if !self.agents.victims.borrow().is_empty() {
                    if let Some(k) = self.agents.slots.find(index, &agent.id) {
                        self.agents.victims.borrow_mut().remove(&k);
                    }
                }
                index += 1;
                continue;
            }
            let budget = self.calls.budget();
            if let Some(failed) = self.agents.victim_failure(budget, index, agent, script) {
                out.push((index, leaving(failed)));
                index += 1;
                continue;
            }
            if !matches!(self.turns.list.get(index), Some(Turn::Raw(..))) {
                if let Err(failed) = self.prepare_one(world, index, script) {
                    out.push((index, leaving(failed)));
                    index += 1;
                    continue;
                }
                let views = Rc::clone(&self.raw.views);
                let generation = self.modules.generation();
                match ready(&mut self.agents.slots, &views, generation, world, index) {
                    Some((k, r)) if index < self.turns.list.len() => {
                        self.turns.list[index] = Turn::Raw(k as u32, r)
                    }
                    _ => {
                        out.push((index, internal(script, "agent state lost (this is a bug)")));
                        index += 1;
                        continue;
                    }
                }
            }
            let next = self.run_fast(world, index, &mut out);
            if next > index {
                index = next;
            } else {
                // The loop could not start (no room on the Lua stack).
                let why = "decide could not be called: the Lua stack is full";
                out.push((index, internal(script, why)));
                index += 1;
            }
        }
        if let Some(out) = self.lua.app_data_ref::<Rc<output::Output>>() {
            out.end_tick();
        }
        out
    }

    /// Readies one agent for the decision loop through mlua, when its slot, `init`,
    /// `on_reload` or view is not settled: makes its slot and view, links its `self` and runs
    /// the hook that is due. Its `decide` is then called by the loop, as every agent's is. A
    /// failure here is the agent's decision for this tick.
    fn prepare_one(&mut self, world: &World, index: usize, script: &Path) -> Result<(), Decision> {
        self.agents.changes += 1;
        let agent = &world.agents[index];
        let name = display(script);
        let (module, generation, module_ref) = self.module_of(script, &name)?;
        let k = self.slot_for(world, index, script, &name)?;
        let (this, seen) = self.link_slot(world, index, k, generation, &name)?;
        let outcome = self.as_agent(k, index, || {
            self.run_hook(&module, &this, agent, seen, generation, &name)
        });
        let init_failed = self.agents.take_init_failure(&agent.id);
        self.agents.rngs.leave();
        let generations = self.modules.generation();
        if let Some(slot) = self.agents.slots.all.get_mut(k).and_then(Option::as_mut) {
            slot.checked = if init_failed {
                slot.seen_generation = None;
                None
            } else {
                Some((generations, module_ref, world.roster()))
            };
        }
        match outcome {
            Some(failed) => Err(failed),
            None => Ok(()),
        }
    }

    /// The module table of `script` (its last good version), its generation and its registry
    /// reference; the script's load error if it has none.
    fn module_of(&self, script: &Path, name: &str) -> Result<(Table, u64, c_int), Decision> {
        let Some(module) = self.modules.get(script) else {
            let why = self
                .modules
                .load_errors()
                .get(script)
                .cloned()
                .unwrap_or_else(|| ScriptError::runtime(format!("{name}: script not loaded")));
            return Err(Decision::Failed(why));
        };
        let (generation, module_ref) = (module.generation, module.table.id());
        match self.lua.registry_value(&module.table) {
            Ok(table) => Ok((table, generation, module_ref)),
            Err(e) => Err(Decision::Failed(errors::error_in(name, &e))),
        }
    }

    /// The slot number of the agent at `index`: its slot if it runs `script` there, else a new
    /// one.
    fn slot_for(
        &mut self,
        world: &World,
        index: usize,
        script: &Path,
        name: &str,
    ) -> Result<usize, Decision> {
        let agent = &world.agents[index];
        let slots = &mut self.agents.slots;
        match slots.find(index, &agent.id) {
            Some(k) if slots.all[k].as_ref().is_some_and(|s| *s.script == *script) => Ok(k),
            _ => match self
                .agents
                .new_slot(&self.lua, &self.raw.views, agent, script)
            {
                Ok(slot) => Ok(self.agents.insert(&self.lua, &self.raw.views, slot)),
                Err(e) => Err(Decision::Failed(errors::error_in(name, &e))),
            },
        }
    }

    /// Links the `self` of slot `k` to the view of agent `index` and marks the slot as having
    /// seen `generation`: its `self`, and the generation it had seen before.
    fn link_slot(
        &mut self,
        world: &World,
        index: usize,
        k: usize,
        generation: u64,
        name: &str,
    ) -> Result<(Table, Option<u64>), Decision> {
        let Some(slot) = self.agents.slots.all.get_mut(k).and_then(Option::as_mut) else {
            return Err(Decision::Failed(ScriptError::runtime(format!(
                "{name}: agent state lost (this is a bug)"
            ))));
        };
        let this: Table = match slot.this.table(&self.lua) {
            Ok(t) => t,
            Err(e) => return Err(Decision::Failed(errors::error_in(name, &e))),
        };
        let views = &self.raw.views;
        match views.link_self(&self.lua, world, &this, index) {
            Ok(()) => {
                slot.linked = views.view_ptr(index).map(|p| (index, p));
            }
            Err(e) => return Err(Decision::Failed(errors::error_in(name, &e))),
        }
        let seen = slot.seen_generation;
        slot.seen_generation = Some(generation);
        Ok((this, seen))
    }

    /// Runs `f` as the agent of slot `k` (at `index`): with its random stream, its `self` as
    /// the deciding one and its memory owner (whatever `f` allocates counts against it).
    fn as_agent<R>(&self, k: usize, index: usize, f: impl FnOnce() -> R) -> R {
        let (this_ptr, owner) = match self.agents.slots.all.get(k).and_then(Option::as_ref) {
            Some(slot) => (slot.this_ptr, slot.owner),
            None => (std::ptr::null(), budget::HOST),
        };
        let views = &self.raw.views;
        let budget = self.calls.budget();
        self.agents.rngs.enter(k);
        views.set_deciding(Some((this_ptr, index)));
        budget.own(owner);
        let result = f();
        budget.own(budget::HOST);
        views.set_deciding(None);
        result
    }

    /// Makes every agent's [`Turn`] for this round, unless the list made before still holds.
    /// Changes during the round (an agent readied through mlua) concern that agent, whose
    /// entry is then set.
    fn plan_turns(&mut self, world: &World) {
        let generation = self.modules.generation();
        let stamp = (
            generation,
            world.roster(),
            self.raw.views.roster(),
            self.agents.changes,
        );
        if world.roster().is_known() && self.turns.stamp == Some(stamp) {
            return;
        }
        let views = Rc::clone(&self.raw.views);
        let mut list = std::mem::take(&mut self.turns.list);
        list.clear();
        // One growth to the crowd's size, not a doubling past it (40 bytes an agent).
        list.reserve_exact(world.agents.len());
        for (index, agent) in world.agents.iter().enumerate() {
            list.push(match agent.brain {
                Brain::Script(_) if agent.suspended => Turn::Skip,
                Brain::Script(_) => {
                    match ready(&mut self.agents.slots, &views, generation, world, index) {
                        Some((k, r)) => Turn::Raw(k as u32, r),
                        None => Turn::Full,
                    }
                }
                _ => Turn::Skip,
            });
        }
        self.turns = Turns {
            stamp: Some(stamp),
            list,
        };
    }

    /// Runs the raw decision loop from agent `start` for as long as agents are ready for it;
    /// returns the index of the first agent it did not decide.
    fn run_fast(&mut self, world: &World, start: usize, out: &mut Vec<(usize, Decision)>) -> usize {
        let args = vec![
            Value::Function(self.calls.handler().clone()),
            Value::Table(self.world_table.clone()),
            Value::String(self.raw.views.names[views::DECIDE].clone()),
        ];
        let budget = Rc::clone(self.calls.budget());
        let mut batch = FastRound {
            turns: &self.turns.list,
            budget: &budget,
            victims: &self.agents.victims,
            world,
            cursor: start,
            current: None,
            out,
            rngs: &self.agents.rngs,
            views: &self.raw.views,
            limit: budget.memory_limit(),
            handled: self.calls.handled(),
            cleanup: None,
        };
        let raw = Rc::clone(&self.raw);
        // SAFETY: `run_batch` gets the stack it documents (the arguments pushed here); the
        // batch lives in this frame, outside the protected call.
        let _ = unsafe {
            self.lua
                .exec_raw::<()>(MultiValue::from_iter(args), |state| {
                    decide_loop::run_batch(state, &raw, world, &budget, &mut batch);
                    mlua::ffi::lua_settop(state, 0);
                })
        };
        if batch.current.take().is_some() {
            // The batch stopped inside an agent's turn.
            batch.rngs.leave();
        }
        let (next, cleanup) = (batch.cursor, batch.cleanup);
        budget.own(budget::HOST);
        self.agents.stop_victim(&self.lua, &budget);
        if let Some(k) = cleanup {
            self.agents.clear_memory_of(&self.lua, k);
        }
        next
    }

    /// Runs `init` (before the agent's first decision) or `on_reload` (after its script
    /// reloaded), if due and defined; the failure it made, if any.
    fn run_hook(
        &self,
        module: &Table,
        this: &Table,
        agent: &Agent,
        seen: Option<u64>,
        generation: u64,
        name: &str,
    ) -> Option<Decision> {
        let hook = match seen {
            None => "init",
            Some(g) if g != generation => "on_reload",
            _ => return None,
        };
        let Ok(Value::Function(f)) = module.raw_get::<Value>(hook) else {
            return None;
        };
        let args = MultiValue::from_iter([Value::Table(this.clone())]);
        let mut error = self.call(&f, args).err()?;
        if hook == "init" {
            // `init` runs again next tick until it succeeds.
            self.agents.init_failed(&agent.id);
        }
        error.message = in_script(name, &error.message);
        if error.kind == ErrorKind::Memory {
            // A memory bomb kept in `self.memory` would starve every other script: drop this
            // agent's memory and collect before anyone else runs.
            clear_memory(&self.lua, this);
        }
        Some(Decision::Failed(error))
    }
}

/// A failure of the host's own for the agent running `script`.
fn internal(script: &Path, what: &str) -> Decision {
    let name = display(script);
    leaving(Decision::Failed(ScriptError::runtime(format!(
        "{name}: {what}"
    ))))
}

/// What `decide` returning a userdata that is no action says.
fn not_an_action(name: &str) -> String {
    format!(
        "{name}: decide returned a userdata that is not an action; return move.stop(), move.chase(...) and so on"
    )
}

/// What `decide` returning something other than an action says.
fn returned(name: &str, type_name: &str) -> String {
    format!("{name}: decide must return an action such as move.stop(), got {type_name}")
}

/// A decision as it leaves the host: a failure as a located error line (`file.lua:LINE:
/// error: message`). Only failures are touched, where they are made, not in a pass over the
/// round.
fn leaving(decision: Decision) -> Decision {
    match decision {
        Decision::Failed(mut e) => {
            e.message = error_line(&e.message);
            Decision::Failed(e)
        }
        act => act,
    }
}

/// The host's side of one raw batch (see `decide_loop::run_batch`).
struct FastRound<'a> {
    turns: &'a [Turn],
    /// Told whose call allocates, and asked whether the VM named a victim.
    budget: &'a Budget,
    /// Agents stopped for the shared cap, whose turn is the full path's.
    victims: &'a RefCell<BTreeMap<usize, usize>>,
    world: &'a World,
    /// The next agent index to look at; every agent before it has its decision.
    cursor: usize,
    /// The slot of the agent whose turn is under way.
    current: Option<usize>,
    out: &'a mut Vec<(usize, Decision)>,
    rngs: &'a Rngs,
    /// Which agents have parts to lend (those are not gathered into a run).
    views: &'a Views,
    /// The memory limit (for the message of a memory stop).
    limit: usize,
    /// The kind the message handler saw.
    handled: &'a Cell<Option<ErrorKind>>,
    /// A slot whose memory must be cleared (it hit the memory limit).
    cleanup: Option<usize>,
}

/// What the decision loop does with an agent index this round.
#[derive(Clone, Copy)]
enum Turn {
    /// Nothing: the agent has no script.
    Skip,
    /// Made ready through mlua first ([`ScriptHost::prepare_one`]), then decided in the loop.
    Full,
    /// Decide in the raw loop: the agent's slot and entry.
    /// (The slot as `u32` keeps the list at 40 bytes an entry with `Ready::lines`: a
    /// 20,000-agent crowd reads all of it every tick.)
    Raw(u32, Ready),
}

/// Every agent index's [`Turn`], found by [`ready`] once and reused for as long as nothing it
/// depends on changes (in a steady crowd, every round): the raw loop then reads one compact
/// entry per agent instead of the agent, its slot and its view.
#[derive(Default)]
pub struct Turns {
    /// What the list was made for: the load generation, the world's roster, the views'
    /// roster and the host's slot changes.
    stamp: Option<(u64, Roster, u64, u64)>,
    list: Vec<Turn>,
}

/// The slot and raw-loop entry of the agent at `index`, if it is ready for the raw loop: its
/// slot was readied (`ScriptHost::prepare_one`) since the last load, and `self` is linked to the view at
/// this index.
fn ready(
    slots: &mut Slots,
    views: &Views,
    generations: u64,
    world: &World,
    index: usize,
) -> Option<(usize, Ready)> {
    let agent = world.agents.get(index)?;
    let Brain::Script(script) = &agent.brain else {
        return None;
    };
    let k = slots.find(index, &agent.id)?;
    let slot = slots.all.get(k)?.as_ref()?;
    let (checked, module, roster) = slot.checked?;
    let same_script = (roster.is_known() && roster == world.roster())
        || slot.script.as_os_str() == script.as_os_str();
    if checked != generations
        || slot.seen_generation.is_none()
        || !same_script
        || slot.linked != Some((index, views.view_ptr(index)?))
    {
        return None;
    }
    Some((
        k,
        Ready {
            index,
            module,
            this: slot.this_ref,
            this_ptr: slot.this_ptr,
            lines: slot.lines,
            owner: slot.owner,
        },
    ))
}

impl FastRound<'_> {
    fn name(&self, index: usize) -> String {
        match self.world.agents.get(index).map(|a| &a.brain) {
            Some(Brain::Script(script)) => display(script),
            _ => String::new(),
        }
    }
}

impl Batch for FastRound<'_> {
    fn next(&mut self) -> Option<Ready> {
        loop {
            match *self.turns.get(self.cursor)? {
                Turn::Skip => self.cursor += 1,
                Turn::Full => return None,
                Turn::Raw(k, _) if self.victims.borrow().contains_key(&(k as usize)) => {
                    return None
                }
                Turn::Raw(k, ready) => {
                    if let Some(Turn::Raw(_, later)) =
                        self.turns.get(self.cursor + decide_loop::AHEAD)
                    {
                        decide_loop::prefetch_self(later.this_ptr, later.lines);
                    }
                    self.enter(k);
                    return Some(ready);
                }
            }
        }
    }

    fn gather(&mut self, into: &mut Vec<(u32, Ready)>, max: usize) {
        let victims = self.victims.borrow();
        let lends = self.views.lends();
        let mut at = self.cursor;
        let mut module = None;
        while into.len() < max {
            match self.turns.get(at) {
                Some(Turn::Skip) => at += 1,
                Some(&Turn::Raw(k, ready))
                    if module.is_none_or(|m| m == ready.module)
                        && lends.nothing(ready.index)
                        && (victims.is_empty() || !victims.contains_key(&(k as usize))) =>
                {
                    module = Some(ready.module);
                    into.push((k, ready));
                    at += 1;
                }
                _ => break,
            }
        }
    }

    #[inline]
    fn enter(&mut self, slot: u32) {
        let k = slot as usize;
        self.rngs.enter(k);
        self.current = Some(k);
    }

    fn done(&mut self, ready: &Ready, outcome: Outcome) -> bool {
        let Some(k) = self.current.take() else {
            return false;
        };
        self.rngs.leave();
        let decision = match outcome {
            // Nothing to make a line of (`leaving`).
            Outcome::Act(action) => Decision::Act(action),
            // Made in place, in the decision list (see `Outcome::Handed`).
            Outcome::Handed(make, j) => match crate::raw::target_of(self.world, j) {
                Some(target) => Decision::Act(make.make(target)),
                // Not reached: the loop hands out only agents the world has.
                None => leaving(Decision::Failed(ScriptError::runtime(not_an_action(
                    &self.name(ready.index),
                )))),
            },
            Outcome::Failed(message, stop) => return self.failed(k, ready, message, stop),
            Outcome::Returned("userdata") => leaving(Decision::Failed(ScriptError::runtime(
                not_an_action(&self.name(ready.index)),
            ))),
            Outcome::Returned(t) => leaving(Decision::Failed(ScriptError::runtime(returned(
                &self.name(ready.index),
                t,
            )))),
            Outcome::NoDecide => leaving(Decision::Failed(ScriptError::runtime(format!(
                "{}: no decide function",
                self.name(ready.index)
            )))),
        };
        self.out.push((ready.index, decision));
        self.cursor = ready.index + 1;
        // A victim named for the shared cap is stopped, and its memory released, before
        // anyone else runs.
        !self.budget.victim_named()
    }
}

impl FastRound<'_> {
    /// [`Batch::done`] for a `decide` that failed (`message`, and the limit that stopped it):
    /// its error as the agent's decision; false when the batch must end after it (a memory
    /// stop, whose memory is cleared first, or a victim named for the shared cap).
    #[cold]
    #[inline(never)]
    fn failed(&mut self, k: usize, ready: &Ready, message: String, stop: Stop) -> bool {
        let mut error = stop_error(
            message,
            stop,
            self.handled.take(),
            self.limit,
            self.budget.host_refusal(),
        );
        error.message = in_script(&self.name(ready.index), &error.message);
        let clear = error.kind == ErrorKind::Memory;
        self.out
            .push((ready.index, leaving(Decision::Failed(error))));
        self.cursor = ready.index + 1;
        if clear {
            self.cleanup = Some(k);
            return false;
        }
        !self.budget.victim_named()
    }
}
