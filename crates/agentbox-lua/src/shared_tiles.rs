//! The tiles of `nav.path`'s paths, shared: one read-only `{x = , y = }` table per tile of a
//! small map, made the first time a path crosses the tile and handed out by every later path.
//! A path is then one new table of references, where it was a table per tile (with the
//! collector's work on each): a crowd asking for paths allocates a tenth of what it did.
//!
//! The tiles belong to the host (no agent's memory is charged for them), are read-only like
//! the engine's other tables (assignment and `rawset` are refused with an error that says
//! so), and are kept for the map's size: a map of another width or height starts a new set.
//! Maps of more than [`MAX_CELLS`] cells get fresh tiles, read-only all the same (a script sees
//! one behaviour whatever the map's size), so the shared set stays under about 2 MB.
//!
//! A tile's id (which tables keyed by tiles hash it by: `vendor/lua-src/PATCHES.md`,
//! `0010-object-hash`) comes from its cell, not from the host's count of what it made so far,
//! so the order a script walks a table keyed by tiles in does not say which tiles other agents
//! asked for first.
//!
//! Must not: hand out a tile of another map size, or change a tile once made.

use crate::budget::Budget;
use agentbox_core::world::Tile;
use mlua::{Lua, Table};
use std::ffi::c_int;
use std::rc::Rc;

/// The largest map (in cells) whose tiles are shared: 128 x 128.
pub const MAX_CELLS: usize = 128 * 128;

/// The host's ids of shared tiles start here (cell 0), far above the few the host's other
/// objects take.
const TILE_IDS: u32 = 1 << 30;

/// What a shared tile is named in errors.
const WHAT: &str = "a tile of a path from nav.path";

/// The shared tiles of the current map size, in the Lua state's app data.
struct SharedTiles {
    width: i32,
    height: i32,
    /// `made[i]`: whether `tiles[i + 1]` holds the tile of cell `i` (row-major).
    made: Vec<bool>,
    /// The tiles by cell number + 1.
    tiles: Table,
    /// Their metatable: `__newindex` refuses, the metatable is locked.
    meta: Table,
}

/// The list of `path`'s tiles (all on a `width` x `height` map) for Lua: shared tiles on small
/// maps, fresh tables otherwise (see the module doc).
pub fn path_list(lua: &Lua, width: i32, height: i32, path: &[Tile]) -> mlua::Result<Table> {
    let cells = width.max(0) as usize * height.max(0) as usize;
    let inside = |t: &Tile| t.x >= 0 && t.y >= 0 && t.x < width && t.y < height;
    if cells > MAX_CELLS || !path.iter().all(inside) {
        return fresh_list(lua, path);
    }
    let tiles = shared(lua, width, height, path)?;
    let n = c_int::try_from(path.len()).unwrap_or(c_int::MAX);
    // Inside `exec_raw` the state is valid and the call is protected; the closure finds the
    // shared set at index 1, pushes the list and one tile at a time (within the stack a C call
    // is guaranteed), then leaves the list alone on the stack as the result.
    // SAFETY: as said above; the closure holds only a borrowed slice, and every tile it reads
    // was made by `shared` just before (a table, never nil).
    unsafe {
        lua.exec_raw::<Table>(tiles, |state| {
            use mlua::ffi;
            ffi::lua_createtable(state, n, 0);
            for (i, t) in path.iter().enumerate() {
                let cell = (t.y * width + t.x) as ffi::lua_Integer + 1;
                ffi::lua_rawgeti(state, 1, cell);
                ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
            }
            ffi::lua_replace(state, 1);
            ffi::lua_settop(state, 1);
        })
    }
}

/// The list of `path`'s tiles as fresh tables, each read-only as a shared one is: for maps too
/// large to share their tiles.
fn fresh_list(lua: &Lua, path: &[Tile]) -> mlua::Result<Table> {
    let meta = tile_meta(lua)?;
    let protected = crate::sandbox::protected_tables(lua)?;
    let n = c_int::try_from(path.len()).unwrap_or(c_int::MAX);
    // Inside `exec_raw` the state is valid and the call is protected; the closure finds the
    // tiles' metatable at index 1 and the protected set at 2, pushes the list and at most four
    // values more (within the stack a C call is guaranteed), then leaves the list alone on the
    // stack as the result. A memory error unwinds past it; it holds only a borrowed slice.
    // SAFETY: as said above; marking a table read-only neither allocates nor raises.
    unsafe {
        lua.exec_raw::<Table>((meta, protected), |state| {
            use mlua::ffi;
            ffi::lua_createtable(state, n, 0);
            for (i, t) in path.iter().enumerate() {
                ffi::lua_createtable(state, 0, 2);
                ffi::lua_pushinteger(state, t.x as ffi::lua_Integer);
                ffi::lua_setfield(state, -2, c"x".as_ptr());
                ffi::lua_pushinteger(state, t.y as ffi::lua_Integer);
                ffi::lua_setfield(state, -2, c"y".as_ptr());
                ffi::lua_pushvalue(state, 1);
                ffi::lua_setmetatable(state, -2);
                crate::ffi::lua_setreadonly(state, -1);
                ffi::lua_pushvalue(state, -1);
                ffi::lua_pushlstring(state, WHAT.as_ptr().cast(), WHAT.len());
                ffi::lua_rawset(state, 2);
                ffi::lua_rawseti(state, -2, i as ffi::lua_Integer + 1);
            }
            ffi::lua_replace(state, 1);
            ffi::lua_settop(state, 1);
        })
    }
}

