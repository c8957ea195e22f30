//! What scripts cause besides their actions, on the host's side: the round's queue of effects
//! (`world:send`, `world:broadcast`, `world:noise`, `world:spawn`, `world:set_tile` and
//! `self:remove()` push to it; the simulation takes it with the tick's remarks and applies it
//! between ticks), the ids spawned this round, the `self` methods that read what reached an
//! agent (`self:inbox()`, `self:heard()`) or touch it (`self:touching()`), and messages as
//! plain values (`to_message`).
//!
//! It only collects what scripts asked for; it never changes the world itself.

use crate::bindings::charge;
use crate::convert::json_to_lua;
use crate::errors::located;
use crate::views;
use agentbox_core::world::effects::MAX_MESSAGE_BYTES;
use agentbox_core::world::{Effect, World};
use mlua::{Lua, Table, Value};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// The default of the scene's `budget.max_agents`.
pub const DEFAULT_MAX_AGENTS: usize = 50_000;

/// The round's effects and what spawning has used of the ids and the agent limit.
pub struct Acts {
    queue: RefCell<Vec<(usize, Effect)>>,
    /// The queue's bytes on the bills of the agents that asked, given back when it is taken.
    bills: RefCell<Vec<crate::host_memory::Bill>>,
    /// The highest number given to each kind this round (`KIND-N`).
    numbers: RefCell<BTreeMap<String, u64>>,
    /// Agents spawned this round.
    spawned: Cell<usize>,
    /// Agents that asked to leave this round (asking twice is asking once).
    leaving: RefCell<BTreeSet<usize>>,
    /// The scene's `budget.max_agents`.
    pub max_agents: Cell<usize>,
}

impl Default for Acts {
    fn default() -> Self {
        Acts {
            queue: Default::default(),
            bills: Default::default(),
            numbers: Default::default(),
            spawned: Cell::new(0),
            leaving: Default::default(),
            max_agents: Cell::new(DEFAULT_MAX_AGENTS),
        }
    }
}

impl Acts {
    /// Forgets the last round's ids and counts (its effects were taken).
    pub fn begin_round(&self) {
        self.numbers.borrow_mut().clear();
        self.spawned.set(0);
        self.leaving.borrow_mut().clear();
        self.queue.borrow_mut().clear();
        self.bills.borrow_mut().clear();
    }

    /// The effects asked for since the round began, in call order. The simulation hands the
    /// list back emptied ([`Self::give_back`]), so the next round queues into its room (a
    /// talking crowd queues about as many each tick; growing the queue from empty again cost
    /// as much as the queueing, and a new list each tick was a large allocation).
    pub fn take(&self) -> Vec<(usize, Effect)> {
        self.bills.borrow_mut().clear();
        std::mem::take(&mut *self.queue.borrow_mut())
    }

    /// Takes back the list [`Self::take`] gave, emptied, as the next round's queue (unless
    /// something was queued since, which keeps its own).
    pub fn give_back(&self, mut effects: Vec<(usize, Effect)>) {
        effects.clear();
        let mut queue = self.queue.borrow_mut();
        if queue.is_empty() && queue.capacity() < effects.capacity() {
            *queue = effects;
        }
    }

    /// Queues an effect, on the bill of the agent whose call asked (`host_memory.rs`) until
    /// the round's queue is taken: a script sending in a loop is stopped at its quota.
    pub fn push(&self, lua: &Lua, index: usize, effect: Effect) -> mlua::Result<()> {
        let bill = crate::host_memory::keep(lua, QUEUED, effect_bytes(&effect))?;
        self.push_billed(index, effect, bill);
        Ok(())
    }

    /// Queues an effect whose bill was kept already ([`keep_for`]).
    pub(crate) fn push_billed(&self, index: usize, effect: Effect, bill: crate::host_memory::Bill) {
        self.queue.borrow_mut().push((index, effect));
        self.bills.borrow_mut().push(bill);
    }

    /// Whether the world and this round's spawns are at `budget.max_agents`.
    pub(crate) fn at_limit(&self, world: &World) -> bool {
        world.agents.len() + self.spawned.get() >= self.max_agents.get()
    }

    /// A new id `KIND-N` for a spawn this round, or an error past `budget.max_agents`.
    pub fn spawn_id(&self, lua: &Lua, world: &World, kind: &str) -> mlua::Result<String> {
        if self.at_limit(world) {
            let max = self.max_agents.get();
            return Err(located(
                lua,
                format!(
                    "world:spawn: the scene is at its limit of {max} agents (budget.max_agents)"
                ),
            ));
        }
        let (id, n) = self.next_id(world, kind);
        self.take_id(kind, n);
        Ok(id)
    }

