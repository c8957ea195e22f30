//! The window's side of the questions (`questions.rs`): the keys that open the prompt, what
//! Enter does with what was typed, the watches' values at the tick shown, the search for the
//! tick where an expression holds (a jump there, paused), and the breakpoint after live ticks.
//! It reads the run (the tick shown, the kept frames) and changes only what is shown.

use super::input::FrameInput;
use super::keymap::{Action, Actions};
use super::questions::Finding;
use super::questions::Purpose;
use super::Window;
use agentbox_core::world::World;
use agentbox_session::ask::{Asker, Direction, Search};
use std::rc::Rc;

/// How many ticks a "tick where" search looks at a frame: counted in ticks, not time, so a
/// replayed window reaches the same state at the same frame (about 15 ms of the 100-agent
/// crowd's history).
pub const FIND_TICKS_PER_FRAME: u64 = 256;

impl Window {
    /// A question's outcome: in the status line, and on stderr (so a replayed run says it).
    fn say(&mut self, line: String) {
        eprintln!("{line}");
        self.panels.hud.status(line);
    }

    /// A question that could not be answered: as [`Window::say`], in the failure's colour.
    fn say_failure(&mut self, line: String) {
        eprintln!("{line}");
        self.panels.hud.failure(line);
    }

    /// The seed questions are asked with (`math.random` in an expression).
    fn question_seed(&self) -> u64 {
        self.history.session().world().seed
    }

    /// The world of the tick shown, to ask a question of: the live one shared, a past one
    /// copied; with that tick's memories lent to `world:memory` (the live ones when a question
    /// reads memory, the kept ones at a past tick).
    fn asked_world(&mut self) -> Rc<World> {
        if self.travel.in_past() {
            let shown = self.travel.shown(&self.history);
            let (memories, world) = (shown.memories_json(), shown.world().clone());
            self.questions.set_memories(self.question_seed(), memories);
            return Rc::new(world);
        }
        if self.questions.reads_memory() {
            let memories = self.history.session().memories_json();
            self.questions.set_memories(self.question_seed(), memories);
        }
        let (world, _) = self.history.session_mut().world_and_host();
        Rc::clone(world)
    }

    /// The map's question keys: open the prompt, find again, remove a watch.
    pub(super) fn handle_question_keys(&mut self, keys: &Actions) {
        for (action, purpose) in [
            (Action::AskWatch, Purpose::Watch),
            (Action::AskFind, Purpose::Find),
            (Action::AskBreak, Purpose::Break),
            (Action::AskConsole, Purpose::Console),
        ] {
            if keys.has(action) {
                self.questions.open(purpose);
            }
        }
        if keys.has(Action::RemoveWatch) {
            if let Some(text) = self.questions.remove_watch(None) {
                self.panels.hud.status(format!("watch removed: {text}"));
            }
        }
        for (action, direction) in [
            (Action::FindNext, Direction::Next),
            (Action::FindPrevious, Direction::Previous),
        ] {
            if keys.has(action) {
                match self.questions.find.clone() {
                    Some(text) => self.find_tick(&text, direction),
                    None => self
                        .panels
                        .hud
                        .status("no search yet: Ctrl+F asks for the tick where".into()),
                }
            }
        }
    }

    /// A frame while the prompt is open: it takes every key.
    pub(super) fn handle_prompt(&mut self, input: &FrameInput, keys: &Actions) {
        if keys.has(Action::Close) {
            self.questions.prompt = None;
            return;
        }
        self.questions
            .type_chars(&input.chars, keys.has(Action::DeleteChar));
        let back = keys.has(Action::SubmitBack);
        if !(keys.has(Action::Submit) || back) {
            return;
        }
        let Some(prompt) = self.questions.prompt.take() else {
            return;
        };
        if prompt.purpose == Purpose::Memory {
            self.submit_memory(prompt);
            return;
        }
        let text = prompt.text.trim().to_string();
        let seed = self.question_seed();
        match prompt.purpose {
            Purpose::Watch if !text.is_empty() => {
                self.questions.add_watch(seed, &text);
                self.say(format!("watching {text}"));
            }
            Purpose::Find if !text.is_empty() => {
                self.questions.find = Some(text.clone());
                let direction = if back {
                    Direction::Previous
                } else {
                    Direction::Next
                };
                self.find_tick(&text, direction);
            }
            Purpose::Break if text.is_empty() => {
                self.questions.breakpoint = None;
                self.say("breakpoint cleared".into());
            }
            Purpose::Break => match self.questions.compile(seed, "breakpoint", &text) {
                Ok(e) => {
                    self.questions.breakpoint = Some((text.clone(), e));
                    self.say(format!("break when {text}"));
                }
                Err(e) => self.panels.hud.failure(format!("breakpoint: {e}")),
            },
            Purpose::Console if !text.is_empty() => self.evaluate(&text),
            _ => {}
        }
    }

