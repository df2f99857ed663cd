//! The command line without a desktop session: the built-in demo app, a notice on stderr,
//! clear errors and exit codes for bad input.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

use crate::common::tmux;

/// Runs treeglass with no accessibility bus reachable (every bus variable removed).
fn run_without_bus(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_treeglass"))
        .args(args)
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("AT_SPI_BUS_ADDRESS")
        .env_remove("A11Y_BUS_ADDRESS")
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("DISPLAY")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn tree_without_a_bus_shows_the_demo_app_with_a_notice() {
    let o = run_without_bus(&["tree"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(err.contains("showing the built-in demo app"), "{err}");
    let out = text(&o.stdout);
    assert!(out.contains("\"treeglass-demo\""), "{out}");
    for line in [
        "text \"Full name\" = \"Ada Lovelace\"",
        "password-text \"Password\" = (secret, 7 chars)",
        "spin-button \"Quantity\" = 5",
        "check-box \"Mixed option\" = mixed [indeterminate]",
        "text \"Locked field\" = \"locked\" [disabled]",
        "text \"Account ID\" = \"ACC-0001\" [read-only]",
        "combo-box \"Red\" = \"Red\"",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    // The password's text never appears.
    assert!(!out.contains("hunter2"));
}

#[test]
fn tree_json_has_the_documented_fields() {
    let o = run_without_bus(&["tree", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in [
        "snapshot",
        "app",
        "window",
        "complete",
        "node_count",
        "unreadable",
        "truncated",
        "left_out",
        "all_elements",
        "root",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    let root = &v["root"];
    for k in [
        "row",
        "role",
        "raw_role",
        "name",
        "description",
        "label",
        "value",
        "states",
        "interfaces",
        "children",
    ] {
        assert!(root.get(k).is_some(), "node missing {k}");
    }
    // Action names only when asked for (an empty list would claim "no actions").
    assert!(root.get("actions").is_none(), "{root}");
    assert!(v["snapshot"].as_str().unwrap().len() == 9);
    assert_eq!(v["complete"], true);
    assert_eq!(v["truncated"], serde_json::Value::Null);

    let o = run_without_bus(&["tree", "--json", "--actions"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["root"]["actions"].is_array(), "{}", v["root"]);
}

#[test]
fn doctor_without_a_session_says_what_is_missing() {
    let o = run_without_bus(&["doctor"]);
    assert_eq!(o.status.code(), Some(7), "{}", text(&o.stdout));
    let out = text(&o.stdout);
    assert!(out.contains("[FAIL] session bus"), "{out}");
    assert!(out.contains("problems found"), "{out}");
    let o = run_without_bus(&["doctor", "--json"]);
    assert_eq!(o.status.code(), Some(7));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["healthy"], false);
    assert_eq!(v["checks"][1]["name"], "session bus", "{v}");
    assert_eq!(v["checks"][1]["status"], "fail", "{v}");
    // The demo backend needs nothing.
    let o = run_without_bus(&["--backend", "fixture", "doctor"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
}

#[test]
fn max_nodes_truncates_and_says_so() {
    let o = run_without_bus(&["tree", "--json", "--max-nodes", "10"]);
    // An incomplete tree is never presented as a whole one, whatever cut it.
    assert_eq!(o.status.code(), Some(12), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("--max-nodes raises it"),
        "{}",
        text(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["node_count"], 10);
    assert_eq!(v["complete"], false);
    assert_eq!(v["truncated"], "node_cap");
}

#[test]
fn forcing_atspi_without_a_bus_is_a_clear_error() {
    let o = run_without_bus(&["--backend", "atspi", "apps"]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("accessibility bus unavailable"));
}

#[test]
fn bad_arguments_have_their_exit_codes() {
    let o = run_without_bus(&["--backend", "fixture", "tree", "--app", "nope"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("no application matches"));
    let o = run_without_bus(&["--backend", "fixture", "tree", "--window", "(unclosed"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run_without_bus(&["--backend", "bogus", "apps"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run_without_bus(&["--backend", "fixture:/nonexistent.json", "apps"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("cannot read fixture file"));
    let o = run_without_bus(&["--backend", "fixture", "find", "check-box \"unclosed"]);
    assert_eq!(o.status.code(), Some(13));
    assert!(text(&o.stderr).contains("column"), "{}", text(&o.stderr));
    let o = run_without_bus(&["--backend", "fixture", "set", "s00000001:3", "x"]);
    assert_eq!(o.status.code(), Some(5));
    assert!(text(&o.stderr).contains("not issued by this process"));
}

#[test]
fn help_documents_exit_codes() {
    let o = run_without_bus(&["--help"]);
    let out = text(&o.stdout);
    assert!(out.contains("Exit codes"), "{out}");
    assert!(
        out.contains("4   no accessibility: the platform's own backend"),
        "{out}"
    );
}

#[test]
fn find_on_the_demo_app() {
    let o = run_without_bus(&["--backend", "fixture", "find", "\"Open\"", "--json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["outcome"], "unique");
    assert!(v["row"].is_u64());
    assert!(v["token"].as_str().unwrap().starts_with('s'));
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "button \"Op\"",
        "--wait-ms",
        "200",
    ]);
    assert_eq!(o.status.code(), Some(10));
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "check-box \"Zqxwv\"",
        "--wait-ms",
        "200",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(11));
}

#[test]
fn hostile_strings_from_apps_are_escaped() {
    let dir = std::env::temp_dir().join(format!("tg-cli-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hostile.json");
    let long = "x".repeat(5000);
    let json = serde_json::json!({"apps": [{"name": "evil\u{1b}]0;pwned\u{7}", "windows": [{
    "role": "frame", "name": "Clear\u{1b}[2J\u{1b}[31mscreen", "children": [
        {"role": "button", "name": "abc\u{202e}cba"},
        {"role": "text", "name": "multi\nline\r\u{0}", "value": {"kind": "text", "text": long}}
    ]}]}]});
    std::fs::write(&path, json.to_string()).unwrap();
    let spec = format!("fixture:{}", path.display());
    for args in [
        vec!["tree"],
        vec!["apps"],
        vec!["tree", "--targets"],
        vec!["find", "button", "--wait-ms", "100"],
    ] {
        let mut all = vec!["--backend", spec.as_str()];
        all.extend(args.iter());
        let o = run_without_bus(&all);
        let out = o.stdout.clone();
        assert!(
            !out.contains(&0x1b),
            "raw ESC reached the terminal for {args:?}: {}",
            text(&out)
        );
        assert!(
            !out.contains(&0x07) && !out.contains(&0x00) && !out.contains(&b'\r'),
            "{args:?}"
        );
        assert!(
            !text(&out).contains('\u{202e}'),
            "bidi override reached the terminal for {args:?}"
        );
        if args[0] == "tree" {
            assert!(text(&out).contains("\\x1b[2J"), "{}", text(&out));
            assert!(text(&out).contains("abc\\u{202e}cba"), "{}", text(&out));
            // Very long values are cut with an ellipsis.
            assert!(
                text(&out).lines().all(|l| l.chars().count() < 400),
                "{}",
                text(&out)
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn targets_are_graded_in_tree_and_find() {
    let o = run_without_bus(&["--backend", "fixture", "tree", "--targets"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for line in [
        "⇒ button \"Save\"  (stable)",
        "⇒ text labelled-by \"Street:\"  (contextual)",
        "⇒ text after label \"City:\"  (contextual)",
        "⇒ check-box \"checkbutton\" #2  (positional)",
        "⇒ text \"Font\" [showing]  (contextual)",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
    assert!(!out.contains("no unique target"), "{out}");

    let o = run_without_bus(&["--backend", "fixture", "tree", "--targets", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut nodes = vec![&v["root"]];
    let mut seen = 0;
    while let Some(n) = nodes.pop() {
        seen += 1;
        assert!(n["target"].is_string(), "{n}");
        assert!(
            ["stable", "contextual", "positional"].contains(&n["grade"].as_str().unwrap()),
            "{n}"
        );
        if n["name"] == "" && n["role"] == "text" && n["label"] == "Street:" {
            assert_eq!(n["target"], "text labelled-by \"Street:\"");
        }
        nodes.extend(n["children"].as_array().unwrap());
    }
    assert_eq!(seen, v["node_count"].as_u64().unwrap() as usize);

    // find --json: the element's suggestion, and each candidate's, with hidden ones marked.
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "text after label \"City:\"",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["suggestion"]["target"], "text after label \"City:\"");
    assert_eq!(v["suggestion"]["grade"], "contextual");
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "text \"Font\"",
        "--timeout-ms",
        "100",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(10));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = v["candidates"].as_array().unwrap();
    assert_eq!(
        (c[0]["hidden"].clone(), c[1]["hidden"].clone()),
        (false.into(), true.into())
    );
    assert_eq!(c[0]["suggestion"]["target"], "text \"Font\" [showing]");
    assert_eq!(c[1]["suggestion"]["target"], "text \"Font\" [!showing]");
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "text \"Font\"",
        "--timeout-ms",
        "100",
    ]);
    assert!(
        text(&o.stdout).contains("(name exact; hidden)"),
        "{}",
        text(&o.stdout)
    );

    // A position beyond the matches: not found, with the count.
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "check-box \"checkbutton\" #4",
        "--timeout-ms",
        "100",
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(11));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["count"], 3);
    assert_eq!(v["near_misses"].as_array().unwrap().len(), 3);
    // Every suggestion of the demo app finds its own element again.
    let o = run_without_bus(&["--backend", "fixture", "tree", "--targets", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut nodes = vec![&v["root"]];
    while let Some(n) = nodes.pop() {
        let target = n["target"].as_str().unwrap();
        let o = run_without_bus(&["--backend", "fixture", "find", target, "--json"]);
        assert_eq!(o.status.code(), Some(0), "{target}: {}", text(&o.stdout));
        let found: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(found["row"], n["row"], "{target}");
        nodes.extend(n["children"].as_array().unwrap());
    }
}

#[test]
fn audit_on_the_demo_app_exits_14_with_grouped_findings_json_and_sarif() {
    // Without a bus, the demo app: its unnamed "City" field and three "checkbutton" boxes.
    let o = run_without_bus(&["audit"]);
    assert_eq!(o.status.code(), Some(14), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("name-missing"), "{out}");
    assert!(out.lines().last().unwrap().contains("findings"), "{out}");
    let o = run_without_bus(&["--backend", "fixture", "audit", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["complete"], true);
    // The demo has bounds: geometry is evaluated there (and finds nothing). It has no
    // relations, indexes of its own or tables' numbering: those rules say so.
    let skipped: Vec<&str> = v["not_evaluated"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["rule"].as_str())
        .collect();
    assert_eq!(
        skipped,
        [
            "radio-no-group",
            "label-not-reciprocal",
            "label-dangling",
            "label-name-mismatch",
            "index-in-parent",
            "table-index-mismatch"
        ]
    );
    let missing = v["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == "name-missing")
        .unwrap();
    let f = &missing["findings"][0];
    for key in ["row", "token", "path", "target", "grade", "detail", "role"] {
        assert!(!f[key].is_null(), "{key} in {f}");
    }
    assert_eq!(f["target"], "text after label \"City:\"");
    // Errors only, and a rule selection that finds nothing: exit 0.
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "audit",
        "--rules",
        "states,geometry",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    let o = run_without_bus(&["--backend", "fixture", "audit", "--min-severity", "loud"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run_without_bus(&["--backend", "fixture", "audit", "--sarif"]);
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s["version"], "2.1.0");
    assert_eq!(
        s["runs"][0]["tool"]["driver"]["rules"]
            .as_array()
            .unwrap()
            .len(),
        treeglass::audit::RULES.len()
    );
    // The demo app is no process here: no artifact is known, results keep only their logical
    // location, and a notification says so.
    let run = &s["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert!(!results.is_empty());
    assert!(
        results
            .iter()
            .all(|r| r["locations"][0]["physicalLocation"].is_null()
                && r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].is_string())
    );
    let notes = run["invocations"][0]["toolExecutionNotifications"].to_string();
    assert!(notes.contains("--sarif-artifact"), "{notes}");
    // A file named with --sarif-artifact (tests run in the package root): every result in it
    // at line 1, relative to the directory treeglass ran in.
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "audit",
        "--sarif",
        "--sarif-artifact",
        "Cargo.toml",
    ]);
    assert_eq!(o.status.code(), Some(14), "{}", text(&o.stderr));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for r in s["runs"][0]["results"].as_array().unwrap() {
        let phys = &r["locations"][0]["physicalLocation"];
        assert_eq!(phys["artifactLocation"]["uri"], "Cargo.toml", "{r}");
        assert_eq!(phys["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert_eq!(phys["region"]["startLine"], 1);
        assert!(r["partialFingerprints"]["primaryLocationLineHash"].is_string());
    }
    // A file that does not exist, or the option without --sarif: bad arguments.
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "audit",
        "--sarif",
        "--sarif-artifact",
        "no-such-window.ui",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "audit",
        "--sarif-artifact",
        "Cargo.toml",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = run_without_bus(&["audit", "--help"]);
    let help = text(&o.stdout);
    for r in treeglass::audit::RULES {
        assert!(help.contains(r.id), "{} in --help", r.id);
    }
    assert!(help.contains("14 findings"), "{help}");
}

#[test]
fn every_output_ends_with_a_newline_json_included() {
    for args in [
        &["tree", "--json"][..],
        &["tree"],
        &["apps", "--json"],
        &["find", "button \"Save\"", "--json"],
        &["get", "text \"Full name\"", "--json"],
        &["tree", "--interactive-only", "--json"],
        &["tree", "--root", "tab-list \"Sections\"", "--json"],
    ] {
        let o = run_without_bus(args);
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(
            out.ends_with('\n') && !out.ends_with("\n\n"),
            "{args:?}: {out:?}"
        );
        if args.contains(&"--json") {
            serde_json::from_str::<serde_json::Value>(&out).unwrap();
        }
    }
}

#[test]
fn one_char_is_one_char() {
    let o = run_without_bus(&["set", "password-text \"Password\"", "x", "--json"]);
    let out = text(&o.stdout);
    assert!(out.contains("(secret, 1 char)"), "{out}");
}

/// `treeglass completions bash` loads in bash and completes the commands; `treeglass man`
/// renders with `man -l`, listing the commands.
#[test]
fn completions_load_in_bash_and_the_manual_page_renders() {
    let o = run_without_bus(&["completions", "bash"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let dir = std::env::temp_dir().join(format!("tg-completions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("treeglass.bash");
    std::fs::write(&script, &o.stdout).unwrap();
    // Load it, then ask the completion function for what follows `treeglass tr`.
    let probe = format!(
        "source {}; COMP_WORDS=(treeglass tr); COMP_CWORD=1; COMP_LINE='treeglass tr'; \
         COMP_POINT=12; _treeglass treeglass tr treeglass; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let b = Command::new("bash").arg("-c").arg(&probe).output().unwrap();
    assert!(b.status.success(), "{}", text(&b.stderr));
    let words = text(&b.stdout);
    assert!(words.lines().any(|w| w == "tree"), "{words}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = run_without_bus(&["completions", shell]);
        assert!(o.status.success() && !o.stdout.is_empty(), "{shell}");
    }
    let o = run_without_bus(&["completions", "tcsh"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );

    let o = run_without_bus(&["man"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let page = dir.join("treeglass.1");
    std::fs::write(&page, &o.stdout).unwrap();
    let m = Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .expect("man is installed (man-db)");
    assert!(m.status.success(), "{}", text(&m.stderr));
    let shown = text(&m.stdout);
    for word in ["treeglass", "audit", "completions", "Exit codes"] {
        assert!(shown.contains(word), "{word} in the page:\n{shown}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A wait for a target says what it waits for on a terminal (after its first second), and
/// nothing on a pipe, where scripts read standard error.
#[test]
fn a_wait_for_a_target_is_shown_on_a_terminal_only() {
    // A pipe: the result, and no progress line.
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "button \"Nope\"",
        "--wait-ms",
        "1500",
    ]);
    assert_eq!(o.status.code(), Some(11), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert!(!err.contains("waiting"), "{err}");
    let out = text(&o.stdout);
    assert!(out.contains("nothing matches button \"Nope\""), "{out}");

    // A terminal (a tmux pane of this test's own, torn down on drop).
    let tmux = tmux::Tmux::new();
    let cmd = format!(
        "{} --backend fixture find 'button \"Nope\"' --wait-ms 6000; sleep 30",
        env!("CARGO_BIN_EXE_treeglass")
    );
    tmux.start_shell(&cmd, 150, 8);
    let screen = tmux.wait_for(
        "waiting for it to appear",
        std::time::Duration::from_secs(5),
    );
    assert!(
        screen.contains("nothing matches button \"Nope\" yet: waiting for it to appear")
            && screen.contains("of 6 s; Ctrl-C stops"),
        "{screen}"
    );
}

/// A recording names the app and window it watched, even with no steps.
#[test]
fn workflow_record_keeps_the_app_and_window_it_watched() {
    let dir = std::env::temp_dir().join(format!("tg-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("rec.json");
    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "workflow",
        "record",
        "--app",
        "treeglass-demo",
        "--seconds",
        "1",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["app"], "treeglass-demo", "{v}");
    assert_eq!(v["window"], "Settings — treeglass demo", "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// With no `--wait-ms`, a target that does not name one element on an app at rest is
/// answered after one read and one quiet spell, saying so; the near misses start with the
/// role typed.
#[test]
fn an_ambiguous_or_missing_target_on_an_app_at_rest_answers_at_once() {
    let o = run_without_bus(&["--backend", "fixture", "find", "check-box \"checkbutton\""]);
    assert_eq!(o.status.code(), Some(10), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("ambiguous: 3 elements match"));

    let o = run_without_bus(&[
        "--backend",
        "fixture",
        "find",
        "button \"OK\" in dialog \"Save as\"",
    ]);
    assert_eq!(o.status.code(), Some(11), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("(after 1 read in "), "{out}");
    assert!(
        out.contains("the app is at rest: --wait-ms MS waits for it to appear"),
        "{out}"
    );
    let closest: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != "closest:")
        .skip(1)
        .collect();
    assert!(!closest.is_empty(), "{out}");
    assert!(
        closest.iter().all(|l| l.contains("⇒ button \"")),
        "the demo's buttons come first: {out}"
    );
    assert!(!text(&o.stderr).contains("waiting"), "{}", text(&o.stderr));
}

/// With `NO_COLOR`, the inspector on a real terminal (tmux) marks the selected row with reverse
/// video across its words: nothing in the row turns it off before the row's text.
#[test]
fn without_colour_the_selected_row_is_reverse_video_on_a_real_terminal() {
    let tmux = tmux::Tmux::new();
    let cmd = format!(
        "env NO_COLOR=1 TERM=xterm-256color {} --backend fixture; sleep 30",
        env!("CARGO_BIN_EXE_treeglass")
    );
    tmux.start_shell(&cmd, 120, 32);
    tmux.wait_for("button \"Save\"", std::time::Duration::from_secs(10));
    tmux.keys(&["j", "j"]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let raw = tmux.run(&["capture-pane", "-e", "-p", "-t", "tg"]);
        // The selected row, as the terminal holds it: its escape sequences and text.
        if let Some(row) = raw
            .lines()
            .find(|l| l.contains("\u{1b}[7m") && l.contains("button"))
        {
            let from = row.find("\u{1b}[7m").unwrap();
            let to = row[from..].find("button").unwrap() + from;
            let between = &row[from..to];
            assert!(
                !between.contains("\u{1b}[0m") && !between.contains("\u{1b}[27m"),
                "the reverse video stops before the row's words: {between:?}"
            );
            // And no colour is written at all (roles are cyan with colour).
            assert!(!raw.contains("\u{1b}[36m"), "{raw:?}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no reverse-video row with a button:\n{raw}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
