//! The keymap's table: every binding of the window, by mode. Edit here, then run
//! `BLESS=1 cargo test -p agentbox-window keys_md` to regenerate `docs/keys.md`. Within a mode,
//! rows are listed (in the F1 help, the search panel and the docs) in this order; a row's
//! `help` text is its line in its mode's key list, `what` its line in the docs.

use super::{Action as A, Chord, Dir, Key, Mode, Need, Row};
use crate::overlays::Overlay;
use macroquad::prelude::KeyCode as K;

/// A key with any modifiers.
const fn key(code: K) -> Chord {
    Chord {
        key: Key::Code(code),
        ctrl: Need::Any,
        shift: Need::Any,
    }
}

/// A key with Ctrl held.
const fn ctrl(code: K) -> Chord {
    Chord {
        ctrl: Need::Held,
        ..key(code)
    }
}

/// A key without Ctrl (Shift either way).
const fn no_ctrl(code: K) -> Chord {
    Chord {
        ctrl: Need::Free,
        ..key(code)
    }
}

/// A key with Shift held (Ctrl either way).
const fn shift(code: K) -> Chord {
    Chord {
        shift: Need::Held,
        ..key(code)
    }
}

/// A key without Shift (Ctrl either way).
const fn no_shift(code: K) -> Chord {
    Chord {
        shift: Need::Free,
        ..key(code)
    }
}

/// A key with Ctrl held and Shift not.
const fn ctrl_only(code: K) -> Chord {
    Chord {
        shift: Need::Free,
        ..ctrl(code)
    }
}

/// A key with Ctrl and Shift held.
const fn ctrl_shift(code: K) -> Chord {
    Chord {
        shift: Need::Held,
        ..ctrl(code)
    }
}

/// A typed character.
const fn typed(c: char) -> Chord {
    Chord {
        key: Key::Char(c),
        ctrl: Need::Any,
        shift: Need::Any,
    }
}

const MAP: &[Mode] = &[Mode::Map];
const SEARCH: &[Mode] = &[Mode::Search];
const SESSIONS: &[Mode] = &[Mode::Sessions];
const MESSAGE: &[Mode] = &[Mode::Message];
const PROMPT: &[Mode] = &[Mode::Prompt];

