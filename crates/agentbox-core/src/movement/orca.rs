//! ORCA local avoidance (van den Berg, Guy, Lin and Manocha 2011, "Reciprocal n-Body
//! Collision Avoidance", and their RVO2 library's `Agent.cpp`): each neighbour within reach
//! gives a half-plane of velocities that avoid it for `horizon` seconds, the agent taking half
//! of the avoidance when the neighbour avoids too and all of it when the neighbour does not;
//! a 2-D linear program finds the velocity nearest the preferred one inside every half-plane
//! and the speed circle, and when none exists the 3-D program of the paper's section 5.3
//! finds the velocity that violates the half-planes least. In f64, with the neighbours in the
//! order given (the caller hands them from the spatial index in a fixed order), no random
//! draws here and no division by a length that may be zero: the same inputs give the same
//! bits, two agents on one point give a finite answer.

use super::neighbours::apart;
use glam::DVec2;

/// RVO2's tolerance for parallel lines.
const EPSILON: f64 = 1e-5;

/// One agent as ORCA sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    pub pos: DVec2,
    pub vel: DVec2,
    pub radius: f64,
}

/// A neighbour, its share of the avoidance taken by the agent (0.5 when it avoids too, 1
/// when it does not) and its key for [`Names`].
#[derive(Clone, Copy, Debug)]
pub struct Other {
    pub body: Body,
    pub share: f64,
    pub key: usize,
}

/// The ids that part agents standing on one point: the agent's own, and a neighbour's by its
/// key, asked only then (a crowd's neighbours are then never looked up by name).
pub struct Names<'a, 'f> {
    pub me: &'a str,
    pub of: &'f dyn Fn(usize) -> &'a str,
}

/// A half-plane: the velocities left of `direction` through `point`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Line {
    pub point: DVec2,
    pub direction: DVec2,
}

fn det(a: DVec2, b: DVec2) -> f64 {
    a.x * b.y - a.y * b.x
}

/// The ORCA half-planes of an agent `me` against `others` for `horizon` seconds,
/// in a tick of `dt`, each with the index in `others` of the neighbour it avoids (a
/// neighbour whose numbers give no finite half-plane is left out).
pub fn half_planes(
    me: Body,
    names: &Names,
    others: &[Other],
    horizon: f64,
    dt: f64,
) -> Vec<(usize, Line)> {
    others
        .iter()
        .enumerate()
        .filter_map(|(k, o)| Some((k, half_plane(me, names, o, horizon, dt)?)))
        .collect()
}

/// [`half_planes`] written into `slots` (at least as many as `others`, so a caller can keep
/// them on the stack), the filled part returned.
pub fn half_planes_into<'s>(
    me: Body,
    names: &Names,
    others: &[Other],
    horizon: f64,
    dt: f64,
    slots: &'s mut [(usize, Line)],
) -> &'s [(usize, Line)] {
    let mut n = 0;
    for (k, o) in others.iter().enumerate() {
        if let Some(line) = half_plane(me, names, o, horizon, dt) {
            slots[n] = (k, line);
            n += 1;
        }
    }
    &slots[..n]
}

/// Whether `velocity` lies outside the half-plane `line` (would not avoid its neighbour).
pub fn breaks(line: &Line, velocity: DVec2) -> bool {
    det(line.direction, line.point - velocity) > 0.0
}

/// The velocity nearest `preferred` within `speed` and every half-plane of `planes` (the 2-D
/// program), or, when there is none, the one that breaks them least (the 3-D program).
pub fn solve(planes: &[(usize, Line)], preferred: DVec2, speed: f64) -> DVec2 {
    let preferred = if preferred.is_finite() {
        preferred
    } else {
        DVec2::ZERO
    };
    // At most a few neighbours: their lines on the stack, past that on the heap.
    let mut stack = [Line {
        point: DVec2::ZERO,
        direction: DVec2::X,
    }; 16];
    let heap: Vec<Line>;
    let lines: &[Line] = if planes.len() <= stack.len() {
        for (slot, &(_, l)) in stack.iter_mut().zip(planes) {
            *slot = l;
        }
        &stack[..planes.len()]
    } else {
        heap = planes.iter().map(|&(_, l)| l).collect();
        &heap
    };
    let mut result = DVec2::ZERO;
    let failed = program2(lines, speed, preferred, false, &mut result);
    if failed < lines.len() {
        program3(lines, failed, speed, &mut result);
    }
    if result.is_finite() {
        result
    } else {
        DVec2::ZERO
    }
}

/// The velocity an agent `me` (top speed `speed`) takes instead of `preferred` to
/// avoid `others` for `horizon` seconds, in a tick of `dt`; and the indices (in `others`) of
/// the neighbours whose half-plane the preferred velocity breaks, the ones it gives way to.
pub fn avoid(
    me: Body,
    names: &Names,
    preferred: DVec2,
    speed: f64,
    others: &[Other],
    horizon: f64,
    dt: f64,
) -> (DVec2, Vec<usize>) {
    let planes = half_planes(me, names, others, horizon, dt);
    let yielding = planes
        .iter()
        .filter(|(_, l)| breaks(l, preferred))
        .map(|&(k, _)| k)
        .collect();
    (solve(&planes, preferred, speed), yielding)
}

