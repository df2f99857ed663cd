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
