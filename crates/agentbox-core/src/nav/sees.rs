//! Sensing: whether a looker at one point sees another point, within a range, inside a view
//! cone and in line of sight (the same test as [`super::line_of_sight`], between the two
//! points' tiles). What `nav.sees` asks; pure, one query.

use super::line_of_sight;
use crate::world::{tile_of, World};
use glam::DVec2;

/// How far and how wide a looker sees.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// The farthest distance seen, in tiles; `None`: no limit.
    pub range: Option<f64>,
    /// The full angle of the cone in degrees (360 or more: all round).
    pub fov: f64,
    /// The direction the cone faces, radians (0 east, positive towards +y, as `heading`).
    pub facing: f64,
}

impl View {
    /// All round, any distance.
    pub const ALL_ROUND: View = View {
        range: None,
        fov: 360.0,
        facing: 0.0,
    };

    /// Whether `to` is inside the range and the cone seen from `from` (line of sight aside).
    pub fn covers(&self, from: DVec2, to: DVec2) -> bool {
        let d = to - from;
        let dist2 = d.length_squared();
        if self.range.is_some_and(|r| dist2 > r * r) {
            return false;
        }
        if self.fov >= 360.0 || dist2 == 0.0 {
            return true;
        }
        let half = (self.fov.max(0.0) * 0.5).to_radians();
        let facing = DVec2::new(self.facing.cos(), self.facing.sin());
        // cos of the angle between the facing and the direction to the target.
        facing.dot(d) >= half.cos() * dist2.sqrt()
    }
}

/// In range, in the cone and in line of sight: whether a looker at `from` sees `to`.
pub fn sees(world: &World, from: DVec2, to: DVec2, view: &View) -> bool {
    view.covers(from, to) && line_of_sight(world, tile_of(from), tile_of(to))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_cone_and_walls_each_hide_a_target() {
        let w = World::from_ascii(&["..........", "....#.....", ".........."]);
        let from = DVec2::new(0.0, 0.0);
        let east = View {
            range: Some(5.0),
            fov: 90.0,
            facing: 0.0,
        };
        assert!(sees(&w, from, DVec2::new(4.0, 0.0), &east));
        assert!(!sees(&w, from, DVec2::new(6.0, 0.0), &east), "out of range");
        assert!(
            !sees(&w, from, DVec2::new(0.0, 2.0), &east),
            "behind the cone's edge"
        );
        assert!(
            sees(&w, from, DVec2::new(2.0, 1.9), &east),
            "inside 45 degrees"
        );
        let south = View {
            facing: std::f64::consts::FRAC_PI_2,
            ..east
        };
        assert!(sees(&w, from, DVec2::new(0.0, 2.0), &south));
        // The wall at (4, 1) blocks the line from (2, 1) to (6, 1).
        assert!(!sees(
            &w,
            DVec2::new(2.0, 1.0),
            DVec2::new(6.0, 1.0),
            &View::ALL_ROUND
        ));
        assert!(sees(
            &w,
            DVec2::new(2.0, 0.0),
            DVec2::new(6.0, 0.0),
            &View::ALL_ROUND
        ));
    }
}
