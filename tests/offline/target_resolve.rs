//! Target resolution (every outcome, tiers, fields, states, ancestors, near misses,
//! completeness) and shortest-unique-target suggestions.
#![allow(clippy::unwrap_used)]

use treeglass::backend::fixture::synthetic;
use treeglass::model::{
    Node, NodeId, Role, Snapshot, SnapshotId, State, States, Truncation, Value,
};
use treeglass::selector::{
    Field, Grade, Resolution, SnapshotIndex, Target, Tier, match_all, matches, resolve,
    resolve_with, suggest, suggest_all, suggest_with,
};

/// One node of a hand-built tree: depth, role, raw role, name.
struct N {
    depth: usize,
    node: Node,
}

fn n(depth: usize, role: Role, name: &str) -> N {
    let mut node = Node::new(NodeId(String::new()), role, role.as_str().replace('-', " "));
    node.name = name.into();
    node.states = States::EMPTY.with(State::Enabled).with(State::Sensitive);
    N { depth, node }
}

impl N {
    fn raw(mut self, raw: &str) -> N {
        self.node.raw_role = raw.into();
        self
    }
    fn desc(mut self, d: &str) -> N {
        self.node.description = d.into();
        self
    }
    fn text(mut self, v: &str) -> N {
        self.node.value = Some(Value::Text { text: v.into() });
        self
    }
    fn with(mut self, s: State) -> N {
        self.node.states.set(s, true);
        self
    }
    fn label(mut self, l: &str) -> N {
        self.node.label = Some(l.into());
        self
    }
}

/// Lays the nodes out in pre-order from their depths.
fn tree(items: Vec<N>) -> Snapshot {
    let mut nodes: Vec<Node> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (row, item) in items.into_iter().enumerate() {
        let mut node = item.node;
        node.id = NodeId(format!("t:{row}"));
        open.truncate(item.depth);
        node.parent = open.last().copied();
        node.depth = item.depth as u32;
        if let Some(p) = node.parent {
            nodes[p].children.push(row);
        }
        nodes.push(node);
        open.push(row);
    }
    wrap(nodes)
}

fn wrap(nodes: Vec<Node>) -> Snapshot {
    Snapshot {
        id: SnapshotId::next(),
        app: "test".into(),
        window: "Settings".into(),
        nodes,
        truncated: None,
        unreadable: 0,
        unreadable_elements: Vec::new(),
        cuts: Default::default(),
        read_ms: 0.0,
    }
}

fn settings() -> Snapshot {
    tree(vec![
        n(0, Role::Frame, "Settings"),                               // 0
        n(1, Role::Panel, ""),                                       // 1
        n(2, Role::CheckBox, "Enable").with(State::Checked),         // 2
        n(2, Role::CheckBox, "Enable sync"),                         // 3
        n(2, Role::Button, "Open").raw("push button"),               // 4
        n(2, Role::Button, "Open recent…").raw("push button"),       // 5
        n(2, Role::Text, "Name").desc("Your full name").text("Ada"), // 6
        n(2, Role::Text, "").desc("Email").text("ada@example.org"),  // 7
        n(2, Role::Label, "Email"),                                  // 8
        n(1, Role::Dialog, "Save"),                                  // 9
        n(2, Role::Button, "OK").raw("push button"),                 // 10
        n(2, Role::Button, "Cancel").raw("push button"),             // 11
        n(1, Role::Dialog, "Save as"),                               // 12
        n(2, Role::Button, "OK").raw("push button"),                 // 13
        n(2, Role::Button, "Cancel").raw("push button"),             // 14
        n(1, Role::Panel, ""),                                       // 15
        n(2, Role::Button, "").raw("push button"),                   // 16
        n(2, Role::Button, "").raw("push button"),                   // 17
        n(1, Role::ToggleButton, "Bold").raw("toggle button"),       // 18
        n(1, Role::Slider, "Volume").desc("Output level"),           // 19
    ])
}

