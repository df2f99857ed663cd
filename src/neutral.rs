//! Keeps the neutral core neutral: the layers above the backends name no platform in their
//! code. Platform names, raw roles and platform method names belong in `backend/atspi`,
//! `backend/uia`, `backend/ax` and the Linux session code (`stack/`); the neutral layers reach
//! them only through the backend layer's neutral interface (`Backend`, `Planner`,
//! `backend::raw_role`, `Backend::audit_reads`).
//!
//! The test reads every `.rs` file under the neutral folders, with comments taken out (prose
//! may cite a platform as an example; code and the strings it prints may not), and fails on
//! any platform word, naming the file, the line and the word.

use std::path::{Path, PathBuf};

/// The folders (under `src/`) that must name no platform.
const NEUTRAL: &[&str] = &[
    "model", "selector", "write", "app", "audit", "tui", "mcp", "cli",
];

/// Words that name a platform, its API or its methods, matched case-sensitively as written.
const WORDS: &[&str] = &[
    "atspi",
    "Atspi",
    "ATSPI",
    "AT-SPI",
    "at-spi",
    "UIA",
    "Uia",
    "\"uia\"",
    "\"ax\"",
    "UI Automation",
    "uiautomation",
    "backend::ax",
    "Pattern.",
    "GetChildren",
    "GetChildAtIndex",
    "GetRoleName",
    "GetInterfaces",
    "SetTextContents",
    "DoAction",
    "GrabFocus",
    "GetExtents",
    "SetCurrentValue",
];

/// The code of a Rust file with its comments taken out (line comments, doc comments and block
/// comments), strings and characters kept.
pub(crate) fn code_of(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == b'"' {
            // A string, escapes and all (a `//` inside one is not a comment).
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str(&src[start..i.min(b.len())]);
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // A one-byte character literal (`'"'`), so that its quote starts no string.
            out.push_str(&src[i..i + 3]);
            i += 3;
        } else if c == b'\'' && b.get(i + 1) == Some(&b'\\') {
            let start = i;
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
            out.push_str(&src[start..i.min(b.len())]);
        } else {
            let ch = src[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Raw role names of one word that are no English word a message would print.
const RAW_WORDS: &[&str] = &["static", "notification", "embedded"];

/// The raw role names in string literals of `code` that a backend reports but the model does
/// not, written as the backend reports them (`"internal frame"`, `"level bar"`, `"static"`): a
/// raw role the code matches on. One-word names are only those of [`RAW_WORDS`] (`"entry"` or
/// `"form"` are words too).
fn raw_roles_in(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (n, part) in code.split('"').enumerate() {
        let word = part;
        let raw = (word.contains(' ') && crate::backend::raw_role(word).is_some())
            || RAW_WORDS.contains(&word);
        if n % 2 == 1
            && raw
            && word == word.to_lowercase()
            && crate::model::Role::from_name(word).is_none()
        {
            found.push(format!("\"{word}\""));
        }
    }
    found
}

/// The platform words in the code of one file, each with its line.
fn words_in(src: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for (n, line) in code_of(src).lines().enumerate() {
        for w in WORDS {
            hits.extend(line.matches(w).map(|_| format!("{}: {w}", n + 1)));
        }
        for r in raw_roles_in(line) {
            hits.push(format!("{}: {r} (a raw role)", n + 1));
        }
    }
    hits
}

pub(crate) fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, into);
        } else if p.extension().is_some_and(|x| x == "rs") {
            into.push(p);
        }
    }
}

#[test]
fn the_neutral_core_names_no_platform() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for d in NEUTRAL {
        rust_files(&src.join(d), &mut files);
    }
    assert!(
        files.len() > 50,
        "the neutral folders hold {} files",
        files.len()
    );
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let hits = words_in(&text);
        if !hits.is_empty() {
            wrong.push(format!(
                "{rel}: {} platform words in its code:\n    {}",
                hits.len(),
                hits.join("\n    ")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_scan_sees_what_it_must() {
    let src = r#"
        // AT-SPI in a comment is prose.
        /* UIA in a block comment too */
        let a = "a // not a comment: atspi";
        let q = '"'; let b = backend.name() == "uia";
        if n.raw_role == "internal frame" || n.raw_role == "alert" {}
        let m = "ValuePattern.SetValue";
    "#;
    let hits = words_in(src);
    assert_eq!(
        hits,
        [
            "4: atspi",
            "5: \"uia\"",
            "6: \"internal frame\" (a raw role)",
            "7: Pattern.",
        ],
        "{hits:?}"
    );
}