/// The tiles' metatable (made once, kept in the registry): `__newindex` refuses with an error
/// that says why, and the metatable is locked.
fn tile_meta(lua: &Lua) -> mlua::Result<Table> {
    const KEY: &str = "agentbox.path_tile_meta";
    if let Ok(meta) = lua.named_registry_value::<Table>(KEY) {
        return Ok(meta);
    }
    let meta = lua.create_table()?;
    meta.raw_set(
        "__newindex",
        lua.create_function(|lua, _: mlua::MultiValue| -> mlua::Result<()> {
            Err(crate::errors::located(
                lua,
                format!(
                    "cannot change {WHAT}: it is read-only and shared by every path (copy the numbers into your own table)"
                ),
            ))
        })?,
    )?;
    meta.raw_set("__metatable", "tile (read-only)")?;
    lua.set_named_registry_value(KEY, &meta)?;
    Ok(meta)
}

/// The shared set for this map size, with every tile of `path` made.
fn shared(lua: &Lua, width: i32, height: i32, path: &[Tile]) -> mlua::Result<Table> {
    let fresh = lua
        .app_data_ref::<SharedTiles>()
        .is_none_or(|s| s.width != width || s.height != height);
    let budget = lua.app_data_ref::<Rc<Budget>>().map(|b| Rc::clone(&b));
    // The set, its metatable and every tile are the host's: no agent's memory nor ids.
    let as_host = |f: &dyn Fn() -> mlua::Result<()>| match &budget {
        Some(budget) => budget.as_host(f),
        None => f(),
    };
    if fresh {
        as_host(&|| {
            let tiles = lua.create_table()?;
            let meta = tile_meta(lua)?;
            let cells = (width as usize) * (height as usize);
            lua.set_app_data(SharedTiles {
                width,
                height,
                made: vec![false; cells],
                tiles,
                meta,
            });
            Ok(())
        })?;
    }
    let missing: Vec<Tile> = {
        let s = lua
            .app_data_ref::<SharedTiles>()
            .ok_or_else(|| mlua::Error::runtime("the shared tiles were not kept"))?;
        path.iter()
            .filter(|t| !s.made[(t.y * width + t.x) as usize])
            .copied()
            .collect()
    };
    if !missing.is_empty() {
        as_host(&|| make(lua, width, &missing, budget.as_deref()))?;
    }
    let s = lua
        .app_data_ref::<SharedTiles>()
        .ok_or_else(|| mlua::Error::runtime("the shared tiles were not kept"))?;
    Ok(s.tiles.clone())
}

/// Makes the tiles of `cells` (not yet made) and puts them in the shared set, each with the
/// id of its cell when there is a budget (the host's state).
fn make(lua: &Lua, width: i32, cells: &[Tile], budget: Option<&Budget>) -> mlua::Result<()> {
    let (tiles, meta) = {
        let s = lua
            .app_data_ref::<SharedTiles>()
            .ok_or_else(|| mlua::Error::runtime("the shared tiles were not kept"))?;
        (s.tiles.clone(), s.meta.clone())
    };
    for t in cells {
        let cell = (t.y * width + t.x) as usize;
        if tiles.raw_get::<Option<Table>>(cell + 1)?.is_some() {
            continue;
        }
        let id = TILE_IDS.wrapping_add(cell as u32);
        let make_tile = || lua.create_table_with_capacity(0, 2);
        let tile = match budget {
            Some(budget) => budget.with_next_id(id, make_tile)?,
            None => make_tile()?,
        };
        tile.raw_set("x", t.x)?;
        tile.raw_set("y", t.y)?;
        tile.set_metatable(Some(meta.clone()))?;
        // SAFETY: `exec_raw` pushes the tile; marking it read-only neither allocates nor raises.
        unsafe {
            lua.exec_raw::<()>(&tile, |state| crate::ffi::lua_setreadonly(state, 1))?;
        }
        crate::sandbox::protect(lua, &tile, WHAT)?;
        tiles.raw_set(cell + 1, tile)?;
        if let Some(mut s) = lua.app_data_mut::<SharedTiles>() {
            s.made[cell] = true;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::bindings::check;
    use agentbox_core::world::World;

    fn map(width: usize, height: usize) -> World {
        let row = ".".repeat(width);
        let rows: Vec<&str> = (0..height).map(|_| row.as_str()).collect();
        World::from_ascii(&rows)
    }

    #[test]
    fn paths_share_read_only_tiles_and_the_list_stays_theirs() {
        let code = r#"
            local a = nav.path({0, 0}, {5, 2})
            local b = nav.path({5, 0}, {0, 2})
            assert(#a == 6 and #b == 6)
            assert(a[3].x == 2 and a[3].y == 2 and rawequal(a[3], b[4]), "one tile, shared")
            local ok, err = pcall(function() a[1].x = 9 end)
            assert(not ok and tostring(err):find("read%-only"), tostring(err))
            assert(not pcall(rawset, a[1], "x", 9), "rawset refused")
            assert(a[1].x == 0 and b[6].x == 0, "unchanged")
            table.remove(a, 1)
            a[#a + 1] = {x = 7, y = 7}
            return #a == 6 and a[1].x == 1 and a[6].x == 7
        "#;
        assert_eq!(check(map(6, 3), code), Ok(()));
    }

    #[test]
    fn a_large_maps_paths_get_fresh_tiles_read_only_all_the_same() {
        let code = r#"
            local a = nav.path({0, 0}, {3, 0})
            local b = nav.path({0, 0}, {3, 0})
            assert(not rawequal(a[2], b[2]))
            local ok, err = pcall(function() a[2].x = 9 end)
            assert(not ok and tostring(err):find("read%-only"), tostring(err))
            assert(not pcall(rawset, a[2], "x", 9), "rawset refused")
            assert(getmetatable(a[2]) == "tile (read-only)")
            return a[2].x == 1 and b[2].x == 1
        "#;
        assert_eq!(check(map(200, 100), code), Ok(()));
    }
}
