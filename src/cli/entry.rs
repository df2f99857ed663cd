//! The treeglass command: parses arguments, picks the backend (`backend::pick`), runs the
//! command. The binary only calls [`main`], so the async code is compiled once, in the library.

use std::sync::Arc;

use clap::Parser;

use crate::app::Error;
use crate::backend::{Backend, pick};
use crate::cli::{self, Cli, Command, Printed, exit};
use crate::session::Session;

/// Why the demo app stands in for the platform's backend: what is missing (`no accessibility
/// bus`) and how it failed.
struct Missing {
    what: &'static str,
    why: String,
}

/// The backend `--backend` names; without one the platform's own, else, where the platform has
/// no accessibility at all, the demo app with what is missing.
async fn backend_or_demo(spec: Option<&str>) -> Result<(Arc<dyn Backend>, Option<Missing>), Error> {
    match spec {
        Some(s) => Ok((pick::named(s).await?, None)),
        None => Ok(match pick::platform().await? {
            pick::Platform::Backend(b) => (b, None),
            pick::Platform::None { what, why } => (pick::demo(), Some(Missing { what, why })),
        }),
    }
}

/// [`backend_or_demo`], with a warning when it is the demo app.
async fn pick_backend(spec: Option<&str>) -> Result<Arc<dyn Backend>, Error> {
    let (backend, missing) = backend_or_demo(spec).await?;
    if let Some(Missing { what, why }) = missing {
        cli::warn(&format!("{what} ({why}); showing the built-in demo app"));
    }
    Ok(backend)
}

/// Runs the command; a one-shot command's tree reads say how far they have got, and its waits
/// for a target what they wait for, to `reads`.
async fn run(
    cli: Cli,
    reads: Option<Arc<crate::backend::progress::ReadProgress>>,
) -> Result<(Printed, i32), Error> {
    // `treeglass --app X tree` would silently read the default window.
    if cli.command.is_some() && cli.scope.is_set() {
        return Err(Error::usage(
            "--app, --pid and --window go after the command (treeglass tree --app …); before \
             it they choose the window the inspector opens on",
        ));
    }
    let text = |(s, code): (String, i32)| (Printed::Text(s), code);
    // A session brings its own bus: nothing is connected to here.
    if let Some(Command::Session(args)) = cli.command {
        return cli::session::run(args)
            .await
            .map(|code| (Printed::Text(String::new()), code));
    }
    // Workflow commands that need no app (and `run` of a file that is refused) never connect.
    if let Some(Command::Workflow(args)) = &cli.command
        && let Some(done) = cli::workflow::without_backend(args)
    {
        return done.map(text);
    }
    // A diff of two files reads no app.
    if let Some(Command::Diff(args)) = &cli.command
        && (args.after.is_some() || !args.scope.is_set())
    {
        return cli::diff(None, args).await.map(text);
    }
    let ok = |s: String| (Printed::Text(s), exit::OK);
    // Completions and the manual page come from the argument definitions alone.
    if let Some(Command::Completions { shell }) = &cli.command {
        return Ok(ok(cli::completions(*shell)));
    }
    if let Some(Command::Man) = &cli.command {
        return cli::man_page().map(ok);
    }
    if let Some(Command::KdeGrant { action }) = &cli.command {
        return cli::kde_grant::run(*action).map(text);
    }
    if let Some(Command::GnomeExtension { action }) = &cli.command {
        return cli::gnome_extension::run(*action).await.map(text);
    }
    if let Some(Command::SessionSeat) = &cli.command {
        return cli::session::seat().await.map(text);
    }
    // The clipboard needs no accessibility backend.
    if let Some(Command::Clipboard(cmd)) = &cli.command {
        let cmd = cmd.clone();
        return tokio::task::spawn_blocking(move || cli::clipboard(&cmd))
            .await
            .map_err(|e| Error::other(e.to_string()))?
            .map(ok);
    }
    // The doctor must work exactly when nothing else does: it connects by itself.
    if let Some(Command::Doctor { json }) = &cli.command {
        return Ok(text(cli::doctor(
            pick::doctor(cli.backend.as_deref()).await,
            *json,
        )));
    }
    // No command on a terminal: the interactive inspector. (Piped, it prints the tree.)
    if cli.command.is_none() && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        // A pattern that does not compile is a usage error, not a window that is missing.
        cli.scope.scope().check()?;
        return run_tui(cli.backend.as_deref(), &cli.scope).await.map(text);
    }
    // The MCP server answers whatever the backend's state: it connects by itself.
    if let Some(Command::Mcp) = &cli.command {
        crate::mcp::serve(cli.backend.clone()).await?;
        return Ok((Printed::Text(String::new()), exit::OK));
    }
    let backend = pick_backend(cli.backend.as_deref()).await?;
    tracing::debug!(backend = backend.name(), "connected");
    if let Some(reads) = &reads {
        backend.report_reads(reads.clone());
    }
    let session = Session::new(backend.clone()).reporting(reads.clone());
    // One-shot commands that use only the element they resolve (and its path) may let the app
    // narrow its candidates. Recording a step needs the whole tree (its target is suggested
    // from it); so does `invoke`, which credits the app's reactions in the element's subtree.
    let narrow = match &cli.command {
        Some(Command::Find(a)) => !a.whole_tree,
        Some(Command::Get(a)) => !a.element.whole_tree,
        Some(Command::Set(a)) => a.record.is_none() && !a.element.whole_tree,

        _ => false,
    };
    session
        .narrow
        .store(narrow, std::sync::atomic::Ordering::Relaxed);
    match cli.command {
        Some(Command::Apps { json }) => cli::apps(backend.as_ref(), json).await.map(ok),
        Some(Command::Tree(args)) => cli::tree(&session, &args).await,
        Some(Command::Diff(args)) => cli::diff(Some(backend.as_ref()), &args).await.map(text),
        Some(Command::Audit(args)) => cli::audit::run(&session, &args).await.map(text),
        Some(Command::Find(args)) => cli::find(&session, &args).await.map(text),
        Some(Command::Get(args)) => cli::get(&session, &args).await.map(text),
        Some(Command::Set(args)) => cli::set(&session, &args).await.map(text),
        Some(Command::Invoke(args)) => cli::invoke(&session, &args).await.map(text),
        Some(Command::Workflow(args)) => cli::workflow::with_backend(backend.clone(), reads, &args)
            .await
            .map(text),
        Some(Command::Clipboard(_))
        | Some(Command::Doctor { .. })
        | Some(Command::Mcp)
        | Some(Command::Completions { .. })
        | Some(Command::Man)
        | Some(Command::KdeGrant { .. })
        | Some(Command::GnomeExtension { .. })
        | Some(Command::SessionSeat)
        | Some(Command::Session(_)) => Err(Error::other("unreachable: handled above")),
        None => {
            let args = cli::TreeArgs {
                scope: cli.scope,
                ..Default::default()
            };
            cli::tree(&session, &args).await
        }
    }
}