/// The keymap. Within a mode, rows are listed (in the help, the search panel and the docs) in
/// this order.
pub const TABLE: &[Row] = &[
    // The map: its help lists these rows' short texts, in this order.
    Row {
        modes: &[Mode::Map, Mode::Search],
        mouse: None,
        keys: &[(key(K::F1), A::Help), (typed('?'), A::Help)],
        what: "help: every key of the map, and every overlay with what it shows (also in the search mode)",
        help: Some("this help"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::Space), A::PlayPause)],
        what: "pause / run. At a past tick: branch, that is play on from the chosen tick with the scripts as they are now (new code from the next tick); the old future becomes the ghost",
        help: Some("pause / run; in the past: branch, play on with today's scripts"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::Period), A::StepForward), (key(K::N), A::StepForward)],
        what: "one tick forward while paused: along the history while looking at the past, else runs a tick. With Shift one second, with Ctrl ten seconds (in the past)",
        help: Some("one tick while paused (in the past: Shift one second, Ctrl ten)"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::Comma), A::StepBack)],
        what: "one tick back (pauses); with Shift one second, with Ctrl ten seconds",
        help: Some("one tick back (pauses); Shift: one second, Ctrl: ten"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::End), A::ToEnd)],
        what: "back to the latest tick (the live end)",
        help: Some("back to the latest tick"),
    },
    Row {
        modes: MAP,
        mouse: Some("drag the timeline"),
        keys: &[],
        what: "scrub: a left-drag on the timeline (the bottom bar) pauses and shows the chosen tick (world, overlays and inspector)",
        help: Some("scrub: show a past tick (world, overlays, inspector)"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[
            (key(K::LeftBracket), A::Slower),
            (key(K::RightBracket), A::Faster),
        ],
        what: "slower / faster (x0.25 .. x8)",
        help: Some("slower / faster (x0.25 .. x8)"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::R), A::Reset)],
        what: "reset to the scene's start: a new history from the files as they are now (a fresh Lua state, so module locals start over too)",
        help: Some("reset to the scene's start"),
    },
    Row {
        modes: MAP,
        mouse: Some("wheel"),
        keys: &[(no_ctrl(K::Equal), A::ZoomIn), (no_ctrl(K::Minus), A::ZoomOut)],
        what: "zoom at the cursor",
        help: Some("zoom at the cursor"),
    },
    Row {
        modes: MAP,
        mouse: Some("middle-drag"),
        keys: &[],
        what: "pan",
        help: Some("pan"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(no_shift(K::F), A::Fit), (key(K::Home), A::Fit)],
        what: "fit the map to the area the docked panels leave (and stop following)",
        help: Some("fit the map to the window"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(shift(K::F), A::Follow)],
        what: "follow the inspected agent: the camera keeps it at the centre of the map (zooming keeps following; a pan, a fit or Shift+F again stops; an orange frame shows it is on)",
        help: Some("follow the inspected agent (again: stop)"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(ctrl(K::Equal), A::UiLarger), (ctrl(K::Minus), A::UiSmaller)],
        what: "a larger / smaller UI scale: every panel's text and the docks grow or shrink together (x0.75 .. x2.5; text is 13 px or more at x1); kept for the next run, with the docks' sizes (see docs/cli.md, \"The window's settings\")",
        help: Some("larger / smaller text and panels (UI scale)"),
    },
    Row {
        modes: MAP,
        mouse: Some("click a panel's header / drag its edge"),
        keys: &[],
        what: "the panels are docked beside the map, never over it: help, tunables, plots and watches on the left, the inspector on the right, errors and the console at the bottom. A click on a dock's header collapses it to a strip (again: opens it); a left-drag on its inner edge resizes it (the size is kept for the next run). The map fits what is left",
        help: Some("panel header: collapse; panel edge: drag to resize"),
    },
    Row {
        modes: MAP,
        mouse: Some("left-click"),
        keys: &[],
        what: "inspect an agent; a left-drag moves it",
        help: Some("inspect an agent (drag it to move it)"),
    },
    Row {
        modes: MAP,
        mouse: Some("right-click"),
        keys: &[],
        what: "set or clear the goal scripts read with `world:goal()`",
        help: Some("set the goal scripts read with world:goal()"),
    },
    Row {
        modes: MAP,
        mouse: Some("Ctrl+right-click an agent"),
        keys: &[],
        what: "retarget the selected agent: the first of its `params` naming another agent of the scene (`prey: evader`) names the one clicked, written into the scene file where it stands and applied at once as a scene reload (its memory kept)",
        help: None,
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::U), A::Resume)],
        what: "resume the inspected agent after a budget or memory stop",
        help: Some("resume the inspected agent after a budget or memory stop"),
    },
    Row {
        modes: MAP,
        mouse: Some("click an error"),
        keys: &[],
        what: "show the whole message",
        help: Some("show the whole message"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::Escape), A::Close)],
        what: "cancel a tick-where search under way, else close the help, else deselect, else quit",
        help: Some("close a panel, or quit"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::P), A::TogglePaint)],
        what: "paint mode: a left-drag paints, a right-drag erases",
        help: Some("paint mode: left-drag paints, right-drag erases"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::T), A::NextBrush)],
        what: "next terrain brush",
        help: Some("next terrain to paint"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(ctrl(K::Z), A::Undo)],
        what: "undo the last paint stroke; with the tunables panel open, the last slider change or reset instead",
        help: Some("undo the last paint stroke (the last slider change if Tab is open)"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(ctrl(K::S), A::Save), (no_ctrl(K::S), A::SaveInPaintMode)],
        what: "one save: the painted map and the tunables' values into the scene file, comments kept (S alone in paint mode only: outside it S drives)",
        help: Some("save the painted map and the tunables into the scene file (S in paint mode)"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::Tab), A::ToggleTunables), (key(K::J), A::ToggleTunables)],
        what: "open / close the tunables and plots panel (docked on the left). A left-drag on a slider sets that tunable from the next tick (recorded as a history input; in the past the sliders show that tick's values and do not move); \"reset to the scene's\" puts every tunable back to the scene file's value (recorded)",
        help: Some("tunables and plots panel (a slider sets from the next tick, recorded)"),
    },
    Row {
        modes: &[Mode::Map, Mode::Message],
        mouse: None,
        keys: &[
            (key(K::Left), A::Drive(Dir::Left)),
            (key(K::Right), A::Drive(Dir::Right)),
            (key(K::Up), A::Drive(Dir::Up)),
            (key(K::Down), A::Drive(Dir::Down)),
            (no_ctrl(K::W), A::DriveByLetter(Dir::Up)),
            (no_ctrl(K::A), A::DriveByLetter(Dir::Left)),
            (no_ctrl(K::S), A::DriveByLetter(Dir::Down)),
            (no_ctrl(K::D), A::DriveByLetter(Dir::Right)),
        ],
        what: "held: drive keyboard agents (`control: keyboard`); WASD only outside paint mode and without Ctrl",
        help: Some("drive control: keyboard agents"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::G), A::ToggleGhost)],
        what: "show / hide the ghost: the faded trails of the abandoned branch",
        help: Some("ghost of the old branch"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(ctrl(K::E), A::SaveSession)],
        what: "save the session file (scene, every script version, inputs) beside the scene and print the headless command that replays the last branch",
        help: Some("save the session, print the branch's headless command"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::F9), A::RecordClip)],
        what: "record a clip: every frame from now goes into an animated GIF beside the scene, `SCENE.clip-N.gif` (the first free N: `chase.clip-1.gif`); F9 again ends it and says how many frames it wrote (`run --frames N --gif FILE` records a whole run)",
        // The F1 help is full at 1024x768 (its test): docs/keys.md lists it.
        help: None,
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[
            (no_ctrl(K::I), A::PlaceAgent),
            (key(K::Insert), A::PlaceAgent),
            (key(K::Delete), A::DeleteAgent),
            (ctrl(K::I), A::AddRouteTile),
        ],
        what: "place an agent on the tile under the mouse (a copy of the selected agent's entry, with the id `KIND-N`; `agent-N` when none is selected) / delete the selected agent / add the tile under the mouse to the end of the selected keyboard agent's `route:` (the scene's `waypoints:` when no keyboard agent is selected): each written into the scene file, comments kept (an edit whose scene would not load is refused), and applied at once as a scene reload that keeps every other agent as it is (recorded, so replays and sessions repeat it)",
        // The F1 help is full at 1024x768 (its test): docs/keys.md lists these.
        help: None,
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(ctrl(K::O), A::OpenSessions)],
        what: "open a saved session: a list of the `*.session.json` files beside the scene",
        help: Some("open a saved session beside the scene (arrows, Enter, Esc)"),
    },
    Row {
        modes: &[Mode::Message, Mode::Search],
        mouse: None,
        keys: &[(ctrl(K::O), A::OpenSessions)],
        what: "open a saved session, as in the map",
        help: None,
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::C), A::ToggleConsole)],
        what: "console: `print` output stamped with tick and agent (the last 1,000 lines); click a line to show only its agent, click the console's title to show every agent again",
        help: Some("console: print output by tick and agent (click a line: that agent only)"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[
            (ctrl_only(K::W), A::AskWatch),
            (no_shift(K::Slash), A::AskFind),
            (ctrl(K::B), A::AskBreak),
            (key(K::GraveAccent), A::AskConsole),
        ],
        what: "ask the run a Lua expression of the read-only `world` (as `expect:` checks get it): a watch, shown at the tick shown at the bottom of the left dock / the tick where it holds (Enter: next, Shift+Enter: previous; looked for in the kept history without touching the run, a fixed number of ticks a frame under a progress bar; Esc cancels it) / a breakpoint (play pauses after the first live tick where it holds; empty clears it) / the console prompt (its value at the tick shown, printed into the console). At a past tick `world:memory(id)` is that tick's memory",
        // The F1 help is full at 1024x768 (its test): docs/keys.md lists these.
        help: None,
    },
    Row {
        modes: MAP,
        mouse: Some("click a watch"),
        keys: &[
            (no_shift(K::K), A::FindNext),
            (shift(K::K), A::FindPrevious),
            (ctrl_shift(K::W), A::RemoveWatch),
        ],
        what: "the last tick-where search again, forwards / backwards; remove the last watch (a click on a watch removes it)",
        help: None,
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::L), A::ToggleLabels)],
        what: "state labels (`self:label`) over the agents (on at start)",
        help: Some("state labels (self:label) over the agents"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::V), A::ToggleDrawings)],
        what: "debug drawing: the shapes scripts drew with `draw.*` at the tick shown (recorded per tick, so scrubbing shows them)",
        help: Some("debug drawing: the scripts' draw.* shapes"),
    },
    Row {
        modes: MAP,
        mouse: Some("click the decision strip"),
        keys: &[],
        what: "a left-click on the strip under the inspector jumps to that tick of the selected agent's history (as scrubbing the timeline)",
        help: None,
    },
    Row {
        modes: MAP,
        mouse: Some("click a memory value"),
        keys: &[],
        what: "edit the inspected agent's `self.memory`: a click on a number, string or boolean of the inspector's memory view, at the top level or in a table inside it (`goal.x`, `route[2]`), opens the prompt line with its value; Enter sets it from the next tick (a number must read as one, a boolean is `true` or `false` and empty toggles it, a string is taken as typed), recorded as input so replays and session files repeat it; a bad value changes nothing and says why. Not in the past (Space branches first)",
        help: None,
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[(key(K::Q), A::ToggleSearch)],
        what: "open the search mode (below). The simulation pauses while it is open",
        help: Some("search mode: clicks place start/goal, Enter step, Shift+Enter run, M H X choose"),
    },
    Row {
        modes: MAP,
        mouse: None,
        keys: &[
            (key(K::Key1), A::Overlay(Overlay::Routes)),
            (key(K::Key2), A::Overlay(Overlay::Sight)),
            (key(K::Key3), A::Overlay(Overlay::Crumbs)),
            (key(K::Key4), A::Overlay(Overlay::Waypoints)),
            (key(K::Key5), A::Overlay(Overlay::Search)),
            (key(K::Key6), A::Overlay(Overlay::Weights)),
            (key(K::Key7), A::Overlay(Overlay::Probes)),
            (key(K::Key8), A::Overlay(Overlay::Forces)),
            (key(K::Key9), A::Overlay(Overlay::Heat)),
            (key(K::Key0), A::Overlay(Overlay::Bodies)),
            (no_ctrl(K::O), A::Overlay(Overlay::Flow)),
            (no_ctrl(K::Y), A::Overlay(Overlay::Messages)),
        ],
        what: "overlays, one key each (listed below); the sight overlay (2) also draws the `nav.los`/`nav.sees` calls scripts made at the tick shown, with each `nav.sees` cone",
        help: None,
    },
    // An error message shown whole.
    Row {
        modes: MESSAGE,
        mouse: Some("left-click"),
        keys: &[(key(K::Escape), A::Close)],
        what: "close the message",
        help: None,
    },
    // The session list.
    Row {
        modes: SESSIONS,
        mouse: None,
        keys: &[(key(K::Up), A::PreviousRow), (key(K::Down), A::NextRow)],
        what: "choose a session file",
        help: None,
    },
    Row {
        modes: SESSIONS,
        mouse: Some("left-click a row"),
        keys: &[(key(K::Enter), A::OpenRow)],
        what: "open the chosen session: replayed to its last tick, paused",
        help: None,
    },
    Row {
        modes: SESSIONS,
        mouse: None,
        keys: &[(key(K::Escape), A::Close)],
        what: "close the list",
        help: None,
    },
    // The search mode: its panel lists these rows' short texts, in this order.
    Row {
        modes: SEARCH,
        mouse: Some("left-click"),
        keys: &[],
        what: "place the start (instead of inspecting)",
        help: None,
    },
    Row {
        modes: SEARCH,
        mouse: Some("right-click"),
        keys: &[],
        what: "place the goal (instead of the world goal)",
        help: None,
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[(no_shift(K::Enter), A::SearchStep)],
        what: "one expansion, in every pane",
        help: Some("one expansion"),
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[(shift(K::Enter), A::SearchRun)],
        what: "run the search animated at the speed shown in the panel; again to pause",
        help: Some("run / pause"),
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[(key(K::Backspace), A::ClearSearch)],
        what: "clear start, goal and search",
        help: Some("clear"),
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[
            (key(K::M), A::CycleAlgorithm),
            (key(K::H), A::CycleHeuristic),
            (key(K::X), A::CycleDiagonal),
        ],
        what: "the algorithm (A* and JPS side by side, Dijkstra and A* side by side, A*, JPS, Dijkstra: A* with a zero heuristic), the heuristic (octile, Manhattan, Euclidean, zero), the diagonal rule (no corner cutting, never, if one side is free, always); with Shift, back. A click on the panel's row does the same",
        help: Some("algorithm, heuristic, diagonal (Shift: back)"),
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[(key(K::End), A::ToEnd)],
        what: "the last step: every pane's search as it ended",
        help: Some("the last step"),
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[
            (key(K::LeftBracket), A::Slower),
            (key(K::RightBracket), A::Faster),
        ],
        what: "slower / faster animation (1 to 500 expansions a second)",
        help: Some("animation speed"),
    },
    Row {
        modes: SEARCH,
        mouse: Some("wheel"),
        keys: &[(key(K::Equal), A::ZoomIn), (key(K::Minus), A::ZoomOut)],
        what: "zoom at the cursor (every pane together)",
        help: None,
    },
    Row {
        modes: SEARCH,
        mouse: Some("middle-drag"),
        keys: &[],
        what: "pan",
        help: None,
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[(key(K::F), A::Fit), (key(K::Home), A::Fit)],
        what: "fit the map to the panes",
        help: None,
    },
    Row {
        modes: SEARCH,
        mouse: None,
        keys: &[(key(K::Escape), A::Close), (key(K::Q), A::ToggleSearch)],
        what: "leave the search mode (Esc closes the help first when it is shown)",
        help: None,
    },
    // The question prompt: it takes every key; typed characters go into the line.
    Row {
        modes: PROMPT,
        mouse: None,
        keys: &[(no_shift(K::Enter), A::Submit), (shift(K::Enter), A::SubmitBack)],
        what: "ask (for the tick where: the next tick) / the tick where, backwards",
        help: Some("ask / backwards"),
    },
    Row {
        modes: PROMPT,
        mouse: None,
        keys: &[(key(K::Backspace), A::DeleteChar)],
        what: "delete the last character",
        help: Some("delete a character"),
    },
    Row {
        modes: PROMPT,
        mouse: None,
        keys: &[(key(K::Escape), A::Close)],
        what: "close the prompt",
        help: Some("close"),
    },
];
