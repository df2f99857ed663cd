//! JSON in and out. The one JSON writer for everything treeglass prints or saves as JSON
//! (`--json` output, workflow and recording files) pretty-prints as serde_json does, except that
//!
//! - every character a terminal would act on or hide (controls, DEL, C1, bidi controls,
//!   invisible format characters: [`crate::model::is_hostile`]) is written as a `\uXXXX`
//!   escape, so JSON printed to a terminal is as safe as text output and still the same data;
//! - indentation stops growing after [`MAX_INDENT`] levels of nesting, so a document for a tree
//!   thousands of levels deep grows with its node count, not with the square of its depth;
//! - [`Writer`] writes nested documents piece by piece, without recursion and without building
//!   them in memory first (`tree --json` streams the snapshot straight to standard output).
//!
//! Files a person reviews and treeglass then acts on (workflow files, recordings, inputs) are
//! read with [`parse_strict`], which refuses a key given twice in one object: a reviewer reads
//! one value while a parser keeps the other.

use std::io::{self, Write};

use std::cell::RefCell;
use std::fmt;

use serde::Serialize;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::ser::{CharEscape, Formatter};

use crate::model::is_hostile;

/// Levels of nesting that are indented; deeper ones share the last indentation. A node of a
/// tree sits two levels below its parent (the node, its `children` array), so tree JSON is
/// fully indented down to about 31 levels of tree depth.
pub const MAX_INDENT: usize = 64;

/// serde_json's `PrettyFormatter` (two spaces) with capped indentation and the escaping above.
#[derive(Debug, Clone, Default)]
pub struct SafeFormatter {
    level: usize,
    has_value: bool,
}

fn indent<W: ?Sized + Write>(w: &mut W, level: usize) -> io::Result<()> {
    const SPACES: [u8; 2 * MAX_INDENT] = [b' '; 2 * MAX_INDENT];
    w.write_all(&SPACES[..2 * level.min(MAX_INDENT)])
}

/// Writes `s` with every hostile character as `\uXXXX` (a surrogate pair above U+FFFF).
fn write_safe_fragment<W: ?Sized + Write>(w: &mut W, s: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if is_hostile(c) {
            w.write_all(&s.as_bytes()[start..i])?;
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                write!(w, "\\u{:04x}", u)?;
            }
            start = i + c.len_utf8();
        }
    }
    w.write_all(&s.as_bytes()[start..])
}

impl Formatter for SafeFormatter {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.level)?;
        }
        w.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.level)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            w.write_all(b"\n")?;
            indent(w, self.level)?;
        }
        w.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        w.write_all(if first { b"\n" } else { b",\n" })?;
        indent(w, self.level)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_safe_fragment(w, fragment)
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        escape: CharEscape,
    ) -> io::Result<()> {
        // serde_json's own short forms, except that no control character is written raw.
        let s: &[u8] = match escape {
            CharEscape::Quote => b"\\\"",
            CharEscape::ReverseSolidus => b"\\\\",
            CharEscape::Solidus => b"\\/",
            CharEscape::Backspace => b"\\b",
            CharEscape::FormFeed => b"\\f",
            CharEscape::LineFeed => b"\\n",
            CharEscape::CarriageReturn => b"\\r",
            CharEscape::Tab => b"\\t",
            CharEscape::AsciiControl(b) => return write!(w, "\\u{:04x}", b),
        };
        w.write_all(s)
    }
}

/// serde_json hands an IO error back as it was (a closed pipe stays `BrokenPipe`).
fn to_io(e: serde_json::Error) -> io::Error {
    io::Error::from(e)
}

/// Writes `value` as pretty, terminal-safe JSON (no trailing newline).
pub fn write<W: Write, T: Serialize + ?Sized>(w: W, value: &T) -> io::Result<()> {
    write_at(w, value, &mut SafeFormatter::default())
}

fn write_at<W: Write, T: Serialize + ?Sized>(
    w: W,
    value: &T,
    fmt: &mut SafeFormatter,
) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(w, fmt.clone());
    value.serialize(&mut ser).map_err(to_io)
}

/// `value` as pretty, terminal-safe JSON (no trailing newline). Serialising plain data into a
/// string cannot fail; `{}` stands in if a value's `Serialize` ever refused.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    if write(&mut out, value).is_err() {
        return "{}".into();
    }
    // The writer emits UTF-8 only (the input was UTF-8; escapes are ASCII).
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// `line`, one compact JSON document as serde_json writes it, with every hostile character
/// written as `\uXXXX` (the protocol stream of `treeglass mcp`). serde_json escapes control
/// characters itself, so a hostile character can only stand inside a string there, where its
/// escape means the same character: the document is the same data, safe to print.
pub fn escape_compact(line: &str) -> std::borrow::Cow<'_, str> {
    if !line.chars().any(is_hostile) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut out = Vec::with_capacity(line.len() + 16);
    // Writing into a Vec cannot fail.
    let _ = write_safe_fragment(&mut out, line);
    // The escapes are ASCII and the rest was UTF-8 already.
    std::borrow::Cow::Owned(
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into()),
    )
}

