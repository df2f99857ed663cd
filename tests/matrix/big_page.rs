//! The big page on the real bus: Chromium on a generated form of 2,000 rows (a label, a text
//! input, a check box and a `<select>` each; about 28,000 nodes). The read is whole and equals
//! an independent pyatspi walk (count and the (role, name) sequence), a target deep in the page
//! resolves unique, and a write on row 1,500 is verified and held by the page (read back by
//! pyatspi). Then Firefox on the same page: a check box far down that Gecko has not laid out
//! yet (no action, no extents) is scrolled into view and written. Each browser is started
//! once for the binary, one at a time, and must stay alive, registered and answering after
//! every step. No timing is asserted: the figures live in `benches/atspi.rs`.
// It runs against the real AT-SPI bus: Linux only.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::matrix::{Kit, MatrixApp, compare_with_pyatspi, pyatspi_of};
use common::tmux::Tmux;
use common::*;

#[test]
fn the_big_page_is_read_whole_found_in_and_written() {
    // One browser on the page at a time, and nothing else meanwhile: two on the machine's two
    // cores would starve each other.
    let _one = common::turn::alone();
    let mut app = MatrixApp::start(Kit::BigPage);
    app.assert_alive("starting");

    // The whole page, with no deadline cutting it short.
    let o = app.treeglass(&["tree", "--json"]);
    assert_ok(&o, "tree --json");
    let v = json_of(&o);
    assert_eq!(v["complete"], true, "truncated: {}", v["truncated"]);
    assert!(
        v["node_count"].as_u64().unwrap() > 26_000,
        "{}",
        v["node_count"]
    );
    app.assert_alive("tree --json");
    compare_with_pyatspi(&app, &v);
    app.assert_alive("the pyatspi walk");

    // A cut read says so and exits 12.
    let o = app.treeglass(&["tree", "--json", "--read-timeout", "50"]);
    assert_eq!(
        o.status.code(),
        Some(12),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let cut = json_of(&o);
    assert_eq!(cut["complete"], false);
    assert_eq!(cut["truncated"], "timeout");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--read-timeout 50"));
    app.assert_alive("a read cut short");

    let o = app.treeglass(&["find", r#"text labelled-by "Row 1999 name""#, "--json"]);
    assert_ok(&o, "find row 1999's field");
    let found = json_of(&o);
    assert_eq!(found["outcome"], "unique", "{found:#}");
    app.assert_alive("find");

    // Chromium finds a target's candidates itself (Collection.GetMatches on the role): only
    // those are read (their names first, when the target names one exactly), and the answer
    // is the one the whole tree gives. The decoys after the rows are where names alone would
    // mislead: "Echo" is also another box's description, "Shade" is unchecked beside a
    // checked "Shade 2", and two boxes are "Twin" (ambiguous: decided by the whole tree).
    for (t, narrows) in [
        (r#"check-box "Row 1500 done""#, true),
        (r#"text labelled-by "Row 1999 name""#, true),
        (r#"combo-box "Row 7 colour""#, true),
        (r#"check-box "Row 1778 done" [checked]"#, true),
        (r#"check-box "Echo""#, true),
        (r#"check-box "Other""#, true),
        (r#"check-box "Shade" [checked]"#, true),
        (r#"check-box "Shade" [!checked]"#, true),
        (r#"check-box "Twin""#, false),
    ] {
        let o = app.treeglass(&["find", t, "--json"]);
        let narrowed = json_of(&o);
        let o2 = app.treeglass(&["find", t, "--json", "--whole-tree"]);
        let whole = json_of(&o2);
        assert_eq!(
            o.status.code(),
            o2.status.code(),
            "{t}: {narrowed:#}\n{whole:#}"
        );
        if narrows {
            assert_ok(&o, t);
            assert!(
                narrowed["narrowed"]["candidates"].as_u64().unwrap() >= 2_000,
                "{t}: {narrowed:#}"
            );
        } else {
            assert!(narrowed.get("narrowed").is_none(), "{t}: {narrowed:#}");
        }
        assert!(whole.get("narrowed").is_none(), "{whole:#}");
        for key in ["outcome", "path", "why", "tier", "count"] {
            assert_eq!(narrowed[key], whole[key], "{t}: {key}");
        }
        assert!(narrowed.get("suggestion").is_none(), "{narrowed:#}");
        app.assert_alive(t);
    }
    // What the candidates do not name once is decided by the whole tree, as always.
    let o = app.treeglass(&[
        "find",
        r#"check-box "Row 2001 done""#,
        "--json",
        "--wait-ms",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(11), "{}", stdout(&o));
    assert!(json_of(&o).get("narrowed").is_none());
    app.assert_alive("a target the candidates do not hold");

    // Row 1,401 (rows that are multiples of 7 start checked; row 1,500 is the agent's, below).
    let o = app.treeglass(&["set", r#"check-box "Row 1401 done""#, "true", "--json"]);
    assert_ok(&o, "set row 1401's check box");
    let r = json_of(&o);
    assert_eq!(r["outcome"], "verified", "{r:#}");
    assert_eq!(r["name"], "Row 1401 done", "{r:#}");
    assert_page_checked(app.pid, &r);
    app.assert_alive("set");

    // Text is typed (web content takes no semantic text call). Row 1,990 first, so the focus
    // moves far to reach row 1,500: Chromium then moved the caret to the end after the field
    // was selected, and the text was appended to the old one. Each checked by pyatspi.
    for (row, text) in [(1990, "typed far down"), (1500, "typed at row 1500")] {
        let target = format!("text \"Row {row} name\"");
        let o = app.treeglass(&["set", &target, text, "--json"]);
        assert_ok(&o, &format!("set {target}"));
        let r = json_of(&o);
        assert_eq!(r["outcome"], "verified", "{r:#}");
        assert_eq!(
            pyatspi_of(app.pid, &r)["text"],
            text,
            "the page holds {target}"
        );
        app.assert_alive(&format!("set {target}"));
    }

    // The row after it is untouched.
    let o = app.treeglass(&["get", r#"check-box "Row 1402 done""#]);
    assert_ok(&o, "get row 1402's check box");
    assert!(stdout(&o).contains("= off"), "{}", stdout(&o));
    app.assert_alive("get");

    // The scoped forms of `tree`: one row's subtree (the row found by the app, nothing else of
    // the page read), and the actionable elements in it, each with a target that resolves.
    let o = app.treeglass(&[
        "tree",
        "--root",
        r#"check-box "Row 1300 done""#,
        "--interactive-only",
        "--json",
    ]);
    assert_ok(&o, "tree --root --interactive-only");
    let v = json_of(&o);
    assert_eq!(v["form"], "interactive", "{v:#}");
    assert_eq!(v["node_count"], 1, "the check box alone was read: {v:#}");
    assert_eq!(v["elements"][0]["name"], "Row 1300 done", "{v:#}");
    let path = v["root_path"].as_str().unwrap();
    assert!(
        path.contains("frame \"treeglass big page")
            && path.ends_with("check-box \"Row 1300 done\""),
        "{v:#}"
    );
    assert!(
        v["window"]
            .as_str()
            .unwrap()
            .starts_with("treeglass big page"),
        "the answer names the window the subtree is in, not the subtree: {v:#}"
    );
    app.assert_alive("tree --root");

    mcp_at_real_size(&mut app);

    // The inspector: the tree is painted while it is read, the read ends whole, the filter
    // finds one row and Esc clears it; a re-read stopped with Esc keeps the whole tree and says so.
    let tmux = Tmux::new();
    tmux.start(&["--pid", &app.pid.to_string()]);
    tmux.wait_for("▾ frame", Duration::from_secs(60));
    let whole = wait_whole(&tmux);
    assert!(!whole.contains("incomplete"), "{whole}");
    tmux.keys(&["/"]);
    tmux.type_text(r#"check-box "Row 1500 done""#);
    tmux.wait_for("unique", Duration::from_secs(10));
    tmux.keys(&["Enter"]);
    tmux.wait_for("Row 1500 done", Duration::from_secs(10));
    // Esc with no read in progress clears the filter.
    tmux.keys(&["Escape"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while tmux.screen().contains(r#"/ check-box "Row 1500 done""#) {
        assert!(
            std::time::Instant::now() < deadline,
            "Esc did not clear the filter:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    esc_stops_a_re_read(&tmux);
    assert!(tmux.alive(), "the inspector quit");
    tmux.keys(&["q"]);
    app.assert_alive("the inspector");
}

/// `get_window_state` on the big page, through the MCP Python SDK: the default answer is cut
/// to its budget and says so; a cursor pages through every line once; a row's subtree (by its
/// token) is read alone, its tokens write, and its actionable elements' targets resolve; an
/// agent finds, checks and confirms row 1,500's check box in four calls and 64 KB.
fn mcp_at_real_size(app: &mut MatrixApp) {
    use common::mcp::McpClient;
    use serde_json::{Value, json};
    /// The answer's size as the issue counts it: structured content and text together.
    fn size(r: &Value) -> usize {
        r["structuredContent"].to_string().len() + r["text"].as_str().unwrap_or_default().len()
    }
    let pid = app.pid;
    let mut c = McpClient::start("bigpage", &["--backend", "atspi"]);

    // The default answer: within 100 KB, partial, what it left out, and the call for more.
    let r = c.call("get_window_state", json!({"pid": pid}));
    assert_eq!(r["isError"], false, "{r}");
    let v = &r["structuredContent"];
    assert!(size(&r) <= 100_000, "{} bytes", size(&r));
    assert_eq!(v["complete"], false, "{}", v["more"]);
    assert!(
        v["node_count"].as_u64().unwrap() > 26_000,
        "{}",
        v["node_count"]
    );
    let omitted = v["omitted"]["count"].as_u64().unwrap();
    assert_eq!(
        omitted + v["shown"].as_u64().unwrap(),
        v["selected"].as_u64().unwrap(),
        "{}",
        v["omitted"]
    );
    assert!(v["omitted"]["by_role"]["check-box"].as_u64().unwrap() > 1_000);
    let more = v["more"].as_str().unwrap();
    assert!(more.contains("cursor=") && more.contains("root="), "{more}");
    assert!(
        r["text"].as_str().unwrap().contains("cursor="),
        "the text says it too"
    );
    eprintln!(
        "default answer: {} bytes, {} lines of {}",
        size(&r),
        v["shown"],
        v["selected"]
    );
    app.assert_alive("get_window_state");

    // A cursor pages through every line once: each page's tops hang under lines seen before.
    let mut seen = std::collections::HashSet::new();
    let mut args = json!({"pid": pid, "budget_bytes": 1_000_000});
    let mut pages = 0;
    let paging = std::time::Instant::now();
    let selected = loop {
        let r = c.call("get_window_state", args.clone());
        assert_eq!(r["isError"], false, "page {pages}: {}", r["text"]);
        assert!(size(&r) <= 1_000_000, "page {pages}: {} bytes", size(&r));
        let v = &r["structuredContent"];
        let tops: Vec<&Value> = match v["root"].is_object() {
            true => vec![&v["root"]],
            false => v["roots"].as_array().unwrap().iter().collect(),
        };
        for t in &tops {
            if let Some(p) = t["parent"].as_str() {
                let row = p.split_once(':').unwrap().1.to_string();
                assert!(
                    seen.contains(&row),
                    "page {pages}: {} hangs under an unseen {p}",
                    t["path"]
                );
            }
        }
        let mut stack = tops;
        while let Some(n) = stack.pop() {
            let row = n["token"]
                .as_str()
                .unwrap()
                .split_once(':')
                .unwrap()
                .1
                .to_string();
            assert!(
                seen.insert(row.clone()),
                "page {pages}: line {row} came twice"
            );
            stack.extend(n["children"].as_array().unwrap().iter());
        }
        pages += 1;
        match v["next_cursor"].as_str() {
            Some(cursor) => args = json!({"cursor": cursor, "budget_bytes": 1_000_000}),
            None => break v["selected"].as_u64().unwrap() as usize,
        }
    };
    eprintln!("{pages} pages in {:.1} s", paging.elapsed().as_secs_f64());
    assert!(pages > 1, "one page held the big page");
    assert_eq!(seen.len(), selected, "every line once, over {pages} pages");
    app.assert_alive("paging");

    // One row: found by a query (every match with its path and its parent's token), then read
    // alone from the parent's token.
    let v = c.ok(
        "get_window_state",
        json!({"pid": pid, "query": "check-box \"Row 1200 done\""}),
    );
    assert_eq!(v["form"], "matches", "{v}");
    assert_eq!(v["elements"].as_array().unwrap().len(), 1, "{v}");
    let the_box = &v["elements"][0];
    assert!(
        the_box["path"].as_str().unwrap().contains("check-box"),
        "{the_box}"
    );
    let row = the_box["parent"].as_str().unwrap().to_string();
    let r = c.call("get_window_state", json!({"root": row}));
    assert_eq!(r["isError"], false, "{r}");
    let sub = &r["structuredContent"];
    assert_eq!(sub["complete"], true, "{sub}");
    assert!(
        sub["node_count"].as_u64().unwrap() < 30,
        "one row was read, not the page: {}",
        sub["node_count"]
    );
    let text = r["text"].as_str().unwrap();
    for name in ["Row 1200 name", "Row 1200 done", "Row 1200 colour"] {
        assert!(text.contains(name), "{name} in the row:\n{text}");
    }
    assert!(
        !text.contains("Row 1201") && !text.contains("Row 1199"),
        "{text}"
    );
    let token = common::mcp::token_named(sub, "Row 1200 done");
    // Its tokens write, and the page holds it.
    let w = c.ok("set_value", json!({"element_token": token, "value": true}));
    assert_eq!(w["outcome"], "verified", "{w}");
    assert_page_checked(pid, &w);
    app.assert_alive("set_value by a subtree's token");

    // The row's actionable elements, each with a target that resolves to it.
    let v = c.ok(
        "get_window_state",
        json!({"root": row, "interactive_only": true}),
    );
    assert_eq!(v["form"], "interactive", "{v}");
    let boxes: Vec<&Value> = v["elements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["role"] == "check-box")
        .collect();
    assert_eq!(boxes.len(), 1, "{v}");
    let target = boxes[0]["target"].as_str().unwrap();
    let f = c.ok("find", json!({"pid": pid, "target": target}));
    assert_eq!(f["outcome"], "unique", "{f}");
    assert!(
        f["path"]
            .as_str()
            .unwrap()
            .ends_with("check-box \"Row 1200 done\""),
        "{f}"
    );
    app.assert_alive("interactive_only");
    c.close();

    // An agent from nothing: find row 1,500's check box, check it, confirm it.
    let mut c = McpClient::start("bigpage-agent", &["--backend", "atspi"]);
    let mut spent = 0;
    let r = c.call("list_apps", json!({}));
    spent += size(&r);
    let apps = &r["structuredContent"]["apps"];
    let name = apps
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["pid"].as_u64() == Some(u64::from(pid)))
        .map(|a| a["name"].as_str().unwrap().to_string())
        .expect("the browser is listed");
    let r = c.call(
        "find",
        json!({"app": format!("^{name}$"), "target": "check-box \"Row 1500 done\""}),
    );
    spent += size(&r);
    assert_eq!(r["structuredContent"]["outcome"], "unique", "{r}");
    let token = r["structuredContent"]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let r = c.call("set_value", json!({"element_token": token, "value": true}));
    spent += size(&r);
    assert_eq!(r["structuredContent"]["outcome"], "verified", "{r}");
    let r = c.call(
        "get_window_state",
        json!({"app": format!("^{name}$"), "root": "check-box \"Row 1500 done\""}),
    );
    spent += size(&r);
    let v = &r["structuredContent"];
    assert_eq!(v["root"]["name"], "Row 1500 done", "{v}");
    assert!(
        v["root"]["states"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "checked"),
        "{v}"
    );
    assert!(spent <= 64 * 1024, "four calls took {spent} bytes");
    eprintln!("agent loop: 4 calls, {spent} bytes");
    c.close();
    app.assert_alive("the agent's loop");
}

/// Gecko gives an element below what it has laid out of a fresh page no action and extents
/// (-1, -1, -1, -1): the write was refused ("no area on screen to click"). It is now scrolled
/// into view first (`Component.ScrollTo`, said in the write's acks) and written by its own
/// `check` action; the page holds the write, and the row before it is untouched.
#[test]
fn firefox_writes_a_check_box_it_had_not_laid_out() {
    // One browser on the page at a time, and nothing else meanwhile: two on the machine's two
    // cores would starve each other.
    let _one = common::turn::alone();
    let mut app = MatrixApp::start(Kit::FirefoxBigPage);
    app.assert_alive("starting");
    let o = app.treeglass(&["set", r#"check-box "Row 1999 done""#, "true", "--json"]);
    assert_ok(&o, "set row 1999's check box");
    let r = json_of(&o);
    assert_eq!(r["outcome"], "verified", "{r:#}");
    let acks: Vec<&str> = r["acks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    // Whether Gecko had laid the row out by then depends on its idle time; when it had not,
    // the scroll comes first and says so.
    if let Some(i) = acks
        .iter()
        .position(|a| a.starts_with("Component.ScrollTo"))
    {
        assert!(i + 1 < acks.len(), "the write follows the scroll: {acks:?}");
    }
    eprintln!("acks: {acks:?}");
    assert_page_checked(app.pid, &r);
    app.assert_alive("set");
    let o = app.treeglass(&["get", r#"check-box "Row 1998 done""#]);
    assert_ok(&o, "get row 1998's check box");
    assert!(stdout(&o).contains("= off"), "{}", stdout(&o));
    app.assert_alive("get");
    // Row 1999 is now scrolled out of the view (laid out, not showing, checked, and Gecko
    // still names its action `check`): without a scroll first, the pointer click at its
    // centre landed outside the page and changed nothing.
    let o = app.treeglass(&["set", r#"check-box "Row 1 done""#, "true", "--json"]);
    assert_ok(&o, "set row 1's check box");
    assert_eq!(json_of(&o)["outcome"], "verified", "{}", stdout(&o));
    app.assert_alive("set row 1");
    let o = app.treeglass(&["set", r#"check-box "Row 1999 done""#, "false", "--json"]);
    assert_ok(&o, "uncheck row 1999, scrolled out of view");
    let r = json_of(&o);
    assert_eq!(r["outcome"], "verified", "{r:#}");
    assert!(
        r["acks"][0]
            .as_str()
            .is_some_and(|a| a.starts_with("Component.ScrollTo")),
        "scrolled into view first: {r:#}"
    );
    let seen = pyatspi_of(app.pid, &r);
    assert!(
        !seen["states"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "checked"),
        "the page holds the write: {seen}"
    );
    app.assert_alive("uncheck row 1999");
}

/// pyatspi, reading the page itself, sees the element a write result names checked.
fn assert_page_checked(pid: u32, r: &serde_json::Value) {
    let seen = pyatspi_of(pid, r);
    assert!(
        seen["states"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "checked"),
        "the page holds the write: {seen}"
    );
}

/// F5, then Esc once the re-read shows on screen: the read stops, and the tree on screen stays
/// the last whole read, as the status line says. An Esc that reaches the inspector only after
/// the read ended stops nothing (the status line says `re-read: N nodes`); then the pair is
/// tried again, three times at most, and one of them must stop the read.
fn esc_stops_a_re_read(tmux: &Tmux) {
    let mut screens = Vec::new();
    for _ in 0..3 {
        tmux.keys(&["F5"]);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let s = tmux.screen();
            if s.lines().next().unwrap_or_default().contains("re-reading…") {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "F5 never showed a re-read:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        tmux.keys(&["Escape"]);
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        let (after, status) = loop {
            let s = tmux.screen();
            let top = s.lines().next().unwrap_or_default();
            let status = s
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or_default()
                .to_string();
            if !top.contains("reading…")
                && (status.contains("read stopped") || status.contains("re-read:"))
            {
                break (s, status);
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the re-read never ended:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        if status.contains("read stopped") {
            assert!(
                status.contains("the tree shown is the last whole read"),
                "{after}"
            );
            let top = after.lines().next().unwrap_or_default();
            assert!(
                !top.contains("incomplete"),
                "the whole tree stays:\n{after}"
            );
            assert!(
                after.lines().skip(1).take(12).any(|l| l.contains('▾')),
                "the whole tree stays:\n{after}"
            );
            return;
        }
        screens.push(after);
    }
    panic!(
        "Esc never stopped a re-read in three tries:\n{}",
        screens.join("\n----\n")
    );
}

/// Waits until the inspector's tree pane shows no read in progress; returns the screen.
fn wait_whole(tmux: &Tmux) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let s = tmux.screen();
        let top = s.lines().next().unwrap_or_default();
        if top.contains(" nodes · ") && !top.contains("reading…") {
            return s;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the read never ended:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