    /// The id the next spawn of `kind` would get, and its number, without taking it.
    pub(crate) fn next_id(&self, world: &World, kind: &str) -> (String, u64) {
        let numbers = self.numbers.borrow();
        let mut n = numbers
            .get(kind)
            .copied()
            .unwrap_or(0)
            .max(world.numbers.get(kind).copied().unwrap_or(0));
        loop {
            n += 1;
            // Not `format!`, which cost as much as the rest of the call.
            let mut id = String::with_capacity(kind.len() + 8);
            id.push_str(kind);
            id.push('-');
            push_number(&mut id, n);
            if world.agent_index(&id).is_none() {
                return (id, n);
            }
        }
    }

    /// Takes number `n` of `kind` ([`Self::next_id`]) for one more spawn this round.
    pub(crate) fn take_id(&self, kind: &str, n: u64) {
        let mut numbers = self.numbers.borrow_mut();
        match numbers.get_mut(kind) {
            Some(top) => *top = n,
            None => drop(numbers.insert(kind.to_string(), n)),
        }
        self.spawned.set(self.spawned.get() + 1);
    }

    /// Whether agent `index` already asked to leave this round (and from now on, it has).
    fn leaves(&self, index: usize) -> bool {
        !self.leaving.borrow_mut().insert(index)
    }
}

