//! Writes go only to the element the user named (the contract's "writes never use fuzzy
//! matches"): on the demo app, a target that matches only fuzzily is refused before anything
//! is sent, with the fuzzy matches as suggestions, while `find` still ranks them; a substring
//! or exact target still writes, and the result names the element written.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("A11Y_BUS_ADDRESS")
        .env_remove("DISPLAY")
        .stdin(Stdio::null())
        .args(["--backend", "fixture"])
        .args(args)
        .output()
        .unwrap()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

#[test]
fn a_fuzzy_only_target_is_refused_with_its_matches_as_suggestions() {
    // "Nme" is a fuzzy match of "Full name" and of nothing else.
    // A refusal for want of a unique element keeps the resolution's exit code: 11, not found.
    let o = run(&["set", r#"text "Nme""#, "Bob", "--wait-ms", "200", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(11),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let v = json(&o);
    assert_eq!(v["outcome"], "refused", "{v:#}");
    assert_eq!(v["dispatched"], false, "{v:#}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("fuzzy"), "{reason}");
    assert!(
        reason.contains("Full name"),
        "the suggestion is named: {reason}"
    );
    // Looking still ranks fuzzy matches.
    let o = run(&["find", r#"text "Nme""#, "--wait-ms", "200", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v = json(&o);
    assert_eq!(v["outcome"], "unique", "{v:#}");
    assert_eq!(v["tier"], "fuzzy", "{v:#}");
}

#[test]
fn a_description_that_matches_fuzzily_does_not_reach_a_locked_field() {
    // "Nope" matches "Disabled until you unlock the profile" (Locked field) only fuzzily.
    let o = run(&["set", r#"text "Nope""#, "x", "--wait-ms", "200", "--json"]);
    assert_eq!(o.status.code(), Some(11));
    let v = json(&o);
    assert_eq!(v["dispatched"], false);
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains("fuzzy"),
        "refused as fuzzy, not as disabled: {reason}"
    );
}

#[test]
fn substring_and_exact_targets_still_write_and_the_result_names_the_element() {
    let o = run(&["set", r#"text "full na""#, "Bob", "--json"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let v = json(&o);
    assert_eq!(v["outcome"], "verified", "{v:#}");
    assert_eq!(v["name"], "Full name", "{v:#}");
    let o = run(&["set", r#"text "Full name""#, "Bob"]);
    assert_eq!(o.status.code(), Some(0));
}

#[test]
fn an_invoke_or_a_workflow_step_is_held_to_the_same_rule() {
    let o = run(&["invoke", r#"button "Sve""#, "--wait-ms", "200"]);
    assert_eq!(
        o.status.code(),
        Some(11),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("fuzzy") && err.contains(r#"button "Save""#),
        "{err}"
    );
    // The text form prints the suggestions one per line, not as escaped `\n`.
    let o = run(&["set", r#"text "Nme""#, "Bob", "--wait-ms", "200"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("\\n"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("s0000") && l.contains("Full name")),
        "one candidate a line: {out}"
    );
}