/// The ORCA half-plane of `me` against `o` (RVO2's `computeNewVelocity`, agent part).
fn half_plane(me: Body, names: &Names, o: &Other, horizon: f64, dt: f64) -> Option<Line> {
    let rel_pos = o.body.pos - me.pos;
    let rel_vel = me.vel - o.body.vel;
    let dist_sq = rel_pos.length_squared();
    let r = me.radius + o.body.radius;
    let r_sq = r * r;
    let (direction, u);
    if dist_sq > r_sq {
        let inv_tau = 1.0 / horizon;
        let w = rel_vel - rel_pos * inv_tau;
        let w_len_sq = w.length_squared();
        let dot1 = w.dot(rel_pos);
        if dot1 < 0.0 && dot1 * dot1 > r_sq * w_len_sq {
            // Project on the cut-off circle.
            let w_len = w_len_sq.sqrt();
            let unit_w = w / w_len;
            direction = DVec2::new(unit_w.y, -unit_w.x);
            u = unit_w * (r * inv_tau - w_len);
        } else {
            // Project on a leg.
            let leg = (dist_sq - r_sq).sqrt();
            direction = if det(rel_pos, w) > 0.0 {
                DVec2::new(
                    rel_pos.x * leg - rel_pos.y * r,
                    rel_pos.x * r + rel_pos.y * leg,
                ) / dist_sq
            } else {
                -DVec2::new(
                    rel_pos.x * leg + rel_pos.y * r,
                    -rel_pos.x * r + rel_pos.y * leg,
                ) / dist_sq
            };
            u = direction * rel_vel.dot(direction) - rel_vel;
        }
    } else {
        // Already overlapping: leave within this tick.
        let inv_dt = 1.0 / dt;
        let w = rel_vel - rel_pos * inv_dt;
        let w_len = w.length();
        let unit_w = if w_len > 1e-12 {
            w / w_len
        } else {
            // Same point, same velocity: part along a direction fixed by the ids.
            -apart(names.me, (names.of)(o.key))
        };
        direction = DVec2::new(unit_w.y, -unit_w.x);
        u = unit_w * (r * inv_dt - w_len);
    }
    let line = Line {
        point: me.vel + u * o.share,
        direction,
    };
    (line.point.is_finite() && line.direction.is_finite()).then_some(line)
}

/// RVO2's `linearProgram1`: the best point on line `n` within the circle and the lines before
/// it; false when there is none.
fn program1(
    lines: &[Line],
    n: usize,
    radius: f64,
    opt: DVec2,
    dir_opt: bool,
    result: &mut DVec2,
) -> bool {
    let line = lines[n];
    let dot = line.point.dot(line.direction);
    let disc = dot * dot + radius * radius - line.point.length_squared();
    if disc < 0.0 {
        return false;
    }
    let sqrt_disc = disc.sqrt();
    let (mut t_left, mut t_right) = (-dot - sqrt_disc, -dot + sqrt_disc);
    for other in &lines[..n] {
        let denominator = det(line.direction, other.direction);
        let numerator = det(other.direction, line.point - other.point);
        if denominator.abs() <= EPSILON {
            if numerator < 0.0 {
                return false;
            }
            continue;
        }
        let t = numerator / denominator;
        if denominator >= 0.0 {
            t_right = t_right.min(t);
        } else {
            t_left = t_left.max(t);
        }
        if t_left > t_right {
            return false;
        }
    }
    *result = if dir_opt {
        if opt.dot(line.direction) > 0.0 {
            line.point + line.direction * t_right
        } else {
            line.point + line.direction * t_left
        }
    } else {
        // max then min, not clamp: clamp panics on a NaN bound, and this must never panic.
        let t = line.direction.dot(opt - line.point);
        line.point + line.direction * t.max(t_left).min(t_right)
    };
    true
}

/// RVO2's `linearProgram2`: the velocity nearest `opt` (or furthest along it with
/// `dir_opt`) in the circle and every half-plane; the index of the first line that could not
/// be met, or `lines.len()`.
fn program2(lines: &[Line], radius: f64, opt: DVec2, dir_opt: bool, result: &mut DVec2) -> usize {
    *result = if dir_opt {
        opt * radius
    } else if opt.length_squared() > radius * radius {
        opt.normalize_or_zero() * radius
    } else {
        opt
    };
    for (i, line) in lines.iter().enumerate() {
        if det(line.direction, line.point - *result) > 0.0 {
            let before = *result;
            if !program1(lines, i, radius, opt, dir_opt, result) {
                *result = before;
                return i;
            }
        }
    }
    lines.len()
}

