//! Where the host reads script and module files from: the disk by default, or a
//! [`ScriptFiles`] the caller installs (an experiment serves every run the same bytes, read
//! once, with its variant's substitutions). Both a script load and `require` go through
//! [`read_source`]; nothing else here touches the world or the Lua state's other data.

use mlua::Lua;
use std::path::Path;
use std::rc::Rc;

/// A source of script and module files, asked for each file a load or a `require` names.
pub trait ScriptFiles {
    /// The bytes of `path` (as the scene or `require` names it), or why there are none.
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>>;
}

/// The installed source, kept in the Lua state's app data.
pub(super) struct Installed(pub Rc<dyn ScriptFiles>);

/// Reads a script or module: through the installed [`ScriptFiles`], else through the host's
/// sources ([`super::sandbox::read_source`]: pinned bytes in a replay or a branch, else the
/// disk, bounded, regular files only).
pub(super) fn read_source(lua: &Lua, path: &Path) -> std::io::Result<Vec<u8>> {
    let files = lua.app_data_ref::<Installed>().map(|f| Rc::clone(&f.0));
    match files {
        Some(files) => files.read(path),
        None => super::sandbox::read_source(lua, path),
    }
}
