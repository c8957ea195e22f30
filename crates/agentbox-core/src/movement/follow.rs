//! Leader following in formation (Reynolds 1999, *leader following*, with an offset as in
//! *offset pursuit*): the follower arrives at a point fixed in the leader's frame, `offset.x`
//! tiles ahead of the leader and `offset.y` to its right (y grows down the screen, so facing
//! east, right is south). The frame is the leader's last velocity; while the leader stands
//! the follower keeps the last frame it saw (east before any).

use glam::DVec2;

/// The point to hold: `offset` in the frame of a leader at `leader` moving along `frame`
/// (unit).
pub fn slot(leader: DVec2, frame: DVec2, offset: DVec2) -> DVec2 {
    let right = DVec2::new(-frame.y, frame.x);
    leader + frame * offset.x + right * offset.y
}

/// The frame to use: the leader's velocity when it moves, else the one kept.
pub fn frame(leader_vel: DVec2, kept: Option<DVec2>) -> DVec2 {
    leader_vel.try_normalize().or(kept).unwrap_or(DVec2::X)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ahead_is_along_the_motion_and_right_is_clockwise_on_screen() {
        let at = |frame: DVec2| slot(DVec2::new(5.0, 5.0), frame, DVec2::new(-1.0, 2.0));
        assert_eq!(at(DVec2::X), DVec2::new(4.0, 7.0));
        assert_eq!(at(DVec2::Y), DVec2::new(3.0, 4.0));
        assert_eq!(frame(DVec2::ZERO, Some(DVec2::Y)), DVec2::Y);
        assert_eq!(frame(DVec2::ZERO, None), DVec2::X);
        assert_eq!(frame(DVec2::new(0.0, -3.0), Some(DVec2::Y)), -DVec2::Y);
    }
}
