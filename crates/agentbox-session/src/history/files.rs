//! The files of a run with a history ([`HistoryFiles`]): where its session reads the scene file,
//! scripts and required modules from. Each read gives the bytes pinned to the path, else (unless
//! strict) the disk's; every read can be logged (path and what it gave), so the history knows
//! the exact text of every version the run loaded. Replaying that history pins those bytes
//! again, so a rewind reads what the original run read, whatever the files say now, and a
//! headless branch pins another file's bytes to a script's path (`--replace SCRIPT=OTHER`).
//!
//! It does not interpret the bytes; it reads the disk only through `agentbox_core::files`.

use agentbox_core::files::{Disk, FileKind, Files, ReadError};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// File contents, shared between the log, the pins and a history's store.
pub type Blob = Rc<[u8]>;

/// What one read of a file gave: its bytes, or why there were none.
pub type FileRead = Result<Blob, ReadError>;

#[derive(Default)]
struct Inner {
    /// Where unpinned reads go (none: the disk).
    base: Option<Rc<dyn Files>>,
    pinned: BTreeMap<PathBuf, FileRead>,
    /// Only pinned paths may be read (a replay: anything else means it went astray).
    strict: bool,
    logging: bool,
    log: Vec<(PathBuf, FileRead)>,
}

/// A shared handle: clones read and pin the same table.
#[derive(Clone, Default)]
pub struct HistoryFiles(Rc<RefCell<Inner>>);

impl HistoryFiles {
    /// Reads everything from the disk, logging nothing.
    pub fn disk() -> Self {
        Self::default()
    }

    /// Reads what is not pinned through `base` instead of the disk (a study's run, with its
    /// variant's substitutions).
    pub fn over(base: Rc<dyn Files>) -> Self {
        let s = Self::default();
        s.0.borrow_mut().base = Some(base);
        s
    }

    /// Reads only what is pinned (a replay of a history).
    pub fn strict() -> Self {
        let s = Self::default();
        s.0.borrow_mut().strict = true;
        s
    }

    /// Whether reads are logged (for [`HistoryFiles::take_log`]).
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

    /// The reads logged since the last call, in order.
    pub fn take_log(&self) -> Vec<(PathBuf, FileRead)> {
        std::mem::take(&mut self.0.borrow_mut().log)
    }
}

impl Files for HistoryFiles {
    /// `path`'s pin, or (unless strict) the disk's bytes, read as `kind`. Logged if logging
    /// is on.
    fn read(&self, path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
        let (pinned, strict, base) = {
            let inner = self.0.borrow();
            let base = inner.base.clone();
            (inner.pinned.get(path).cloned(), inner.strict, base)
        };
        let read = match (pinned, base) {
            (Some(read), _) => read,
            (None, _) if strict => Err(ReadError::NotRecorded),
            (None, Some(base)) => base.read(path, kind).map(Blob::from),
            (None, None) => Disk.read(path, kind).map(Blob::from),
        };
        let result = read.as_deref().map(<[u8]>::to_vec).map_err(Clone::clone);
        let mut inner = self.0.borrow_mut();
        if inner.logging {
            inner.log.push((path.to_path_buf(), read));
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_win_over_the_disk_and_strict_reads_only_pins() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.lua");
        std::fs::write(&a, b"disk").unwrap();
        let s = HistoryFiles::disk();
        s.set_logging(true);
        assert_eq!(s.read(&a, FileKind::Script).unwrap(), b"disk");
        s.pin(&a, Ok(Blob::from(&b"pinned"[..])));
        assert_eq!(s.read(&a, FileKind::Script).unwrap(), b"pinned");
        let log = s.take_log();
        assert_eq!(log.len(), 2);
        assert_eq!(log[0].1, Ok(Blob::from(&b"disk"[..])));
        assert!(s.take_log().is_empty());

        let strict = HistoryFiles::strict();
        let e = strict.read(&a, FileKind::Script).unwrap_err();
        assert_eq!(e, ReadError::NotRecorded);
        assert_eq!(e.to_string(), "not in the recorded history");
        strict.pin(&a, Err(ReadError::Missing("gone".into())));
        let e = strict.read(&a, FileKind::Script).unwrap_err();
        assert!(e.is_missing());
        assert_eq!(e.to_string(), "gone");
    }

    #[test]
    fn an_unpinned_script_is_read_with_the_scripts_limit() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.lua");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(agentbox_core::files::MAX_SCRIPT_BYTES + 1)
            .unwrap();
        let s = HistoryFiles::disk();
        s.set_logging(true);
        let e = s.read(&big, FileKind::Script).unwrap_err();
        assert_eq!(
            e,
            ReadError::TooLarge(agentbox_core::files::MAX_SCRIPT_BYTES)
        );
        assert_eq!(s.take_log()[0].1, Err(e));
    }
}
