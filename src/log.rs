//! Diagnostics to a file, never to the terminal (the TUI owns it): `--log FILE` or
//! `TREEGLASS_LOG=FILE`, appending. `TREEGLASS_LOG_LEVEL` (`info`, `debug` (default), `trace`)
//! sets how much of treeglass's own tracing goes there: per-read timings and rounds (info/debug),
//! every failed call and why, apps leaving the bus (debug), every call sent (trace).

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::Mutex;

use tracing_subscriber::EnvFilter;

/// Keeps the log set up for the process's life.
pub struct LogGuard;

/// Starts logging to `path` (or `TREEGLASS_LOG`); nothing when neither is given.
pub fn init(path: Option<&Path>) -> Result<Option<LogGuard>, String> {
    let env = std::env::var_os("TREEGLASS_LOG").filter(|p| !p.is_empty());
    let path = match (path, env.as_deref()) {
        (Some(p), _) => p.to_path_buf(),
        (None, Some(p)) => Path::new(p).to_path_buf(),
        (None, None) => return Ok(None),
    };
    let file =
        open_log(&path).map_err(|e| format!("cannot open the log {}: {e}", path.display()))?;
    let level = std::env::var("TREEGLASS_LOG_LEVEL").unwrap_or_else(|_| "debug".into());
    let level = match level.as_str() {
        "error" | "warn" | "info" | "debug" | "trace" => level,
        other => {
            return Err(format!(
                "TREEGLASS_LOG_LEVEL={other:?}: use info, debug or trace"
            ));
        }
    };
    let filter = EnvFilter::new(format!("warn,treeglass={level}"));
    tracing_subscriber::fmt()
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .with_target(false)
        .with_env_filter(filter)
        .try_init()
        .map_err(|e| format!("cannot start logging: {e}"))?;
    tracing::info!(version = env!("CARGO_PKG_VERSION"), "treeglass started");
    Ok(Some(LogGuard))
}

/// Opens the log for appending: a new file or an existing regular file, never through a
/// symlink, never a device or FIFO (which could block or write somewhere unexpected).
fn open_log(path: &Path) -> std::io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NOFOLLOW | O_NONBLOCK: a symlink fails, a FIFO does not block the open.
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = opts.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    Ok(file)
}
