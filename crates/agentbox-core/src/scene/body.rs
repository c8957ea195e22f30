//! The body and steering keys an agent or a `spawn:` group may carry: `radius` (the circle
//! that meets walls, touches and is avoided), `max_force` (the acceleration limit), `avoid`
//! and `avoid_horizon` (ORCA local avoidance). Checked and located here, then set on the
//! agents; nothing else.

use super::build::Checker;
use crate::world::Agent;

/// The widest body radius, in tiles (half the largest `size`).
pub(super) const MAX_BODY_RADIUS: f64 = 32.0;
/// The largest acceleration limit, tiles/s^2.
pub(super) const MAX_FORCE: f64 = 1e6;
/// The longest avoidance horizon, seconds.
pub(super) const MAX_AVOID_HORIZON: f64 = 60.0;
/// The horizon of `avoid: true` without `avoid_horizon`, seconds.
pub const DEFAULT_AVOID_HORIZON: f64 = 2.0;

/// The body keys as a scene entry wrote them.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BodyKeys {
    pub radius: Option<f64>,
    pub max_force: Option<f64>,
    pub avoid: Option<bool>,
    pub avoid_horizon: Option<f64>,
}

impl BodyKeys {
    /// Checks the keys of the entry at `path` (`agents.0`, `spawn.1`) of an agent moving on
    /// tiles or not; whether all are good.
    pub fn check(&self, c: &mut Checker, path: &str, tiles: bool) -> bool {
        let before = c.error_count();
        let mut range = |key: &str, value: Option<f64>, max: f64, unit: &str| {
            if let Some(x) = value {
                if !(x.is_finite() && x > 0.0 && x <= max) {
                    c.error(
                        &format!("{path}.{key}"),
                        format!("{key} must be above 0 and at most {max} {unit}, got {x}"),
                    );
                }
            }
        };
        range("radius", self.radius, MAX_BODY_RADIUS, "tiles");
        range("max_force", self.max_force, MAX_FORCE, "tiles/s^2");
        range(
            "avoid_horizon",
            self.avoid_horizon,
            MAX_AVOID_HORIZON,
            "seconds",
        );
        if self.avoid_horizon.is_some() && self.avoid != Some(true) {
            c.error(
                &format!("{path}.avoid_horizon"),
                "avoid_horizon only applies with `avoid: true`",
            );
        }
        if tiles {
            for (key, set) in [
                ("max_force", self.max_force.is_some()),
                ("avoid", self.avoid == Some(true)),
            ] {
                if set {
                    c.error(
                        &format!("{path}.{key}"),
                        format!("{key} only applies to free motion (tile-stepping agents move tile by tile)"),
                    );
                }
            }
        }
        c.error_count() == before
    }

    /// Sets the keys on `agent` (the defaults where absent).
    pub fn apply(&self, agent: &mut Agent) {
        if let Some(r) = self.radius {
            agent.radius = r;
        }
        agent.max_force = self.max_force;
        agent.avoid_horizon =
            (self.avoid == Some(true)).then(|| self.avoid_horizon.unwrap_or(DEFAULT_AVOID_HORIZON));
    }
}
