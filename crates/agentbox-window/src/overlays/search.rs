//! Search overlay: the A* search behind an agent's route — the selected agent's, else every
//! agent following `path_to` — re-run with its own options (as plain A*, so every expanded
//! cell shows): closed cells red, open cells green, the path blue, and when zoomed in the
//! G, H and F of each cell (G from the start, H the octile estimate to the goal, F = G + H).

use super::{label_sized, shade_tile};
use crate::camera::Camera;
use agentbox_core::nav::{cache, Algorithm, Search};
use agentbox_core::world::{centre_of, Action, Agent, Tile, World};
use macroquad::prelude::*;

/// The octile estimate the default search uses, in its cost units.
fn estimate(from: Tile, to: Tile, cheapest: f64) -> f64 {
    let d = (to - from).abs();
    let (dx, dy) = (d.x as f64, d.y as f64);
    cheapest * (dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy))
}

fn draw_one(world: &World, camera: &Camera, search: &mut Search, agent: &Agent) {
    let Action::PathTo(goal, opts) = &agent.action else {
        return;
    };
    let mut opts = **opts;
    opts.algorithm = Algorithm::AStar;
    opts.keep_sets = true;
    opts.size = opts.size.max(agent.size);
    // The shared grids of the map (`nav::cache`), searched with the overlay's own buffers so
    // the G of every cell stays readable after the search.
    let Some(cheapest) = cache::with_grid(world, 1, |grid, _| grid.min_cost() as f64) else {
        return;
    };
    let Some(result) = cache::with_grid(world, opts.size, |body, _| {
        let size = std::mem::replace(&mut opts.size, 1);
        let result = search.find_on(body, agent.tile(), *goal, &opts);
        opts.size = size;
        result
    }) else {
        return;
    };
    let Some(sets) = &result.sets else { return };
    for &t in &sets.closed {
        shade_tile(camera, t, Color::from_rgba(0xe0, 0x50, 0x40, 0x50));
    }
    for &t in &sets.open {
        shade_tile(camera, t, Color::from_rgba(0x30, 0xc0, 0x60, 0x60));
    }
    if let Some(path) = &result.path {
        for &t in path {
            shade_tile(camera, t, Color::from_rgba(0x1f, 0x6f, 0xeb, 0x50));
        }
    }
    if camera.tile >= 44.0 {
        let width = world.grid().width();
        for &t in sets.closed.iter().chain(&sets.open) {
            let index = (t.y * width + t.x) as usize;
            let Some(g) = search.reached_cost(index) else {
                continue;
            };
            let h = estimate(t, *goal, cheapest);
            let c = centre_of(t);
            let ink = Color::from_rgba(0x20, 0x20, 0x20, 0xff);
            let num = |v: f64| {
                if camera.tile >= 90.0 {
                    format!("{v:.1}")
                } else {
                    format!("{v:.0}")
                }
            };
            label_sized(
                camera,
                c + ::glam::DVec2::new(0.0, -0.22),
                &format!("F{}", num(g + h)),
                ink,
                0.3,
            );
            label_sized(
                camera,
                c + ::glam::DVec2::new(-0.24, 0.28),
                &format!("G{}", num(g)),
                ink,
                0.22,
            );
            label_sized(
                camera,
                c + ::glam::DVec2::new(0.24, 0.28),
                &format!("H{}", num(h)),
                ink,
                0.22,
            );
        }
    }
}

pub fn draw(world: &World, camera: &Camera, search: &mut Search, selected: Option<&str>) {
    match selected.and_then(|id| world.agent(id)) {
        Some(agent) => draw_one(world, camera, search, agent),
        None => {
            for agent in &world.agents {
                draw_one(world, camera, search, agent);
            }
        }
    }
}
