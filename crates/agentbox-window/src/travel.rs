//! Time travel: the tick shown while the designer looks at the past, the live branch's marks
//! and trails, the ghost of the abandoned branch, and replays parked along the history so a
//! jump replays seconds, not the whole run; and the window's keys and timeline drags for them.
//! Looking at the past changes nothing; only a branch (Space at a past tick) changes the run,
//! through the history.

use super::input::FrameInput;
use super::keymap::{Action, Actions};
use super::timeline::{self, Track, TRAIL_AGENTS};
use agentbox_session::history::{Frame, History, Parked, Replayer, TickView};

/// The window parks a replay every this many ticks of the history (30 s at 30 ticks a second),
/// so a jump replays at most this many ticks.
const PARK_EVERY: u64 = 900;

/// Ticks of replay a frame spends building parked replays (a few ms for 100 agents). Above
/// [`TRAIL_AGENTS`] agents none are built: jumps replay from tick 0.
const PARK_BUDGET: u64 = 120;

/// A past tick the window shows: a frame rebuilt from the history's kept frames (no Lua, a
/// millisecond or two, so scrubbing goes backwards as fast as forwards), or, where the frames
/// do not reach (before the first kept one, a crowd above [`TRAIL_AGENTS`]), a replay.
pub enum PastTick {
    Frame(Box<Frame>),
    Replay(Box<Replayer>),
}

impl PastTick {
    pub fn tick(&self) -> u64 {
        match self {
            PastTick::Frame(f) => f.tick,
            PastTick::Replay(r) => r.tick(),
        }
    }

    pub fn shown(&self) -> &dyn TickView {
        match self {
            PastTick::Frame(f) => &**f,
            PastTick::Replay(r) => r.session(),
        }
    }
}

/// Keeps frames of the history for showing past ticks, up to [`TRAIL_AGENTS`] agents (above,
/// copying every agent's memory text each tick would cost the crowd's tick; jumps replay).
pub fn keep_frames(history: &mut History) {
    let agents = history.session().world().agents.len();
    history.keep_frames(agents <= TRAIL_AGENTS);
}

/// The trails of the last abandoned branch, after its branch point.
pub struct Ghost {
    pub trails: Vec<Vec<[f32; 2]>>,
    /// The branch point.
    pub at: u64,
    /// Drawn (G).
    pub shown: bool,
}

/// What time travel keeps.
pub struct Travel {
    /// The tick shown while looking at the past; `None` shows the live session.
    pub view: Option<PastTick>,
    /// The live branch's marks and trails, for the timeline and the ghost.
    pub track: Track,
    pub ghost: Ghost,
    /// A left press on the timeline is being dragged.
    scrubbing: bool,
    /// Replays parked along the history.
    parked: Parked,
}

impl Travel {
    pub fn new() -> Travel {
        Travel {
            view: None,
            track: Track::default(),
            ghost: Ghost {
                trails: Vec::new(),
                at: 0,
                shown: true,
            },
            scrubbing: false,
            parked: Parked::new(PARK_EVERY),
        }
    }

    /// The tick shown: the past one while looking at the past, else the live session.
    pub fn shown<'a>(&'a self, history: &'a History) -> &'a dyn TickView {
        match &self.view {
            Some(v) => v.shown(),
            None => history.session(),
        }
    }

    /// Whether the window shows a tick before the live end.
    pub fn in_past(&self) -> bool {
        self.view.is_some()
    }

    /// The tick shown.
    pub fn tick(&self, history: &History) -> u64 {
        self.view.as_ref().map_or(history.ticks(), PastTick::tick)
    }

    /// The ghost's ticks (after the branch point), when it is shown.
    pub fn ghost_span(&self) -> Option<(u64, u64)> {
        (self.ghost.shown && !self.ghost.trails.is_empty()).then(|| {
            (
                self.ghost.at,
                self.ghost.at + self.ghost.trails.len() as u64,
            )
        })
    }

    /// The ticks the bar's scale spans (the live branch, or the ghost when it is longer);
    /// scrubbing reaches the live branch's ticks.
    fn bar_span(&self, history: &History) -> u64 {
        let ghost_end = self.ghost_span().map(|(_, end)| end);
        history.ticks().max(ghost_end.unwrap_or(0))
    }

    /// A new history is live (reset, or a session opened): the live end shown, no track, no
    /// ghost trails.
    pub fn restart(&mut self) {
        self.view = None;
        self.track = Track::default();
        self.ghost.trails.clear();
    }

    /// Forgets the parked replays (they belong to another recording).
    pub fn forget_parked(&mut self) {
        self.parked = Parked::new(PARK_EVERY);
    }

    /// Spends this frame's budget parking replays along the history (small runs only).
    pub fn park(&mut self, history: &History) -> Result<(), String> {
        if history.session().world().agents.len() > TRAIL_AGENTS {
            return Ok(());
        }
        self.parked.work(history.recording(), PARK_BUDGET)
    }

