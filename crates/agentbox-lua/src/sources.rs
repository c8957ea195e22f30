//! Where a session reads its scene file, scripts and required modules from: the disk, or bytes
//! pinned to a path. Every read can be logged (path and what it gave), so a run's history knows
//! the exact text of every version it loaded; replaying that history pins those bytes again,
//! so a rewind reads what the original run read, whatever the files say now, and a headless
//! branch pins another file's bytes to a script's path (`--replace SCRIPT=OTHER`).
//!
//! Plain Rust (no Lua): the script host keeps a handle for `require` and script loads, the
//! session for the scene file. It does not interpret the bytes.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// File contents, shared between the log, the pins and a history's store.
pub type Blob = Rc<[u8]>;

/// What reading a path gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRead {
    Bytes(Blob),
    /// The read failed: whether the file was missing, and the error's text.
    Failed {
        missing: bool,
        message: String,
    },
}

impl FileRead {
    /// What a read that gave `result` recorded.
    pub fn from_result(result: &io::Result<Vec<u8>>) -> FileRead {
        match result {
            Ok(bytes) => FileRead::Bytes(Rc::from(bytes.as_slice())),
            Err(e) => FileRead::Failed {
                missing: e.kind() == io::ErrorKind::NotFound,
                message: e.to_string(),
            },
        }
    }

    fn to_result(&self) -> io::Result<Vec<u8>> {
        match self {
            FileRead::Bytes(b) => Ok(b.to_vec()),
            FileRead::Failed { missing, message } => Err(io::Error::new(
                if *missing {
                    io::ErrorKind::NotFound
                } else {
                    io::ErrorKind::Other
                },
                message.clone(),
            )),
        }
    }
}

#[derive(Default)]
struct Inner {
    pinned: BTreeMap<PathBuf, FileRead>,
    /// Only pinned paths may be read (a replay: anything else means it went astray).
    strict: bool,
    logging: bool,
    log: Vec<(PathBuf, FileRead)>,
}

/// A shared handle: clones read and pin the same table.
#[derive(Clone, Default)]
pub struct Sources(Rc<RefCell<Inner>>);

impl Sources {
    /// Reads everything from the disk, logging nothing.
    pub fn disk() -> Self {
        Self::default()
    }

    /// Reads only what is pinned (a replay of a history).
    pub fn strict() -> Self {
        let s = Self::default();
        s.0.borrow_mut().strict = true;
        s
    }

    /// Whether reads are logged (for [`Sources::take_log`]).
    pub fn set_logging(&self, on: bool) {
        self.0.borrow_mut().logging = on;
    }

    /// From now on, reading `path` gives `read` instead of the file.
    pub fn pin(&self, path: &Path, read: FileRead) {
        self.0.borrow_mut().pinned.insert(path.to_path_buf(), read);
    }

    /// Forgets every pin.
    pub fn unpin_all(&self) {
        self.0.borrow_mut().pinned.clear();
    }

    /// Whether only pinned paths may be read.
    pub fn set_strict(&self, on: bool) {
        self.0.borrow_mut().strict = on;
    }

    /// What `path` is pinned to, if it is.
    pub fn pinned(&self, path: &Path) -> Option<FileRead> {
        self.0.borrow().pinned.get(path).cloned()
    }

    /// Reads `path`: its pin, or (unless strict) `from_disk`. Logged if logging is on.
    pub fn read(
        &self,
        path: &Path,
        from_disk: impl FnOnce(&Path) -> io::Result<Vec<u8>>,
    ) -> io::Result<Vec<u8>> {
        let (pinned, strict) = {
            let inner = self.0.borrow();
            (inner.pinned.get(path).cloned(), inner.strict)
        };
        let (result, read) = match pinned {
            Some(read) => (read.to_result(), read),
            None if strict => {
                let read = FileRead::Failed {
                    missing: false,
                    message: "not in the recorded history".into(),
                };
                (read.to_result(), read)
            }
            None => {
                let result = from_disk(path);
                let read = FileRead::from_result(&result);
                (result, read)
            }
        };
        let mut inner = self.0.borrow_mut();
        if inner.logging {
            inner.log.push((path.to_path_buf(), read));
        }
        result
    }

    /// The reads logged since the last call, in order.
    pub fn take_log(&self) -> Vec<(PathBuf, FileRead)> {
        std::mem::take(&mut self.0.borrow_mut().log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_win_over_the_disk_and_strict_reads_only_pins() {
        let disk = |_: &Path| Ok(b"disk".to_vec());
        let s = Sources::disk();
        s.set_logging(true);
        assert_eq!(s.read(Path::new("a.lua"), disk).unwrap(), b"disk");
        s.pin(
            Path::new("a.lua"),
            FileRead::Bytes(Rc::from(&b"pinned"[..])),
        );
        assert_eq!(s.read(Path::new("a.lua"), disk).unwrap(), b"pinned");
        let log = s.take_log();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].1, FileRead::Bytes(Rc::from(&b"disk"[..])));
        assert!(s.take_log().is_empty());

        let strict = Sources::strict();
        let e = strict.read(Path::new("b.lua"), disk).unwrap_err();
        assert!(e.to_string().contains("not in the recorded history"), "{e}");
        strict.pin(
            Path::new("b.lua"),
            FileRead::Failed {
                missing: true,
                message: "gone".into(),
            },
        );
        let e = strict.read(Path::new("b.lua"), disk).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        assert_eq!(e.to_string(), "gone");
    }
}
