//! `api`: the Lua API as editor stubs, a reference page, a `.luarc.json` or a `.luacheckrc`,
//! printed or written into a folder of scripts (`--write DIR`).

use super::say;
use std::io;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
pub(super) fn api(
    stubs: bool,
    markdown: bool,
    luarc: bool,
    luacheckrc: bool,
    write: Option<PathBuf>,
) -> io::Result<ExitCode> {
    use agentbox_lua::registry;
    if let Some(dir) = write {
        // The reference page belongs to agentbox's own docs: written only into a checkout.
        let checkout = dir.join("crates/agentbox-lua/src/registry.rs").is_file();
        for (path, text) in registry::generated() {
            if path == registry::REFERENCE_PAGE && !checkout {
                continue;
            }
            let path = if dir == Path::new(".") {
                PathBuf::from(path)
            } else {
                dir.join(path)
            };
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, text));
            if let Err(e) = written {
                eprintln!("{}: error: cannot write: {e}", path.display());
                return Ok(ExitCode::FAILURE);
            }
            say(format_args!("wrote {}\n", path.display()))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let text = if markdown {
        registry::markdown()
    } else if luarc {
        registry::luarc()
    } else if luacheckrc {
        registry::luacheckrc()
    } else {
        let _ = stubs; // the default
        registry::stubs()
    };
    say(format_args!("{text}"))?;
    Ok(ExitCode::SUCCESS)
}
