//! The tools beside the accessibility tree: the clipboard (read its types, its text only when
//! asked; write exactly one value and keep serving it) and the doctor.

use std::path::Path;
use std::time::Duration;

use super::reply::{Fault, Reply};
use super::server::State;
use super::tools::{ClipboardReadArgs, ClipboardWriteArgs};
use crate::app::{Error, Kind, output};
use crate::clipboard::{self as cb, ClipboardError, Item};

/// How long a written clipboard is served at most: on X11 it lives in this process, and an
/// agent expects it to stay until something else replaces it. A later write ends the wait.
const KEEP: Duration = Duration::from_secs(24 * 3600);

fn fault(e: ClipboardError) -> Fault {
    Error::from(e).into()
}

/// The clipboard calls block (arboard talks to the X server), so they run off the runtime.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ClipboardError> + Send + 'static,
) -> Result<T, Fault> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| Fault::new(Kind::Error, format!("the clipboard call failed: {e}")))?
        .map_err(fault)
}

/// `clipboard_read`: `clipboard read --json` (`--text` with `include_text`).
pub async fn clipboard_read(args: &ClipboardReadArgs) -> Result<Reply, Fault> {
    let with_text = args.include_text;
    let contents = blocking(move || cb::read(with_text)).await?;
    let doc =
        serde_json::to_value(&contents).map_err(|e| Fault::new(Kind::Error, e.to_string()))?;
    Ok(Reply::ok(doc, output::clipboard_text(&contents)))
}

/// `clipboard_write`: exactly one value; paths must be absolute. The owner keeps serving it
/// until another application takes the clipboard, a later write replaces it, or the server
/// exits.
pub async fn clipboard_write(state: &State, args: &ClipboardWriteArgs) -> Result<Reply, Fault> {
    let absolute = |p: &str, what: &str| -> Result<String, Fault> {
        if Path::new(p).is_absolute() {
            Ok(p.to_string())
        } else {
            Err(Fault::usage(format!(
                "{what} {}: give an absolute path",
                crate::model::quoted(p, 200)
            )))
        }
    };
    let item = match (&args.text, &args.image_path, &args.file_path) {
        (Some(t), None, None) => Item::Text(t.clone()),
        (None, Some(p), None) => Item::Image(absolute(p, "image_path")?),
        (None, None, Some(p)) => Item::File(absolute(p, "file_path")?),
        _ => {
            return Err(Fault::usage(
                "give exactly one of text, image_path and file_path",
            ));
        }
    };
    let written = blocking(move || cb::write(&item, KEEP)).await?;
    let doc = serde_json::to_value(&written.contents)
        .map_err(|e| Fault::new(Kind::Error, e.to_string()))?;
    let text = output::clipboard_text(&written.contents);
    // Keep the owner's handle for the server's life; the one it replaces has stopped serving.
    *state.clipboard() = Some(written);
    Ok(Reply::ok(doc, text))
}

/// `doctor`: `doctor --json`; problems found is exit code 7.
pub async fn doctor(state: &State) -> Result<Reply, Fault> {
    let report = (state.doctor)().await;
    let kind = (!report.healthy()).then_some(Kind::ProblemsFound);
    Ok(Reply::coded(
        output::doctor_json(&report),
        report.text(),
        kind,
        "problems found (see checks and apps)",
    ))
}
