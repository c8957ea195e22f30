//! A frame's input turned into calls on the window's parts: the keys through the keymap (which
//! mode takes them, which actions they mean), then the mouse by where it is (the timeline,
//! the panels, paint mode, the agents and the map). The order of the steps is the order the
//! window always ran them, so recorded input replays the same.

use super::input::FrameInput;
use super::keymap::{Action, Actions, Dir, Mode};
use super::{decisions, paint, Window};
use agentbox_core::world::{Tile, World};

impl Window {
    /// Who takes this frame's keys.
    fn mode(&self) -> Mode {
        if self.questions.prompt.is_some() {
            Mode::Prompt
        } else if self.panels.picker.is_some() {
            Mode::Sessions
        } else if self.search.open {
            Mode::Search
        } else if self.panels.hud.expanded.is_some() {
            Mode::Message
        } else {
            Mode::Map
        }
    }

    /// Applies one frame of input; false to quit.
    pub(super) fn handle(&mut self, input: &FrameInput) -> bool {
        let mode = self.mode();
        let keys = Actions::of(input, mode);
        if mode == Mode::Prompt {
            self.handle_prompt(input, &keys);
            return true;
        }
        if self.handle_picker(input, &keys) {
            return true;
        }
        if mode == Mode::Search {
            self.handle_search(input, &keys);
            return true;
        }
        let dir = keyboard_direction(&Actions::held(input, mode), !self.painter.active);
        if !self.travel.in_past() {
            self.history.set_keyboard(dir);
        }
        if mode == Mode::Message {
            if input.button_pressed[0] || keys.has(Action::Close) {
                self.panels.hud.expanded = None;
            }
            return true;
        }
        if keys.has(Action::Close) && !self.cancel_finding() {
            if self.panels.help {
                self.panels.help = false;
            } else if self.pointer.selected.is_some() {
                self.pointer.selected = None;
            } else {
                return false;
            }
        }
        if keys.has(Action::Help) {
            self.panels.help = !self.panels.help;
        }
        self.handle_time_keys(input, &keys);
        self.handle_question_keys(&keys);
        self.handle_run_keys(&keys);
        self.handle_view_keys(input, &keys);
        self.handle_edit_keys(input, &keys);
        self.handle_mouse(input);
        true
    }

    /// Speed, resuming a stopped agent, reset.
    fn handle_run_keys(&mut self, keys: &Actions) {
        if keys.has(Action::Slower) {
            self.clock.slower();
        }
        if keys.has(Action::Faster) {
            self.clock.faster();
        }
        if keys.has(Action::Resume) {
            // In the past nothing is resumed: the past is not edited (Space branches first).
            if let Some(id) = self.pointer.selected.clone() {
                if !self.travel.in_past() && self.history.resume(&id) {
                    self.panels.hud.status(format!("resumed {id}"));
                }
            }
        }
        if keys.has(Action::Reset) {
            self.reset();
        }
        if keys.has(Action::RecordClip) {
            self.toggle_clip();
        }
    }

    /// What is shown: the console, the search mode, labels, drawings, the camera, overlays.
    fn handle_view_keys(&mut self, input: &FrameInput, keys: &Actions) {
        if keys.has(Action::ToggleConsole) {
            self.records.console.open = !self.records.console.open;
        }
        if keys.has(Action::ToggleSearch) {
            self.enter_search();
        }
        let hud = &mut self.panels.hud;
        if keys.has(Action::ToggleLabels) {
            self.panels.labels = !self.panels.labels;
            let word = if self.panels.labels {
                "shown"
            } else {
                "hidden"
            };
            hud.status(format!("labels {word}"));
        }
        if keys.has(Action::ToggleDrawings) {
            self.panels.drawings = !self.panels.drawings;
            let word = if self.panels.drawings { "on" } else { "off" };
            hud.status(format!("debug drawing {word}"));
        }
        if keys.has(Action::Fit) {
            self.camera.fit(self.travel.shown(&self.history).world());
        }
        if keys.has(Action::Follow) {
            self.camera.follow = match (&self.camera.follow, &self.pointer.selected) {
                (None, Some(id)) => {
                    hud.status(format!("following {id} (Shift+F again stops)"));
                    Some(id.clone())
                }
                (None, None) => {
                    hud.status("click an agent first: Shift+F follows the inspected agent".into());
                    None
                }
                (Some(_), _) => {
                    hud.status("stopped following".into());
                    None
                }
            };
        }
        for (action, step) in [(Action::UiLarger, 1), (Action::UiSmaller, -1)] {
            if keys.has(action) {
                let ui = self.docks.rescale(step);
                hud.status(format!("UI scale x{ui}"));
            }
        }
        if keys.has(Action::ZoomIn) {
            self.camera.zoom_at(input.mouse, 1.25);
        }
        if keys.has(Action::ZoomOut) {
            self.camera.zoom_at(input.mouse, 0.8);
        }
        for action in keys.iter() {
            if let Action::Overlay(overlay) = action {
                let (name, on) = self.panels.overlays.toggle(overlay);
                let word = if on { "on" } else { "off" };
                hud.status(format!("overlay {name} {word}"));
            }
        }
    }

