//! Placing and deleting agents in the window (I or Insert, Delete), retargeting one
//! (Ctrl+right-click another agent) and drawing a keyboard agent's route or the scene's
//! waypoints (Ctrl+I, a tile at a time), saved into the scene file:
//! the entry is written into the file's text (`scene::save`, every other line and comment
//! kept) and the scene is reloaded at once through the history, which records the file's new
//! bytes, so a replay, a rewind and a saved session apply it on the same tick. The reload
//! keeps every running agent as it is and adds or removes only the one edited.
//!
//! It never changes the world itself: the scene file and its reload do.

use super::Window;
use agentbox_core::scene::entries::TileList;
use agentbox_core::scene::save;
use agentbox_core::world::{Brain, Tile};

impl Window {
    /// Whether the shown tick is in the past, where nothing is edited; if so the status bar
    /// says how to branch first.
    pub(super) fn refused_in_past(&mut self) -> bool {
        let past = self.travel.in_past();
        if past {
            self.panels
                .hud
                .status("the past is not edited: press Space to branch first".into());
        }
        past
    }

    /// I / Insert: a new agent on the tile under the mouse, a copy of the selected agent's
    /// entry (its kind, script, speed, params...) when one is selected and listed in the
    /// scene, else a bare agent. Its id is `KIND-N` (`agent-N` with none selected), the first
    /// N no agent has.
    pub(super) fn place_agent(&mut self, tile: Tile) {
        if self.refused_in_past() {
            return;
        }
        let session = self.history.session();
        let start = session.start_world().map(|w| w.agents).unwrap_or_default();
        let listed = |id: &str| start.iter().any(|a| a.id == id);
        let like = self.pointer.selected.clone().filter(|id| listed(id));
        let world = session.world();
        let base = like
            .as_ref()
            .and_then(|id| world.agents.iter().find(|a| &a.id == id))
            .map_or_else(|| "agent".to_string(), |a| a.kind.clone());
        let taken = |id: &str| listed(id) || world.agents.iter().any(|a| a.id == id);
        let id = (1..)
            .map(|n| format!("{base}-{n}"))
            .find(|id| !taken(id))
            .unwrap_or_default();
        let path = session.scene_path().to_path_buf();
        match save::save_added_agent(&path, &id, [tile.x, tile.y], like.as_deref()) {
            Ok(()) => {
                self.apply_scene_edit(&path);
                self.pointer.selected = Some(id);
            }
            Err(e) => self
                .panels
                .hud
                .failure(format!("cannot place an agent: {e}")),
        }
    }

    /// Delete: the selected agent's entry leaves the scene file, and the agent the run.
    pub(super) fn delete_agent(&mut self) {
        let Some(id) = self.pointer.selected.clone() else {
            self.panels
                .hud
                .status("select an agent to delete (click it)".into());
            return;
        };
        if self.refused_in_past() {
            return;
        }
        let path = self.history.session().scene_path().to_path_buf();
        match save::save_removed_agent(&path, &id) {
            Ok(()) => {
                self.apply_scene_edit(&path);
                self.pointer.selected = None;
            }
            Err(e) => self.panels.hud.failure(format!("cannot delete {id}: {e}")),
        }
    }

    /// Ctrl+I: the tile under the mouse goes at the end of the selected keyboard agent's
    /// `route:`, or of the scene's `waypoints:` when no keyboard agent is selected.
    pub(super) fn add_route_tile(&mut self, tile: Tile) {
        if self.refused_in_past() {
            return;
        }
        let session = self.history.session();
        let start = session.start_world().map(|w| w.agents).unwrap_or_default();
        let keyboard = self
            .pointer
            .selected
            .as_deref()
            .filter(|id| (start.iter()).any(|a| a.id == *id && a.brain == Brain::Keyboard));
        let list = match keyboard {
            Some(id) => TileList::Route(id),
            None => TileList::Waypoints,
        };
        let path = session.scene_path().to_path_buf();
        match save::save_added_tile(&path, list, [tile.x, tile.y]) {
            Ok(()) => self.apply_scene_edit(&path),
            Err(e) => self.panels.hud.failure(format!("cannot add the tile: {e}")),
        }
    }

    /// Ctrl+right-click on an agent while another is selected: the selected agent's target
    /// param (the first of its params naming another agent) names the one clicked.
    pub(super) fn retarget(&mut self, to: &str) {
        let Some(id) = self.pointer.selected.clone().filter(|id| id != to) else {
            return;
        };
        if self.refused_in_past() {
            return;
        }
        let path = self.history.session().scene_path().to_path_buf();
        match save::save_retarget(&path, &id, to) {
            Ok(param) => {
                self.panels.hud.status(format!("{id}: {param} = {to}"));
                self.apply_scene_edit(&path);
            }
            Err(e) => self
                .panels
                .hud
                .failure(format!("cannot retarget {id}: {e}")),
        }
    }

    /// Reloads the scene the window just wrote, recorded, and says what it applied.
    fn apply_scene_edit(&mut self, path: &std::path::Path) {
        for reload in self.history.apply_changes(&[path.to_path_buf()]) {
            eprintln!("{reload}");
            self.panels.hud.reload(&reload);
        }
    }
}