/// RVO2's `linearProgram3` (the paper's 3-D program, no obstacle lines): when the half-planes
/// from `begin` on cannot all be met, the velocity that minimises the largest violation.
fn program3(lines: &[Line], begin: usize, radius: f64, result: &mut DVec2) {
    let mut distance = 0.0;
    let mut projected = Vec::with_capacity(lines.len());
    for i in begin..lines.len() {
        let li = lines[i];
        if det(li.direction, li.point - *result) <= distance {
            continue;
        }
        projected.clear();
        for lj in &lines[..i] {
            let determinant = det(li.direction, lj.direction);
            let point = if determinant.abs() <= EPSILON {
                if li.direction.dot(lj.direction) > 0.0 {
                    continue;
                }
                (li.point + lj.point) * 0.5
            } else {
                li.point + li.direction * (det(lj.direction, li.point - lj.point) / determinant)
            };
            let Some(direction) = (lj.direction - li.direction).try_normalize() else {
                continue;
            };
            projected.push(Line { point, direction });
        }
        let before = *result;
        let opt = DVec2::new(-li.direction.y, li.direction.x);
        if program2(&projected, radius, opt, true, result) < projected.len() {
            *result = before;
        }
        distance = det(li.direction, li.point - *result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Neighbour `k`'s id when the neighbours' ids are `IDS`.
    fn id_in<const N: usize>(ids: [&'static str; N]) -> impl Fn(usize) -> &'static str {
        move |k| ids[k]
    }

    fn body(x: f64, y: f64, vx: f64, vy: f64) -> Body {
        Body {
            pos: DVec2::new(x, y),
            vel: DVec2::new(vx, vy),
            radius: 0.3,
        }
    }

    #[test]
    fn head_on_agents_turn_aside_and_the_same_inputs_give_the_same_bits() {
        let me = body(0.0, 0.0, 2.0, 0.0);
        let other = Other {
            body: body(2.0, 0.0, -2.0, 0.0),
            share: 0.5,
            key: 0,
        };
        let of = id_in(["b"]);
        let a = Names { me: "a", of: &of };
        let (v, yielding) = avoid(me, &a, DVec2::new(2.0, 0.0), 2.0, &[other], 2.0, 0.1);
        assert_eq!(yielding, vec![0]);
        assert!(v.y.abs() > 0.1, "{v}");
        assert!(v.length() <= 2.0 + 1e-9);
        let again = avoid(me, &a, DVec2::new(2.0, 0.0), 2.0, &[other], 2.0, 0.1).0;
        assert_eq!(
            v.to_array().map(f64::to_bits),
            again.to_array().map(f64::to_bits)
        );
    }

    #[test]
    fn two_agents_on_one_point_get_finite_opposite_escapes() {
        let a = body(1.0, 1.0, 0.0, 0.0);
        let other = Other {
            body: a,
            share: 0.5,
            key: 0,
        };
        let (of_a, of_b) = (id_in(["b"]), id_in(["a"]));
        let (na, nb) = (Names { me: "a", of: &of_a }, Names { me: "b", of: &of_b });
        let (va, _) = avoid(a, &na, DVec2::ZERO, 2.0, &[other], 2.0, 0.1);
        let (vb, _) = avoid(a, &nb, DVec2::ZERO, 2.0, &[other], 2.0, 0.1);
        assert!(va.is_finite() && vb.is_finite());
        assert!(va.length() > 0.1 && va.dot(vb) < 0.0, "{va} {vb}");
    }

    #[test]
    fn an_infeasible_problem_falls_back_without_panicking() {
        // Boxed in by four overlapping neighbours pushing from every side.
        let me = body(0.0, 0.0, 0.0, 0.0);
        let ids = ["n", "e", "s", "w"];
        let others: Vec<Other> = [(0.0, -0.2), (0.2, 0.0), (0.0, 0.2), (-0.2, 0.0)]
            .iter()
            .enumerate()
            .map(|(key, &(x, y))| Other {
                body: body(x, y, -x * 10.0, -y * 10.0),
                share: 1.0,
                key,
            })
            .collect();
        let of = id_in(ids);
        let me_names = Names { me: "me", of: &of };
        let (v, _) = avoid(me, &me_names, DVec2::new(1.0, 0.0), 1.0, &others, 2.0, 0.1);
        assert!(v.is_finite() && v.length() <= 1.0 + 1e-9, "{v}");
    }

    #[test]
    fn a_clear_way_keeps_the_preferred_velocity() {
        let me = body(0.0, 0.0, 1.0, 0.0);
        let far = Other {
            body: body(0.0, 5.0, 1.0, 0.0),
            share: 0.5,
            key: 0,
        };
        let of = id_in(["x"]);
        let me_names = Names { me: "me", of: &of };
        let (v, yielding) = avoid(me, &me_names, DVec2::new(1.0, 0.0), 2.0, &[far], 2.0, 0.1);
        assert_eq!(v, DVec2::new(1.0, 0.0));
        assert!(yielding.is_empty());
    }
}
