//! The script and module files of a study, each read once: a [`Library`] shared by every run
//! keeps the bytes of each file the first time any run asks for it, and a [`VariantFiles`]
//! serves one variant's runs, with its substitutions, from that library. A save made while a
//! study runs therefore never mixes versions within it. Files are read from the disk through
//! `agentbox_core::files`, each as the kind the run asks for.

use agentbox_core::files::{Disk, FileKind, Files, ReadError};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// One file as first read: the name it was first asked by, and its bytes or why it could not
/// be read.
struct Entry {
    name: PathBuf,
    bytes: Result<Arc<Vec<u8>>, ReadError>,
}

/// Every file the study's runs have read, by canonical path (or the path as given, where it
/// cannot be made canonical).
#[derive(Default)]
pub struct Library {
    files: Mutex<BTreeMap<PathBuf, Entry>>,
}

/// A poisoned lock still holds good data here: a run that panicked never left an entry half
/// made.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The key a path is stored by: canonical if it can be, else as given.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// SHA-256 of some bytes, as lowercase hex.
pub fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Library {
    /// The bytes of `path`, read from the disk as a `kind` file the first time only.
    pub fn read(&self, path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
        let key = canonical(path);
        let mut files = lock(&self.files);
        let entry = files.entry(key).or_insert_with(|| Entry {
            name: path.to_path_buf(),
            bytes: Disk.read(path, kind).map(Arc::new),
        });
        match &entry.bytes {
            Ok(bytes) => Ok(bytes.as_ref().clone()),
            Err(e) => Err(e.clone()),
        }
    }

    /// Each file read so far, by the name it was first asked by, with the SHA-256 of its bytes
    /// (files that could not be read are left out: their runs count the error).
    pub fn hashes(&self) -> BTreeMap<String, String> {
        lock(&self.files)
            .values()
            .filter_map(|e| {
                let bytes = e.bytes.as_ref().ok()?;
                Some((e.name.display().to_string(), sha256(bytes)))
            })
            .collect()
    }
}

/// One variant's view of the library: a file it substitutes is served from its replacement.
pub struct VariantFiles {
    library: Arc<Library>,
    /// Canonical FROM path to the TO path as given.
    replace: BTreeMap<PathBuf, PathBuf>,
    /// The FROM paths some load asked for.
    used: Mutex<BTreeSet<PathBuf>>,
}

impl VariantFiles {
    /// `replace` holds (FROM, TO) pairs as given on the command line.
    pub fn new(library: Arc<Library>, replace: &[(PathBuf, PathBuf)]) -> Self {
        VariantFiles {
            library,
            replace: replace
                .iter()
                .map(|(from, to)| (canonical(from), to.clone()))
                .collect(),
            used: Mutex::new(BTreeSet::new()),
        }
    }

    /// Whether some load asked for `from` (given as on the command line).
    pub fn was_used(&self, from: &Path) -> bool {
        lock(&self.used).contains(&canonical(from))
    }
}

/// The [`Files`] a run's session reads through (one per run, on the run's thread).
pub struct Reader(pub Arc<VariantFiles>);

impl Files for Reader {
    fn read(&self, path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
        let files = &self.0;
        if !files.replace.is_empty() {
            let key = canonical(path);
            if let Some(to) = files.replace.get(&key) {
                lock(&files.used).insert(key);
                return files.library.read(to, kind);
            }
        }
        files.library.read(path, kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_once_and_substitutions_are_served_from_their_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.lua"), dir.path().join("b.lua"));
        std::fs::write(&a, "A1").unwrap();
        std::fs::write(&b, "B1").unwrap();
        let library = Arc::new(Library::default());
        let plain = Reader(Arc::new(VariantFiles::new(Arc::clone(&library), &[])));
        let swapped = Arc::new(VariantFiles::new(
            Arc::clone(&library),
            &[(a.clone(), b.clone())],
        ));
        assert_eq!(plain.read(&a, FileKind::Script).unwrap(), b"A1");
        std::fs::write(&a, "A2").unwrap();
        assert_eq!(
            plain.read(&a, FileKind::Script).unwrap(),
            b"A1",
            "read once, at the first ask"
        );
        assert!(!swapped.was_used(&a));
        assert_eq!(
            Reader(Arc::clone(&swapped))
                .read(&a, FileKind::Script)
                .unwrap(),
            b"B1"
        );
        assert!(swapped.was_used(&a));
        assert!(plain
            .read(&dir.path().join("none.lua"), FileKind::Script)
            .is_err());
        let hashes = library.hashes();
        assert_eq!(hashes.len(), 2, "{hashes:?}");
        assert_eq!(hashes[&a.display().to_string()], sha256(b"A1"));
    }
}
