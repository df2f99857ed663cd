//! `treeglass session`: the arguments and the environment's defaults turned into the stack's
//! options (`crate::stack`), and its exit code.

use super::args::SessionArgs;
use crate::app::Error;

/// Runs the session; the exit code is CMD's or the session's own (see `session --help`).
#[cfg(target_os = "linux")]
pub async fn run(args: SessionArgs) -> Result<i32, Error> {
    use std::time::Duration;

    use crate::stack;

    let env_set = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let app = match &args.app_cmd {
        Some(line) => {
            Some(stack::words::split(line).map_err(|e| Error::usage(format!("--app-cmd: {e}")))?)
        }
        None => None,
    };
    let step_timeout = match env_set("A11Y_SESSION_TIMEOUT_MS") {
        Some(v) => v.parse::<u64>().map_err(|_| {
            Error::usage(format!(
                "A11Y_SESSION_TIMEOUT_MS must be a number of milliseconds, not {v:?}"
            ))
        })?,
        None => 10_000,
    };
    let command = if args.shell {
        vec![
            std::env::var_os("SHELL")
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "/bin/bash".into()),
        ]
    } else {
        args.command
    };
    let opts = stack::Options {
        wayland: args.wayland.map(|c| match c {
            super::args::Compositor::Sway => stack::Compositor::Sway,
            super::args::Compositor::Kwin => stack::Compositor::Kwin,
            super::args::Compositor::Gnome => stack::Compositor::Gnome,
        }),
        user: args
            .user
            .or_else(|| env_set("A11Y_SESSION_USER"))
            .unwrap_or_else(|| stack::DEFAULT_USER.into()),
        app,
        app_timeout: Duration::from_millis(args.app_timeout_ms),
        step_timeout: Duration::from_millis(step_timeout),
        verbose: args.verbose || env_set("A11Y_SESSION_VERBOSE").as_deref() == Some("1"),
        command,
    };
    Ok(stack::run(opts).await)
}

#[cfg(not(target_os = "linux"))]
pub async fn run(_args: SessionArgs) -> Result<i32, Error> {
    Err(Error::other(
        "treeglass session starts a private accessibility stack: it is only available on Linux",
    ))
}

/// `treeglass session-seat` (hidden): a keyboard and a pointer held on the desktop's seat for
/// the life of a headless GNOME or KWin session, as a machine's own devices would be. A
/// headless compositor's seat has none; apps take input from a device only once they have
/// seen the seat gain it (`desktop::eis::Held`), so without one every synthesized key or
/// click would come from a device the apps are only now learning of. Prints `ready` once the
/// devices are there, then holds them (renewed before they lapse) until it is stopped.
#[cfg(target_os = "linux")]
pub async fn seat() -> Result<(String, i32), Error> {
    use std::io::Write;

    let input = crate::desktop::choose();
    input
        .prepare()
        .await
        .map_err(|e| Error::other(format!("the session's seat: {e}")))?;
    let mut out = std::io::stdout();
    let _ = writeln!(out, "ready: {}", input.desktop());
    let _ = out.flush();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| Error::other(e.to_string()))?;
    loop {
        tokio::select! {
            _ = term.recv() => return Ok((String::new(), 0)),
            _ = tokio::signal::ctrl_c() => return Ok((String::new(), 0)),
            _ = tokio::time::sleep(std::time::Duration::from_secs(2)) => {
                if let Err(e) = input.prepare().await {
                    tracing::warn!("the session's seat: {e}");
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub async fn seat() -> Result<(String, i32), Error> {
    Err(Error::other(
        "treeglass session-seat is only available on Linux",
    ))
}
