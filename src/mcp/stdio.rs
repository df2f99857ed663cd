//! The stdio transport around the SDK's server. Messages in, one per line, are read as the SDK
//! will read them before it sees them, and what it would answer wrongly or not at all is
//! answered here, as JSON-RPC 2.0 asks: a line that is not JSON gets a parse error (the SDK
//! stays silent); a message that is not a JSON-RPC request gets an invalid-request error with
//! the request's id when it can be read and `"id": null` otherwise (the SDK leaves the id out);
//! a request in good form whose params the SDK cannot read gets an invalid-params error; an
//! oversized line gets an invalid-request error and is discarded without being held. A
//! notification or response that cannot be read, or that comes before the first request (it
//! would end the SDK's handshake), is dropped: nobody waits for an answer to it. Messages out
//! pass the JSON escaper, so no hostile character an app put in a string reaches the stream
//! raw.

use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, RequestId};
use serde::Deserialize;
use serde_json::Value as Json;
use serde_json::error::Category;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::server::Server;
use crate::app::Error;

/// The largest message taken: a 16 MiB value (the cap on `set -` from standard input) with
/// room for its JSON escaping.
pub const MAX_MESSAGE_BYTES: usize = 40 << 20;

/// How far the pipes between this layer and the SDK buffer.
const PIPE_BYTES: usize = 1 << 16;

const PARSE_ERROR: i32 = -32700;
const INVALID_REQUEST: i32 = -32600;
const INVALID_PARAMS: i32 = -32602;

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

/// A JSON-RPC error response. `id` is the request's, or null when it could not be read.
fn error_line(code: i32, id: Json, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message }
    })
    .to_string()
}

/// What becomes of one input line.
#[derive(Debug, PartialEq)]
enum Check {
    /// A message the SDK reads; `request` when it waits for an answer.
    Pass { request: bool },
    /// A notification or response the SDK cannot read: nobody waits for an answer to it.
    Drop,
    /// Answered here with this error line; the SDK never sees it.
    Answer(String),
}

/// Reads `text` as the SDK will, and says what JSON-RPC 2.0 wants done with it.
fn check(text: &[u8]) -> Check {
    let syntax = match serde_json::from_slice::<ClientJsonRpcMessage>(text) {
        Ok(m) => {
            return Check::Pass {
                request: matches!(m, JsonRpcMessage::Request(_)),
            };
        }
        Err(e) => matches!(e.classify(), Category::Syntax | Category::Eof),
    };
    let value = if syntax {
        None
    } else {
        serde_json::from_slice::<Json>(text).ok()
    };
    let Some(value) = value else {
        return Check::Answer(error_line(
            PARSE_ERROR,
            Json::Null,
            "Parse error: the message is not valid JSON",
        ));
    };
    let Some(msg) = value.as_object() else {
        let why = match value {
            Json::Array(_) => "Invalid request: batches are not supported; send one object a line",
            _ => "Invalid request: a message is a JSON object",
        };
        return Check::Answer(error_line(INVALID_REQUEST, Json::Null, why));
    };
    let method = msg.get("method");
    let id = msg.get("id");
    let notification = method.is_some_and(Json::is_string) && id.is_none();
    let response = method.is_none()
        && id.is_some()
        && (msg.contains_key("result") || msg.contains_key("error"));
    if notification || response {
        return Check::Drop;
    }
    // The id as the request gave it, when it is one (a string or an integer).
    let id = id.filter(|id| RequestId::deserialize(*id).is_ok()).cloned();
    let why = if msg.get("jsonrpc").and_then(Json::as_str) != Some("2.0") {
        "Invalid request: jsonrpc must be \"2.0\""
    } else if id.is_none() && msg.contains_key("id") {
        "Invalid request: id must be a string or an integer"
    } else if !method.is_some_and(Json::is_string) {
        "Invalid request: a request needs a method, a string"
    } else if msg.get("params").is_some_and(|p| !p.is_object()) {
        "Invalid request: params must be an object"
    } else {
        // A request in good form the SDK cannot read: its params are what is wrong.
        let method = method.and_then(Json::as_str).unwrap_or_default();
        let why = super::server::params_fault(method, msg.get("params"))
            .unwrap_or_else(|| format!("Invalid params for {}", crate::model::quoted(method, 40)));
        return Check::Answer(error_line(INVALID_PARAMS, id.unwrap_or(Json::Null), &why));
    };
    Check::Answer(error_line(INVALID_REQUEST, id.unwrap_or(Json::Null), why))
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
                if replies
                    .send(error_line(INVALID_REQUEST, Json::Null, &msg))
                    .await
                    .is_err()
                {
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
        match check(text) {
            Check::Pass { request: true } => requested = true,
            Check::Pass { request: false } if !requested => {
                // A notification or response before any request would end the SDK's
                // handshake (and with it the server); nothing answers those anyway.
                tracing::warn!("mcp: a notification or response before any request was dropped");
                continue;
            }
            Check::Pass { request: false } => {}
            Check::Drop => {
                tracing::warn!("mcp: a notification or response that cannot be read was dropped");
                continue;
            }
            Check::Answer(reply) => {
                if replies.send(reply).await.is_err() {
                    return;
                }
                continue;
            }
        }
        if to_sdk.write_all(text).await.is_err()
            || to_sdk.write_all(b"\n").await.is_err()
            || to_sdk.flush().await.is_err()
        {
            return;
        }
    }
}