    /// Editing: paint mode and its brush, the tunables panel, undo, save.
    fn handle_edit_keys(&mut self, input: &FrameInput, keys: &Actions) {
        if keys.has(Action::TogglePaint) {
            self.painter.active = !self.painter.active;
            self.painter.end_stroke();
        }
        if keys.has(Action::NextBrush) {
            let world = self.history.session().world();
            let id = self.painter.next_brush(world);
            let name = world.terrain().get(id).name.clone();
            self.panels.hud.status(format!("brush: {name}"));
        }
        if keys.has(Action::ToggleTunables) {
            self.panels.tunables.open = !self.panels.tunables.open;
        }
        if keys.has(Action::Undo) {
            self.undo();
        }
        // S saves in paint mode (outside it, S is "down" for keyboard agents); Ctrl+S always.
        let paint_save = keys.has(Action::SaveInPaintMode)
            && self.painter.active
            && !self.painter.active_drag(input);
        if keys.has(Action::Save) || paint_save {
            self.save_scene();
        }
        if keys.has(Action::PlaceAgent) {
            self.place_agent(self.camera.tile_at(input.mouse));
        }
        if keys.has(Action::DeleteAgent) {
            self.delete_agent();
        }
        if keys.has(Action::AddRouteTile) {
            self.add_route_tile(self.camera.tile_at(input.mouse));
        }
    }

    /// Ctrl+Z: the last slider change while the tunables panel is open, else the last paint
    /// stroke; nothing in the past.
    fn undo(&mut self) {
        let status = if self.panels.tunables.open {
            let undone = if self.travel.in_past() {
                None
            } else {
                self.panels.tunables.undo(&mut self.history)
            };
            undone.unwrap_or_else(|| "no tunable change to undo".into())
        } else if !self.travel.in_past() && self.painter.undo(&mut self.history) {
            "undone".into()
        } else {
            "nothing to undo".into()
        };
        self.panels.hud.status(status);
    }

    /// The mouse: the camera, then whichever of the timeline, the panels, paint mode and the
    /// map is under it.
    fn handle_mouse(&mut self, input: &FrameInput) {
        // Where the mouse points by the camera before this frame's zoom and pan.
        let at = self.camera.to_world(input.mouse);
        let tile = self.camera.tile_at(input.mouse);
        let layout = super::layout::current();
        if self.docks.handle_mouse(input, &layout) {
            return;
        }
        // Only the map's area is the map: elsewhere the mouse is over a panel.
        let on_map = layout.map.contains(input.mouse);
        self.handle_camera_mouse(input, on_map);
        let world = self.travel.shown(&self.history).world();
        self.pointer.hovered = agent_at(world, at).filter(|_| on_map);
        if self.handle_timeline(input) || self.handle_panel_click(input) {
            return;
        }
        if !on_map && input.button_pressed.iter().any(|b| *b) {
            return;
        }
        if self.painter.active {
            self.handle_paint_mouse(input, tile);
        } else {
            self.handle_map_mouse(input, at, tile);
        }
    }

    /// The wheel zooms at the cursor; a middle-drag pans.
    fn handle_camera_mouse(&mut self, input: &FrameInput, on_map: bool) {
        if input.wheel != 0.0 && on_map {
            let factor = if input.wheel > 0.0 { 1.15 } else { 1.0 / 1.15 };
            self.camera.zoom_at(input.mouse, factor);
        }
        if input.button_down[2] {
            // The world point under the cursor follows it.
            if let Some(prev) = self.pointer.last_mouse {
                self.camera.pan(input.mouse - prev);
            }
        }
        self.pointer.last_mouse = Some(input.mouse);
    }