    /// The console prompt: `text`'s value at the tick shown, into the console and the status.
    fn evaluate(&mut self, text: &str) {
        let seed = self.question_seed();
        let tick = self.travel.tick(&self.history);
        let world = self.asked_world();
        let line = match self.questions.compile(seed, "console", text) {
            Ok(e) => match self.questions.ask(seed, e, &world) {
                Ok((_, value)) => format!("{text} = {value}"),
                Err(e) => format!("{text}: error: {e}"),
            },
            Err(e) => format!("{text}: {e}"),
        };
        self.records.console.open = true;
        self.records.console.push(tick, "console", &line);
        self.say(format!("console at tick {tick}: {line}"));
    }

    /// Starts the search for the nearest tick before or after the one shown where `text`
    /// holds, in the history's kept frames; [`Window::step_finding`] runs it a frame at a time.
    fn find_tick(&mut self, text: &str, direction: Direction) {
        let from = self.travel.tick(&self.history);
        let seed = self.question_seed();
        let Some(frames) = self.history.frames() else {
            let most = super::timeline::TRAIL_AGENTS;
            self.panels.hud.status(format!(
                "the tick where needs kept frames (a scene of at most {most} agents)"
            ));
            return;
        };
        let mut asker = match Asker::new(seed) {
            Ok(a) => a,
            Err(e) => {
                self.panels.hud.failure(e);
                return;
            }
        };
        match Search::start(&mut asker, frames, text, from, direction) {
            Ok(search) => {
                self.questions.finding = Some(Finding {
                    text: text.to_string(),
                    direction,
                    from,
                    frames: 0,
                    asker,
                    search,
                });
            }
            Err(e) => self.say_failure(format!("find {text}: {e}")),
        }
    }

    /// Runs [`FIND_TICKS_PER_FRAME`] more ticks of the search under way; once it is over, jumps
    /// (paused) to the tick found.
    pub(super) fn step_finding(&mut self) {
        let Some(mut finding) = self.questions.finding.take() else {
            return;
        };
        let Some(frames) = self.history.frames() else {
            self.say_failure(format!("find {}: the kept frames are gone", finding.text));
            return;
        };
        finding.frames += 1;
        let step = finding
            .search
            .step(&mut finding.asker, frames, FIND_TICKS_PER_FRAME);
        let (text, from, n) = (&finding.text, finding.from, finding.frames);
        let way = match finding.direction {
            Direction::Next => "after",
            Direction::Previous => "before",
        };
        match step {
            Ok(None) => self.questions.finding = Some(finding),
            Ok(Some(Some(t))) => {
                self.set_view(t);
                self.say(format!(
                    "tick {t}, the nearest {way} {from} where {text} (searched over {n} frames)"
                ));
            }
            Ok(Some(None)) => self.say(format!("{text} holds at no tick {way} {from}")),
            Err(e) => self.say_failure(format!("find {text}: {e}")),
        }
    }

    /// Esc while a search is under way: stops it where it is (the tick shown stays).
    pub(super) fn cancel_finding(&mut self) -> bool {
        let Some(finding) = self.questions.finding.take() else {
            return false;
        };
        let (done, total) = finding.search.progress();
        self.say(format!(
            "find {} cancelled after {done} of {total} ticks",
            finding.text
        ));
        true
    }

    /// Keeps the watches' values those of the tick shown.
    pub(super) fn update_watches(&mut self) {
        let shown = (self.travel.tick(&self.history), self.travel.in_past());
        if self.questions.is_fresh(shown) {
            return;
        }
        let seed = self.question_seed();
        let world = self.asked_world();
        self.questions.refresh(seed, shown, &world);
    }

    /// After a live tick: pauses when the breakpoint holds (or raises: then it is cleared).
    pub(super) fn check_breakpoint(&mut self) {
        let Some((text, expression)) = self.questions.breakpoint.clone() else {
            return;
        };
        let seed = self.question_seed();
        let world = self.asked_world();
        let tick = world.tick;
        match self.questions.ask(seed, expression, &world) {
            Ok((true, _)) => {
                self.clock.paused = true;
                self.say(format!("breakpoint at tick {tick}: {text}"));
            }
            Ok((false, _)) => {}
            Err(e) => {
                self.clock.paused = true;
                self.questions.breakpoint = None;
                self.say_failure(format!("breakpoint cleared: at tick {tick}: {e}"));
            }
        }
    }
}
