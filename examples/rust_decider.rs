//! A simulation driven by a `Decider` written in Rust, without Lua: the seam the script host
//! plugs into (`agentbox_core::sim::Decider`). A hunter chases a prey straight while it sees it and
//! plans an A* route while it does not; the prey flees once the hunter is within 5 tiles.
//!
//! `cargo run --release --example rust_decider`

use agentbox_core::nav::line_of_sight;
use agentbox_core::sim::{Decider, Decision, Simulation};
use agentbox_core::world::{Action, Agent, World};
use glam::{DVec2, IVec2};
use std::rc::Rc;

struct HunterAndPrey;

impl Decider for HunterAndPrey {
    fn decide(&mut self, world: &Rc<World>) -> Vec<(usize, Decision)> {
        let (hunter, prey) = (&world.agents[0], &world.agents[1]);
        let hunt = if line_of_sight(world, hunter.tile(), prey.tile()) {
            Action::Chase(world.agent_ref(1).expect("the prey").into())
        } else {
            // An A* route with the default options (octile, no corner cutting).
            Action::PathTo(prey.tile(), Box::default())
        };
        let flee = if hunter.pos.distance(prey.pos) < 5.0 {
            Action::Evade(world.agent_ref(0).expect("the hunter").into())
        } else {
            Action::Stop
        };
        vec![(0, Decision::Act(hunt)), (1, Decision::Act(flee))]
    }
}

/// The tick the hunter catches the prey and where, or `None` within `ticks`.
fn run(ticks: u64) -> Option<(u64, DVec2)> {
    let mut world = World::from_ascii(&[
        "############",
        "#..........#",
        "#..####....#",
        "#.....#....#",
        "#.....#....#",
        "############",
    ]);
    world.agents.push(Agent::new("hunter", IVec2::new(1, 4)));
    let mut prey = Agent::new("prey", IVec2::new(8, 3));
    prey.speed = 3.0; // the hunter keeps the default 4 tiles per second
    world.agents.push(prey);
    let mut sim = Simulation::new(world);
    for _ in 0..ticks {
        // A contact event: the two bodies started touching.
        if !sim.step(&mut HunterAndPrey).events.is_empty() {
            return Some((sim.world().tick, sim.world().agents[1].pos));
        }
    }
    None
}

fn main() {
    match run(300) {
        Some((tick, at)) => println!(
            "tick {tick}: the hunter catches the prey at ({:.1}, {:.1})",
            at.x, at.y
        ),
        None => println!("no catch in 300 ticks"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hunter_goes_round_the_wall_and_catches_the_prey() {
        let (tick, at) = run(300).expect("a catch");
        // The prey starts behind the wall, out of sight: the A* leg takes time, and the chase
        // ends in the open east part.
        assert!(tick > 30 && tick < 300, "{tick}");
        assert!(at.x > 6.5, "{at}");
    }
}
