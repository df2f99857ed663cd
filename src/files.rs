//! Every file treeglass reads or writes: reads take regular files only (a FIFO, a device or a
//! directory is refused without blocking) and are capped; writes are atomic (an exclusively
//! created temporary file with an unpredictable name beside the destination, fsync, rename,
//! fsync of the directory) and never go through a symbolic link or onto a device.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// Workflow files, recordings and inputs files are capped at this (1 MiB).
pub const MAX_DOCUMENT_BYTES: u64 = 1 << 20;
/// Fixture files (a whole application, possibly hundreds of thousands of nodes).
pub const MAX_FIXTURE_BYTES: u64 = 512 << 20;
/// A value for `set` read from standard input.
pub const MAX_STDIN_VALUE_BYTES: u64 = 16 << 20;

/// What a file operation refused or failed at.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io { path: String, source: io::Error },
    #[error("{path} is {what}, not a regular file")]
    NotRegular { path: String, what: &'static str },
    #[error("{path} is {what}; refusing to replace it (give a regular file or a new name)")]
    WontReplace { path: String, what: &'static str },
    #[error("{path} already exists; refusing to replace it")]
    Exists { path: String },
    #[error("{path} is larger than {cap} bytes; not read")]
    TooBig { path: String, cap: u64 },
}

impl FileError {
    /// The IO error underneath, if that is what it was.
    pub fn io_kind(&self) -> Option<io::ErrorKind> {
        match self {
            FileError::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

/// A path for a message: control characters escaped, as anything a user might have typed.
pub fn shown(path: &Path) -> String {
    crate::model::sanitize(&path.display().to_string(), 0).into_owned()
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> FileError + '_ {
    move |source| FileError::Io {
        path: shown(path),
        source,
    }
}

/// What a file that is not a regular file is, for messages.
fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        return "a symbolic link";
    }
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Opens `path` for reading if it is a regular file (symbolic links to one are followed).
/// Opening never waits: a FIFO is opened non-blocking and refused, like devices and
/// directories, by looking at what was opened (no window between a check and the open).
pub fn open_regular(path: &Path) -> Result<(File, Metadata), FileError> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Without it, opening a FIFO blocks until some process opens it for writing.
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let file = opts.open(path).map_err(io_err(path))?;
    let meta = file.metadata().map_err(io_err(path))?;
    if !meta.is_file() {
        return Err(FileError::NotRegular {
            path: shown(path),
            what: kind_of(&meta),
        });
    }
    Ok((file, meta))
}

/// Reads at most `cap` bytes from `r`; more is an error (`name` says what was read).
pub fn read_capped_from(r: impl Read, cap: u64, name: &str) -> Result<Vec<u8>, FileError> {
    let mut bytes = Vec::new();
    r.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| FileError::Io {
            path: name.to_string(),
            source,
        })?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooBig {
            path: name.to_string(),
            cap,
        });
    }
    Ok(bytes)
}

/// The contents of the regular file `path`, at most `cap` bytes (a file that grows while it is
/// read is still cut at `cap` + 1 bytes and refused).
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    let (file, meta) = open_regular(path)?;
    if meta.len() > cap {
        return Err(FileError::TooBig {
            path: shown(path),
            cap,
        });
    }
    read_capped_from(file, cap, &shown(path))
}

/// As [`read_capped`], as UTF-8 text.
pub fn read_capped_text(path: &Path, cap: u64) -> Result<String, FileError> {
    let bytes = read_capped(path, cap)?;
    String::from_utf8(bytes).map_err(|e| FileError::Io {
        path: shown(path),
        source: io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()),
    })
}

/// What to do when the destination of [`write_atomic`] exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Existing {
    /// Replace it if it is a regular file.
    Replace,
    /// Refuse: the file must be new.
    Refuse,
}

/// A hard-to-guess 64-bit number: the standard library's randomly keyed SipHash (its keys come
/// from the operating system's random source) over a counter, the time and the process id.
fn unpredictable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish()
}

/// Creates a new file at exactly `path`: fails if anything is there, a symbolic link included
/// (never followed), so a link planted at a temporary name cannot redirect the write.
fn create_exclusive(path: &Path, mode: Option<u32>) -> io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC);
        opts.mode(mode.unwrap_or(0o666));
    }
    #[cfg(not(unix))]
    let _ = mode;
    opts.open(path)
}

