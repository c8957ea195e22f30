//! The seam between the simulation and whatever makes decisions (the Lua scripting layer, a
//! test double), so the simulation never depends on the scripting engine.

use crate::world::{Action, Effect, ScriptError, World};
use std::rc::Rc;

/// The outcome of one agent's decision for one tick.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    Act(Action),
    /// The decision failed (script error, budget, bad return value); the agent stands still
    /// this tick and the error is shown and traced. A budget or memory stop suspends it.
    Failed(ScriptError),
}

/// Makes decisions for the agents it drives.
pub trait Decider {
    /// Decides for this tick, returning `(agent index, decision)` pairs for the agents it
    /// drives. The world is shared read-only for the call; implementations must not keep the
    /// `Rc` past returning (the simulation then changes the world without copying it).
    fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, Decision)>;

    /// What agents remarked in the last `decide` besides their decisions: the labels they set
    /// and the lines they printed (taken, so a second call returns nothing). Deciders whose
    /// agents remark nothing keep the default.
    fn take_remarks(&mut self) -> Remarks {
        Remarks::default()
    }

    /// Hands back the effects list of the last [`Remarks`], emptied once the simulation has
    /// kept its effects, so the next round can queue into it without allocating (a talking
    /// crowd queues about as many effects every tick). The default drops it.
    fn give_back(&mut self, effects: Vec<(usize, Effect)>) {
        drop(effects);
    }
}

/// What agents remarked while deciding one tick besides their decisions (their labels,
/// `print` lines and effects), in the order they decided.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Remarks {
    /// `(agent index, label)`: a label set (`self:label("search")`), or cleared (`None`).
    pub labels: Vec<(usize, Option<String>)>,
    /// `(agent id, line)`: `print` output kept within the print bounds.
    pub prints: Vec<(String, String)>,
    /// `(agent index, effect)`: what scripts asked for besides their actions (messages,
    /// noises, spawns, removals, tile changes), in call order; applied between this tick and
    /// the next (`sim::effects`).
    pub effects: Vec<(usize, Effect)>,
}

/// Drives nobody: every agent keeps its action. For scenes without scripts and for tests.
pub struct NoDecisions;

impl Decider for NoDecisions {
    fn decide(&mut self, _world: &Rc<World>) -> Vec<(usize, Decision)> {
        Vec::new()
    }
}
