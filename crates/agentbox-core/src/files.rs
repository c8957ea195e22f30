//! Reading the designer's input files with bounds: the one reader for scene files, script and
//! module files, and the watcher's hashing of them. Only regular files are read (a FIFO never
//! ends, `/dev/zero` and `/dev/urandom` are endless, `/proc` files report size 0), and at most
//! a given number of bytes, so a wrong path costs an error, not the machine's memory or a hang.
//!
//! It only reads: it knows no file format and names no other module of the crate.

use std::io::Read;
use std::path::Path;

/// The largest scene file read, in bytes (32 MiB: a 4096x4096 map with its indentation).
pub const MAX_SCENE_BYTES: u64 = 32 * 1024 * 1024;

/// The largest script or module file read, in bytes.
pub const MAX_SCRIPT_BYTES: u64 = 4 * 1024 * 1024;

/// Reads a regular file of at most `max` bytes. A folder, FIFO, socket or device is refused
/// before it is opened (opening a FIFO blocks until a writer comes); a larger file is refused
/// after reading `max + 1` bytes at most.
pub fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
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
        return Err(std::io::Error::other(format!(
            "larger than {}, the most a file may have",
            size_text(max)
        )));
    }
    Ok(bytes)
}

fn not_regular(meta: &std::fs::Metadata) -> std::io::Error {
    let what = if meta.is_dir() {
        "a folder"
    } else {
        kind_name(meta)
    };
    std::io::Error::other(format!(
        "{what}, not a regular file (only regular files are read)"
    ))
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
pub fn size_text(bytes: u64) -> String {
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
        let e = read_bounded(&path, 4).unwrap_err().to_string();
        assert_eq!(e, "larger than 4 bytes, the most a file may have");
        let e = read_bounded(dir.path(), 100).unwrap_err().to_string();
        assert!(e.starts_with("a folder, not a regular file"), "{e}");
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