/// A temporary file beside `dest` (`.NAME.<16 hex>.tmp`), created exclusively.
fn temp_beside(dir: &Path, dest_name: &str, mode: Option<u32>) -> io::Result<(PathBuf, File)> {
    // Keep the name within NAME_MAX with room for the suffix.
    let mut stem: String = String::new();
    for c in dest_name.chars() {
        if stem.len() + c.len_utf8() > 200 {
            break;
        }
        stem.push(c);
    }
    let mut last = None;
    for _ in 0..16 {
        let tmp = dir.join(format!(".{stem}.{:016x}.tmp", unpredictable()));
        match create_exclusive(&tmp, mode) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// The destination as it stands: `Ok(None)` when nothing is there, its permissions when it is
/// a regular file that may be replaced; anything else is refused.
fn check_destination(path: &Path, existing: Existing) -> Result<Option<u32>, FileError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_file() => match existing {
            Existing::Refuse => Err(FileError::Exists { path: shown(path) }),
            Existing::Replace => Ok(Some(mode_of(&meta))),
        },
        Ok(meta) => Err(FileError::WontReplace {
            path: shown(path),
            what: kind_of(&meta),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path)(e)),
    }
}

#[cfg(unix)]
fn mode_of(meta: &Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(_meta: &Metadata) -> u32 {
    0o666
}

/// Writes `bytes` to `path` atomically: a reader sees the old file or the whole new one, never
/// part of it, and a failure (a full disk) leaves the old file as it was. The destination must
/// be a regular file (replaced, keeping its permissions, with [`Existing::Replace`]) or a new
/// name; a symbolic link, device, FIFO, socket or directory there is refused.
pub fn write_atomic(path: &Path, bytes: &[u8], existing: Existing) -> Result<(), FileError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| FileError::NotRegular {
            path: shown(path),
            what: "not a file name",
        })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mode = check_destination(path, existing)?;
    let (tmp, mut file) = temp_beside(&dir, &name, mode).map_err(io_err(path))?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(io_err(path));
    drop(file);
    let placed = written.and_then(|()| place(&tmp, path, existing));
    if placed.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return placed;
    }
    sync_dir(&dir).map_err(io_err(path))
}

/// Moves the finished temporary file to `path`.
fn place(tmp: &Path, path: &Path, existing: Existing) -> Result<(), FileError> {
    match existing {
        Existing::Replace => {
            // Re-checked just before the rename; rename itself never follows a link at `path`.
            check_destination(path, existing)?;
            std::fs::rename(tmp, path).map_err(io_err(path))
        }
        Existing::Refuse => match std::fs::hard_link(tmp, path) {
            // A link fails if anything exists at `path`: no window for a file to appear.
            Ok(()) => {
                let _ = std::fs::remove_file(tmp);
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Err(FileError::Exists { path: shown(path) })
            }
            // File systems without hard links: check, then rename.
            Err(_) => {
                check_destination(path, existing)?;
                std::fs::rename(tmp, path).map_err(io_err(path))
            }
        },
    }
}