/// Writes one JSON document piece by piece: objects and arrays are opened and closed by the
/// caller, leaves are serialised whole. The output is byte for byte what [`write`] gives for
/// the same document, and nothing but the open containers is held.
pub struct Writer<W: Write> {
    out: W,
    fmt: SafeFormatter,
    /// For each open container: whether it has had an entry yet.
    first: Vec<bool>,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer {
            out,
            fmt: SafeFormatter::default(),
            first: Vec::new(),
        }
    }

    fn take_first(&mut self) -> bool {
        match self.first.last_mut() {
            Some(f) => std::mem::replace(f, false),
            None => false,
        }
    }

    pub fn begin_object(&mut self) -> io::Result<()> {
        self.first.push(true);
        self.fmt.begin_object(&mut self.out)
    }

    pub fn end_object(&mut self) -> io::Result<()> {
        self.first.pop();
        self.fmt.end_object(&mut self.out)?;
        self.end_value()
    }

    pub fn begin_array(&mut self) -> io::Result<()> {
        self.first.push(true);
        self.fmt.begin_array(&mut self.out)
    }

    pub fn end_array(&mut self) -> io::Result<()> {
        self.first.pop();
        self.fmt.end_array(&mut self.out)?;
        self.end_value()
    }

    /// Starts an object entry; its value follows (a leaf, an object or an array).
    pub fn key(&mut self, key: &str) -> io::Result<()> {
        let first = self.take_first();
        self.fmt.begin_object_key(&mut self.out, first)?;
        write_at(&mut self.out, key, &mut self.fmt)?;
        self.fmt.begin_object_value(&mut self.out)
    }

    /// Starts an array element; its value follows.
    pub fn element(&mut self) -> io::Result<()> {
        let first = self.take_first();
        self.fmt.begin_array_value(&mut self.out, first)
    }

    /// A whole value (serialised at the current indentation).
    pub fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        write_at(&mut self.out, value, &mut self.fmt)?;
        self.end_value()
    }

    /// `key` and its whole value.
    pub fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> io::Result<()> {
        self.key(key)?;
        self.value(value)
    }

    /// Marks the value just written as the container's (the closing bracket goes on its own line).
    fn end_value(&mut self) -> io::Result<()> {
        // Both end_*_value calls only record that the container has a value.
        self.fmt.end_object_value(&mut self.out)
    }

    /// The underlying writer (the tests read what was written).
    #[cfg(test)]
    fn into_inner(self) -> W {
        self.out
    }
}

/// Why [`parse_strict`] refused a document.
#[derive(Debug)]
pub enum ParseError {
    /// Not JSON (serde_json's error, with its line and column).
    Syntax(serde_json::Error),
    /// A key given twice in one object: its JSON pointer (RFC 6901), line and column.
    DuplicateKey {
        pointer: String,
        key: String,
        line: usize,
        column: usize,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Syntax(e) => write!(f, "{e}"),
            ParseError::DuplicateKey {
                pointer,
                key,
                line,
                column,
            } => write!(
                f,
                "duplicate key {} at {pointer} (line {line}, column {column}): a key may appear \
                 once per object",
                crate::model::quoted(key, 60),
            ),
        }
    }
}

/// An RFC 6901 reference token: `~` → `~0`, `/` → `~1`.
fn pointer_token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Builds a `Value` like serde_json does, refusing duplicate keys; the first one found is
/// recorded in `dup` (serde's error type carries only a message).
struct Unique<'a> {
    pointer: String,
    dup: &'a RefCell<Option<(String, String)>>,
}

impl<'de> DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Unique {
            pointer: format!("{}/{}", self.pointer, out.len()),
            dup: self.dup,
        })? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let pointer = format!("{}/{}", self.pointer, pointer_token(&key));
            if out.contains_key(&key) {
                *self.dup.borrow_mut() = Some((pointer, key));
                return Err(de::Error::custom("duplicate key"));
            }
            let v = map.next_value_seed(Unique {
                pointer,
                dup: self.dup,
            })?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// Parses a JSON document, refusing any key that appears twice in one object (serde_json