/// The TUI on the backend `--backend` names; by default the platform's own, else, where the
/// platform has no accessibility at all, the demo app with a banner saying so. A `scope`
/// (`--app`, `--pid`, `--window`) is matched as `tree` matches it; when it names nothing, the
/// TUI opens on the apps pane with the reason.
async fn run_tui(spec: Option<&str>, scope: &cli::Scope) -> Result<(String, i32), Error> {
    let (backend, missing) = backend_or_demo(spec).await?;
    let banner = missing.map(|Missing { what, why }| {
        format!(
            "DEMO APP — {what}, so this is treeglass's built-in demo, not a real application \
             ({why})"
        )
    });
    let open = if scope.is_set() {
        Some(
            crate::app::pick(backend.as_ref(), &scope.scope())
                .await
                .map(|(app, root)| crate::tui::app::OpenAt {
                    bus_name: app.bus_name,
                    root,
                })
                .map_err(|f| f.message),
        )
    } else {
        None
    };
    let opts = crate::tui::Options {
        banner,
        recorder: Some(Box::new(crate::tui::WorkflowRecorder::new("."))),
        open,
    };
    match crate::tui::run(backend, opts).await {
        Ok(crate::tui::Ended::Quit) => Ok((String::new(), exit::OK)),
        Ok(crate::tui::Ended::Signal { number, name }) => {
            cli::warn(&format!("stopped by {name}; the terminal was restored"));
            Ok((String::new(), 128 + number))
        }
        Err(e) => Err(Error::other(e.to_string())),
    }
}

/// Runs treeglass with the process's arguments, and exits with its code.
pub fn main() -> ! {
    let cli = Cli::parse();
    let _log = match crate::log::init(cli.log.as_deref()) {
        Ok(guard) => guard,
        Err(e) => {
            eprintln!("treeglass: {e}");
            std::process::exit(exit::USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            cli::warn(&format!("cannot start the async runtime: {e}"));
            std::process::exit(exit::ERROR);
        }
    };
    // One-shot commands say how a long read is going, on a terminal only (and never under the
    // TUI, which shows it itself).
    let one_shot = !matches!(
        cli.command,
        None | Some(Command::Mcp) | Some(Command::Session(_)) | Some(Command::SessionSeat)
    );
    let reads = (one_shot && std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .then(Arc::<crate::backend::progress::ReadProgress>::default);
    let progress = reads.clone().map(cli::ProgressLine::start);
    let result = runtime.block_on(run(cli, reads));
    drop(progress);
    let code = match result {
        Ok((printed, code)) => {
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
            cli::finish(code, cli::emit(printed, &mut out))
        }
        Err(e) => cli::fail(&e),
    };
    std::process::exit(code);
}