/// Appends `n` in decimal to `text`.
fn push_number(text: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    text.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// The state's acts (installed by the host).
pub fn get(lua: &Lua) -> mlua::Result<Rc<Acts>> {
    lua.app_data_ref::<Rc<Acts>>()
        .map(|a| Rc::clone(&a))
        .ok_or_else(|| mlua::Error::RuntimeError("the effects queue is not installed".into()))
}

/// The agent deciding now (its index), for a call only an agent's own script may make.
pub fn deciding(lua: &Lua, what: &str) -> mlua::Result<usize> {
    match views::get(lua)?.deciding() {
        Some((_, i)) => Ok(i),
        None => Err(located(
            lua,
            format!("{what} can only be used by an agent's script, inside init or decide"),
        )),
    }
}

/// A message as a plain value: nil, booleans, numbers, strings and tables of those (lists
/// `1..n` or string keys), no cycles, no functions, userdata or views, at most
/// [`MAX_MESSAGE_BYTES`] as JSON text; anything else is a located error naming `what`.
pub fn to_message(lua: &Lua, value: &Value, what: &str) -> mlua::Result<serde_json::Value> {
    let mut seen = Vec::new();
    let mut count = 0;
    let json = plain(lua, value, what, &mut seen, &mut count)?;
    let bytes = serde_json::to_string(&json)
        .map(|s| s.len())
        .unwrap_or(usize::MAX);
    if bytes > MAX_MESSAGE_BYTES {
        return Err(located(
            lua,
            format!("{what}: a message is at most {MAX_MESSAGE_BYTES} bytes as JSON text, got {bytes}: send ids and numbers, not whole tables"),
        ));
    }
    Ok(json)
}

fn plain(
    lua: &Lua,
    value: &Value,
    what: &str,
    seen: &mut Vec<usize>,
    count: &mut usize,
) -> mlua::Result<serde_json::Value> {
    // Every value is at least a byte of JSON: past the limit, stop walking.
    *count += 1;
    if *count > MAX_MESSAGE_BYTES {
        return too_long(lua, what);
    }
    let bad = |why: String| Err(located(lua, format!("{what}: {why}")));
    Ok(match value {
        Value::Nil => serde_json::Value::Null,
        Value::Boolean(b) => serde_json::Value::Bool(*b),
        Value::Integer(i) => serde_json::Value::from(*i),
        Value::Number(n) => match serde_json::Number::from_f64(*n) {
            Some(n) => serde_json::Value::Number(n),
            None => return bad(format!("a message holds only finite numbers, got {n}")),
        },
        Value::String(s) => {
            // Counted before it is copied: a long string is refused uncopied.
            *count += s.as_bytes().len();
            if *count > MAX_MESSAGE_BYTES {
                return too_long(lua, what);
            }
            match s.to_str() {
                Ok(s) => serde_json::Value::String(s.to_string()),
                Err(_) => return bad("a message's strings must be UTF-8 text".into()),
            }
        }
        Value::Table(t) => {
            if t.metatable().is_some() {
                return bad("a message holds plain tables only, not an agent view, action or locked table (send its id)".into());
            }
            let ptr = t.to_pointer() as usize;
            if seen.contains(&ptr) {
                return bad("a message cannot hold a cycle (a table inside itself)".into());
            }
            seen.push(ptr);
            let out = table(lua, t, what, seen, count)?;
            seen.pop();
            out
        }
        other => {
            return bad(format!(
                "a message holds nil, booleans, numbers, strings and tables of those, not a {}",
                other.type_name()
            ))
        }
    })
}

/// The error of a message found longer than [`MAX_MESSAGE_BYTES`] while it is read.
fn too_long<T>(lua: &Lua, what: &str) -> mlua::Result<T> {
    Err(located(
        lua,
        format!("{what}: a message is at most {MAX_MESSAGE_BYTES} bytes as JSON text"),
    ))
}

fn table(
    lua: &Lua,
    t: &Table,
    what: &str,
    seen: &mut Vec<usize>,
    count: &mut usize,
) -> mlua::Result<serde_json::Value> {
    let mut list = Vec::new();
    let mut map = serde_json::Map::new();
    for pair in t.pairs::<Value, Value>() {
        let (key, value) = pair?;
        match key {
            Value::Integer(k) if map.is_empty() && k >= 1 => {
                list.push((k, plain(lua, &value, what, seen, count)?));
            }
            Value::String(k) if list.is_empty() => {
                *count += k.as_bytes().len();
                if *count > MAX_MESSAGE_BYTES {
                    return too_long(lua, what);
                }
                let Ok(k) = k.to_str().map(|k| k.to_string()) else {
                    return Err(located(lua, format!("{what}: a message's keys must be UTF-8 text")));
                };
                let v = plain(lua, &value, what, seen, count)?;
                map.insert(k, v);
            }
            _ => {
                return Err(located(
                    lua,
                    format!("{what}: a message's tables are lists (keys 1..n) or records (string keys), not both or other keys"),
                ))
            }
        }
    }
    if !list.is_empty() {
        list.sort_by_key(|(k, _)| *k);
        if list
            .iter()
            .enumerate()
            .any(|(i, (k, _))| *k != i as i64 + 1)
        {
            return Err(located(
                lua,
                format!("{what}: a message's lists have keys 1..n with no holes"),
            ));
        }
        return Ok(serde_json::Value::Array(
            list.into_iter().map(|(_, v)| v).collect(),
        ));
    }
    Ok(serde_json::Value::Object(map))
}

/// What the queue's bills are called in a memory stop's message.
const QUEUED: &str = "queued effects";

/// Keeps what `effect` costs while queued on the bill of the agent whose call runs, with the
/// state's `budget` ([`Acts::push`] without a `Lua`); `None` when its quota refuses it.
pub(crate) fn keep_for(
    budget: Option<&Rc<crate::budget::Budget>>,
    effect: &Effect,
) -> Option<crate::host_memory::Bill> {
    crate::host_memory::keep_in(budget, QUEUED, effect_bytes(effect)).ok()
}

/// What an effect costs the host while it is queued: its slot, its strings and lists, and a
/// message at its largest (counting it would mean writing it out again).
fn effect_bytes(effect: &Effect) -> usize {
    let text = |s: &str| crate::host_memory::string_bytes(s.len());
    std::mem::size_of::<(usize, Effect)>()
        + match effect {
            Effect::Message { from, to, .. } => {
                text(from) + to.iter().map(|r| 8 + text(r.id())).sum::<usize>() + MAX_MESSAGE_BYTES
            }
            Effect::Noise {
                from,
                kind,
                hearers,
                ..
            } => {
                text(from)
                    + kind.as_deref().map_or(0, text)
                    + hearers.iter().map(|(id, _)| 8 + text(id)).sum::<usize>()
            }
            Effect::Spawn {
                by,
                id,
                kind,
                params,
                ..
            } => text(by.id()) + text(id) + text(kind) + 64 * params.len(),
            Effect::Remove { agent } => text(agent),
            Effect::Tile { by, .. } => text(by),
        }
}

/// The registry names of the `self` methods this module hands out (`views::fill` gives them
/// at each read, never kept on `self`).
pub const SELF_METHODS: [(&str, &str); 4] = [
    ("inbox", "agentbox.self.inbox"),
    ("heard", "agentbox.self.heard"),
    ("remove", "agentbox.self.remove"),
    ("touching", "agentbox.self.touching"),
];

/// Every `self` method's name (`label` too), in the order of their slots in
/// [`self_methods`]' list part: slot `k + 1` holds the function of `METHOD_NAMES[k]`, so
/// `raw::field_index` hands one out with an integer read once it knows the key's string.
pub const METHOD_NAMES: [&str; 5] = ["inbox", "heard", "remove", "touching", "label"];

/// The registry name of `self:NAME` if it is one of the engine's methods (`label` too).
pub fn self_method(name: &[u8]) -> Option<&'static str> {
    if name == b"label" {
        return Some(crate::label::REGISTRY);
    }
    SELF_METHODS
        .iter()
        .find(|(n, _)| n.as_bytes() == name)
        .map(|(_, r)| *r)
}

