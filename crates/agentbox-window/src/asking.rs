//! The window's side of the questions (`questions.rs`): the keys that open the prompt, what
//! Enter does with what was typed, the watches' values at the tick shown, the search for the
//! tick where an expression holds (a jump there, paused), and the breakpoint after live ticks.
//! It reads the run (the tick shown, the kept frames) and changes only what is shown.

use super::input::FrameInput;
use super::keymap::{Action, Actions};
use super::questions::Purpose;
use super::Window;
use agentbox_core::world::World;
use agentbox_session::ask::Direction;
use std::rc::Rc;

impl Window {
    /// A question's outcome: in the status line, and on stderr (so a replayed run says it).
    fn say(&mut self, line: String) {
        eprintln!("{line}");
        self.panels.hud.status(line);
    }

    /// The seed questions are asked with (`math.random` in an expression).
    fn question_seed(&self) -> u64 {
        self.history.session().world().seed
    }

    /// The world of the tick shown, to ask a question of: the live one shared, a past one
    /// copied (with the live memories lent to `world:memory` at the live tick).
    fn asked_world(&mut self) -> Rc<World> {
        if self.travel.in_past() {
            self.questions
                .set_memories(self.question_seed(), Default::default());
            return Rc::new(self.travel.shown(&self.history).world().clone());
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
                Err(e) => self.panels.hud.status(format!("breakpoint: {e}")),
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

    /// Jumps (paused) to the nearest tick before or after the one shown where `text` holds,
    /// looked for in the history's kept frames.
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
        let started = std::time::Instant::now();
        let mut asker = match agentbox_session::ask::Asker::new(seed) {
            Ok(a) => a,
            Err(e) => {
                self.panels.hud.status(e);
                return;
            }
        };
        let found = asker.find(frames, text, from, direction, |_, _| {});
        let took = started.elapsed().as_secs_f64();
        let way = match direction {
            Direction::Next => "after",
            Direction::Previous => "before",
        };
        match found {
            Ok(Some(t)) => {
                self.set_view(t);
                self.say(format!(
                    "tick {t}, the nearest {way} {from} where {text} (searched in {took:.2} s)"
                ));
            }
            Ok(None) => self.say(format!("{text} holds at no tick {way} {from}")),
            Err(e) => self.say(format!("find {text}: {e}")),
        }
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
                self.say(format!("breakpoint cleared: at tick {tick}: {e}"));
            }
        }
    }
}
