//! The bound on what scripts write with `print`: at most [`AGENT_TICK_BYTES`] per agent per
//! tick and [`TICK_BYTES`] per tick in all (the same bounds the simulation puts on error text,
//! `world::script_error`). Past that, lines are dropped and counted, and one note per tick says
//! how many bytes were dropped and for whom, so a script printing in a loop costs a few lines,
//! not gigabytes of stderr.
//!
//! It counts, writes to stderr (as they are, after a prefix, or not at all: [`Echo`]) and keeps the lines agents printed while deciding, for the
//! host to hand the simulation as trace events (`{"type":"print","agent":ID,"text":...}`);
//! it reads the tick and the deciding agent from what the host already keeps (the current
//! world, the views) and changes nothing else.

use crate::host_memory::Bill;
use agentbox_core::world::ScriptError;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// The most bytes of `print` output one agent may write in one tick.
pub const AGENT_TICK_BYTES: usize = ScriptError::MAX_BYTES;

/// The most bytes of `print` output all agents together may write in one tick.
pub const TICK_BYTES: usize = ScriptError::MAX_BYTES_PER_TICK;

/// Where `print` lines (and the notes on dropped ones) are echoed, besides being kept for the
/// trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Echo {
    /// To standard error as they are (the default).
    #[default]
    Stderr,
    /// To standard error after this prefix and a space (a study's `[variant seed=N]`).
    Prefixed(String),
    /// Nowhere (a study's runs, unless `--prints`).
    Off,
}

/// What was written and dropped in the current tick.
/// Kept in the Lua state's app data (as `Rc<Output>`), used by the sandbox's `print`.
#[derive(Default)]
pub struct Output {
    echo: RefCell<Echo>,
    state: RefCell<State>,
    /// The lines written for an agent since the host last took them: `(agent id, line)`.
    kept: RefCell<Vec<(String, String)>>,
    /// The kept lines' bytes on the bills of the agents that printed them.
    bills: RefCell<Vec<Bill>>,
}

#[derive(Default)]
struct State {
    tick: Option<u64>,
    total: usize,
    /// Bytes written this tick by agent index (`None`: outside a decision, as in `init`).
    written: BTreeMap<Option<usize>, usize>,
    /// Bytes dropped this tick by agent id.
    dropped: BTreeMap<String, usize>,
    dropped_total: usize,
}

impl Output {
    /// Writes one `print` line for `agent` (its index and id) at `tick`, or counts it as
    /// dropped; a line kept for the trace keeps its `bill` (`host_memory.rs`) until taken.
    pub fn print(&self, tick: u64, agent: Option<(usize, &str)>, line: &str, bill: Option<Bill>) {
        if !self.admit(tick, agent, line.len() + 1) {
            return;
        }
        if let Some((_, id)) = agent {
            self.kept
                .borrow_mut()
                .push((id.to_string(), line.to_string()));
            self.bills.borrow_mut().extend(bill);
        }
        self.echo(line);
    }

    /// Counts a line of `len` bytes as dropped, unwritten: `print` measures a line before
    /// it makes it, and does not make one longer than an agent may write in a tick.
    pub fn drop_line(&self, tick: u64, agent: Option<(usize, &str)>, len: usize) {
        let admitted = self.admit(tick, agent, len + 1);
        debug_assert!(!admitted);
    }

    /// Whether a line of `bytes` (with its newline) fits `agent`'s and the tick's bounds:
    /// counted as written if it does, as dropped if not.
    fn admit(&self, tick: u64, agent: Option<(usize, &str)>, bytes: usize) -> bool {
        let mut s = self.state.borrow_mut();
        if s.tick != Some(tick) {
            let note = s.note();
            *s = State {
                tick: Some(tick),
                ..State::default()
            };
            drop(s);
            if let Some(note) = note {
                self.echo(&note);
            }
            s = self.state.borrow_mut();
        }
        let key = agent.map(|(i, _)| i);
        let mine = s.written.get(&key).copied().unwrap_or(0);
        if mine + bytes > AGENT_TICK_BYTES || s.total + bytes > TICK_BYTES {
            let id = agent.map_or("(no agent)", |(_, id)| id).to_string();
            *s.dropped.entry(id).or_insert(0) += bytes;
            s.dropped_total += bytes;
            return false;
        }
        *s.written.entry(key).or_insert(0) += bytes;
        s.total += bytes;
        true
    }

    /// Sets where lines are echoed from now on.
    pub fn set_echo(&self, echo: Echo) {
        *self.echo.borrow_mut() = echo;
    }

    /// Writes a line or a note where [`Echo`] says.
    fn echo(&self, line: &str) {
        match &*self.echo.borrow() {
            Echo::Stderr => eprintln!("{line}"),
            Echo::Prefixed(prefix) => eprintln!("{prefix} {line}"),
            Echo::Off => {}
        }
    }

    /// The lines agents printed (within the bounds) since the last call, in order.
    pub fn take_lines(&self) -> Vec<(String, String)> {
        self.bills.borrow_mut().clear();
        std::mem::take(&mut *self.kept.borrow_mut())
    }

    /// Ends the tick: writes the note on what was dropped, if anything was.
    pub fn end_tick(&self) {
        let note = {
            let mut s = self.state.borrow_mut();
            let note = s.note();
            s.dropped.clear();
            s.dropped_total = 0;
            note
        };
        if let Some(note) = note {
            self.echo(&note);
        }
    }
}

impl State {
    fn note(&self) -> Option<String> {
        if self.dropped_total == 0 {
            return None;
        }
        let (first, _) = self.dropped.iter().max_by_key(|(_, &n)| n)?;
        let others = match self.dropped.len() - 1 {
            0 => String::new(),
            1 => " and 1 other".into(),
            n => format!(" and {n} others"),
        };
        Some(format!(
            "note: tick {}: {} bytes of print output dropped (agent {first}{others}): print writes at most {} KiB per agent and {} KiB in all per tick",
            self.tick.unwrap_or(0),
            self.dropped_total,
            AGENT_TICK_BYTES / 1024,
            TICK_BYTES / 1024
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_agent_and_per_tick_and_starts_over_each_tick() {
        let out = Output::default();
        let line = "x".repeat(1023); // 1 KiB with its newline
        for _ in 0..6 {
            out.print(1, Some((0, "a")), &line, None);
        }
        {
            let s = out.state.borrow();
            assert_eq!(s.written[&Some(0)], 4096);
            assert_eq!(s.dropped["a"], 2048);
        }
        for i in 1..=70 {
            for _ in 0..2 {
                out.print(1, Some((i, "b")), &line, None);
            }
        }
        {
            let s = out.state.borrow();
            assert_eq!(s.total, 64 * 1024);
            assert_eq!(s.dropped_total, 2048 + (140 - 60) * 1024);
            let note = s.note().unwrap();
            assert!(
                note.starts_with(
                    "note: tick 1: 83968 bytes of print output dropped (agent b and 1 other)"
                ),
                "{note}"
            );
        }
        // Only what was written is kept for the trace: 4 lines of a, 60 of the b's.
        let kept = out.take_lines();
        assert_eq!(kept.len(), 4 + 60);
        assert_eq!(kept[0], ("a".to_string(), line.clone()));
        assert!(out.take_lines().is_empty());
        out.print(2, Some((0, "a")), &line, None);
        out.print(2, None, "outside a decision: stderr only", None);
        assert_eq!(out.take_lines().len(), 1);
        let s = out.state.borrow();
        // 1 KiB of a's, and the 32 bytes written outside a decision.
        assert_eq!((s.tick, s.total, s.dropped_total), (Some(2), 1024 + 32, 0));
    }
}