    /// Sliders, the console, the decision strip and the error list; true if one took the
    /// mouse.
    fn handle_panel_click(&mut self, input: &FrameInput) -> bool {
        let mut status = None;
        let past = self.travel.in_past();
        let tunables = &mut self.panels.tunables;
        let took = tunables.handle_mouse(input, &mut self.history, past, &mut status);
        if let Some(s) = status {
            self.panels.hud.status(s);
        }
        if took {
            return true;
        }
        if !input.button_pressed[0] {
            return false;
        }
        if self.questions.click(input.mouse) || self.records.console.click(input.mouse) {
            return true;
        }
        if self.click_memory(input.mouse) {
            return true;
        }
        if self.pointer.selected.is_some() {
            if let Some(to) = decisions::tick_at(input.mouse, self.history.ticks()) {
                self.set_view(to);
                return true;
            }
        }
        if let Some(e) = self.panels.hud.error_at(input.mouse) {
            self.panels.hud.expanded = Some(e);
            return true;
        }
        false
    }

    /// Paint mode: a left-drag paints the brush, a right-drag paints floor; nothing in the
    /// past.
    fn handle_paint_mouse(&mut self, input: &FrameInput, tile: Tile) {
        if self.travel.in_past() {
            if input.button_pressed[0] || input.button_pressed[1] {
                let status = "looking at the past: Space branches here, End goes back";
                self.panels.hud.status(status.into());
            }
            return;
        }
        if input.button_down[0] {
            let brush = self.painter.brush(self.history.session().world());
            self.painter.paint(&mut self.history, tile, brush);
        } else if input.button_down[1] {
            let terrain = self.history.session().world().terrain();
            let floor = terrain.by_name("floor").unwrap_or(0);
            self.painter.paint(&mut self.history, tile, floor);
        }
        if input.button_released[0] || input.button_released[1] {
            self.painter.end_stroke();
        }
    }

    /// The map: a left-click selects an agent and a left-drag moves it, a right-click sets or
    /// clears the goal; the past is only looked at.
    fn handle_map_mouse(&mut self, input: &FrameInput, at: ::glam::DVec2, tile: Tile) {
        if input.button_pressed[0] {
            let hit = agent_at(self.travel.shown(&self.history).world(), at);
            self.pointer.selected = hit.clone();
            self.pointer.dragging = hit.map(|id| (id, input.mouse));
        }
        if input.button_released[0] {
            let dragging = self.pointer.dragging.take();
            let dragged = dragging.filter(|(_, from)| from.distance(input.mouse) > 6.0);
            if let Some((id, _)) = dragged.filter(|_| !self.travel.in_past()) {
                if self.history.place(&id, tile) {
                    let status = format!("moved {id} to {}, {}", tile.x, tile.y);
                    self.panels.hud.status(status);
                }
            }
        }
        if input.button_pressed[1] && input.ctrl {
            // Ctrl+right-click on an agent: the selected agent's target becomes that one.
            let hit = agent_at(self.travel.shown(&self.history).world(), at);
            if let Some(to) = hit {
                self.retarget(&to);
                return;
            }
        }
        if input.button_pressed[1] && !self.travel.in_past() {
            let world = self.history.session().world();
            if world.in_bounds(tile) {
                let goal = (world.goal != Some(tile)).then_some(tile);
                self.history.set_goal(goal);
                self.panels.hud.status(match goal {
                    Some(g) => format!("goal set to {}, {}", g.x, g.y),
                    None => "goal cleared".into(),
                });
            }
        }
    }
}

impl paint::Painter {
    /// Whether a stroke is in progress (S then paints nothing and is not a save).
    fn active_drag(&self, input: &FrameInput) -> bool {
        self.active && (input.button_down[0] || input.button_down[1])
    }
}

/// The held driving keys as a direction (the letters only when `letters`: paint mode takes S).
fn keyboard_direction(held: &Actions, letters: bool) -> ::glam::IVec2 {
    let any = |dir: Dir| {
        held.has(Action::Drive(dir)) || (letters && held.has(Action::DriveByLetter(dir)))
    };
    ::glam::IVec2::new(
        any(Dir::Right) as i32 - any(Dir::Left) as i32,
        any(Dir::Down) as i32 - any(Dir::Up) as i32,
    )
}

/// The agent whose body is under a world point (the nearest, if bodies overlap).
fn agent_at(world: &World, at: ::glam::DVec2) -> Option<String> {
    world
        .agents
        .iter()
        .filter(|a| a.pos.distance(at) <= a.radius.max(0.45))
        .min_by(|a, b| a.pos.distance(at).total_cmp(&b.pos.distance(at)))
        .map(|a| a.id.clone())
}
