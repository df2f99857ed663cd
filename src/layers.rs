//! Keeps the layers of ARCHITECTURE.md: a top-level module uses only the modules below it,
//! peers on one line do not use each other, and the few edges against that order are the ones
//! the codemap names ([`ALLOWED`]).
//!
//! The test reads every `.rs` file under `src/` (comments, unit-test modules and `tests.rs`
//! files taken out: test code may use what it tests against), expands every `crate::` path
//! (`crate::{a, b::{c, d}}` too) and checks each one against [`LAYERS`].

use std::path::Path;

use crate::neutral::{code_of, rust_files};

/// The top-level modules, bottom first; a module may use the lines below its own.
const LAYERS: &[&[&str]] = &[
    &["model"],
    &["log"],
    &["json", "files", "fold"],
    &["junit", "clipboard"],
    &["desktop"],
    &["selector", "diff"],
    &["audit"],
    &["backend", "doctor"],
    &["write", "session"],
    &["workflow"],
    &["app"],
    &["stack"],
    &["cli", "tui", "mcp"],
];

/// Edges against the order, each named in ARCHITECTURE.md: the file (or folder, ending in `/`)
/// that uses, and the path it may use (a module, or one item of it).
const ALLOWED: &[(&str, &str)] = &[
    // A raw role as a neutral role or kind, from the backends' pure role tables.
    ("selector/", "backend::raw_role"),
    ("audit/", "backend::raw_kind"),
    ("audit/", "backend::raw_name_of"),
    // The doctor's cycle: each backend's probe fills a report; the report cites the hints.
    ("backend/", "doctor"),
    ("doctor.rs", "backend::atspi::toolkit::toolkit_hint"),
    // Only the entry point runs the other front ends.
    ("cli/entry.rs", "tui"),
    ("cli/entry.rs", "mcp"),
];

/// The line of `LAYERS` a top-level module is on.
fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|line| line.contains(&module))
}

/// `code` without its unit-test modules (`#[cfg(test)]` and a `mod … { … }`).
fn without_test_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let mut trimmed = after.trim_start();
        // Further attributes (`#[allow(…)]`) between the cfg and the module.
        while trimmed.starts_with("#[") {
            let close = trimmed.find(']').map_or(trimmed.len(), |c| c + 1);
            trimmed = trimmed[close..].trim_start();
        }
        let is_mod = trimmed.starts_with("mod ") || trimmed.starts_with("pub(crate) mod ");
        let open = trimmed.find(['{', ';']);
        match (is_mod, open) {
            (true, Some(o)) if trimmed.as_bytes()[o] == b'{' => {
                let body = &trimmed[o..];
                rest = &body[block_len(body)..];
            }
            _ => rest = after,
        }
    }
    out.push_str(rest);
    out
}

/// The length of the block that `s` opens with `{`, braces in strings skipped.
fn block_len(s: &str) -> usize {
    let (mut depth, mut in_str, mut escaped) = (0usize, false, false);
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_str => escaped = true,
            '"' => in_str = !in_str,
            '{' if !in_str => depth += 1,
            '}' if !in_str => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// Every `crate::` path in `code`, groups expanded: `crate::{a, b::{c, d as e}}` gives `a`,
/// `b::c` and `b::d`.
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with('$') {
            continue;
        }
        let tail = &code[at + "crate::".len()..];
        let mut end = 0;
        let mut depth = 0usize;
        for (i, c) in tail.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => break,
                '}' => depth -= 1,
                c if c.is_alphanumeric() || c == '_' || c == ':' => {}
                ',' | ' ' | '\n' | '\r' | '\t' | '*' if depth > 0 => {}
                _ => break,
            }
            end = i + c.len_utf8();
        }
        expand(tail[..end].trim_end_matches(':'), "", &mut paths);
    }
    paths
}

/// Expands one path with groups into `into`, each prefixed with `prefix`.
fn expand(path: &str, prefix: &str, into: &mut Vec<String>) {
    let join = |p: &str| match (prefix.is_empty(), p) {
        (_, "self") => prefix.to_string(),
        (true, _) => p.to_string(),
        (false, _) => format!("{prefix}::{p}"),
    };
    let Some(open) = path.find('{') else {
        let name = path.split_whitespace().next().unwrap_or("");
        if !name.is_empty() {
            into.push(join(name));
        }
        return;
    };
    let head = join(path[..open].trim_end_matches(':'));
    let inner = &path[open + 1..path.rfind('}').unwrap_or(path.len())];
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(inner[start..i].trim(), &head, into);
                start = i + 1;
            }
            _ => {}
        }
    }
    expand(inner[start..].trim(), &head, into);
}