    /// Shows tick `to` (the live end shows the live session). On an error the live end is
    /// shown.
    fn show(&mut self, history: &History, to: u64) -> Result<(), String> {
        if to >= history.ticks() {
            self.view = None;
            return Ok(());
        }
        if let Some(frame) = history.frame(to) {
            self.view = Some(PastTick::Frame(Box::new(frame)));
            return Ok(());
        }
        let reuse = match self.view.take() {
            Some(PastTick::Replay(r)) if r.tick() <= to && r.follows(history.recording()) => {
                Some(*r)
            }
            _ => None,
        };
        let replayer = match reuse {
            Some(r) => Ok(r),
            None => self.parked.take(history.recording(), to),
        };
        let r = replayer.and_then(|mut r| r.advance_to(to, |_, _| {}).map(|()| r))?;
        self.view = Some(PastTick::Replay(Box::new(r)));
        Ok(())
    }

    /// The replay at the tick shown, to branch from (`None` at the live end). A frame has no
    /// Lua state: the replay parked below goes on to its tick. On an error the tick stays
    /// shown.
    fn take_branch_point(&mut self, history: &History) -> Result<Option<Replayer>, String> {
        match self.view.take() {
            None => Ok(None),
            Some(PastTick::Replay(r)) => Ok(Some(*r)),
            Some(PastTick::Frame(f)) => match self.parked.take(history.recording(), f.tick) {
                Ok(r) => Ok(Some(r)),
                Err(e) => {
                    let message = format!("cannot branch at tick {}: {e}", f.tick);
                    self.view = Some(PastTick::Frame(f));
                    Err(message)
                }
            },
        }
    }
}

impl super::Window {
    /// Shows tick `to` (the live end shows the live session); pauses.
    pub(super) fn set_view(&mut self, to: u64) {
        self.clock.paused = true;
        if let Err(e) = self.travel.show(&self.history, to) {
            eprintln!("{e}");
            self.panels
                .hud
                .failure(format!("cannot show tick {to}: {e}"));
        }
    }

    /// Space at a past tick: the replay there becomes the live run, with today's files.
    fn branch_here(&mut self) {
        let replayer = match self.travel.take_branch_point(&self.history) {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(e) => {
                self.panels.hud.failure(e);
                return;
            }
        };
        let at = replayer.tick();
        // Play after a rewind uses the sliders' values as they are now.
        let live = self.history.session();
        let now: Vec<(String, f64)> = live
            .scene()
            .tunables
            .iter()
            .map(|t| (t.name.clone(), live.tunable_value(t)))
            .collect();
        let (_, reloads) = self.history.branch_from(replayer);
        for (name, value) in now {
            let session = self.history.session();
            let t = session.scene().tunables.iter().find(|t| t.name == name);
            if t.is_some_and(|t| session.tunable_value(t) != value) {
                self.history.set_tunable(&name, value);
            }
        }
        self.records.cut(at);
        let ghost = self.travel.track.cut(at);
        if !ghost.is_empty() {
            self.travel.ghost.trails = ghost;
            self.travel.ghost.at = at;
        }
        let mut status = format!("branched at tick {at}");
        for reload in &reloads {
            eprintln!("{reload}");
            status = format!("{status}; {reload}");
        }
        self.panels.hud.status(status);
        self.clock.paused = false;
    }

    /// Keys for time: pause/branch, stepping and jumping, the ghost, saving the session.
    pub(super) fn handle_time_keys(&mut self, input: &FrameInput, keys: &Actions) {
        if keys.has(Action::PlayPause) {
            if self.travel.in_past() {
                self.branch_here();
            } else {
                self.clock.paused = !self.clock.paused;
            }
        }
        let rate = self.history.session().world().tick_rate.max(1) as u64;
        let step = if input.ctrl {
            10 * rate
        } else if input.shift {
            rate
        } else {
            1
        };
        if keys.has(Action::StepBack) {
            let to = self.travel.tick(&self.history).saturating_sub(step);
            self.set_view(to);
        }
        if keys.has(Action::StepForward) && self.clock.paused {
            if self.travel.in_past() {
                let to = self.travel.tick(&self.history) + step;
                self.set_view(to);
            } else {
                self.clock.step_once = true;
            }
        }
        if keys.has(Action::ToEnd) {
            self.travel.view = None;
        }
        if keys.has(Action::ToggleGhost) {
            let ghost = &mut self.travel.ghost;
            ghost.shown = !ghost.shown;
            let word = if ghost.shown { "shown" } else { "hidden" };
            self.panels.hud.status(format!("ghost {word}"));
        }
        if keys.has(Action::SaveSession) {
            self.save_session();
        }
    }

    /// A left press on the timeline scrubs while it is held; true if the timeline took it.
    pub(super) fn handle_timeline(&mut self, input: &FrameInput) -> bool {
        if input.button_pressed[0] && timeline::rect().contains(input.mouse) {
            self.travel.scrubbing = true;
        }
        if !self.travel.scrubbing {
            return false;
        }
        if input.button_down[0] || input.button_pressed[0] || input.button_released[0] {
            let to = timeline::tick_at(input.mouse.x, self.travel.bar_span(&self.history));
            if to != self.travel.tick(&self.history) || !self.clock.paused {
                self.set_view(to);
            }
        }
        if input.button_released[0] || !input.button_down[0] {
            self.travel.scrubbing = false;
        }
        true
    }
}
