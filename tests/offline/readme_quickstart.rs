//! The README's quick start, run command by command against the demo app as a newcomer
//! runs it (no desktop session: every bus variable removed), each output compared with the
//! README's. Figures in milliseconds vary from run to run and are compared as `N ms`.
#![allow(clippy::unwrap_used)]

use std::process::Command;

const BEGIN: &str = "<!-- quickstart -->";
const END: &str = "<!-- end:quickstart -->";

/// The README's quick start: each `$ treeglass …` line with the output printed under it.
fn steps() -> Vec<(String, String)> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find(BEGIN).expect("the README has a quick start") + BEGIN.len();
    let stop = start + readme[start..].find(END).expect("the quick start ends");
    let block = &readme[start..stop];
    let mut steps: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        if line.starts_with("```") {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            steps.push((cmd.to_string(), String::new()));
        } else if let Some((_, out)) = steps.last_mut() {
            out.push_str(line);
            out.push('\n');
        }
    }
    steps
}

/// A command line split as a shell splits it: words, with single quotes kept together.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in cmd.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quote in {cmd:?}");
    if any {
        out.push(cur);
    }
    out
}

/// Millisecond figures as `N ms`, trailing blanks and blank lines at the end dropped.
fn steady(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(" ms") {
        let head = &rest[..i];
        let digits = head
            .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
            .len();
        if digits < head.len() {
            out.push_str(&head[..digits]);
            out.push('N');
        } else {
            out.push_str(head);
        }
        out.push_str(" ms");
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    let lines: Vec<&str> = out.lines().map(str::trim_end).collect();
    lines.join("\n").trim_end().to_string()
}

#[test]
fn the_quick_start_prints_what_the_readme_shows() {
    let steps = steps();
    assert_eq!(steps.len(), 6, "the quick start is six commands");
    for (cmd, want) in steps {
        let w = words(&cmd);
        assert_eq!(w[0], "treeglass", "{cmd}");
        let o = Command::new(env!("CARGO_BIN_EXE_treeglass"))
            .args(&w[1..])
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("AT_SPI_BUS_ADDRESS")
            .env_remove("A11Y_BUS_ADDRESS")
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let got = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            steady(&got),
            steady(&want),
            "{cmd} (exit {:?}) printed\n{got}",
            o.status.code()
        );
    }
}

#[test]
fn millisecond_figures_compare_as_n() {
    assert_eq!(steady("a (0.15 ms) + 67.3 ms b"), "a (N ms) + N ms b");
    assert_eq!(steady("in 502 ms;  \n\n"), "in N ms;");
    assert_eq!(
        words("set 'text \"Full name\"' 'Grace Hopper'"),
        ["set", "text \"Full name\"", "Grace Hopper"]
    );
}