/// The entry of [`ALLOWED`] that lets `file` (under `src/`) use `path` although its layer is
/// not above `path`'s.
fn allowed(file: &str, path: &str) -> Option<usize> {
    ALLOWED.iter().position(|(from, to)| {
        let from_ok = if from.ends_with('/') {
            file.starts_with(from)
        } else {
            file == *from
        };
        from_ok && (path == *to || path.starts_with(&format!("{to}::")))
    })
}

/// The edges among one file's `crate::` paths outside test code ([`crate_paths`] of its code
/// [`without_test_modules`]) that break the layers, as messages; the entries of [`ALLOWED`]
/// they take go to `used`.
fn wrong_edges(file: &str, paths: &[String], used: &mut [bool]) -> Vec<String> {
    let top = file
        .split('/')
        .next()
        .unwrap_or(file)
        .trim_end_matches(".rs");
    let Some(mine) = layer_of(top) else {
        return Vec::new();
    };
    let mut wrong = Vec::new();
    for path in paths {
        let target = path.split("::").next().unwrap_or("");
        let Some(theirs) = layer_of(target) else {
            continue;
        };
        if target == top || theirs < mine {
            continue;
        }
        if let Some(i) = allowed(file, path) {
            used[i] = true;
            continue;
        }
        let how = if theirs == mine { "a peer" } else { "above it" };
        let msg = format!("{file}: uses crate::{path} ({target} is {how})");
        if !wrong.contains(&msg) {
            wrong.push(msg);
        }
    }
    wrong
}

#[test]
fn every_module_uses_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    let mut used = vec![false; ALLOWED.len()];
    let mut seen = 0;
    for f in &files {
        let rel = f
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        if rel.ends_with("/tests.rs") || rel.contains("/tests/") {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let code = code_of(&text);
        let paths = crate_paths(&without_test_modules(&code));
        seen += paths.len();
        wrong.extend(wrong_edges(&rel, &paths, &mut used));
    }
    assert!(
        seen > 500,
        "only {seen} crate:: paths seen: the scan is blind"
    );
    let tops: Vec<String> = std::fs::read_dir(&src)
        .expect("src/")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .map(|n| n.trim_end_matches(".rs").to_string())
        .filter(|n| !["lib", "main", "neutral", "layers"].contains(&n.as_str()))
        .filter(|n| layer_of(n).is_none())
        .collect();
    assert!(tops.is_empty(), "top-level modules on no layer: {tops:?}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let unused: Vec<_> = ALLOWED
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(a, _)| a)
        .collect();
    assert!(unused.is_empty(), "allowed edges no code takes: {unused:?}");
}

#[test]
fn the_scan_sees_what_it_must() {
    let code = "use crate::{model::Node, selector::{Target, parse as p}};\n\
                fn f() { crate::app::run(); let s = \"{\"; }\n\
                #[cfg(test)]\n#[allow(clippy::unwrap_used)]\nmod tests { use crate::tui::App; fn g() { let _ = \"}\"; } }\n\
                fn h() { crate::backend::raw_role(\"x\"); crate::backend::Backend::name(); }\n\
                macro_rules! m { () => { $crate::cli::x() } }";
    let paths = crate_paths(&without_test_modules(code));
    assert_eq!(
        paths,
        [
            "model::Node",
            "selector::Target",
            "selector::parse",
            "app::run",
            "backend::raw_role",
            "backend::Backend::name",
        ],
        "{paths:?}"
    );
    let mut used = vec![false; ALLOWED.len()];
    let wrong = wrong_edges("selector/x.rs", &paths, &mut used);
    assert_eq!(
        wrong,
        [
            "selector/x.rs: uses crate::app::run (app is above it)",
            "selector/x.rs: uses crate::backend::Backend::name (backend is above it)",
        ],
        "{wrong:?}"
    );
    assert_eq!(
        wrong_edges(
            "diff/x.rs",
            &crate_paths("use crate::selector::Target;"),
            &mut used
        ),
        ["diff/x.rs: uses crate::selector::Target (selector is a peer)"]
    );
    assert!(used[0], "selector's raw_role is an allowed edge");
    assert!(wrong_edges("app/x.rs", &paths, &mut used).is_empty());
}