/// The deciding agent's index, when `this` is its own `self` (called with a colon).
fn own_self(lua: &Lua, this: &Value, name: &str) -> mlua::Result<usize> {
    let views = views::get(lua)?;
    let Some((_, index)) = views.deciding() else {
        return Err(located(
            lua,
            format!("self:{name} can only be used inside init or decide"),
        ));
    };
    if !views.is_deciding_self(this) {
        return Err(located(
            lua,
            format!("self:{name}: call it on your own self, with a colon: self:{name}()"),
        ));
    }
    Ok(index)
}

/// Puts the raw twin of `self:inbox()` (`raw::inbox`) in front of its mlua function.
pub fn install_raw(lua: &Lua, context: &Rc<crate::raw::RawContext>) -> mlua::Result<()> {
    let (name, registry) = SELF_METHODS[0];
    let full: mlua::Function = lua.named_registry_value(registry)?;
    let inbox = ReadOnlyInbox::get(lua)?;
    set_self_method(
        lua,
        name,
        registry,
        crate::raw::inbox(lua, context, full, inbox)?,
    )
}

/// What a read-only inbox is called in the error a write to it raises.
const INBOX: &str = "the inbox (self:inbox())";

/// What makes `self:inbox()`'s lists read-only: their metatable (a write raises a located
/// error that says so, the metatable is locked) and the one empty list every agent without
/// letters gets, made once and shared (most agents of a talking crowd have none in a tick:
/// a fresh empty table for each was most of what reading the inbox cost).
#[derive(Clone)]
pub struct ReadOnlyInbox {
    pub meta: Table,
    pub empty: Table,
}

impl ReadOnlyInbox {
    const META: &str = "agentbox.inbox.meta";
    const EMPTY: &str = "agentbox.inbox.empty";

    /// Makes them (the host's, once per state) and keeps them in the registry.
    fn make(lua: &Lua) -> mlua::Result<()> {
        let meta = lua.create_table()?;
        meta.raw_set(
            "__newindex",
            lua.create_function(|lua, _: mlua::MultiValue| -> mlua::Result<()> {
                Err(located(
                    lua,
                    format!(
                        "cannot change {INBOX}: it is read-only; keep your own data in self.memory"
                    ),
                ))
            })?,
        )?;
        meta.raw_set("__metatable", "inbox (read-only)")?;
        crate::sandbox::protect_by_metatable(lua, &meta, INBOX)?;
        let empty = lua.create_table()?;
        lock(lua, &empty, &meta)?;
        lua.set_named_registry_value(Self::META, meta)?;
        lua.set_named_registry_value(Self::EMPTY, empty)
    }

    pub fn get(lua: &Lua) -> mlua::Result<ReadOnlyInbox> {
        Ok(ReadOnlyInbox {
            meta: lua.named_registry_value(Self::META)?,
            empty: lua.named_registry_value(Self::EMPTY)?,
        })
    }
}

/// Makes `list` read-only with the inbox's metatable `meta`.
fn lock(lua: &Lua, list: &Table, meta: &Table) -> mlua::Result<()> {
    list.set_metatable(Some(meta.clone()))?;
    // SAFETY: `exec_raw` pushes the list at 1; marking it read-only neither allocates nor
    // raises.
    unsafe {
        lua.exec_raw::<()>(list, |state| {
            crate::ffi::lua_setreadonly(state, 1);
        })
    }
}