/// would keep the last silently). Nesting is limited as serde_json limits it (128 levels).
pub fn parse_strict(bytes: &[u8]) -> Result<Value, ParseError> {
    let dup = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = Unique {
        pointer: String::new(),
        dup: &dup,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| match dup.into_inner() {
        Some((pointer, key)) => ParseError::DuplicateKey {
            pointer,
            key,
            line: e.line(),
            column: e.column(),
        },
        None => ParseError::Syntax(e),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_bytes_as_serde_json_for_ordinary_documents() {
        let v = json!({"a": [1, 2, {"b": null, "c": []}], "d": {}, "e": "x\ny\t\"q\" \\",
                       "f": [[]], "g": {"h": {"i": true}}, "n": 1.5});
        assert_eq!(to_string(&v), serde_json::to_string_pretty(&v).unwrap());
    }

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        let s = "esc\x1b del\x7f c1\u{9b} bidi\u{202e} iso\u{2066} shy\u{ad} tag\u{e0041} ok é";
        let out = to_string(&json!({ "s": s }));
        for c in out.chars() {
            assert!(
                c == '\n' || !is_hostile(c),
                "raw U+{:04X} in {out}",
                c as u32
            );
        }
        assert!(out.contains("\\u001b") && out.contains("\\u007f") && out.contains("\\u009b"));
        assert!(
            out.contains("\\u202e") && out.contains("\\udb40\\udc41"),
            "{out}"
        );
        assert!(out.contains("ok é"));
        // The same data comes back.
        let back: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["s"], s);
    }

    #[test]
    fn indentation_stops_growing() {
        let mut v = json!(1);
        // Deeper than the cap, within serde_json's parser limit (128) for the round trip.
        for _ in 0..100 {
            v = json!([v]);
        }
        let out = to_string(&v);
        let widest = out.lines().map(|l| l.len() - l.trim_start().len()).max();
        assert_eq!(widest, Some(2 * MAX_INDENT));
        assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), v);
    }

    #[test]
    fn the_piecewise_writer_matches_the_whole_document() {
        let v = json!({"a": 1, "kids": [{"x": "1", "kids": []}, {"x": "2", "kids": [{"y": null}]}],
                       "z": "\u{202e}"});
        let mut w = Writer::new(Vec::new());
        w.begin_object().unwrap();
        w.entry("a", &1).unwrap();
        w.key("kids").unwrap();
        w.begin_array().unwrap();
        w.element().unwrap();
        w.begin_object().unwrap();
        w.key("kids").unwrap();
        w.begin_array().unwrap();
        w.end_array().unwrap();
        w.entry("x", "1").unwrap();
        w.end_object().unwrap();
        w.element().unwrap();
        w.value(&json!({"kids": [{"y": null}], "x": "2"})).unwrap();
        w.end_array().unwrap();
        w.entry("z", "\u{202e}").unwrap();
        w.end_object().unwrap();
        let out = String::from_utf8(w.into_inner()).unwrap();
        assert_eq!(out, to_string(&v));
    }

    #[test]
    fn strict_parsing_refuses_duplicate_keys_with_their_pointer() {
        let doc = br#"{"steps": [{"id": "a", "target": "button \"Safe\"",
                       "target": "button \"Delete all\""}]}"#;
        match parse_strict(doc) {
            Err(ParseError::DuplicateKey {
                pointer, key, line, ..
            }) => {
                assert_eq!(
                    (pointer.as_str(), key.as_str()),
                    ("/steps/0/target", "target")
                );
                assert_eq!(line, 2);
            }
            other => panic!("{other:?}"),
        }
        let nested = br#"{"a/b": {"x": 1, "~": 2, "~": 3}}"#;
        let err = parse_strict(nested).unwrap_err().to_string();
        assert!(err.contains("/a~1b/~0"), "{err}");
        // Same key in different objects is fine; the value is serde_json's.
        let ok = br#"{"a": {"k": 1}, "b": {"k": [1, 2.5, -3, true, null, "s"]}}"#;
        assert_eq!(
            parse_strict(ok).unwrap(),
            serde_json::from_slice::<Value>(ok).unwrap()
        );
        assert!(matches!(
            parse_strict(b"{\"a\": }"),
            Err(ParseError::Syntax(_))
        ));
        assert!(matches!(parse_strict(b"{} x"), Err(ParseError::Syntax(_))));
    }

    #[test]
    fn compact_lines_keep_their_data_and_lose_hostile_characters() {
        let s = "esc\x1b c1\u{9b} bidi\u{202e} tag\u{e0041} \\u202e ok é";
        let line = serde_json::to_string(&json!({ "s": s, "n": [1, "\u{200b}"] })).unwrap();
        let out = escape_compact(&line);
        assert!(out.chars().all(|c| !is_hostile(c)), "{out}");
        assert!(!out.contains('\n'));
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back["s"], s);
        assert_eq!(back["n"][1], "\u{200b}");
        assert!(matches!(
            escape_compact("{\"a\":1}"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
