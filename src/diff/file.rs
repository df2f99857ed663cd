//! Reading a `tree --json` document into a flat [`Tree`], without recursion: a tree may be
//! thousands of levels deep (an app's lie, or a real one), and a recursive parser — or a nested
//! `serde_json::Value`, whose drop recurses too — would overflow the stack. The document is
//! scanned once; each element becomes an entry as its object opens (so entries are in
//! pre-order), its scalar fields are parsed one by one (each a small value), and its
//! `children` array is walked with an explicit stack. Nodes that repeat an element placed
//! elsewhere (`repeat`) are left out, as the diff compares elements.

use serde_json::Value as Json;

use super::{Entry, Tree};

/// Reads `text`, a `tree --json` document.
pub fn read(text: &str) -> Result<Tree, String> {
    let mut s = Scanner {
        b: text.as_bytes(),
        text,
        at: 0,
    };
    let mut t = Tree::default();
    let mut root_seen = false;
    let mut repeats: Vec<bool> = Vec::new();
    s.expect(b'{')?;
    let mut first = true;
    loop {
        s.ws();
        if s.eat(b'}') {
            break;
        }
        if !first {
            s.expect(b',')?;
        }
        first = false;
        let key = s.string()?;
        s.expect(b':')?;
        match key.as_str() {
            "window" => t.window = parse::<String>(s.value()?).unwrap_or_default(),
            "root" => {
                root_seen = true;
                s.ws();
                if s.peek() == Some(b'n') {
                    s.value()?;
                } else {
                    read_nodes(&mut s, &mut t, &mut repeats)?;
                }
            }
            _ => {
                s.value()?;
            }
        }
    }
    s.ws();
    if s.at != s.b.len() {
        return Err(s.bad("text after the document"));
    }
    if !root_seen {
        return Err("not a `tree --json` file: no \"root\"".into());
    }
    Ok(without_repeats(t, &repeats))
}

/// One open element: its row, and whether its `children` array is being walked.
struct Open {
    row: usize,
    in_children: bool,
    /// Nothing read yet in the current object or array (no comma before the next item).
    first: bool,
}

/// Reads the root element and everything below it.
fn read_nodes(s: &mut Scanner<'_>, t: &mut Tree, repeats: &mut Vec<bool>) -> Result<(), String> {
    s.expect(b'{')?;
    let mut stack = vec![open_entry(t, repeats, None)];
    while let Some(top) = stack.last_mut() {
        s.ws();
        if top.in_children {
            if s.eat(b']') {
                top.in_children = false;
                top.first = false;
                continue;
            }
            if !top.first {
                s.expect(b',')?;
            }
            top.first = false;
            s.expect(b'{')?;
            let parent = top.row;
            stack.push(open_entry(t, repeats, Some(parent)));
            continue;
        }
        if s.eat(b'}') {
            stack.pop();
            continue;
        }
        if !top.first {
            s.expect(b',')?;
        }
        top.first = false;
        let key = s.string()?;
        s.expect(b':')?;
        let row = top.row;
        if key == "children" {
            s.expect(b'[')?;
            top.in_children = true;
            top.first = true;
            continue;
        }
        let raw = s.value()?;
        let e = &mut t.entries[row];
        let text = || parse::<String>(raw).unwrap_or_default();
        match key.as_str() {
            "id" => e.id = text(),
            "role" => e.role = text(),
            "name" => e.name = text(),
            "description" => e.description = text(),
            "value" => e.value = parse::<Json>(raw).unwrap_or(Json::Null),
            "states" => e.states = parse::<Vec<String>>(raw).unwrap_or_default(),
            "repeat" => repeats[row] = !raw.trim().starts_with('n'),
            _ => {}
        }
    }
    Ok(())
}

fn open_entry(t: &mut Tree, repeats: &mut Vec<bool>, parent: Option<usize>) -> Open {
    let row = t.entries.len();
    t.entries.push(Entry {
        id: String::new(),
        role: String::new(),
        name: String::new(),
        description: String::new(),
        value: Json::Null,
        states: Vec::new(),
        parent,
        children: Vec::new(),
    });
    repeats.push(false);
    if let Some(p) = parent {
        t.entries[p].children.push(row);
    }
    Open {
        row,
        in_children: false,
        first: true,
    }
}

/// The tree without the entries `repeats` marks (leaves), rows renumbered.
pub fn without_repeats(mut t: Tree, repeats: &[bool]) -> Tree {
    if !repeats.iter().any(|&r| r) {
        return t;
    }
    let mut new_row = vec![usize::MAX; t.entries.len()];
    let mut next = 0;
    for (row, &r) in repeats.iter().enumerate() {
        if !r {
            new_row[row] = next;
            next += 1;
        }
    }
    let entries = std::mem::take(&mut t.entries);
    t.entries = entries
        .into_iter()
        .enumerate()
        .filter(|(row, _)| !repeats.get(*row).copied().unwrap_or(false))
        .map(|(_, mut e)| {
            e.parent = e.parent.map(|p| new_row[p]).filter(|&p| p != usize::MAX);
            e.children = e
                .children
                .iter()
                .map(|&c| new_row[c])
                .filter(|&c| c != usize::MAX)
                .collect();
            e
        })
        .collect();
    t
}

/// A small value of the document, parsed on its own.
fn parse<T: serde::de::DeserializeOwned>(raw: &str) -> Option<T> {
    serde_json::from_str(raw).ok()
}

struct Scanner<'a> {
    b: &'a [u8],
    text: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    fn bad(&self, what: &str) -> String {
        format!("not a `tree --json` file: {what} at byte {}", self.at)
    }

    fn ws(&mut self) {
        while self.at < self.b.len() && self.b[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.bad(&format!("expected '{}'", c as char)))
        }
    }

    /// The end of the string that starts at `at` (just past its closing quote).
    fn string_end(&self, at: usize) -> Result<usize, String> {
        let mut i = at + 1;
        while i < self.b.len() {
            match self.b[i] {
                b'\\' => i += 2,
                b'"' => return Ok(i + 1),
                _ => i += 1,
            }
        }
        Err(self.bad("an unterminated string"))
    }

    fn string(&mut self) -> Result<String, String> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(self.bad("expected a string"));
        }
        let end = self.string_end(self.at)?;
        let raw = &self.text[self.at..end];
        self.at = end;
        serde_json::from_str(raw).map_err(|e| self.bad(&format!("a bad string ({e})")))
    }

    /// Skips one value of any nesting (counted, not recursed) and returns its text.
    fn value(&mut self) -> Result<&'a str, String> {
        self.ws();
        let start = self.at;
        let mut depth = 0usize;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.bad("the document ends inside a value"));
            };
            match c {
                b'"' => self.at = self.string_end(self.at)?,
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                    self.at += 1;
                }
                b',' if depth == 0 => break,
                _ => self.at += 1,
            }
            if depth == 0 && matches!(c, b'"' | b'}' | b']') {
                break;
            }
        }
        let raw = self.text[start..self.at].trim();
        if raw.is_empty() {
            return Err(self.bad("a missing value"));
        }
        Ok(raw)
    }
}