/// An error the SDK sent without an id gets `"id": null`, as JSON-RPC 2.0 asks. [`check`]
/// answers what the SDK cannot read before it sees it, so this only keeps a later SDK, whose
/// reading may differ, from putting an id-less error on the wire.
fn with_null_id(line: String) -> String {
    const BARE: &str = r#"{"jsonrpc":"2.0","error":"#;
    match line.strip_prefix(BARE) {
        Some(rest) => format!(r#"{{"jsonrpc":"2.0","id":null,"error":{rest}"#),
        None => line,
    }
}

/// Passes the SDK's output lines on to the writer.
async fn relay<R: AsyncRead + Unpin>(from_sdk: R, out: mpsc::Sender<String>) {
    let mut lines = BufReader::with_capacity(PIPE_BYTES, from_sdk).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if out.send(with_null_id(line)).await.is_err() {
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
pub async fn run<R, W>(server: Server, input: R, output: W) -> Result<(), Error>
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
            Err(e) => Err(Error::other(format!("mcp: the server stopped: {e}"))),
        },
        // The client left before it said anything.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(Error::other(format!("mcp: no session started: {e}"))),
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

    fn answer(line: &str) -> Json {
        match check(line.as_bytes()) {
            Check::Answer(a) => serde_json::from_str(&a).unwrap(),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn what_the_sdk_cannot_read_is_answered_with_the_id_or_null() {
        let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(check(ping.as_bytes()), Check::Pass { request: true });
        let note = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(check(note.as_bytes()), Check::Pass { request: false });
        for (line, code, id) in [
            ("{\"jsonrpc\":", -32700, Json::Null),
            (r#"{"jsonrpc":"2.0","method":1}"#, -32600, Json::Null),
            ("[]", -32600, Json::Null),
            (
                r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
                -32600,
                Json::Null,
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":[]}"#,
                -32600,
                "a".into(),
            ),
            (r#"{"id":7,"method":"ping"}"#, -32600, 7.into()),
        ] {
            let a = answer(line);
            assert_eq!(a["error"]["code"], code, "{line}: {a}");
            assert_eq!(a.get("id"), Some(&id), "{line}: {a}");
        }
        // Nobody waits for an answer to a notification or a response.
        for line in [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":5}"#,
        ] {
            assert_eq!(check(line.as_bytes()), Check::Drop, "{line}");
        }
    }

    #[test]
    fn an_sdk_error_without_an_id_gets_a_null_one() {
        let fixed = with_null_id(r#"{"jsonrpc":"2.0","error":{"code":-32600}}"#.into());
        let v: Json = serde_json::from_str(&fixed).unwrap();
        assert_eq!(v.get("id"), Some(&Json::Null));
        let kept = r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601}}"#;
        assert_eq!(with_null_id(kept.into()), kept);
    }
}