fn t(s: &str) -> Target {
    Target::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn unique(snap: &Snapshot, target: &str) -> (usize, Tier, String) {
    match resolve(snap, &t(target)) {
        Resolution::Unique { row, tier, why, .. } => (row, tier, why),
        other => panic!("{target}: {other:?}"),
    }
}

fn ambiguous(snap: &Snapshot, target: &str) -> Vec<usize> {
    match resolve(snap, &t(target)) {
        Resolution::Ambiguous { count, candidates } => {
            assert_eq!(count, candidates.len(), "{target}");
            candidates.iter().map(|c| c.row).collect()
        }
        other => panic!("{target}: {other:?}"),
    }
}

fn not_found(snap: &Snapshot, target: &str) -> Vec<(usize, String)> {
    match resolve(snap, &t(target)) {
        Resolution::NotFound { near_misses, .. } => {
            near_misses.into_iter().map(|c| (c.row, c.why)).collect()
        }
        other => panic!("{target}: {other:?}"),
    }
}

#[test]
fn unique_outcomes() {
    let s = settings();
    let table: &[(&str, usize, Tier, &str)] = &[
        // Exact beats substring: "Enable sync" also contains "Enable".
        (r#"check-box "Enable""#, 2, Tier::Exact, "name exact"),
        (r#"button "Open""#, 4, Tier::Exact, "name exact"),
        // Name beats description: the label is named "Email", the text only described so.
        (r#""Email""#, 8, Tier::Exact, "name exact"),
        (r#"text "Email""#, 7, Tier::Exact, "description exact"),
        (r#""Ada""#, 6, Tier::Exact, "value exact"),
        (r#""example""#, 7, Tier::Substring, "value substring"),
        (
            r#""full name""#,
            6,
            Tier::Substring,
            "description substring",
        ),
        (r#""bol""#, 18, Tier::Substring, "name substring"),
        (r#"slider"#, 19, Tier::Any, "role"),
        (r#"check-box [!checked]"#, 3, Tier::Any, "role, states"),
        (r#"check-box [checked]"#, 2, Tier::Any, "role, states"),
        (r#"[checked]"#, 2, Tier::Any, "states"),
        (r#"role:"toggle button""#, 18, Tier::Any, "role"),
        (r#"role:"TOGGLE Button""#, 18, Tier::Any, "role"),
        (
            r#"button "OK" in dialog "Save""#,
            10,
            Tier::Exact,
            "name exact",
        ),
        (
            r#"button "OK" in dialog "Save as""#,
            13,
            Tier::Exact,
            "name exact",
        ),
        (
            r#"button "Cancel" in dialog ="Save as""#,
            14,
            Tier::Exact,
            "name exact",
        ),
        (
            r#"toggle-button in frame "Settings""#,
            18,
            Tier::Any,
            "role, within",
        ),
        (
            r#"button "OK" in dialog "Save" in frame"#,
            10,
            Tier::Exact,
            "name exact",
        ),
        (r#"="Enable""#, 2, Tier::Exact, "name exact"),
        (r#"~"vlm""#, 19, Tier::Fuzzy, ""),
    ];
    for (target, row, tier, why) in table {
        let (r, tr, w) = unique(&s, target);
        assert_eq!((r, tr), (*row, *tier), "{target}: {w}");
        if tr == Tier::Fuzzy {
            assert!(w.starts_with("name fuzzy "), "{target}: {w}");
        } else {
            assert_eq!(w, *why, "{target}");
        }
    }
}

#[test]
fn ambiguous_outcomes() {
    let s = settings();
    // Case-insensitive equality is a substring match, so "open" meets both buttons alike.
    assert_eq!(ambiguous(&s, r#"button "open""#), [4, 5]);
    assert_eq!(ambiguous(&s, r#"*"Enable""#), [2, 3]);
    assert_eq!(ambiguous(&s, r#"~"Enable""#), [2, 3]);
    assert_eq!(ambiguous(&s, r#"button "OK""#), [10, 13]);
    assert_eq!(ambiguous(&s, r#"button "OK" in frame"#), [10, 13]);
    assert_eq!(ambiguous(&s, r#"check-box [enabled]"#), [2, 3]);
    assert_eq!(ambiguous(&s, r#"button in panel"#), [4, 5, 16, 17]);
    assert_eq!(
        ambiguous(&s, r#"role:"push button" in panel"#),
        [4, 5, 16, 17]
    );
    // A dialog named exactly "Save" wins its own tier, so `in dialog "Save"` is one dialog.
    assert_eq!(ambiguous(&s, r#"button in dialog "Save""#), [10, 11]);
    // Fuzzy candidates come best score first.
    let Resolution::Ambiguous { candidates, .. } = resolve(&s, &t(r#""nbl""#)) else {
        panic!()
    };
    assert!(candidates.iter().all(|c| c.why.starts_with("name fuzzy")));
}

#[test]
fn tier_order_is_exact_substring_fuzzy_then_name_description_value() {
    let s = tree(vec![
        n(0, Role::Frame, "Root"),
        n(1, Role::Label, "Zeta prime"),         // substring name
        n(1, Role::Label, "Other").desc("Zeta"), // exact description
        n(1, Role::Text, "Field").text("Zeta"),  // exact value
        n(1, Role::Label, "Z e t a x").desc("zeta two"), // fuzzy name, substring description
    ]);
    let ix = SnapshotIndex::new(&s);
    let run = |q: &str| matches(&ix, &s, &t(q));
    // Exact description beats exact value beats any substring.
    assert_eq!(run(r#""Zeta""#), [2]);
    assert_eq!(run(r#"text "Zeta""#), [3]);
    // Substring: name beats description.
    assert_eq!(run(r#""zeta""#), [1]);
    assert_eq!(run(r#"*"zeta" [enabled]"#), [1]);
    // Fuzzy only where nothing contains the text.
    assert_eq!(run(r#""zta""#), [1, 4]);
    assert_eq!(run(r#"~"zeta""#), [1, 4]);
    assert_eq!(run(r#"~"zeta" [!sensitive]"#), Vec::<usize>::new());
    // Every match in any tier, in row order.
    assert_eq!(match_all(&ix, &s, &t(r#""zeta""#)), [1, 2, 3, 4]);
    assert_eq!(match_all(&ix, &s, &t(r#"="Zeta""#)), [2, 3]);
    let Resolution::Unique { why, .. } = resolve_with(&ix, &s, &t(r#""Zeta""#)) else {
        panic!()
    };
    assert_eq!(
        why,
        format!("{} {}", Field::Description.as_str(), Tier::Exact.as_str())
    );
}

/// Near misses rank by what was typed: the role asked for first, then another role bearing
/// the text, then the role's other elements by name distance, then letters in common.
#[test]
fn near_misses_rank_the_role_typed_first() {
    let s = settings();
    // A dialog that does not exist: the buttons named "OK" elsewhere first.
    let near = not_found(&s, r#"button "OK" in dialog "Open""#);
    let rows: Vec<usize> = near.iter().map(|(r, _)| *r).collect();
    assert_eq!(&rows[..2], &[10, 13], "{near:?}");
    // No button is near "Apply": the buttons there are, closest names first, before anything
    // of another role that merely shares letters.
    let near = not_found(&s, r#"button "Apply""#);
    let rows: Vec<usize> = near.iter().map(|(r, _)| *r).collect();
    assert!(
        rows.iter().all(|r| [4, 5, 10, 11, 13, 14].contains(r)),
        "{near:?}"
    );
    assert_eq!(
        near[0],
        (4, r#"name "Open" is 4 edits from the query"#.into())
    );
    // Another role bearing the text outranks the role's far names.
    let near = not_found(&s, r#"check-box "Bold""#);
    assert_eq!(near[0].0, 18, "{near:?}");
}

#[test]
fn not_found_with_near_misses() {
    let s = settings();
    let near = not_found(&s, r#"check-box "Bold""#);
    assert_eq!(
        near[0],
        (18, "role is toggle-button, not check-box".to_string())
    );

    let near = not_found(&s, r#"check-box ="Enable" [!checked]"#);
    assert_eq!(near[0], (2, "state checked is set".to_string()));
    assert_eq!(
        near[1],
        (
            3,
            "name matches as substring, but the query asks for exact".to_string()
        )
    );

    let near = not_found(&s, r#"button ="open""#);
    assert_eq!(
        near[0],
        (
            4,
            r#"name "Open" differs from the query only in case"#.to_string()
        )
    );
    assert_eq!(
        near[1],
        (
            5,
            "name matches as substring, but the query asks for exact".to_string()
        )
    );

    let near = not_found(&s, r#"check-box "Enabel""#);
    assert_eq!(
        near[0],
        (2, r#"name "Enable" is 1 edit from the query"#.to_string())
    );

    let near = not_found(&s, r#"button "OK" in dialog "Print""#);
    let rows: Vec<usize> = near.iter().map(|(r, _)| *r).collect();
    assert_eq!(&rows[..2], [10, 13]);
    assert_eq!(near[0].1, r#"not inside dialog "Print""#);

    let near = not_found(&s, r#"role:"check box" [pressed]"#);
    assert!(
        near.iter()
            .any(|(r, why)| *r == 2 && why.contains("state pressed is not set"))
    );

    assert!(not_found(&s, r#""qqqqqqqq""#).is_empty());
    assert!(not_found(&s, r#"slider [checked] "nothing like it""#).len() <= 5);
}

#[test]
fn incomplete_trees_never_claim_uniqueness() {
    let mut s = settings();
    s.truncated = Some(Truncation::NodeCap);
    match resolve(&s, &t(r#"check-box "Enable""#)) {
        Resolution::Incomplete {
            count,
            candidates,
            near_misses,
            reason,
        } => {
            assert_eq!(count, 1);
            assert_eq!(candidates[0].row, 2);
            assert!(near_misses.is_empty());
            assert!(reason.contains("node_cap"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    s.truncated = None;
    s.unreadable = 3;
    match resolve(&s, &t(r#"button "OK""#)) {
        Resolution::Incomplete { count, reason, .. } => {
            assert_eq!(count, 2);
            assert!(reason.contains("3 nodes could not be read"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    match resolve(&s, &t(r#"check-box "Bold""#)) {
        Resolution::Incomplete {
            count, near_misses, ..
        } => {
            assert_eq!(count, 0);
            assert_eq!(near_misses[0].row, 18);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn resolution_json() {
    let s = settings();
    let r = resolve(&s, &t(r#"check-box "Enable""#));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["outcome"], "unique");
    assert_eq!(json["row"], 2);
    assert_eq!(json["token"], format!("{}:2", s.id));
    assert_eq!(json["tier"], "exact");
    assert_eq!(json["why"], "name exact");
    assert_eq!(
        json["path"],
        r#"frame "Settings" > panel > check-box "Enable""#
    );

    let json = serde_json::to_value(resolve(&s, &t(r#"button "OK""#))).unwrap();
    assert_eq!(json["outcome"], "ambiguous");
    assert_eq!(json["count"], 2);
    assert_eq!(json["candidates"][0]["role"], "button");
    assert_eq!(json["candidates"][1]["token"], format!("{}:13", s.id));

    let json = serde_json::to_value(resolve(&s, &t(r#"check-box "Bold""#))).unwrap();
    assert_eq!(json["outcome"], "not_found");
    assert_eq!(
        json["near_misses"][0]["why"],
        "role is toggle-button, not check-box"
    );
}

#[test]
fn candidates_are_capped_but_counted() {
    let s = wrap(synthetic::generate(2000, 1));
    match resolve(&s, &t("check-box")) {
        Resolution::Ambiguous { count, candidates } => {
            assert!(count > 100, "{count}");
            assert_eq!(candidates.len(), 10);
            let rows: Vec<usize> = candidates.iter().map(|c| c.row).collect();
            let mut sorted = rows.clone();
            sorted.sort();
            assert_eq!(rows, sorted);
        }
        other => panic!("{other:?}"),
    }
    let ix = SnapshotIndex::new(&s);
    let all = matches(&ix, &s, &t("check-box"));
    assert!(all.windows(2).all(|w| w[0] < w[1]));
    assert!(all.iter().all(|&r| s.nodes[r].role == Role::CheckBox));
}

#[test]
fn hostile_names_are_escaped_in_candidates() {
    let s = tree(vec![
        n(0, Role::Frame, "F"),
        n(1, Role::Button, "Go\u{1b}[31m\u{202e}"),
        n(1, Role::Button, "Go\nnow"),
    ]);
    let Resolution::Ambiguous { candidates, .. } = resolve(&s, &t(r#"button "go""#)) else {
        panic!()
    };
    for c in candidates {
        assert!(
            !c.name.chars().any(|ch| ch.is_control() || ch == '\u{202e}'),
            "{c:?}"
        );
        assert!(
            !c.path.chars().any(|ch| ch.is_control() || ch == '\u{202e}'),
            "{c:?}"
        );
    }
}

#[test]
fn a_stale_index_is_not_trusted() {
    let a = settings();
    let b = tree(vec![n(0, Role::Frame, "Other"), n(1, Role::Button, "Open")]);
    let ix = SnapshotIndex::new(&a);
    assert!(!ix.covers(&b));
    assert_eq!(matches(&ix, &b, &t(r#"button "Open""#)), [1]);
}

/// A chain of `depth` nested panels with a button at the bottom.
fn deep(depth: usize) -> Snapshot {
    let mut items: Vec<N> = (0..depth).map(|d| n(d, Role::Panel, "")).collect();
    items.push(n(depth, Role::Button, "Deep"));
    tree(items)
}

#[test]
fn deep_trees_and_deep_targets_are_safe() {
    let s = deep(20_000);
    let ix = SnapshotIndex::new(&s);
    let chain = vec!["panel"; 32].join(" in ");
    let target = t(&format!("button \"Deep\" in {chain}"));
    assert_eq!(target.depth(), 32);
    assert_eq!(matches(&ix, &s, &target), [20_000]);
    assert_eq!(resolve_with(&ix, &s, &target).unique_row(), Some(20_000));
    let panels = matches(&ix, &s, &t(&chain));
    assert_eq!(panels.len(), 20_000 - 31);
    assert_eq!(
        suggest_with(&ix, &s, 20_000).unwrap().to_string(),
        r#"button "Deep""#
    );
    // The unnamed panels differ only in their place.
    assert_eq!(
        suggest_with(&ix, &s, 10_000).unwrap().to_string(),
        "panel #10001"
    );
}

#[test]
fn snapshots_not_in_preorder_still_resolve() {
    // Rows out of pre-order, and a parent cycle between 1 and 2.
    let mut nodes: Vec<Node> = vec![
        n(0, Role::Frame, "F").node,
        n(0, Role::Dialog, "D").node,
        n(0, Role::Button, "B").node,
        n(0, Role::Button, "B").node,
    ];
    nodes[1].parent = Some(2);
    nodes[2].parent = Some(1);
    nodes[3].parent = Some(0);
    let s = wrap(nodes);
    let ix = SnapshotIndex::new(&s);
    assert_eq!(matches(&ix, &s, &t(r#"button in dialog"#)), [2]);
    assert_eq!(matches(&ix, &s, &t(r#"button in frame"#)), [3]);
    assert_eq!(
        suggest_with(&ix, &s, 0).unwrap().to_string(),
        r#"frame "F""#
    );
    // `in` suggestions need pre-order; the position in row order still names it.
    assert_eq!(
        suggest_with(&ix, &s, 3).unwrap().to_string(),
        r#"button "B" #2"#
    );
    assert_eq!(
        resolve_with(&ix, &s, &t(r#"button "B" #2"#)).unique_row(),
        Some(3)
    );
}

fn assert_suggestion_resolves(s: &Snapshot, ix: &SnapshotIndex, row: usize, target: &Target) {
    let printed = target.to_string();
    assert!(printed.chars().count() <= 1024);
    let parsed = Target::parse(&printed).unwrap_or_else(|e| panic!("{printed}: {e}"));
    assert_eq!(&parsed, target);
    match resolve_with(ix, s, &parsed) {
        Resolution::Unique { row: r, .. } => assert_eq!(r, row, "{printed}"),
        other => panic!("row {row}: {printed} → {other:?}"),
    }
}

#[test]
fn suggestions_on_a_hand_built_tree() {
    let s = settings();
    let all = suggest_all(&s);
    let expected: &[(usize, Option<&str>)] = &[
        (0, Some(r#"frame "Settings""#)),
        (2, Some(r#"check-box "Enable""#)),
        (4, Some(r#"button "Open""#)),
        (6, Some(r#"text "Name""#)),
        (7, Some(r#"text "Email""#)),
        (10, Some(r#"button "OK" in dialog "Save""#)),
        (14, Some(r#"button "Cancel" in dialog "Save as""#)),
        // Identical unnamed siblings are told apart by their place.
        (15, Some("panel #2")),
        (16, Some("button #7")),
        (17, Some("button #8")),
        (19, Some(r#"slider "Volume""#)),
    ];
    for (row, want) in expected {
        let got = all[*row].as_ref().map(|t| t.to_string());
        assert_eq!(got.as_deref(), *want, "row {row}");
        assert_eq!(suggest(&s, *row), all[*row], "row {row}");
    }
    let ix = SnapshotIndex::new(&s);
    for (row, t) in all.iter().enumerate() {
        if let Some(t) = t {
            assert_suggestion_resolves(&s, &ix, row, t);
        }
    }
}

#[test]
fn suggestion_shapes() {
    let s = tree(vec![
        n(0, Role::Frame, "App"),                          // 0
        n(1, Role::Text, "").desc("Search"),               // 1 description
        n(1, Role::Text, "").with(State::Editable),        // 2 stable state
        n(1, Role::Text, ""),                              // 3 …and its absence
        n(1, Role::Panel, "Left"),                         // 4
        n(2, Role::Label, ""),                             // 5 in a named ancestor
        n(1, Role::Panel, "Right"),                        // 6
        n(2, Role::Label, ""),                             // 7
        n(2, Role::CheckBox, "Wrap").with(State::Checked), // 8
        n(2, Role::CheckBox, "Wrap"),                      // 9 checked is volatile
        n(1, Role::Group, ""),                             // 10
        n(2, Role::Group, ""),                             // 11
        n(3, Role::Button, "Go"),                          // 12
        n(1, Role::Group, "").with(State::Focusable),      // 13
        n(2, Role::Button, "Go"),                          // 14 via a stated ancestor
        n(1, Role::Label, "Go"),                           // 15 role disambiguates
    ]);
    let all = suggest_all(&s);
    let got = |row: usize| all[row].as_ref().map(|t| t.to_string());
    assert_eq!(got(1).as_deref(), Some(r#"text "Search""#));
    assert_eq!(got(2).as_deref(), Some("text [editable]"));
    assert_eq!(got(3).as_deref(), Some("text #3"));
    assert_eq!(got(5).as_deref(), Some(r#"label in panel "Left""#));
    assert_eq!(got(8).as_deref(), Some(r#"check-box "Wrap" #1"#));
    assert_eq!(got(9).as_deref(), Some(r#"check-box "Wrap" #2"#));
    assert_eq!(got(13).as_deref(), Some("group [focusable]"));
    assert_eq!(
        got(14).as_deref(),
        Some(r#"button "Go" in group [focusable]"#)
    );
    assert_eq!(got(15).as_deref(), Some(r#"label "Go""#));
    let ix = SnapshotIndex::new(&s);
    for (row, t) in all.iter().enumerate() {
        if let Some(t) = t {
            assert_suggestion_resolves(&s, &ix, row, t);
        }
    }
}

#[test]
fn suggestions_resolve_back_on_a_generated_tree() {
    let s = wrap(synthetic::generate(2000, 1));
    let ix = SnapshotIndex::new(&s);
    let all = suggest_all_with_index(&ix, &s);
    assert_eq!(all.len(), s.nodes.len());
    let mut found = 0;
    for (row, t) in all.iter().enumerate() {
        if let Some(t) = t {
            found += 1;
            assert_suggestion_resolves(&s, &ix, row, t);
        }
    }
    // Every named node of the generated tree has a suggestion; only unnamed panels may not.
    for (row, node) in s.nodes.iter().enumerate() {
        if !node.name.is_empty() {
            assert!(all[row].is_some(), "row {row}: {}", s.path_string(row));
        }
    }
    assert!(
        found * 10 > s.nodes.len() * 9,
        "{found} of {}",
        s.nodes.len()
    );
    // One-node suggestions agree with the shared pass.
    for row in (0..s.nodes.len()).step_by(97) {
        assert_eq!(suggest_with(&ix, &s, row), all[row], "row {row}");
    }
}

fn suggest_all_with_index(ix: &SnapshotIndex, s: &Snapshot) -> Vec<Option<Target>> {
    treeglass::selector::suggest_all_with(ix, s)
}

#[test]
fn suggestions_ignore_completeness() {
    let mut s = settings();
    s.truncated = Some(Truncation::Timeout);
    let target = suggest(&s, 2).unwrap();
    assert_eq!(target.to_string(), r#"check-box "Enable""#);
    assert!(matches!(
        resolve(&s, &target),
        Resolution::Incomplete { count: 1, .. }
    ));
}

#[test]
fn suggestions_never_use_a_name_that_is_the_current_value() {
    use treeglass::model::{Node, NodeId, Role, Snapshot, SnapshotId, Value, preorder};
    let mut frame = Node::new(NodeId("f".into()), Role::Frame, "frame");
    frame.name = "W".into();
    frame.children = vec![1, 2];
    let mut combo = Node::new(NodeId("c".into()), Role::ComboBox, "combo box");
    combo.name = "Red".into();
    combo.description = "Colour".into();
    combo.value = Some(Value::Choice {
        selected: Some("Red".into()),
    });
    let mut other = Node::new(NodeId("o".into()), Role::ComboBox, "combo box");
    other.name = "Size".into();
    other.value = Some(Value::Choice {
        selected: Some("Large".into()),
    });
    let snap = Snapshot {
        id: SnapshotId::next(),
        app: "a".into(),
        window: "W".into(),
        nodes: preorder(vec![frame, combo, other], 0),
        truncated: None,
        unreadable: 0,
        unreadable_elements: Vec::new(),
        cuts: Default::default(),
        read_ms: 0.0,
    };
    let t = treeglass::selector::suggest(&snap, 1).unwrap().to_string();
    assert_eq!(t, "combo-box \"Colour\"");
    // A name that is not the value is still the first choice.
    assert_eq!(
        treeglass::selector::suggest(&snap, 2).unwrap().to_string(),
        "combo-box \"Size\""
    );
}

/// A form with identical siblings, labels, a neighbour relation and a hidden twin.
fn form() -> Snapshot {
    let on = |node: N| node.with(State::Showing);
    tree(vec![
        on(n(0, Role::Frame, "Form")),                // 0
        on(n(1, Role::Group, "Billing")),             // 1
        on(n(2, Role::Label, "Name:")),               // 2
        on(n(2, Role::Text, "").label("Name:")),      // 3
        on(n(2, Role::Label, "City:")),               // 4
        on(n(2, Role::Label, "")),                    // 5 blank labels are skipped
        on(n(2, Role::Text, "")),                     // 6 after "City:"
        on(n(2, Role::CheckBox, "checkbutton")),      // 7
        on(n(2, Role::CheckBox, "checkbutton")),      // 8
        on(n(1, Role::Group, "Shipping")),            // 9
        on(n(2, Role::Label, "Name:")),               // 10
        on(n(2, Role::Text, "").label("Full name:")), // 11
        on(n(2, Role::Label, "City:")),               // 12
        on(n(2, Role::Text, "")),                     // 13
        on(n(2, Role::CheckBox, "checkbutton")),      // 14
        on(n(2, Role::Heading, "Font")),              // 15
        on(n(2, Role::ComboBox, "Font name")),        // 16 on screen
        n(2, Role::ComboBox, "Font name"),            // 17 its hidden twin
        on(n(1, Role::Text, "")),                     // 18 not after any label
    ])
}

#[test]
fn positions_count_the_winning_tier_in_document_order() {
    let s = form();
    assert_eq!(unique(&s, r#"check-box "checkbutton" #2"#).0, 8);
    assert_eq!(unique(&s, r#"check-box "checkbutton" #3"#).0, 14);
    assert_eq!(unique(&s, r#"check-box #1 in group "Shipping""#).0, 14);
    assert_eq!(unique(&s, "text #4").0, 13);
    // A position on an ancestor clause picks that ancestor.
    assert_eq!(unique(&s, "check-box in group #2").0, 14);
    assert_eq!(ambiguous(&s, "check-box in group #1"), [7, 8]);
    // After tiering: "Font" names the heading exactly, so #1 is the heading, not a combo.
    let (row, tier, why) = unique(&s, r#""Font" #1"#);
    assert_eq!((row, tier), (15, Tier::Exact));
    assert_eq!(why, "name exact, #1");
    // Out of range: not found, with how many there are, and those matches listed.
    match resolve(&s, &t(r#"check-box "checkbutton" #5"#)) {
        Resolution::NotFound {
            count, near_misses, ..
        } => {
            assert_eq!(count, 3);
            let rows: Vec<usize> = near_misses.iter().map(|c| c.row).collect();
            assert_eq!(rows, [7, 8, 14]);
            assert!(
                near_misses[2]
                    .why
                    .contains("match 3 of 3, the target asks for #5"),
                "{}",
                near_misses[2].why
            );
        }
        other => panic!("{other:?}"),
    }
    // A plain not-found keeps a count of 0.
    assert!(matches!(
        resolve(&s, &t(r#"check-box "nothing here at all""#)),
        Resolution::NotFound { count: 0, .. }
    ));
    // The TUI's match lists honour the position too.
    let ix = SnapshotIndex::new(&s);
    assert_eq!(matches(&ix, &s, &t("check-box #2")), [8]);
    assert_eq!(match_all(&ix, &s, &t(r#""checkbutton" #3"#)), [14]);
    assert!(matches(&ix, &s, &t("check-box #9")).is_empty());
}

#[test]
fn label_relation_is_a_query_field() {
    let s = form();
    assert_eq!(unique(&s, r#"text labelled-by "Name:""#).0, 3);
    assert_eq!(unique(&s, r#"labelled-by "Full name:""#).0, 11);
    // Tiered like a query: the exact label wins over the one that only contains it.
    assert_eq!(unique(&s, r#"labelled-by "Name:""#).0, 3);
    assert_eq!(ambiguous(&s, r#"labelled-by "name:""#), [3, 11]);
    assert_eq!(ambiguous(&s, r#"text labelled-by *"name:""#), [3, 11]);
    assert_eq!(unique(&s, r#"labelled-by ~"flnm""#).0, 11);
    let (_, _, why) = unique(&s, r#"text labelled-by "Name:""#);
    assert_eq!(why, "role, label");
    // With other fields and ancestors.
    assert_eq!(
        unique(&s, r#"text labelled-by *"name" in group "Shipping""#).0,
        11
    );
    // Near misses say what the label is.
    let near = not_found(&s, r#"text labelled-by ="name:""#);
    assert!(
        near.iter()
            .any(|(r, why)| *r == 3 && why == r#"label is "Name:""#),
        "{near:?}"
    );
    let near = not_found(&s, r#"text labelled-by "Street:""#);
    assert!(
        near.iter().any(|(_, why)| why == "has no label"),
        "{near:?}"
    );
}

#[test]
fn neighbour_is_the_nearest_named_label_before_it() {
    let s = form();
    assert_eq!(ambiguous(&s, r#"text after label "City:""#), [6, 13]);
    assert_eq!(
        unique(&s, r#"text after label "City:" in group "Billing""#).0,
        6
    );
    // The role defaults to label; the canonical form names it.
    let t1 = t(r#"text after "City:" in group "Shipping""#);
    assert_eq!(
        t1.to_string(),
        r#"text after label "City:" in group "Shipping""#
    );
    assert_eq!(resolve(&s, &t1).unique_row(), Some(13));
    // Another neighbour role.
    assert_eq!(
        unique(&s, r#"combo-box after heading "Font" [showing]"#).0,
        16
    );
    // The label before the check boxes is "City:" as well: the blank label is skipped.
    assert_eq!(ambiguous(&s, r#"check-box after "City:""#), [7, 8, 14]);
    // Neighbours are siblings: the top-level text follows no label at all.
    assert_eq!(ambiguous(&s, r#"text after "Name:""#), [3, 11]);
    assert_eq!(ambiguous(&s, r#"text after *":""#), [3, 6, 11, 13]);
    let near = not_found(&s, r#"text after label "Nope""#);
    assert!(
        near.iter()
            .any(|(_, why)| why == r#"not after label "Nope""#),
        "{near:?}"
    );
}

#[test]
fn a_showing_element_and_its_hidden_twin_stay_ambiguous() {
    let s = form();
    match resolve(&s, &t(r#"combo-box "Font name""#)) {
        Resolution::Ambiguous { count, candidates } => {
            assert_eq!(count, 2);
            let hidden: Vec<(usize, bool)> = candidates.iter().map(|c| (c.row, c.hidden)).collect();
            assert_eq!(hidden, [(16, false), (17, true)]);
        }
        other => panic!("{other:?}"),
    }
    let json = serde_json::to_value(resolve(&s, &t(r#"combo-box "Font name""#))).unwrap();
    assert_eq!(json["candidates"][1]["hidden"], true);
    assert_eq!(unique(&s, r#"combo-box "Font name" [showing]"#).0, 16);
    assert_eq!(unique(&s, r#"combo-box "Font name" [!showing]"#).0, 17);
    // Each twin's suggestion names that twin, never the other.
    let all = suggest_all(&s);
    let visible = all[16].as_ref().unwrap();
    let hidden = all[17].as_ref().unwrap();
    assert_eq!(visible.to_string(), r#"combo-box "Font name" [showing]"#);
    assert_eq!(hidden.to_string(), r#"combo-box "Font name" [!showing]"#);
    assert_eq!(visible.grade(), Grade::Contextual);
    assert_eq!(resolve(&s, visible).unique_row(), Some(16));
    assert_eq!(resolve(&s, hidden).unique_row(), Some(17));
}

#[test]
fn raw_atspi_role_names_in_json() {
    let s = tree(vec![
        n(0, Role::Frame, "F"),
        n(1, Role::SpinButton, "Count").raw("spin button"),
        n(1, Role::Slider, "Level").raw("level bar"),
    ]);
    let spin = t(r#"{"role": "spin button"}"#);
    assert_eq!(spin.to_string(), r#"role:"spin button""#);
    assert_eq!(resolve(&s, &spin).unique_row(), Some(1));
    assert_eq!(
        resolve(&s, &t(r#"{"role": "spin-button"}"#)).unique_row(),
        Some(1)
    );
    assert_eq!(
        resolve(&s, &t(r#"{"role": "Level Bar"}"#)).unique_row(),
        Some(2)
    );
}

#[test]
fn every_node_gets_a_graded_suggestion_that_resolves_back() {
    let s = form();
    let ix = SnapshotIndex::new(&s);
    let all = suggest_all_with_index(&ix, &s);
    let got = |row: usize| {
        let t = all[row].as_ref().unwrap();
        (t.to_string(), t.grade())
    };
    let want: &[(usize, &str, Grade)] = &[
        (1, r#"group "Billing""#, Grade::Stable),
        (3, r#"text labelled-by "Name:""#, Grade::Contextual),
        (
            6,
            r#"text after label "City:" in group "Billing""#,
            Grade::Contextual,
        ),
        // The fewest look-alikes: two check boxes in Billing, three named so in all.
        (7, r#"check-box #1 in group "Billing""#, Grade::Positional),
        (11, r#"text labelled-by "Full name:""#, Grade::Contextual),
        (
            13,
            r#"text after label "City:" in group "Shipping""#,
            Grade::Contextual,
        ),
        (
            14,
            r#"check-box "checkbutton" in group "Shipping""#,
            Grade::Contextual,
        ),
        (18, "text #5", Grade::Positional),
    ];
    for (row, target, grade) in want {
        assert_eq!(got(*row), (target.to_string(), *grade), "row {row}");
    }
    for (row, t) in all.iter().enumerate() {
        let t = t
            .as_ref()
            .unwrap_or_else(|| panic!("row {row} has no suggestion"));
        assert_suggestion_resolves(&s, &ix, row, t);
        assert_eq!(suggest_with(&ix, &s, row).as_ref(), Some(t), "row {row}");
    }
}

#[test]
fn within_names_the_nearest_uniquely_named_ancestor_however_deep() {
    // A named panel, then 100 unnamed levels, then two identical buttons; and a twin subtree
    // under another name.
    let mut items = vec![n(0, Role::Frame, "App"), n(1, Role::Panel, "Left")];
    items.extend((0..100).map(|d| n(2 + d, Role::Panel, "")));
    items.push(n(102, Role::Button, "Go"));
    items.push(n(1, Role::Panel, "Right"));
    items.extend((0..100).map(|d| n(2 + d, Role::Panel, "")));
    items.push(n(102, Role::Button, "Go"));
    let s = tree(items);
    let left = 102;
    let right = s.nodes.len() - 1;
    let all = suggest_all(&s);
    assert_eq!(
        all[left].as_ref().unwrap().to_string(),
        r#"button "Go" in panel "Left""#
    );
    assert_eq!(
        all[right].as_ref().unwrap().to_string(),
        r#"button "Go" in panel "Right""#
    );
    assert_eq!(
        resolve(&s, all[right].as_ref().unwrap()).unique_row(),
        Some(right)
    );
    assert_eq!(suggest(&s, right), all[right]);
}
