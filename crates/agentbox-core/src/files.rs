//! Reading the designer's input files with bounds: the one reader of scene files, script and
//! module files, the watcher's hashes of them, saved sessions and MovingAI benchmark files.
//! Only regular files are read (a FIFO never ends, `/dev/zero` and `/dev/urandom` are endless,
//! `/proc` files report size 0), and each [`FileKind`] at most its own number of bytes, so a
//! wrong path costs an error, not the machine's memory or a hang.
//!
//! Every reader of those files goes through the [`Files`] trait: [`Disk`] here, and above the
//! core the history's recorded files (pinned or logged) and a study's files read once. A read
//! that fails says why with one type, [`ReadError`].
//!
//! It only reads: it knows no file format and names no other module of the crate.

use std::io::Read as _;
use std::path::Path;

/// The largest scene file read, in bytes (32 MiB: a 4096x4096 map with its indentation).
pub const MAX_SCENE_BYTES: u64 = 32 * 1024 * 1024;

/// The largest script or module file read, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 4 * 1024 * 1024;

/// The largest saved session read, in bytes (it holds every version of every file a run read).
pub const MAX_RECORDING_BYTES: u64 = 256 * 1024 * 1024;

/// The largest MovingAI `.map` or `.scen` file read, in bytes (the benchmark sets' largest
/// maps are 1024x1024 cells, about 1 MiB).
pub const MAX_MOVINGAI_BYTES: u64 = 64 * 1024 * 1024;

/// What a file is read as, which sets the most bytes it may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A scene file ([`MAX_SCENE_BYTES`]).
    Scene,
    /// A script or a module a script requires ([`MAX_SCRIPT_BYTES`]).
    Script,
    /// A file the watcher hashes to tell a real change from a touch: a scene, script or
    /// module, so the largest of them ([`MAX_SCENE_BYTES`]).
    Watched,
    /// A saved session ([`MAX_RECORDING_BYTES`]).
    Recording,
    /// A MovingAI `.map` or `.scen` file ([`MAX_MOVINGAI_BYTES`]).
    MovingAi,
}

impl FileKind {
    /// The most bytes a file of this kind may have.
    pub const fn max_bytes(self) -> u64 {
        match self {
            FileKind::Scene | FileKind::Watched => MAX_SCENE_BYTES,
            FileKind::Script => MAX_SCRIPT_BYTES,
            FileKind::Recording => MAX_RECORDING_BYTES,
            FileKind::MovingAi => MAX_MOVINGAI_BYTES,
        }
    }
}

/// Why a file could not be read. Its text (`Display`) is what messages and saved sessions
/// show; a saved session keeps only that text and whether the file was missing, so two errors
/// are equal when they agree on both (an error read back from a session file equals the one
/// recorded, whatever variant it was).
#[derive(Clone, Debug, thiserror::Error)]
pub enum ReadError {
    /// Nothing is at the path: the system's message.
    #[error("{0}")]
    Missing(String),
    /// The path is a folder, a FIFO, a socket or a device (`"a folder"`, `"a FIFO"`...).
    #[error("{0}, not a regular file (only regular files are read)")]
    NotRegular(&'static str),
    /// The file is larger than its kind may be: the most it may have, in bytes.
    #[error("larger than {}, the most a file may have", size_text(*.0))]
    TooLarge(u64),
    /// A replay asked for a file its history did not record.
    #[error("not in the recorded history")]
    NotRecorded,
    /// Any other failure (permission denied, an I/O error) in the system's words, or a
    /// failure a saved session recorded, by its text.
    #[error("{0}")]
    Other(String),
}

impl ReadError {
    /// Whether nothing was at the path (as opposed to a file that could not be read).
    pub fn is_missing(&self) -> bool {
        matches!(self, ReadError::Missing(_))
    }
}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        match e.kind() {
            std::io::ErrorKind::NotFound => ReadError::Missing(e.to_string()),
            _ => ReadError::Other(e.to_string()),
        }
    }
}

impl PartialEq for ReadError {
    fn eq(&self, other: &Self) -> bool {
        self.is_missing() == other.is_missing() && self.to_string() == other.to_string()
    }
}

