//! The command line: a thin front end over the application layer (`crate::app`). It parses
//! the arguments (`args`), calls the use case, prints what it returns (the forms of
//! `app::output`) and turns how it ended into an exit code. The concrete backend is chosen by
//! `entry` (through `backend::pick`) and handed in.
//!
//! | module | owns |
//! |---|---|
//! | `entry` | the command: arguments, the backend (`backend::pick`), the front end |
//! | `args` | clap definitions and help texts |
//! | `read` | `apps`, `tree`, `diff`, `find`, `get`, `doctor` |
//! | `write` | `set`, `invoke` |
//! | `clipboard` | `clipboard read` / `write` |
//! | `audit` | `audit` |
//! | `workflow` | `workflow …` |
//! | `session` | `session`: its options, for the stack (`crate::stack`) |
//! | `progress` | the progress line of a long read |
//! | `mod.rs` | output and exit codes; shell completions and the manual page from `args` |

pub mod args;
pub mod audit;
pub mod clipboard;
pub mod entry;
pub mod gnome_extension;
pub mod kde_grant;
pub mod progress;
pub mod read;
pub mod session;
pub mod workflow;
pub mod write;

use std::io::{self, Write};

pub use args::{
    Cli, ClipboardCommand, Command, DiffArgs, ElementArgs, FindArgs, GetArgs, InvokeArgs, Scope,
    SessionArgs, SetArgs, TreeArgs,
};
pub use clipboard::clipboard;
pub use progress::ProgressLine;
pub use read::{apps, diff, doctor, find, get, tree};
pub use write::{invoke, set};

use crate::app::{Answer, Error, Kind};
use crate::model::scrub_lines;

/// Exit codes, documented in `--help`: each is the exit code of the use case's [`Kind`].
pub mod exit {
    use crate::app::Kind;

    pub const OK: i32 = 0;
    pub const ERROR: i32 = Kind::Error.exit_code();
    pub const USAGE: i32 = Kind::Usage.exit_code();

    /// The exit code of a command that ended as `kind` (`None`: it succeeded).
    pub const fn code(kind: Option<Kind>) -> i32 {
        match kind {
            None => OK,
            Some(k) => k.exit_code(),
        }
    }
}

/// `treeglass completions SHELL`: the completion script clap_complete makes of the argument
/// definitions.
pub fn completions(shell: clap_complete::Shell) -> String {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "treeglass", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// `treeglass man`: the manual page (roff) clap_mangen makes of the argument definitions: the
/// global options, every command with its summary, and the exit codes.
pub fn man_page() -> Result<String, Error> {
    let cmd = <Cli as clap::CommandFactory>::command();
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd)
        .render(&mut out)
        .map_err(|e| Error::other(format!("cannot make the manual page: {e}")))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// What a command ended as, in exit-code terms.
pub fn code(kind: Option<Kind>) -> i32 {
    exit::code(kind)
}

/// A use case's answer as the command line shows it: its text, or its JSON with `--json`, and
/// the exit code of how it ended.
pub fn answered(answer: &impl Answer, as_json: bool) -> (String, i32) {
    let out = if as_json {
        answer.json_text()
    } else {
        answer.text()
    };
    (out, code(answer.kind()))
}

/// Output written straight to standard output as it is produced.
pub type Streamed = Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + Send>;

/// What a command prints on standard output.
pub enum Printed {
    Text(String),
    /// Written as it is produced (`tree --json`), never held whole in memory.
    Stream(Streamed),
}

impl From<String> for Printed {
    fn from(s: String) -> Printed {
        Printed::Text(s)
    }
}

/// Writes a command's output. Text passes [`scrub_lines`] on the way: the app strings in it
/// were escaped when they were put in, and this makes sure nothing else slipped through.
/// Output that is not empty ends with a newline (JSON documents too), as shells and line
/// readers expect.
pub fn emit(printed: Printed, out: &mut dyn Write) -> io::Result<()> {
    match printed {
        Printed::Text(s) => {
            let mut s = scrub_lines(&s).into_owned();
            if !s.is_empty() && !s.ends_with('\n') {
                s.push('\n');
            }
            out.write_all(s.as_bytes())
        }
        Printed::Stream(write) => write(out).and_then(|()| out.write_all(b"\n")),
    }?;
    out.flush()
}

/// The exit code once the output is written (`written`): the command's own code when it was
/// written, and also when the reader closed the pipe (it wanted no more, as with `| head`:
/// not an error, and a verdict's code is kept); any other output error is reported and a
/// success becomes 1 (a failure keeps its own code, e.g. a `set` verdict's).
pub fn finish(code: i32, written: io::Result<()>) -> i32 {
    match written {
        Ok(()) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            warn(&format!(
                "cannot write the output: {e}{}",
                if code == exit::OK {
                    String::new()
                } else {
                    format!(" (the command itself ended with exit code {code})")
                }
            ));
            if code == exit::OK { exit::ERROR } else { code }
        }
    }
}

/// A line on standard error, prefixed `treeglass: `, and the same in the log (`--log`). An
/// error writing it is ignored: there is nowhere left to report it, and it must not turn into
/// a panic.
pub fn warn(message: &str) {
    tracing::warn!("{}", scrub_lines(message));
    say(message);
}

/// A command's failure: on standard error, and in the log with its kind and exit code; the exit
/// code.
pub fn fail(e: &crate::app::Error) -> i32 {
    let code = code(Some(e.kind));
    tracing::error!(
        kind = e.kind.name(),
        exit = code,
        "{}",
        scrub_lines(&e.message)
    );
    say(&e.message);
    code
}

/// A line on standard error, prefixed `treeglass: `.
fn say(message: &str) {
    let _ = writeln!(io::stderr().lock(), "treeglass: {}", scrub_lines(message));
}