/// Installs the queue and the `self` methods.
pub fn install(lua: &Lua) -> mlua::Result<()> {
    lua.set_app_data(Rc::new(Acts::default()));
    ReadOnlyInbox::make(lua)?;
    let read_only = ReadOnlyInbox::get(lua)?;
    let inbox = lua.create_function(move |lua, this: Value| {
        let index = own_self(lua, &this, "inbox")?;
        crate::bindings::with_world(lua, "self:inbox", |w| {
            let letters = (w.agents.get(index))
                .and_then(|a| a.deliveries.as_deref())
                .map_or(&[][..], |d| &d.inbox[..]);
            if letters.is_empty() {
                return Ok(read_only.empty.clone());
            }
            charge(lua, letters.len() as u64)?;
            let list = lua.create_table_with_capacity(letters.len(), 0)?;
            for (n, letter) in letters.iter().enumerate() {
                let t = lua.create_table_with_capacity(0, 3)?;
                t.raw_set("from", &*letter.from)?;
                t.raw_set("tick", letter.tick)?;
                t.raw_set("msg", json_to_lua(lua, &letter.msg)?)?;
                list.raw_set(n + 1, t)?;
            }
            lock(lua, &list, &read_only.meta)?;
            Ok(list)
        })
    })?;
    let heard = lua.create_function(|lua, this: Value| {
        let index = own_self(lua, &this, "heard")?;
        crate::bindings::with_world(lua, "self:heard", |w| {
            let list = lua.create_table()?;
            let Some(d) = w.agents.get(index).and_then(|a| a.deliveries.as_deref()) else {
                return Ok(list);
            };
            charge(lua, d.heard.len() as u64)?;
            for (n, h) in d.heard.iter().enumerate() {
                let t = lua.create_table_with_capacity(0, 4)?;
                t.raw_set("from", h.from.as_str())?;
                let pos = lua.create_table_with_capacity(0, 2)?;
                pos.raw_set("x", h.pos.x)?;
                pos.raw_set("y", h.pos.y)?;
                t.raw_set("pos", pos)?;
                t.raw_set("kind", h.kind.as_deref())?;
                t.raw_set("distance", h.distance)?;
                list.raw_set(n + 1, t)?;
            }
            Ok(list)
        })
    })?;
    let remove = lua.create_function(|lua, this: Value| {
        let index = own_self(lua, &this, "remove")?;
        crate::bindings::with_world(lua, "self:remove", |w| {
            let acts = get(lua)?;
            if let Some(agent) = w.agents.get(index) {
                if !acts.leaves(index) {
                    acts.push(
                        lua,
                        index,
                        Effect::Remove {
                            agent: agent.id.clone(),
                        },
                    )?;
                }
            }
            Ok(())
        })
    })?;
    let touching = lua.create_function(|lua, this: Value| {
        let index = own_self(lua, &this, "touching")?;
        crate::bindings::with_world(lua, "self:touching", |w| {
            let near = w.touching(index);
            charge(lua, 1 + 8 * near.len() as u64)?;
            let views = views::get(lua)?;
            let list = lua.create_table_with_capacity(near.len(), 0)?;
            for (n, j) in near.into_iter().enumerate() {
                list.raw_set(n + 1, views.view(lua, w, j)?)?;
            }
            Ok(list)
        })
    })?;
    for ((name, registry), f) in SELF_METHODS.iter().zip([inbox, heard, remove, touching]) {
        set_self_method(lua, name, registry, f)?;
    }
    Ok(())
}

/// The `self` methods by their names (`inbox`, `label`...), the same functions the registry
/// keeps under their registry names: the table `self`'s raw `__index` (`raw::field_index`)
/// finds them in by the key it was given, without making the registry name's string; and by
/// their slots ([`METHOD_NAMES`]), where it finds them once it knows the key's string by its
/// address (`Views::method_slot`).
pub fn self_methods(lua: &Lua) -> mlua::Result<Table> {
    const KEY: &str = "agentbox.self.methods";
    if let Ok(t) = lua.named_registry_value::<Table>(KEY) {
        return Ok(t);
    }
    let t = lua.create_table()?;
    lua.set_named_registry_value(KEY, &t)?;
    Ok(t)
}

/// Sets `self:NAME`'s function under its registry name and in [`self_methods`].
pub fn set_self_method(
    lua: &Lua,
    name: &str,
    registry: &str,
    f: mlua::Function,
) -> mlua::Result<()> {
    let methods = self_methods(lua)?;
    methods.raw_set(name, &f)?;
    if let Some(k) = METHOD_NAMES.iter().position(|&n| n == name) {
        methods.raw_set(k + 1, &f)?;
    }
    lua.set_named_registry_value(registry, f)
}

#[cfg(test)]
mod tests {
    /// An id's number is written as `format!` would.
    #[test]
    fn numbers_are_written_in_decimal() {
        for n in [0, 7, 10, 99, 100, 12_345, u64::MAX] {
            let mut text = String::from("drone-");
            super::push_number(&mut text, n);
            assert_eq!(text, format!("drone-{n}"));
        }
    }
}