/// Makes the rename durable (the directory entry reaches the disk).
fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        match File::open(dir).and_then(|d| d.sync_all()) {
            // Some file systems cannot sync a directory; the data itself was synced.
            Err(e) if e.kind() == io::ErrorKind::InvalidInput => Ok(()),
            other => other,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "treeglass-files-{name}-{}-{:x}",
            std::process::id(),
            unpredictable()
        ));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        let ok = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap()
            .success();
        assert!(ok, "mkfifo {}", path.display());
    }

    #[test]
    fn writes_new_files_and_replaces_regular_ones() {
        let d = scratch("write");
        let p = d.join("out.json");
        write_atomic(&p, b"one", Existing::Replace).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"one");
        write_atomic(&p, b"two", Existing::Replace).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let err = write_atomic(&p, b"three", Existing::Refuse).unwrap_err();
        assert!(matches!(err, FileError::Exists { .. }), "{err}");
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        write_atomic(&d.join("new.json"), b"n", Existing::Refuse).unwrap();
        assert_eq!(std::fs::read(d.join("new.json")).unwrap(), b"n");
        assert!(leftovers(&d).is_empty(), "{:?}", leftovers(&d));
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn keeps_the_permissions_of_the_file_it_replaces() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch("perm");
        let p = d.join("rec.json");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"new", Existing::Replace).unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn refuses_a_symlink_at_the_destination_and_leaves_its_target_alone() {
        let d = scratch("symlink");
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let p = d.join("out.json");
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        let err = write_atomic(&p, b"evil", Existing::Replace).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        // A dangling link is refused too (and nothing is created where it points).
        let dangling = d.join("dangling.json");
        std::os::unix::fs::symlink(d.join("nowhere"), &dangling).unwrap();
        let err = write_atomic(&dangling, b"x", Existing::Replace).unwrap_err();
        assert!(matches!(err, FileError::WontReplace { .. }), "{err}");
        assert!(!d.join("nowhere").exists());
        assert!(leftovers(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn refuses_devices_fifos_and_directories() {
        let d = scratch("special");
        let fifo = d.join("fifo");
        mkfifo(&fifo);
        let dir = d.join("dir.json");
        std::fs::create_dir(&dir).unwrap();
        for (p, what) in [
            (Path::new("/dev/null"), "a device"),
            (fifo.as_path(), "a FIFO"),
            (dir.as_path(), "a directory"),
        ] {
            for existing in [Existing::Replace, Existing::Refuse] {
                let err = write_atomic(p, b"x", existing).unwrap_err();
                assert!(
                    matches!(err, FileError::WontReplace { .. }) && err.to_string().contains(what),
                    "{}: {err}",
                    p.display()
                );
            }
        }
        assert!(leftovers(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_planted_at_a_temporary_name_is_never_followed() {
        let d = scratch("planted");
        let victim = d.join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let planted = d.join(".out.json.0123456789abcdef.tmp");
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let err = create_exclusive(&planted, None).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        // A dangling one neither: the open does not create the file it points to.
        let dangling = d.join(".out.json.fedcba9876543210.tmp");
        std::os::unix::fs::symlink(d.join("created-through-link"), &dangling).unwrap();
        assert!(create_exclusive(&dangling, None).is_err());
        assert!(!d.join("created-through-link").exists());
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn temporary_names_are_unpredictable_and_distinct() {
        let d = scratch("names");
        let (a, _fa) = temp_beside(&d, "x.json", None).unwrap();
        let (b, _fb) = temp_beside(&d, "x.json", None).unwrap();
        assert_ne!(a, b);
        let name = a.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".x.json.") && name.ends_with(".tmp"),
            "{name}"
        );
        assert!(!name.contains(&std::process::id().to_string()), "{name}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_missing_directory_is_an_error_and_creates_nothing() {
        let d = scratch("missing");
        let err =
            write_atomic(&d.join("no/such/dir/out.json"), b"x", Existing::Replace).unwrap_err();
        assert_eq!(err.io_kind(), Some(io::ErrorKind::NotFound), "{err}");
        assert!(leftovers(&d).is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn reads_regular_files_within_the_cap() {
        let d = scratch("read");
        let p = d.join("in.json");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read_capped(&p, 5).unwrap(), b"12345");
        let err = read_capped(&p, 4).unwrap_err();
        assert!(matches!(err, FileError::TooBig { cap: 4, .. }), "{err}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn refuses_to_read_fifos_devices_and_directories_without_blocking() {
        let d = scratch("readspecial");
        let fifo = d.join("fifo");
        mkfifo(&fifo);
        // No writer ever opens the FIFO: a blocking open would hang this test.
        for (p, what) in [
            (fifo.as_path(), "a FIFO"),
            (Path::new("/dev/zero"), "a device"),
            (d.as_path(), "a directory"),
        ] {
            let err = read_capped(p, 1 << 20).unwrap_err();
            assert!(
                matches!(err, FileError::NotRegular { .. }) && err.to_string().contains(what),
                "{}: {err}",
                p.display()
            );
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn caps_unbounded_streams() {
        let zeros = std::io::repeat(0).take(10 << 20);
        let err = read_capped_from(zeros, 1 << 20, "standard input").unwrap_err();
        assert!(err.to_string().contains("standard input"), "{err}");
        assert_eq!(
            read_capped_from(&b"abc"[..], 3, "x").unwrap(),
            b"abc".to_vec()
        );
    }
}
