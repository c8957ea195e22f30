//! What scripts `plot(name, value)` (the global, bound in `bindings/globals.rs`): values for
//! the window's chart and for `--monitors`. Many
//! agents plotting one name in one tick are folded by the name's rule (sum, mean or last; the
//! scene's `monitors.plots`, mean when not stated) by whoever reads them; this file only keeps
//! each name's sum, count and last value for the tick.
//!
//! Display only: `plot` returns nothing, draws no random number and writes nothing a script or
//! the trace can read. When nobody collects plots (a headless run without `--monitors`), a call
//! costs one lookup and keeps nothing.

use super::ScriptHost;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// One name's values within one tick.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub sum: f64,
    pub count: u64,
    pub last: f64,
}

/// At most this many names per tick (a script plotting in a loop with new names each time
/// costs this much and no more).
pub(crate) const MAX_NAMES: usize = 256;

/// The most bytes of a name. With [`MAX_NAMES`], a tick's plots hold at most 16 KiB of
/// names: fixed bounds rather than the agents' memory account (`host_memory.rs`), since a
/// refusal would change the run, and plots must not whether anything collects them.
pub(crate) const MAX_NAME_BYTES: usize = 64;

/// The tick's plotted values, by name (kept in the Lua state's app data while collecting).
#[derive(Default)]
pub(crate) struct Plots(pub(crate) RefCell<BTreeMap<String, Tally>>);

/// The registry entry of the table whose `on` says whether plots are collected (read by the
/// global `plot` of every sandbox, `bindings/globals.rs`; one table for the Lua state).
pub(crate) const STATE: &str = "agentbox.plot_state";

impl ScriptHost {
    /// Starts (or stops) keeping what scripts plot; stopped, `plot` keeps nothing.
    ///
    /// Called every tick by the window: when it changes nothing it touches no table. Every
    /// sandbox's `plot` reads the one state table, and only this sets its `on`, so the
    /// collecting tally (the app data) says what `on` holds.
    pub fn collect_plots(&mut self, on: bool) {
        if self.lua.app_data_ref::<Rc<Plots>>().is_some() == on {
            return;
        }
        if let Ok(state) = crate::registry_table(&self.lua, STATE) {
            let _ = state.raw_set("on", on);
        }
        if on {
            self.lua.set_app_data(Rc::new(Plots::default()));
        } else {
            self.lua.remove_app_data::<Rc<Plots>>();
        }
    }

    /// What scripts plotted since the last call, by name (empty when not collecting).
    pub fn take_plots(&mut self) -> BTreeMap<String, Tally> {
        self.lua
            .app_data_ref::<Rc<Plots>>()
            .and_then(|p| {
                p.0.try_borrow_mut()
                    .ok()
                    .map(|mut m| std::mem::take(&mut *m))
            })
            .unwrap_or_default()
    }
}
