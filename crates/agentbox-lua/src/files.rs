//! Where the host reads script and module files from: the [`Files`] the caller installs (a
//! session's, with a history's pinned or logged versions; an experiment's, read once), else the
//! disk. Both a script load and `require` go through [`read_script`], which reads every file as
//! a [`FileKind::Script`]; nothing else here touches the world or the Lua state's other data.

use agentbox_core::files::{Disk, FileKind, Files, ReadError};
use mlua::Lua;
use std::path::Path;
use std::rc::Rc;

/// The installed files, kept in the Lua state's app data.
pub(super) struct Installed(pub Rc<dyn Files>);

/// Reads a script or module through the installed [`Files`], else from the disk.
pub(super) fn read_script(lua: &Lua, path: &Path) -> Result<Vec<u8>, ReadError> {
    let files = lua.app_data_ref::<Installed>().map(|f| Rc::clone(&f.0));
    match files {
        Some(files) => files.read(path, FileKind::Script),
        None => Disk.read(path, FileKind::Script),
    }
}
