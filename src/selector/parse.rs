//! Parsing a target's string form (and dispatching the JSON form), with column-precise errors.

use super::distance::{closest, edit_distance};
use super::print::write_quoted;
use super::{
    MAX_TARGET_CHARS, MAX_WITHIN, Neighbour, Parts, Query, QueryMode, RoleSpec, StateReq, Target,
};
use crate::model::{Role, State, Token, sanitize};

/// Why a string is not a target.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ParseError {
    /// Where the problem is: 1-based, in characters from the start of the input (a newline in
    /// a multi-line JSON target counts as one character).
    pub column: usize,
    /// What would have been accepted there.
    pub expected: String,
    /// What is wrong, with a hint where one helps. Safe to print: user text is escaped.
    pub message: String,
}

impl ParseError {
    pub(crate) fn new(column: usize, expected: impl Into<String>, message: &str) -> ParseError {
        ParseError {
            column,
            expected: expected.into(),
            message: sanitize(message, 0).into_owned(),
        }
    }
}

/// `s` in double quotes, escaped like the canonical printer does, for messages.
pub(crate) fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    // Writing into a String cannot fail.
    let _ = write_quoted(&mut out, s);
    out
}

/// "a", "a or b", "a, b or c".
fn one_of(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

const ITEM: &str = "a role, a quoted query, [states], labelled-by, after, #N or `in`";

pub(super) fn parse(s: &str) -> Result<Target, ParseError> {
    check_length(s)?;
    let body = s.trim_start();
    if body.trim_end().is_empty() {
        return Err(ParseError::new(
            1,
            "a role, a quoted query or [states]",
            "the target is empty",
        ));
    }
    let lead = s[..s.len() - body.len()].chars().count();
    if Token::looks_like(body) {
        return Err(ParseError::new(
            lead + 1,
            "a target",
            &format!(
                "{} is an element token, not a target; pass it where a token is accepted",
                shown(body.trim_end())
            ),
        ));
    }
    let target = if body.starts_with('{') {
        super::json::parse_json(s)?
    } else {
        Parser::new(s).target()?
    };
    check_canonical(&target)?;
    Ok(target)
}

pub(super) fn parse_lenient(s: &str) -> Result<Target, ParseError> {
    let strict = match parse(s) {
        Ok(t) => return Ok(t),
        Err(e) => e,
    };
    let text = s.trim();
    let tried_syntax = text.contains(['"', '[', ']', '{', '}']);
    if tried_syntax || text.is_empty() || Token::looks_like(text) || check_length(s).is_err() {
        return Err(strict);
    }
    let query = Query::tiered(text).map_err(|e| ParseError::new(1, "text", &e.to_string()))?;
    let target = Target::from_query(query);
    check_canonical(&target)?;
    Ok(target)
}

/// Refuses long input before doing anything else, so a 100 KB paste costs one length check.
fn check_length(s: &str) -> Result<(), ParseError> {
    // A character takes at least one byte, so short byte lengths need no counting.
    if s.len() <= MAX_TARGET_CHARS {
        return Ok(());
    }
    let n = s.chars().count();
    if n <= MAX_TARGET_CHARS {
        return Ok(());
    }
    Err(ParseError::new(
        MAX_TARGET_CHARS + 1,
        format!("at most {MAX_TARGET_CHARS} characters"),
        &format!("the target is {n} characters long; the limit is {MAX_TARGET_CHARS}"),
    ))
}

/// Keeps the round-trip promise: input that fits but whose escaped canonical form would not
/// (raw control characters print as `\x..`) is refused.
fn check_canonical(t: &Target) -> Result<(), ParseError> {
    let n = t.to_string().chars().count();
    if n <= MAX_TARGET_CHARS {
        return Ok(());
    }
    Err(ParseError::new(
        1,
        format!("at most {MAX_TARGET_CHARS} characters"),
        &format!(
            "the canonical form of this target is {n} characters long (control characters \
             print escaped); the limit is {MAX_TARGET_CHARS}"
        ),
    ))
}

/// One clause's items as parsed, and the column it starts at for later errors.
#[derive(Default)]
struct Clause {
    column: usize,
    role: Option<RoleSpec>,
    query: Option<Query>,
    states: Option<Vec<StateReq>>,
    label: Option<Query>,
    after: Option<Neighbour>,
    nth: Option<u32>,
}

impl Clause {
    fn counts_something(&self) -> bool {
        self.role.is_some()
            || self.query.is_some()
            || self.states.is_some()
            || self.label.is_some()
            || self.after.is_some()
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
}

fn ends_word(c: char) -> bool {
    c.is_whitespace() || matches!(c, '"' | '[' | ']' | '#')
}

impl Parser {
    fn new(s: &str) -> Parser {
        Parser {
            chars: s.chars().collect(),
            pos: 0,
        }
    }

    fn col(&self) -> usize {
        self.pos + 1
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn word_end(&self) -> usize {
        let mut end = self.pos;
        while self.chars.get(end).is_some_and(|&c| !ends_word(c)) {
            end += 1;
        }
        end
    }

    fn word(&self, end: usize) -> String {
        self.chars[self.pos..end].iter().collect()
    }

    /// Clauses are collected flat and nested from the innermost outwards, so nothing here
    /// recurses however many `in`s the input has.
    fn target(mut self) -> Result<Target, ParseError> {
        let mut clauses: Vec<Clause> = Vec::new();
        loop {
            clauses.push(self.clause()?);
            self.skip_ws();
            if self.peek().is_none() {
                break;
            }
            // `clause` stops only at the end or in front of `in`.
            let in_col = self.col();
            self.pos += 2;
            if clauses.len() > MAX_WITHIN {
                return Err(ParseError::new(
                    in_col,
                    "the end of the target",
                    &format!("too many `in` levels; the limit is {MAX_WITHIN}"),
                ));
            }
            self.skip_ws();
            if self.peek().is_none() {
                return Err(ParseError::new(
                    self.col(),
                    "a target after `in`",
                    "`in` needs a target after it, e.g. in frame \"Settings\"",
                ));
            }
        }
        let mut acc: Option<Target> = None;
        for c in clauses.into_iter().rev() {
            let col = c.column;
            let at = |e: super::TargetError| ParseError::new(col, "a valid clause", &e.to_string());
            let t = Target::from_parts(Parts {
                role: c.role,
                query: c.query,
                states: c.states.unwrap_or_default(),
                label: c.label,
                after: c.after,
                nth: c.nth,
            })
            .map_err(at)?;
            acc = Some(match acc {
                Some(ancestor) => t.inside(ancestor).map_err(at)?,
                None => t,
            });
        }
        acc.ok_or_else(|| ParseError::new(1, ITEM, "the target is empty"))
    }

    fn clause(&mut self) -> Result<Clause, ParseError> {
        self.skip_ws();
        let mut clause = Clause {
            column: self.col(),
            ..Clause::default()
        };
        while let Some(c) = {
            self.skip_ws();
            self.peek()
        } {
            let col = self.col();
            match c {
                '"' => {
                    let text = self.string()?;
                    self.set_query(&mut clause, text, QueryMode::Tiered, col)?;
                }
                '=' | '*' | '~' => {
                    if self.peek_at(1) != Some('"') {
                        return Err(ParseError::new(
                            col + 1,
                            format!("a quoted query after `{c}`"),
                            &format!("`{c}` must be followed by a quoted query, e.g. {c}\"Save\""),
                        ));
                    }
                    let mode = match c {
                        '=' => QueryMode::Exact,
                        '*' => QueryMode::Substring,
                        _ => QueryMode::Fuzzy,
                    };
                    self.pos += 1;
                    let text = self.string()?;
                    self.set_query(&mut clause, text, mode, col)?;
                }
                '[' => {
                    let states = self.states()?;
                    if clause.states.is_some() {
                        return Err(ParseError::new(
                            col,
                            "a role, a query or `in`",
                            "a clause has one state list; put all states in the first [...]",
                        ));
                    }
                    clause.states = Some(states);
                }
                '#' => {
                    let n = self.position()?;
                    if clause.nth.is_some() {
                        return Err(ParseError::new(
                            col,
                            "a role, a query, [states] or `in`",
                            "a clause has one position; to count an ancestor, write `in` before it",
                        ));
                    }
                    clause.nth = Some(n);
                }
                ']' => return Err(ParseError::new(col, ITEM, "`]` without a matching `[`")),
                '{' | '}' => {
                    return Err(ParseError::new(
                        col,
                        ITEM,
                        "a JSON target must be the whole input, starting with `{`",
                    ));
                }
                _ => {
                    let end = self.word_end();
                    let word = self.word(end);
                    if word == "in" {
                        break;
                    }
                    if word == "labelled-by" || word == "labeled-by" {
                        self.pos = end;
                        let query = self.keyword_query(&word)?;
                        if clause.label.is_some() {
                            return Err(ParseError::new(
                                col,
                                "a role, a query, [states] or `in`",
                                "a clause has one labelled-by",
                            ));
                        }
                        clause.label = Some(query);
                        continue;
                    }
                    if word == "after" {
                        self.pos = end;
                        let after = self.neighbour()?;
                        if clause.after.is_some() {
                            return Err(ParseError::new(
                                col,
                                "a role, a query, [states] or `in`",
                                "a clause has one after",
                            ));
                        }
                        clause.after = Some(after);
                        continue;
                    }
                    let role = if let Some(rest) = word.strip_prefix("role:") {
                        self.raw_role(rest, col, end)?
                    } else {
                        self.pos = end;
                        RoleSpec::Role(
                            Role::from_name(&word).ok_or_else(|| unknown_role(&word, col))?,
                        )
                    };
                    if clause.role.is_some() {
                        return Err(ParseError::new(
                            col,
                            "a query, [states] or `in`",
                            "a clause has one role; to name an ancestor, write `in` before it",
                        ));
                    }
                    clause.role = Some(role);
                }
            }
        }
        if !clause.counts_something() && clause.nth.is_some() {
            return Err(ParseError::new(
                clause.column,
                "a role, a quoted query, [states], labelled-by or after beside the position",
                "a position needs something to count, e.g. check-box #2",
            ));
        }
        if !clause.counts_something() {
            return Err(if self.peek().is_some() {
                ParseError::new(
                    self.col(),
                    "a role, a quoted query or [states] before `in`",
                    "`in` needs a target before it",
                )
            } else {
                ParseError::new(clause.column, ITEM, "the target is empty")
            });
        }
        Ok(clause)
    }

    /// `#N` starting at the current position: a position counted from 1.
    fn position(&mut self) -> Result<u32, ParseError> {
        let col = self.col();
        self.pos += 1;
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        if digits.is_empty() {
            return Err(ParseError::new(
                col + 1,
                "a number after `#`",
                "`#` must be followed by a position, e.g. #2",
            ));
        }
        if self.peek().is_some_and(|c| !ends_word(c)) {
            return Err(ParseError::new(
                self.col(),
                "white space after the position",
                "a position is digits only, e.g. #2",
            ));
        }
        match digits.parse::<u32>() {
            Ok(0) => Err(ParseError::new(
                col,
                "a position of 1 or more",
                "positions count from 1: #0 names nothing",
            )),
            Ok(n) => Ok(n),
            Err(_) => Err(ParseError::new(
                col,
                format!("a position up to {}", u32::MAX),
                "the position is too large",
            )),
        }
    }

    /// A query (with its optional mode prefix) after a keyword such as `labelled-by`.
    fn keyword_query(&mut self, keyword: &str) -> Result<Query, ParseError> {
        self.skip_ws();
        let col = self.col();
        let mode = match self.peek() {
            Some('"') => QueryMode::Tiered,
            Some(c @ ('=' | '*' | '~')) if self.peek_at(1) == Some('"') => {
                self.pos += 1;
                match c {
                    '=' => QueryMode::Exact,
                    '*' => QueryMode::Substring,
                    _ => QueryMode::Fuzzy,
                }
            }
            _ => {
                return Err(ParseError::new(
                    col,
                    format!("a quoted query after `{keyword}`"),
                    &format!(
                        "`{keyword}` must be followed by a quoted text, e.g. {keyword} \"Name:\""
                    ),
                ));
            }
        };
        let text = self.string()?;
        Query::new(text, mode)
            .map_err(|_| ParseError::new(col, "some text between the quotes", "the query is empty"))
    }

    /// After `after`: an optional role name (default label), then a query.
    fn neighbour(&mut self) -> Result<Neighbour, ParseError> {
        self.skip_ws();
        let col = self.col();
        let role = match self.peek() {
            Some('"' | '=' | '*' | '~') => Role::Label,
            Some(c) if !ends_word(c) => {
                let end = self.word_end();
                let word = self.word(end);
                let role = Role::from_name(&word).ok_or_else(|| {
                    let mut e = unknown_role(&word, col);
                    e.message = format!(
                        "after `after`: {}; write e.g. after label \"Name:\"",
                        e.message
                    );
                    e
                })?;
                self.pos = end;
                role
            }
            _ => {
                return Err(ParseError::new(
                    col,
                    "a role or a quoted query after `after`",
                    "`after` must be followed by the neighbour's text, e.g. after label \"Name:\"",
                ));
            }
        };
        let query = self.keyword_query("after")?;
        Ok(Neighbour::new(role, query))
    }

    fn set_query(
        &self,
        clause: &mut Clause,
        text: String,
        mode: QueryMode,
        col: usize,
    ) -> Result<(), ParseError> {
        if clause.query.is_some() {
            return Err(ParseError::new(
                col,
                "a role, [states] or `in`",
                "a clause has one query; to name an ancestor write `in` before it",
            ));
        }
        let query = Query::new(text, mode).map_err(|_| {
            ParseError::new(col, "some text between the quotes", "the query is empty")
        })?;
        clause.query = Some(query);
        Ok(())
    }

    /// After `role:` (`rest` is what followed it in the same word): a quoted raw role name.
    fn raw_role(&mut self, rest: &str, col: usize, end: usize) -> Result<RoleSpec, ParseError> {
        if !rest.is_empty() {
            return Err(ParseError::new(
                col + 5,
                "a quoted raw role name",
                &format!("raw role names are quoted: role:{}", shown(rest)),
            ));
        }
        self.pos = end;
        self.skip_ws();
        if self.peek() != Some('"') {
            return Err(ParseError::new(
                self.col(),
                "a quoted raw role name after `role:`",
                "`role:` must be followed by a quoted raw role, e.g. role:\"push button\"",
            ));
        }
        let text_col = self.col();
        let text = self.string()?;
        if text.trim().is_empty() {
            return Err(ParseError::new(
                text_col,
                "a raw role name",
                "the raw role is empty",
            ));
        }
        Ok(RoleSpec::Raw(text))
    }

    /// A double-quoted string starting at the current position; returns its unescaped text.
    fn string(&mut self) -> Result<String, ParseError> {
        let open = self.col();
        self.pos += 1;
        let mut out = String::new();
        let unterminated = || {
            ParseError::new(
                open,
                "a closing `\"`",
                &format!("unterminated string: the quote at column {open} is never closed"),
            )
        };
        loop {
            let c = self.peek().ok_or_else(unterminated)?;
            self.pos += 1;
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let esc_col = self.pos;
                    let e = self.peek().ok_or_else(unterminated)?;
                    self.pos += 1;
                    out.push(match e {
                        '"' => '"',
                        '\\' => '\\',
                        'n' => '\n',
                        'r' => '\r',
                        't' => '\t',
                        '0' => '\0',
                        'x' => self.hex_escape(esc_col)?,
                        'u' => self.unicode_escape(esc_col)?,
                        other => {
                            return Err(ParseError::new(
                                esc_col,
                                "an escape: \\\" \\\\ \\n \\r \\t \\0 \\xHH or \\u{…}",
                                &format!("unknown escape \\{}", other.escape_debug()),
                            ));
                        }
                    });
                }
                c => out.push(c),
            }
        }
    }

    /// `\xHH` (after the `x`): the code point U+00HH, as the printer writes C1 controls.
    fn hex_escape(&mut self, esc_col: usize) -> Result<char, ParseError> {
        let digits: String = self.chars.iter().skip(self.pos).take(2).collect();
        let value = (digits.len() == 2 && digits.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(&digits, 16).ok())
            .flatten();
        match value.and_then(char::from_u32) {
            Some(c) => {
                self.pos += 2;
                Ok(c)
            }
            None => Err(ParseError::new(
                esc_col,
                "two hex digits after \\x",
                "\\x must be followed by two hex digits, e.g. \\x1b",
            )),
        }
    }

    /// `\u{H…}` (after the `u`): one to six hex digits naming a Unicode scalar value.
    fn unicode_escape(&mut self, esc_col: usize) -> Result<char, ParseError> {
        let bad = |msg: &str| ParseError::new(esc_col, "\\u{…} with 1 to 6 hex digits", msg);
        if self.peek() != Some('{') {
            return Err(bad("\\u must be followed by {hex digits}, e.g. \\u{202e}"));
        }
        self.pos += 1;
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) && self.pos - start < 6 {
            self.pos += 1;
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        if digits.is_empty() || self.peek() != Some('}') {
            return Err(bad("\\u{ must hold 1 to 6 hex digits and a closing }"));
        }
        self.pos += 1;
        u32::from_str_radix(&digits, 16)
            .ok()
            .and_then(char::from_u32)
            .ok_or_else(|| bad(&format!("\\u{{{digits}}} is not a Unicode scalar value")))
    }

    /// A `[...]` state list starting at the current position.
    fn states(&mut self) -> Result<Vec<StateReq>, ParseError> {
        let open = self.col();
        self.pos += 1;
        let mut reqs: Vec<StateReq> = Vec::new();
        loop {
            while self.peek().is_some_and(|c| c.is_whitespace() || c == ',') {
                self.pos += 1;
            }
            let col = self.col();
            let present = match self.peek() {
                None => {
                    return Err(ParseError::new(
                        open,
                        "`]`",
                        &format!("the `[` at column {open} is never closed"),
                    ));
                }
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some('!') => {
                    self.pos += 1;
                    false
                }
                Some(_) => true,
            };
            let start = self.pos;
            while self
                .peek()
                .is_some_and(|c| !(c.is_whitespace() || matches!(c, ',' | ']' | '[' | '"' | '!')))
            {
                self.pos += 1;
            }
            if self.pos == start {
                let found = self.peek().map(|c| shown(&c.to_string()));
                return Err(ParseError::new(
                    self.col(),
                    "a state name",
                    &match (present, found) {
                        (false, _) => "`!` must be followed directly by a state name".to_string(),
                        (true, Some(f)) => format!("unexpected {f} in a state list"),
                        (true, None) => "expected a state name".to_string(),
                    },
                ));
            }
            let name: String = self.chars[start..self.pos].iter().collect();
            let state = State::from_name(&name)
                .or_else(|| State::from_loose_name(&name))
                .ok_or_else(|| unknown_state(&name, start + 1))?;
            if let Some(prev) = reqs.iter().find(|r| r.state == state) {
                let message = if prev.present == present {
                    format!("state {state} is listed twice")
                } else {
                    format!("state {state} is both required and excluded")
                };
                return Err(ParseError::new(col, "a state not listed yet", &message));
            }
            reqs.push(StateReq { state, present });
        }
        if reqs.is_empty() {
            return Err(ParseError::new(
                open,
                "a state name",
                "the state list is empty; name a state or leave out the []",
            ));
        }
        Ok(reqs)
    }
}

fn unknown_role(word: &str, col: usize) -> ParseError {
    let mut hints: Vec<String> = Vec::new();
    let lower = word.to_lowercase();
    let from_raw = crate::backend::raw_role(&lower.replace(['-', '_'], " "));
    let guess = if let Some(r) = Role::from_name(&lower) {
        Some(r.as_str())
    } else if let Some(r) = from_raw {
        Some(r.as_str())
    } else {
        closest(&lower, Role::ALL.iter().map(|r| r.as_str()), 1)
            .first()
            .copied()
    };
    if let Some(g) = guess {
        hints.push(format!("did you mean {}?", shown(g)));
    }
    // A word close to no role was most likely meant as text.
    if guess.is_none() || edit_distance(&lower, guess.unwrap_or_default()) > 1 {
        hints.push(format!("to match text, quote it: {}", shown(word)));
    }
    ParseError::new(
        col,
        "a role name (check-box, button, …), role:\"raw role\", a quoted query, [states] or `in`",
        &format!("unknown role {} ({})", shown(word), hints.join("; ")),
    )
}

fn unknown_state(name: &str, col: usize) -> ParseError {
    let close: Vec<String> = closest(name, State::ALL.iter().map(|s| s.as_str()), 3)
        .into_iter()
        .map(shown)
        .collect();
    let hint = if close.is_empty() {
        let all: Vec<&str> = State::ALL.iter().map(|s| s.as_str()).collect();
        format!("states are: {}", all.join(", "))
    } else {
        format!("did you mean {}?", one_of(&close))
    };
    ParseError::new(
        col,
        "a state name",
        &format!("unknown state {} ({hint})", shown(name)),
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn err(s: &str) -> ParseError {
        match Target::parse(s) {
            Ok(t) => panic!("{s:?} parsed as {t}"),
            Err(e) => e,
        }
    }

    #[test]
    fn error_columns_and_messages() {
        let e = err("check-box [enabled chekced]");
        assert_eq!(e.column, 20);
        assert_eq!(
            e.to_string(),
            "column 20: unknown state \"chekced\" (did you mean \"checked\"?)"
        );
        let e = err("chek-box \"x\"");
        assert_eq!(e.column, 1);
        assert!(e.message.contains("did you mean \"check-box\"?"), "{e}");
        let e = err("button \"Save");
        assert_eq!(e.column, 8);
        assert!(e.message.contains("unterminated"), "{e}");
        let e = err("button in ");
        assert_eq!(e.column, 11);
        assert!(e.message.contains("`in` needs a target after it"), "{e}");
    }
}
