//! `api`: the Lua API as editor stubs, a reference page, a `.luarc.json` or a `.luacheckrc`.

use super::say;
use std::io;
use std::path::Path;
use std::process::ExitCode;
pub(super) fn api(
    stubs: bool,
    markdown: bool,
    luarc: bool,
    luacheckrc: bool,
    write: bool,
) -> io::Result<ExitCode> {
    use agentbox_lua::registry;
    if write {
        for (path, text) in registry::generated() {
            let path = Path::new(path);
            let written = path
                .parent()
                .map_or(Ok(()), |p| {
                    if p.as_os_str().is_empty() {
                        Ok(())
                    } else {
                        std::fs::create_dir_all(p)
                    }
                })
                .and_then(|()| std::fs::write(path, text));
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
