//! A scene saved while it runs: the edits from one version of a scene to the next, as the
//! running agents should take them ([`Reload`]). What an agent's entry means is the scene's
//! business, so the scene decides what to compare: a tunable param keeps its live value
//! (the tunables panel moves it, and the file's value is applied as a tunable), and when a
//! `spawn:` group's `count` changes, the seed redraws its places and speeds, so its members
//! keep theirs and only the last ones come or go.
//!
//! It neither reads files nor changes a world itself: [`crate::world::reload`] applies the
//! edits, the session tells the script host. [`Prepared`] is the part of a reload that needs
//! no running world (building the saved version, building the last good one again, comparing
//! them), so a session can make it on another thread while the scene runs.

use super::{Scene, SceneErrors, Source};
use crate::world::reload::{self, Edits, Field, Ignore};
use crate::world::World;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// What the last good version of a scene was built from: enough to build it again on another
/// thread (its bytes are shared, not copied).
#[derive(Clone, Debug)]
pub struct Last {
    path: PathBuf,
    source: Source,
    scripts: BTreeSet<PathBuf>,
}

impl Last {
    /// What `scene` was built from.
    pub fn of(scene: &Scene) -> Last {
        Last {
            path: scene.path.clone(),
            source: scene.source.clone(),
            scripts: scene.scripts.clone(),
        }
    }

    /// Whether `scene` is still the version this was taken from.
    pub fn is(&self, scene: &Scene) -> bool {
        std::sync::Arc::ptr_eq(&self.source.bytes, &scene.source.bytes)
    }
}

/// A saved version of a scene, built and compared with the last good one, ready to apply.
#[derive(Debug)]
pub struct Prepared {
    /// The last good version, agents and all, built again.
    pub old: Scene,
    /// The saved version.
    pub new: Scene,
    /// The edits from `old` to `new`.
    pub edits: Edits,
}

impl Prepared {
    /// Builds the saved bytes `bytes` (with the seed `seed` replacing the file's, if given)
    /// and the last good version again, and compares their agents: the whole cost of a
    /// reload but applying it, touching no running world.
    pub fn make(last: &Last, bytes: &[u8], seed: Option<u64>) -> Result<Prepared, SceneErrors> {
        let new = super::parse_with_seed(&last.path, bytes, seed)?;
        let old = last.source.rebuild(&last.path, &last.scripts)?;
        let edits = Reload::new(&old, &new).edits;
        Ok(Prepared { old, new, edits })
    }

    /// The reload these versions make.
    pub fn reload(&self) -> Reload<'_> {
        Reload {
            old: &self.old,
            new: &self.new,
            edits: self.edits.clone(),
        }
    }
}

/// The edits from `old` to `new` and what was left out of comparing them.
pub struct Reload<'a> {
    old: &'a Scene,
    new: &'a Scene,
    /// The edits, as the scene files say.
    pub edits: Edits,
}

impl<'a> Reload<'a> {
    /// Compares the agents of two versions of a scene.
    pub fn new(old: &'a Scene, new: &'a Scene) -> Self {
        let mut reload = Reload {
            old,
            new,
            edits: Edits::default(),
        };
        let edits = reload::diff(&old.world.agents, &new.world.agents, &|id| {
            reload.ignore(id)
        });
        reload.edits = edits;
        reload
    }

    /// What not to compare for agent `id`.
    fn ignore(&self, id: &str) -> Ignore {
        let mut ignore = Ignore {
            fields: Vec::new(),
            params: self.new.tunables.iter().map(|t| t.param.clone()).collect(),
        };
        for group in self.new.groups.iter().filter(|g| g.has(id)) {
            let Some(before) = self.old.groups.iter().find(|o| o.kind == group.kind) else {
                continue;
            };
            if before.count != group.count || before.first != group.first {
                ignore.fields.push(Field::At);
                if before.speed == group.speed {
                    ignore.fields.push(Field::Speed);
                }
            }
        }
        ignore
    }

    /// Applies the edits to the running world (see [`reload::apply`]); the edits applied.
    pub fn apply(&self, world: &mut World) -> Edits {
        reload::apply(
            world,
            &self.old.world.agents,
            &self.new.world.agents,
            &self.edits,
            &|id| self.ignore(id),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn crowd(count: u32, speed: &str) -> Scene {
        let yaml = format!(
            "name: c\nmap:\n  rows: |\n    ..........\n    ..........\n    ..........\nspawn:\n  - kind: boid\n    count: {count}\n    speed: {speed}\n"
        );
        super::super::parse(Path::new("c.yaml"), yaml.as_bytes()).expect("the crowd loads")
    }

    /// The seed redraws a group's places when its count changes; its members keep theirs
    /// and only the last come or go.
    #[test]
    fn a_spawn_groups_new_count_adds_or_removes_its_last_members_only() {
        let (five, seven, three) = (crowd(5, "[1, 3]"), crowd(7, "[1, 3]"), crowd(3, "[1, 3]"));
        assert_eq!(
            Reload::new(&five, &seven).edits.summary(),
            "boid-6 added, boid-7 added"
        );
        assert_eq!(
            Reload::new(&five, &three).edits.summary(),
            "boid-4 removed, boid-5 removed"
        );
        let mut world = five.world.clone();
        let places: Vec<_> = world.agents.iter().map(|a| a.pos).collect();
        Reload::new(&five, &seven).apply(&mut world);
        assert_eq!(world.agents.len(), 7);
        for (agent, place) in world.agents.iter().zip(&places) {
            assert_eq!(agent.pos, *place, "{} kept its place", agent.id);
        }
        // A changed speed range with it is applied.
        let faster = crowd(7, "5");
        let summary = Reload::new(&five, &faster).edits.summary();
        assert!(
            summary.starts_with("boid-1 speed, boid-2 speed"),
            "{summary}"
        );
    }
}
