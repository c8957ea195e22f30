//! Potential-function movement (Bourg & Seemann, *AI for Game Developers*, ch. 5
//! "Potential Function-Based Movement"): the
//! Lennard-Jones potential `U(r) = -A / r^n + B / r^m` between two units; the force along the
//! line between them is `-dU/dr = -n A / r^(n+1) + m B / r^(m+1)` (positive pushes apart).
//! The A term attracts, the B term repels; one function gives chase (attraction to a target),
//! evade (A = 0: repulsion only), swarming (every mate of a kind, balanced at the distance
//! where the force is zero) and obstacle avoidance (blocked tiles repel with the B term).
//!
//! The book integrates the force on a rigid body; this sandbox reads the summed force as the
//! agent's velocity in tiles per second, capped at its speed, so units slow down where the
//! forces balance.

use crate::world::{tile_of, Agent, LennardJones, PotentialSpec, Role, Shape, World};
use glam::{DVec2, IVec2};

/// Distances below this (tiles) count as this, so the force stays finite.
const MIN_DISTANCE: f64 = 0.05;

/// `r^e`, by repeated multiplication for whole exponents (the usual case) so the result does
/// not depend on the platform's `pow`.
fn pow(r: f64, e: f64) -> f64 {
    if e.fract() == 0.0 && e.abs() <= 64.0 {
        r.powi(e as i32)
    } else {
        r.powf(e)
    }
}

/// The force on a unit whose offset from the other is `offset` (self minus other).
pub fn lj_force(offset: DVec2, lj: &LennardJones) -> DVec2 {
    let r0 = offset.length();
    if r0 < 1e-12 {
        return DVec2::ZERO;
    }
    let r = r0.max(MIN_DISTANCE);
    let push = -lj.n * lj.a / pow(r, lj.n + 1.0) + lj.m * lj.b / pow(r, lj.m + 1.0);
    offset / r0 * push
}

/// The summed force on `agent` standing at `from`, and the shapes that explain it.
pub fn force(
    world: &World,
    agent: &Agent,
    spec: &PotentialSpec,
    from: DVec2,
) -> (DVec2, Vec<Shape>) {
    let mut total = DVec2::ZERO;
    let mut shapes = Vec::new();
    if let Some(target) = spec.target.as_ref().and_then(|t| world.target_pos(t)) {
        let f = lj_force(from - target, &spec.lj);
        total += f;
        shapes.push(Shape::Line {
            role: Role::Goal,
            from,
            to: target,
        });
    }
    if let Some(kind) = &spec.swarm {
        for other in &world.agents {
            if other.id == agent.id || &other.kind != kind {
                continue;
            }
            if from.distance(other.pos) <= spec.range {
                total += lj_force(from - other.pos, &spec.swarm_lj);
            }
        }
        shapes.push(Shape::Circle {
            role: Role::Probe,
            centre: from,
            radius: spec.range,
        });
    }
    if spec.obstacle > 0.0 {
        let repel = LennardJones {
            a: 0.0,
            b: spec.obstacle,
            n: spec.lj.n,
            m: spec.lj.m,
        };
        // No farther than the map's longer side: beyond it every tile is off the map.
        let side = world.grid().width().max(world.grid().height()) + 1;
        let reach = (spec.range.ceil() as i32).clamp(0, side);
        let centre = tile_of(from);
        let mut walls = DVec2::ZERO;
        for y in -reach..=reach {
            for x in -reach..=reach {
                let tile = centre + IVec2::new(x, y);
                if !world.is_blocked(tile) {
                    continue;
                }
                // The nearest point of the blocked square.
                let c = DVec2::new(tile.x as f64, tile.y as f64);
                let near = from.clamp(c - DVec2::splat(0.5), c + DVec2::splat(0.5));
                let offset = from - near;
                if offset.length() <= spec.range {
                    walls += lj_force(offset, &repel);
                }
            }
        }
        if walls != DVec2::ZERO {
            shapes.push(Shape::Vector {
                role: Role::Probe,
                from,
                delta: walls,
            });
        }
        total += walls;
    }
    shapes.push(Shape::Vector {
        role: Role::Force,
        from,
        delta: total,
    });
    (total, shapes)
}

/// The field an agent would feel at a point: the summed force on `agent`, acting on `spec`,
/// if it stood at `at` in `world` (its own position is not used). A read-only query for
/// overlays: it changes nothing and is the only part of the movement physics that `render/`
/// may call (`tests/architecture.rs`).
pub fn field_at(world: &World, agent: &Agent, spec: &PotentialSpec, at: DVec2) -> DVec2 {
    force(world, agent, spec, at).0
}

/// The displacement of a free agent this tick: the force as a velocity, capped at `speed`.
pub fn free_step(force: DVec2, speed: f64, dt: f64) -> DVec2 {
    let len = force.length();
    let v = if len > speed {
        force * (speed / len)
    } else {
        force
    };
    v * dt
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Target;

    const LJ: LennardJones = LennardJones {
        a: 8.0,
        b: 16.0,
        n: 1.0,
        m: 2.0,
    };

    #[test]
    fn attraction_far_repulsion_near_balance_at_the_zero_of_the_force() {
        // -dU/dr = -n A / r^2 + m B / r^3 = 0 at r = m B / (n A) = 4.
        let far = lj_force(DVec2::new(8.0, 0.0), &LJ);
        let near = lj_force(DVec2::new(2.0, 0.0), &LJ);
        let balanced = lj_force(DVec2::new(4.0, 0.0), &LJ);
        assert!(far.x < 0.0, "pulled towards the other: {far}");
        assert!(near.x > 0.0, "pushed away: {near}");
        assert!(balanced.length() < 1e-12);
        // The exact value at r = 8: -8/64 + 32/512 = -0.0625.
        assert!((far.x + 0.0625).abs() < 1e-12);
    }

    #[test]
    fn obstacles_repel_and_targets_attract() {
        let world = World::from_ascii(&["#....", "#....", "#...."]);
        let agent = Agent::new("a", IVec2::new(1, 1));
        let spec = PotentialSpec {
            target: Some(Target::Point(DVec2::new(4.0, 1.0))),
            lj: LennardJones {
                a: 1.0,
                b: 0.0,
                n: 1.0,
                m: 2.0,
            },
            swarm: None,
            swarm_lj: LJ,
            obstacle: 1.0,
            range: 2.0,
        };
        let (f, shapes) = force(&world, &agent, &spec, agent.pos);
        // Target attraction at r = 3: 1/9 to the east; the wall half a tile west pushes east.
        assert!(f.x > 1.0 / 9.0, "{f}");
        assert!(f.y.abs() < 1e-9);
        assert!(shapes.iter().any(|s| s.role() == Role::Force));
        let v = free_step(DVec2::new(30.0, 40.0), 5.0, 0.1);
        assert!((v.length() - 0.5).abs() < 1e-12);
    }
}
