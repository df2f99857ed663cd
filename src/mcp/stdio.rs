//! The stdio transport around the SDK's server: messages in, one per line, are checked before
//! the SDK sees them (a line that is not JSON gets a JSON-RPC parse error, as JSON-RPC 2.0
//! asks, where the SDK would stay silent; an oversized line gets an invalid-request error and
//! is discarded without being held; a notification or response before the first request, which
//! would end the SDK's handshake, is dropped); messages out pass the JSON escaper, so no
//! hostile character an app put in a string reaches the stream raw.

use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::server::Server;
use crate::cli::{Failure, exit};

/// The largest message taken: a 16 MiB value (the cap on `set -` from standard input) with
/// room for its JSON escaping.
pub const MAX_MESSAGE_BYTES: usize = 40 << 20;

/// How far the pipes between this layer and the SDK buffer.
const PIPE_BYTES: usize = 1 << 16;

/// One line of input.
enum Line {
    Message(Vec<u8>),
    /// Longer than [`MAX_MESSAGE_BYTES`]; its bytes were dropped as they came.
    Oversized,
    End,
}

/// Reads one line, never holding more than [`MAX_MESSAGE_BYTES`] of it.
async fn next_line<R: AsyncRead + Unpin>(input: &mut BufReader<R>) -> std::io::Result<Line> {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(if oversized {
                Line::Oversized
            } else if line.is_empty() {
                Line::End
            } else {
                // A last message without its newline is still a message.
                Line::Message(line)
            });
        }
        let (len, done, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i, i + 1, true),
            None => (buf.len(), buf.len(), false),
        };
        if !oversized {
            if line.len() + len > MAX_MESSAGE_BYTES {
                oversized = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(&buf[..len]);
            }
        }
        input.consume(done);
        if ended {
            return Ok(if oversized {
                Line::Oversized
            } else {
                Line::Message(line)
            });
        }
    }
}

/// What the first messages look like: requests have a method and an id.
#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(default)]
    id: Option<IgnoredAny>,
}

fn error_line(code: i32, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code, "message": message }
    })
    .to_string()
}

/// Checks each input line and passes good ones to the SDK; answers the others itself.
async fn read_input<R, W>(input: R, mut to_sdk: W, replies: mpsc::Sender<String>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::with_capacity(PIPE_BYTES, input);
    let mut requested = false;
    loop {
        let bytes = match next_line(&mut input).await {
            Ok(Line::Message(b)) => b,
            Ok(Line::Oversized) => {
                tracing::warn!("mcp: a message over {MAX_MESSAGE_BYTES} bytes was discarded");
                let msg = format!(
                    "Invalid request: a message may have at most {MAX_MESSAGE_BYTES} bytes"
                );
                if replies.send(error_line(-32600, &msg)).await.is_err() {
                    return;
                }
                continue;
            }
            Ok(Line::End) => return,
            Err(e) => {
                tracing::warn!("mcp: cannot read standard input: {e}");
                return;
            }
        };
        let text = bytes.strip_suffix(b"\r").unwrap_or(&bytes);
        if text.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if !requested {
            match serde_json::from_slice::<Peek>(text) {
                Ok(p) if p.method.is_some() && p.id.is_some() => requested = true,
                Ok(_) => {
                    // A notification or response before any request would end the SDK's
                    // handshake (and with it the server); nothing answers those anyway.
                    tracing::warn!(
                        "mcp: a notification or response before any request was dropped"
                    );
                    continue;
                }
                // Not an object: let the SDK answer it (invalid request) or fall through to
                // the parse check below.
                Err(_) => {}
            }
        }
        if serde_json::from_slice::<IgnoredAny>(text).is_err() {
            let reply = error_line(-32700, "Parse error: the message is not valid JSON");
            if replies.send(reply).await.is_err() {
                return;
            }
            continue;
        }
        if to_sdk.write_all(text).await.is_err()
            || to_sdk.write_all(b"\n").await.is_err()
            || to_sdk.flush().await.is_err()
        {
            return;
        }
    }
}

/// Passes the SDK's output lines on to the writer.
async fn relay<R: AsyncRead + Unpin>(from_sdk: R, out: mpsc::Sender<String>) {
    let mut lines = BufReader::with_capacity(PIPE_BYTES, from_sdk).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if out.send(line).await.is_err() {
            return;
        }
    }
}

/// Writes every message, escaped, one per line.
async fn write_lines<W: AsyncWrite + Unpin>(mut lines: mpsc::Receiver<String>, mut output: W) {
    while let Some(line) = lines.recv().await {
        let safe = crate::json::escape_compact(&line);
        let written = async {
            output.write_all(safe.as_bytes()).await?;
            output.write_all(b"\n").await?;
            output.flush().await
        };
        if let Err(e) = written.await {
            // The client is gone (a closed pipe): nobody is left to answer.
            tracing::info!("mcp: cannot write to standard output: {e}");
            return;
        }
    }
}

/// Serves `server` over `input`/`output` until the input ends.
pub async fn run<R, W>(server: Server, input: R, output: W) -> Result<(), Failure>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_sdk, sdk_in) = tokio::io::duplex(PIPE_BYTES);
    let (sdk_out, from_sdk) = tokio::io::duplex(PIPE_BYTES);
    let (tx, rx) = mpsc::channel::<String>(64);
    let writer = tokio::spawn(write_lines(rx, output));
    let relayed = tokio::spawn(relay(from_sdk, tx.clone()));
    let reader = tokio::spawn(read_input(input, to_sdk, tx));
    let outcome = match rmcp::serve_server(server, (sdk_in, sdk_out)).await {
        Ok(running) => match running.waiting().await {
            Ok(_) => Ok(()),
            Err(e) => Err(Failure::new(
                exit::ERROR,
                format!("mcp: the server stopped: {e}"),
            )),
        },
        // The client left before it said anything.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(Failure::new(
            exit::ERROR,
            format!("mcp: no session started: {e}"),
        )),
    };
    // The SDK is done: stop reading, let what it wrote drain, then the writer ends.
    reader.abort();
    let _ = relayed.await;
    let _ = writer.await;
    outcome
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_capped_without_being_held() {
        let mut big = vec![b'x'; MAX_MESSAGE_BYTES + 10];
        big.extend_from_slice(b"\n{\"a\":1}\nlast");
        let mut r = BufReader::with_capacity(1024, big.as_slice());
        assert!(matches!(next_line(&mut r).await.unwrap(), Line::Oversized));
        assert!(matches!(next_line(&mut r).await.unwrap(), Line::Message(m) if m == b"{\"a\":1}"));
        assert!(matches!(next_line(&mut r).await.unwrap(), Line::Message(m) if m == b"last"));
        assert!(matches!(next_line(&mut r).await.unwrap(), Line::End));
    }
}