impl Eq for ReadError {}

/// Where files are read from: the disk ([`Disk`]), a run's recorded history, or a study's
/// files read once. Every read of a scene, script or module goes through one.
pub trait Files {
    /// The bytes of `path` (as the scene or `require` names it), read as a `kind` file, or
    /// why there are none.
    fn read(&self, path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError>;
}

/// The disk: regular files only, each kind at most its [`FileKind::max_bytes`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Disk;

impl Files for Disk {
    fn read(&self, path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
        read_bounded(path, kind.max_bytes())
    }
}

/// Reads a regular file of at most `max` bytes. A folder, FIFO, socket or device is refused
/// before it is opened (opening a FIFO blocks until a writer comes); a larger file is refused
/// after reading `max + 1` bytes at most.
fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    let kind = std::fs::metadata(path)?;
    if !kind.is_file() {
        return Err(not_regular(&kind));
    }
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(max) as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge(max));
    }
    Ok(bytes)
}

fn not_regular(meta: &std::fs::Metadata) -> ReadError {
    ReadError::NotRegular(if meta.is_dir() {
        "a folder"
    } else {
        kind_name(meta)
    })
}

#[cfg(unix)]
fn kind_name(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn kind_name(_: &std::fs::Metadata) -> &'static str {
    "a special file"
}

/// `4 MiB`, `512 KiB`, `100 bytes`.
fn size_text(bytes: u64) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        format!("{} MiB", bytes / (1024 * 1024))
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_small_regular_files_and_refuses_large_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_bounded(&path, 5).unwrap(), b"12345");
        let e = read_bounded(&path, 4).unwrap_err();
        assert_eq!(e, ReadError::TooLarge(4));
        assert_eq!(
            e.to_string(),
            "larger than 4 bytes, the most a file may have"
        );
        let e = read_bounded(dir.path(), 100).unwrap_err().to_string();
        assert!(e.starts_with("a folder, not a regular file"), "{e}");
        let e = Disk.read(&dir.path().join("none"), FileKind::Script);
        assert!(e.unwrap_err().is_missing());
    }

    #[test]
    fn each_kind_is_read_with_its_own_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.lua");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_SCRIPT_BYTES + 1).unwrap();
        assert_eq!(
            Disk.read(&path, FileKind::Script),
            Err(ReadError::TooLarge(MAX_SCRIPT_BYTES))
        );
        for kind in [FileKind::Scene, FileKind::Watched, FileKind::Recording] {
            let bytes = Disk.read(&path, kind).unwrap();
            assert_eq!(bytes.len() as u64, MAX_SCRIPT_BYTES + 1, "{kind:?}");
        }
    }

    #[test]
    fn errors_are_equal_by_what_a_session_file_keeps_of_them() {
        let large = ReadError::TooLarge(MAX_SCRIPT_BYTES);
        assert_eq!(large, ReadError::Other(large.to_string()));
        assert_ne!(large, ReadError::Missing(large.to_string()));
        assert_ne!(ReadError::NotRecorded, ReadError::Other("other".into()));
        let gone = ReadError::from(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(gone.is_missing());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn refuses_devices_proc_files_and_fifos_without_blocking() {
        for dev in ["/dev/zero", "/dev/urandom", "/dev/null"] {
            let e = read_bounded(Path::new(dev), MAX_SCENE_BYTES)
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("a character device, not a regular file"),
                "{dev}: {e}"
            );
        }
        // /proc files are "regular" with size 0 and endless or changing content: the cap holds.
        let e = read_bounded(Path::new("/proc/self/maps"), 16)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("larger than 16 bytes"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(
            made.is_ok_and(|s| s.success()),
            "mkfifo is needed for this test"
        );
        let e = read_bounded(&fifo, 100).unwrap_err().to_string();
        assert!(e.starts_with("a FIFO, not a regular file"), "{e}");
    }

    #[test]
    fn sizes_read_plainly() {
        assert_eq!(size_text(4 * 1024 * 1024), "4 MiB");
        assert_eq!(size_text(4096), "4 KiB");
        assert_eq!(size_text(100), "100 bytes");
    }
}
