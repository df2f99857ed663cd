//! Recorded UI Automation and macOS AX trees replayed through the platform mappings on Linux:
//! targets resolve on the replayed snapshots, and every interesting node gets the write plan
//! (and the shared precondition verdict) its platform calls for.
#![allow(clippy::unwrap_used)]

use std::collections::HashSet;

use treeglass::backend::strategy::{NoWay, WritePlan, option_rows, steps_to};
use treeglass::backend::{ax, uia};
use treeglass::model::{Node, Role, Snapshot, State, Toggle, Value};
use treeglass::selector::{Resolution, Target, resolve};
use treeglass::write::rules::{
    Observed, Refusal, Requested, choose_option, observe, plan_request, satisfies,
};

const NOTEPAD: &str = include_str!("../fixtures/uia/notepad.json");
const SETTINGS_DIALOG: &str = include_str!("../fixtures/uia/settings_dialog.json");
const TEXTEDIT: &str = include_str!("../fixtures/ax/textedit.json");
const SYSTEM_SETTINGS: &str = include_str!("../fixtures/ax/system_settings.json");

#[derive(Clone, Copy)]
enum Platform {
    Uia,
    Ax,
}

fn load(p: Platform, json: &str) -> Snapshot {
    match p {
        Platform::Uia => uia::trace::snapshot_from_trace(json).unwrap(),
        Platform::Ax => ax::trace::snapshot_from_trace(json).unwrap(),
    }
}

fn plan(p: Platform, node: &Node) -> WritePlan {
    match p {
        Platform::Uia => treeglass::backend::strategy::plan_for(&uia::map::RULES, node),
        Platform::Ax => treeglass::backend::strategy::plan_for(&ax::map::RULES, node),
    }
}

/// The row a target names uniquely (fails the test with the resolution otherwise).
fn row(snap: &Snapshot, target: &str) -> usize {
    let t = Target::parse(target).unwrap_or_else(|e| panic!("{target}: {e}"));
    match resolve(snap, &t) {
        Resolution::Unique { row, .. } => row,
        other => panic!("{target}: {other:?}"),
    }
}

fn node<'a>(snap: &'a Snapshot, target: &str) -> &'a Node {
    &snap.nodes[row(snap, target)]
}

/// What the shared rules say to a raw value: the request, or the refusal.
type Verdict = Result<Requested, Refusal>;

/// One interesting node: its target, the role it maps to, the plan it gets, and optionally a
/// raw value with the verdict the shared preconditions give it.
struct Case {
    target: &'static str,
    role: Role,
    plan: WritePlan,
    request: Option<(&'static str, Verdict)>,
}

fn case(target: &'static str, role: Role, plan: WritePlan) -> Case {
    Case {
        target,
        role,
        plan,
        request: None,
    }
}

impl Case {
    fn asks(mut self, raw: &'static str, verdict: Verdict) -> Case {
        self.request = Some((raw, verdict));
        self
    }
}

fn check(p: Platform, snap: &Snapshot, cases: &[Case]) {
    for c in cases {
        let n = node(snap, c.target);
        assert_eq!(n.role, c.role, "role of {}", c.target);
        assert_eq!(plan(p, n), c.plan, "plan for {}", c.target);
        if let Some((raw, verdict)) = &c.request {
            assert_eq!(
                &plan_request(n, raw, false),
                verdict,
                "{} ← {raw:?}",
                c.target
            );
        }
    }
}

fn labels(snap: &Snapshot, rows: &[usize]) -> Vec<treeglass::model::AppText> {
    rows.iter().map(|r| snap.nodes[*r].name.clone()).collect()
}

fn text(s: &str) -> Verdict {
    Ok(Requested::Text(s.into()))
}

const SET_VALUE: WritePlan = WritePlan::SetValue;
const TOGGLE_1: WritePlan = WritePlan::Toggle { max_presses: 1 };
const TOGGLE_2: WritePlan = WritePlan::Toggle { max_presses: 2 };

#[test]
fn uia_notepad() {
    let snap = load(Platform::Uia, NOTEPAD);
    assert!(snap.complete());
    assert_eq!(snap.app, "Notepad");
    assert_eq!(snap.window, "Untitled - Notepad");
    assert_eq!(snap.nodes.len(), 23);
    check(
        Platform::Uia,
        &snap,
        &[
            case(
                r#"window "Untitled - Notepad""#,
                Role::Window,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            case(r#"text "Text Editor""#, Role::Text, SET_VALUE).asks("hello", text("hello")),
            case(
                r#"scroll-bar "Vertical""#,
                Role::ScrollBar,
                WritePlan::SetRange,
            )
            .asks("50", Ok(Requested::Number(50.0))),
            case(r#"button "Close""#, Role::Button, WritePlan::Invoke).asks(
                "x",
                Err(Refusal::NotEditable {
                    role: "button".into(),
                }),
            ),
            case(
                r#"menu-item "File""#,
                Role::MenuItem,
                WritePlan::Expand { toggles: false },
            ),
            case(
                r#"check-menu-item "Word Wrap""#,
                Role::CheckMenuItem,
                TOGGLE_1,
            )
            .asks("off", Ok(Requested::Toggle(false))),
            case(r#"menu-item "Font...""#, Role::MenuItem, WritePlan::Invoke),
            case(
                r#"label "UTF-8""#,
                Role::Label,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
        ],
    );
    let editor = node(&snap, r#"text "Text Editor""#);
    assert_eq!(editor.id.0, "uia:42.264008");
    assert!(editor.states.has(State::Focused) && editor.states.has(State::Editable));
    // The read-back rules ignore CRLF vs LF and outer white space.
    let req = Requested::Text("Meeting notes\n- ship 0.2".into());
    assert!(satisfies(&req, &observe(editor, &req), 0.0));
    assert_eq!(
        node(&snap, r#"check-menu-item "Word Wrap""#).value,
        Some(Value::Toggle { state: Toggle::On })
    );
    assert!(
        node(&snap, r#"menu-item "Format""#)
            .states
            .has(State::Expanded)
    );
    // Raw roles are the control type names.
    assert_eq!(row(&snap, r#"role:"TitleBar""#), 8);
}

#[test]
fn uia_settings_dialog() {
    let snap = load(Platform::Uia, SETTINGS_DIALOG);
    assert!(snap.complete());
    assert_eq!(snap.window, "Options");
    check(
        Platform::Uia,
        &snap,
        &[
            case(
                r#"dialog "Options" [modal]"#,
                Role::Dialog,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            case(
                r#"tab-list "Sections""#,
                Role::TabList,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            case(r#"tab "Advanced""#, Role::Tab, WritePlan::SelectItem)
                .asks("true", Ok(Requested::Select(true))),
            case(
                r#"tab "General" [selected]"#,
                Role::Tab,
                WritePlan::SelectItem,
            ),
            // The mixed check box: up to two presses.
            case(
                r#"check-box "Sync bookmarks" [indeterminate]"#,
                Role::CheckBox,
                TOGGLE_2,
            )
            .asks("on", Ok(Requested::Toggle(true))),
            case(
                r#"check-box "Start at login" [checked]"#,
                Role::CheckBox,
                TOGGLE_2,
            ),
            case(r#"switch "Metered connections""#, Role::Switch, TOGGLE_1),
            case(r#"toggle-button "Pause""#, Role::ToggleButton, TOGGLE_1),
            case(
                r#"spin-button "Retries""#,
                Role::SpinButton,
                WritePlan::SetRange,
            )
            .asks("4", Ok(Requested::Number(4.0))),
            case(
                r#"progress-bar "Quota used""#,
                Role::ProgressBar,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            case(
                r#"radio-button "Dark""#,
                Role::RadioButton,
                WritePlan::SelectItem,
            )
            .asks("true", Ok(Requested::Toggle(true))),
            case(
                r#"radio-button "Light" [checked]"#,
                Role::RadioButton,
                WritePlan::SelectItem,
            ),
            case(
                r#"combo-box "Language""#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            )
            .asks("deutsch", Ok(Requested::Option("deutsch".into()))),
            case(
                r#"combo-box "Font""#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            ),
            case(r#"text "Font" in combo-box "Font""#, Role::Text, SET_VALUE),
            case(
                r#"slider "Volume" [horizontal]"#,
                Role::Slider,
                WritePlan::SetRange,
            ),
            // The read-only value pattern: refused before anything is sent.
            case(
                r#"text "Install folder" [read-only]"#,
                Role::Text,
                WritePlan::Refuse(NoWay::ReadOnly),
            )
            .asks("D:\\Sync", Err(Refusal::ReadOnly)),
            case(
                r#"password-text "Proxy password" [required]"#,
                Role::PasswordText,
                SET_VALUE,
            )
            .asks("hunter2", text("hunter2")),
            // An edit with only TextPattern: the keyboard fallback.
            case(r#"text "Notes""#, Role::Text, WritePlan::Keyboard).asks("x", text("x")),
            case(
                r#"expander "Advanced options" [collapsed]"#,
                Role::Expander,
                WritePlan::Expand { toggles: false },
            )
            .asks("true", Ok(Requested::Expand(true))),
            case(
                r#"tree-item "Documents" [expanded]"#,
                Role::TreeItem,
                WritePlan::SelectItem,
            ),
            case(
                r#"tree-item "Invoices" [selected]"#,
                Role::TreeItem,
                WritePlan::SelectItem,
            ),
            case(r#"link "Privacy statement""#, Role::Link, WritePlan::Invoke),
            case(r#"button "OK""#, Role::Button, WritePlan::Invoke),
            case(
                r#"button "Apply""#,
                Role::Button,
                WritePlan::Refuse(NoWay::Disabled),
            ),
            case(
                r#"label "Install folder:""#,
                Role::Label,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
        ],
    );

    // The mixed check box reads as mixed, so "on" is not "already".
    let sync = node(&snap, r#"check-box "Sync bookmarks""#);
    assert_eq!(
        sync.value,
        Some(Value::Toggle {
            state: Toggle::Mixed
        })
    );
    let on = Requested::Toggle(true);
    assert_eq!(observe(sync, &on), Observed::Mixed);
    assert!(!satisfies(&on, &observe(sync, &on), 0.0));
    assert_eq!(sync.description, "Some bookmark folders are excluded");
    // A checked box already satisfies "on".
    let login = node(&snap, r#"check-box "Start at login""#);
    assert!(satisfies(&on, &observe(login, &on), 0.0));

    // Combo boxes: the option list the write picks from, and the selection read back.
    let lang = row(&snap, r#"combo-box "Language""#);
    let opts = labels(&snap, &option_rows(&snap.nodes, lang));
    assert_eq!(opts, ["English", "Deutsch", "Français"]);
    assert_eq!(choose_option("deutsch", &opts), Ok(1));
    assert!(matches!(
        choose_option("Klingon", &opts),
        Err(Refusal::UnknownOption { .. })
    ));
    assert_eq!(
        snap.nodes[lang].value,
        Some(Value::Choice {
            selected: Some("English".into())
        })
    );
    let font = row(&snap, r#"combo-box "Font""#);
    assert_eq!(
        labels(&snap, &option_rows(&snap.nodes, font)),
        ["Segoe UI", "Consolas", "Calibri"]
    );

    let retries = node(&snap, r#"spin-button "Retries""#);
    assert!(matches!(
        plan_request(retries, "11", false),
        Err(Refusal::OutOfRange { .. })
    ));
    let secret = node(&snap, r#"password-text "Proxy password""#);
    assert!(secret.is_secret());
    // Ids come from runtime ids, recorded or filled in.
    let ids: HashSet<&str> = snap.nodes.iter().map(|n| n.id.0.as_str()).collect();
    assert_eq!(ids.len(), snap.nodes.len());
    assert_eq!(snap.nodes[0].id.0, "uia:42.1313422");
}

#[test]
fn ax_textedit() {
    let snap = load(Platform::Ax, TEXTEDIT);
    assert!(snap.complete());
    assert_eq!(snap.app, "TextEdit");
    // The root is the application, so the snapshot names no window.
    assert_eq!(snap.window, "");
    check(
        Platform::Ax,
        &snap,
        &[
            case(
                r#"application "TextEdit""#,
                Role::Application,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            case(
                r#"window "Untitled" [active]"#,
                Role::Window,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            case("text [multi-line focused]", Role::Text, SET_VALUE).asks("Hi", text("Hi")),
            case(
                "scroll-bar [vertical]",
                Role::ScrollBar,
                WritePlan::SetRange,
            ),
            // Pop-up buttons: press to open, press the item.
            case(
                r#"combo-box "Font family""#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            )
            .asks("Menlo", Ok(Requested::Option("Menlo".into()))),
            case(
                r#"combo-box "Typeface""#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            ),
            case(
                r#"combo-box "Font size" [editable]"#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            ),
            case(
                r#"combo-box "Paragraph styles""#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            ),
            // An incrementor whose AXValue is not settable steps.
            case(
                r#"spin-button "Line spacing""#,
                Role::SpinButton,
                WritePlan::Step,
            )
            .asks("1.5", Ok(Requested::Number(1.5))),
            case(r#"toggle-button "Bold""#, Role::ToggleButton, TOGGLE_1)
                .asks("on", Ok(Requested::Toggle(true))),
            case(
                r#"toggle-button "Italic" [checked]"#,
                Role::ToggleButton,
                TOGGLE_1,
            ),
            case(
                r#"radio-button "Center""#,
                Role::RadioButton,
                WritePlan::SelectItem,
            ),
            case(
                r#"radio-button "Align Left" [checked]"#,
                Role::RadioButton,
                WritePlan::SelectItem,
            ),
            case(r#"button "Text color""#, Role::Button, WritePlan::Invoke),
            case(r#"button "close button""#, Role::Button, WritePlan::Invoke),
            case(
                r#"menu-item "Format" in menu-bar"#,
                Role::MenuItem,
                WritePlan::Invoke,
            ),
            case(
                r#"menu-item "Bold Oblique""#,
                Role::MenuItem,
                WritePlan::Invoke,
            ),
            case(
                r#"label "Untitled""#,
                Role::Label,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
        ],
    );
    // Raw roles keep the subrole.
    let close = node(&snap, r#"role:"AXButton:AXCloseButton""#);
    assert_eq!(close.name, "close button");
    assert_eq!(close.actions, ["press"]);

    let typeface = row(&snap, r#"combo-box "Typeface""#);
    let opts = labels(&snap, &option_rows(&snap.nodes, typeface));
    assert_eq!(opts, ["Regular", "Oblique", "Bold", "Bold Oblique"]);
    assert_eq!(choose_option("bold", &opts), Ok(2));
    // A closed pop-up shows no items: the backend opens the menu to list them.
    let family = row(&snap, r#"combo-box "Font family""#);
    assert!(option_rows(&snap.nodes, family).is_empty());
    assert_eq!(
        snap.nodes[family].value,
        Some(Value::Choice {
            selected: Some("Helvetica".into())
        })
    );
    assert_eq!(
        node(&snap, r#"combo-box "Paragraph styles""#).value,
        Some(Value::Choice { selected: None })
    );

    let spacing = node(&snap, r#"spin-button "Line spacing""#);
    let Some(Value::Number {
        current,
        min,
        max,
        step,
    }) = spacing.value
    else {
        panic!("{:?}", spacing.value)
    };
    assert_eq!(
        (current, min, max, step),
        (1.0, Some(0.5), Some(3.0), Some(0.1))
    );
    let s = steps_to(current, 1.5, step.unwrap_or(0.0));
    assert!(s.up);
    assert_eq!(s.presses, 5);
    assert!(matches!(
        plan_request(spacing, "4", false),
        Err(Refusal::OutOfRange { .. })
    ));
    assert_eq!(snap.nodes[0].id.0, "ax:8123");
    assert_eq!(node(&snap, "text").id.0, "ax:8123/0/0/0");
}

#[test]
fn ax_system_settings() {
    let snap = load(Platform::Ax, SYSTEM_SETTINGS);
    assert!(snap.complete());
    assert_eq!(snap.window, "Wi‑Fi");
    check(
        Platform::Ax,
        &snap,
        &[
            case(r#"switch "Wi‑Fi" [checked]"#, Role::Switch, TOGGLE_1)
                .asks("off", Ok(Requested::Toggle(false))),
            case(
                r#"check-box "Low Data Mode" [indeterminate]"#,
                Role::CheckBox,
                TOGGLE_2,
            ),
            case(
                r#"check-box "Limit IP address tracking""#,
                Role::CheckBox,
                WritePlan::Refuse(NoWay::Disabled),
            )
            .asks("on", Err(Refusal::Disabled)),
            case(
                r#"combo-box "Ask to join networks""#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            ),
            case(
                r#"combo-box "Ask to join hotspots""#,
                Role::ComboBox,
                WritePlan::OpenMenuAndPick,
            ),
            case(
                r#"menu-button "Network actions""#,
                Role::MenuButton,
                WritePlan::OpenMenuAndPick,
            ),
            case(r#"text "Network name" [required]"#, Role::Text, SET_VALUE)
                .asks("Lab", text("Lab")),
            case(r#"password-text "Password""#, Role::PasswordText, SET_VALUE),
            case(
                r#"text "IP address" [read-only]"#,
                Role::Text,
                WritePlan::Refuse(NoWay::ReadOnly),
            )
            .asks("10.0.0.2", Err(Refusal::ReadOnly)),
            case(
                r#"slider "Signal threshold""#,
                Role::Slider,
                WritePlan::SetRange,
            )
            .asks("70", Ok(Requested::Number(70.0))),
            case(
                r#"spin-button "Retry interval""#,
                Role::SpinButton,
                WritePlan::Step,
            ),
            case(r#"text "Retry interval""#, Role::Text, SET_VALUE),
            case(
                r#"expander "Known Networks" [collapsed]"#,
                Role::Expander,
                WritePlan::Expand { toggles: true },
            )
            .asks("true", Ok(Requested::Expand(true))),
            case(
                r#"tree-item "Bluetooth""#,
                Role::TreeItem,
                WritePlan::SelectItem,
            )
            .asks("true", Ok(Requested::Select(true))),
            case(
                r#"tree-item "Wi‑Fi" [selected]"#,
                Role::TreeItem,
                WritePlan::SelectItem,
            ),
            case(
                "table-row [!selected]",
                Role::TableRow,
                WritePlan::SelectItem,
            ),
            case(r#"tab "DNS""#, Role::Tab, WritePlan::SelectItem),
            case(
                r#"tab "TCP/IP" [selected]"#,
                Role::Tab,
                WritePlan::SelectItem,
            ),
            case(r#"button "Details…""#, Role::Button, WritePlan::Invoke),
            case(
                r#"dialog "Office" [modal]"#,
                Role::Dialog,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
            case(
                "separator",
                Role::Separator,
                WritePlan::Refuse(NoWay::NotEditable),
            ),
        ],
    );
    let mixed = node(&snap, r#"check-box "Low Data Mode""#);
    assert_eq!(
        mixed.value,
        Some(Value::Toggle {
            state: Toggle::Mixed
        })
    );
    assert_eq!(
        mixed.description,
        "Some networks in the list use Low Data Mode"
    );
    assert_eq!(observe(mixed, &Requested::Toggle(false)), Observed::Mixed);

    let hotspots = row(&snap, r#"combo-box "Ask to join hotspots""#);
    let opts = labels(&snap, &option_rows(&snap.nodes, hotspots));
    assert_eq!(opts, ["Never", "Ask to Join", "Automatic"]);
    assert_eq!(choose_option("automatic", &opts), Ok(2));
    let networks = node(&snap, r#"combo-box "Ask to join networks""#);
    let req = Requested::Option("notify".into());
    assert!(satisfies(&req, &observe(networks, &req), 0.0), "already");
    assert_eq!(
        node(&snap, r#"menu-button "Network actions""#).value,
        Some(Value::Choice {
            selected: Some("Actions".into())
        })
    );
    assert!(node(&snap, r#"password-text "Password""#).is_secret());
    assert_eq!(
        node(&snap, "table-row [selected]").actions,
        ["select"],
        "AXSelected settable gives a synthetic select action"
    );
    let ids: HashSet<&str> = snap.nodes.iter().map(|n| n.id.0.as_str()).collect();
    assert_eq!(ids.len(), snap.nodes.len());
    assert_eq!(snap.nodes[0].id.0, "ax:9301/w0");
}

/// Across every recorded node: a plan that refuses as disabled or read-only agrees with the
/// shared preconditions, and a request the preconditions accept has a method to carry it.
#[test]
fn plans_agree_with_shared_preconditions() {
    for (p, json) in [
        (Platform::Uia, NOTEPAD),
        (Platform::Uia, SETTINGS_DIALOG),
        (Platform::Ax, TEXTEDIT),
        (Platform::Ax, SYSTEM_SETTINGS),
    ] {
        let snap = load(p, json);
        for n in &snap.nodes {
            let raw = if n.role.is_numeric() {
                match n.value {
                    Some(Value::Number { current, .. }) => treeglass::model::format_number(current),
                    _ => "1".into(),
                }
            } else if n.role.is_toggle() || n.role.is_selectable_item() || n.role == Role::Expander
            {
                "true".into()
            } else {
                "x".into()
            };
            let verdict = plan_request(n, &raw, false);
            let plan = plan(p, n);
            match plan {
                WritePlan::Refuse(NoWay::Disabled) if n.is_editable_kind() => {
                    assert_eq!(verdict, Err(Refusal::Disabled), "{}", n.id)
                }
                WritePlan::Refuse(NoWay::ReadOnly) => {
                    assert_eq!(verdict, Err(Refusal::ReadOnly), "{}", n.id)
                }
                _ => {}
            }
            if verdict.is_ok() {
                assert!(
                    !matches!(
                        plan,
                        WritePlan::Refuse(NoWay::Disabled | NoWay::ReadOnly | NoWay::NotEditable)
                    ),
                    "{} {:?}: accepted but planned {plan:?}",
                    n.id,
                    n.role
                );
            }
        }
    }
}

/// A trace is what the IO modules read: writing one back and reading it again changes nothing.
#[test]
fn traces_round_trip() {
    for json in [NOTEPAD, SETTINGS_DIALOG, WINE10, PARTIAL] {
        let t = uia::trace::parse_trace(json).unwrap();
        let again = uia::trace::parse_trace(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(t.root, again.root);
        assert_eq!(t.client, again.client);
    }
    for json in [TEXTEDIT, SYSTEM_SETTINGS] {
        let t = ax::trace::parse_trace(json).unwrap();
        let again = ax::trace::parse_trace(&serde_json::to_string(&t).unwrap()).unwrap();
        assert_eq!(t.root, again.root);
    }
}

// --- A partial provider: refusals replayed through the walk a live read takes ---------------

const PARTIAL: &str = include_str!("../fixtures/uia/partial_provider.json");

/// What `treeglass tree` prints for a snapshot (stdout, and the reason on stderr when it is
/// not whole) and the exit code it ends with, from the functions the command calls.
fn tree_command(snap: &Snapshot) -> (String, Option<String>, i32) {
    use treeglass::app::output::{incomplete_why, tree_text};
    let why = (!snap.complete()).then(|| incomplete_why(snap));
    let code = if snap.complete() {
        0
    } else {
        treeglass::app::Kind::Incomplete.exit_code()
    };
    (tree_text(snap, false, None), why, code)
}

/// The snapshot's text without its first line (which carries the snapshot id and read time).
fn body(text: &str) -> String {
    text.lines().skip(1).collect::<Vec<_>>().join("\n")
}

#[test]
fn a_provider_that_refuses_cached_children_is_read_live_or_named() {
    let snap = load(Platform::Uia, PARTIAL);
    let (text, why, code) = tree_command(&snap);
    // The client answered "Filters"' cached children with an error (GetCachedChildren reads
    // the client's own cache), and they were then found live; "Order list" was refused both
    // ways: it stays, named with both calls, HRESULTs and who refused, and its items are not
    // invented. FindAll is asked of the app: the desktop answers it, so the app refused.
    assert_eq!(
        body(&text),
        [
            "    0  window \"Orders\"",
            "    1    panel \"Filters\"",
            "    2      text \"Customer\" = \"ACME\"",
            "    3      check-box \"Open only\" = off",
            "    4    list \"Order list\" ⚠ refused: children \
             (IUIAutomationElement::GetCachedChildren failed: 0x80004005 (E_FAIL): failed \
             without saying why (refused by the UI Automation client itself; no app was \
             asked); IUIAutomationElement::FindAllBuildCache(TreeScope_Children) failed: \
             0x80004001 (E_NOTIMPL): not implemented (refused by the app's UI Automation \
             provider))",
            "    5    button \"Refresh\"",
        ]
        .join("\n"),
        "{text}"
    );
    assert!(text.lines().next().unwrap().contains("6 nodes"), "{text}");
    assert_eq!(code, 12);
    assert_eq!(
        why.as_deref(),
        Some(
            "the tree is incomplete: 1 element read only in part — list \"Order list\": \
             refused: children (IUIAutomationElement::GetCachedChildren failed: 0x80004005 \
             (E_FAIL): failed without saying why (refused by the UI Automation client itself; \
             no app was asked); IUIAutomationElement::FindAllBuildCache(TreeScope_Children) \
             failed: 0x80004001 (E_NOTIMPL): not implemented (refused by the app's UI \
             Automation provider))"
        )
    );
    // In JSON too, on the node.
    let list = node(&snap, "list \"Order list\"");
    assert_eq!(list.refused.len(), 1);
    assert!(list.children.is_empty());
}

#[test]
fn a_rejected_cache_request_is_read_again_with_the_core_properties() {
    let mut trace = uia::trace::parse_trace(PARTIAL).unwrap();
    trace
        .root
        .faults
        .insert("BuildUpdatedCache".into(), "E_FAIL".into());
    let snap = uia::trace::replay(&trace, &treeglass::backend::Limits::default()).unwrap();
    let (text, why, code) = tree_command(&snap);
    // Names and roles stay (core properties); the edit's value and the check box's state are
    // not claimed; every element says what it lacks.
    let customer = node(&snap, "text \"Customer\"");
    assert_eq!(customer.value, None);
    assert_eq!(
        customer.refused,
        [
            "cached properties other than RuntimeId, ControlType, Name, ProcessId, IsEnabled, \
             BoundingRectangle (IUIAutomationElement::BuildUpdatedCache(TreeScope_Subtree) \
             failed: 0x80004005 (E_FAIL): failed without saying why (refused by the UI \
             Automation client or by the app's provider; the HRESULT does not say which))"
        ]
    );
    assert!(snap.nodes.iter().all(|n| !n.refused.is_empty()), "{text}");
    assert_eq!(code, 12);
    assert!(
        why.unwrap()
            .starts_with("the tree is incomplete: 6 elements read only in part — "),
        "{text}"
    );
}

#[test]
fn a_root_that_is_gone_fails_the_read_with_its_hresult() {
    let mut trace = uia::trace::parse_trace(PARTIAL).unwrap();
    trace.root.faults.insert(
        "BuildUpdatedCache".into(),
        "UIA_E_ELEMENTNOTAVAILABLE".into(),
    );
    let e = uia::trace::replay(&trace, &treeglass::backend::Limits::default()).unwrap_err();
    let e = treeglass::app::Error::from(e);
    assert_eq!(
        e.message,
        "element vanished: IUIAutomationElement::BuildUpdatedCache(TreeScope_Subtree) failed: \
         0x80040201 (UIA_E_ELEMENTNOTAVAILABLE): the element is no longer available (on the \
         app's side)"
    );
    assert_eq!(e.kind.exit_code(), 3);
}

#[test]
fn faults_must_name_known_calls_and_hresults() {
    let bad_call = PARTIAL.replacen("\"FindAll\"", "\"FindEverything\"", 1);
    let e = uia::trace::parse_trace(&bad_call).unwrap_err().to_string();
    assert!(e.contains("unknown call `FindEverything`"), "{e}");
    let bad_code = PARTIAL.replacen("\"E_NOTIMPL\"", "\"E_SOMETIMES\"", 1);
    let e = uia::trace::parse_trace(&bad_code).unwrap_err().to_string();
    assert!(
        e.contains("`E_SOMETIMES` for GetCachedChildren is not an HRESULT"),
        "{e}"
    );
}

/// A pattern the provider lists but answers E_NOTIMPL to is unsupported, which the engine
/// treats as nothing sent: the planner has the next way ready (ValuePattern → typing; Toggle →
/// Invoke), and only then refuses.
#[test]
fn e_notimpl_on_a_pattern_leaves_the_next_way() {
    let snap = load(Platform::Uia, PARTIAL);
    // The desktop lacks ValuePattern (a null answer): the client implements the call, the app
    // refused it.
    let refused = uia::calls::Refusal::new(
        &uia::calls::pattern("Value"),
        uia::read::Fault::new(uia::map::E_NOTIMPL),
        || Some(Err(0)),
    )
    .error();
    assert!(
        matches!(refused, treeglass::backend::BackendError::Unsupported(_)),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        "not supported: IUIAutomationElement::GetCurrentPattern(ValuePattern) failed: \
         0x80004001 (E_NOTIMPL): not implemented (refused by the app's UI Automation provider)"
    );
    let methods = |target: &str, req: Requested| -> Vec<String> {
        let w: treeglass::model::AppText = "Orders".into();
        let input = treeglass::backend::strategy::InputPaths::none("none");
        let ctx = treeglass::backend::strategy::Context {
            planner: &uia::map::PLANNER,
            input: &input,
            node: node(&snap, target),
            toolkit: None,
            in_web_content: false,
            window: &w,
            options: &[],
            chosen: None,
            current: None,
            option_list_selection: false,
            parent_selection: None,
        };
        treeglass::backend::strategy::Planner::plan(&uia::map::PLANNER, &ctx, &req)
            .unwrap()
            .iter()
            .map(|p| p.method.as_str().to_string())
            .collect()
    };
    assert_eq!(
        methods("text \"Customer\"", Requested::Text("Globex".into())),
        [
            "ValuePattern.SetValue",
            "SetFocus, TextPattern select all, SendInput"
        ]
    );
    assert_eq!(
        methods("check-box \"Open only\"", Requested::Toggle(true)),
        ["TogglePattern.Toggle", "InvokePattern.Invoke"]
    );
}

// --- Wine 10's partial client: what it refuses, replayed through the read's own walk ---------

/// Notepad's window read through the client Wine 10 has (`tests/fixtures/uia/wine10_notepad.json`,
/// its refusals as `scripts/wine-demo` meets them): it refuses `put_TreeScope` beyond
/// `TreeScope_Element`, `GetCachedChildren`, every `GetCurrentPattern` and `GetRuntimeId`, and
/// its `FindAll` finds nothing. The trace's children are what the window holds.
const WINE10: &str = include_str!("../fixtures/uia/wine10_notepad.json");

const SCOPE_REFUSED: &str = "IUIAutomationCacheRequest::put_TreeScope(TreeScope_Subtree) failed: \
                             0x80004001 (E_NOTIMPL): not implemented (refused by the UI \
                             Automation client itself; no app was asked)";

/// The window is read alone: its id is the one Windows gives a window (42 and its handle, as
/// `GetRuntimeId` is refused), its children are neither invented nor taken for none, and what
/// is missing is named with the call, its HRESULT and who refused it — the client, not the app.
#[test]
fn wine10_reads_the_window_alone_and_names_its_children_missing() {
    let snap = load(Platform::Uia, WINE10);
    let (text, why, code) = tree_command(&snap);
    let children = format!(
        "children ({SCOPE_REFUSED}; IUIAutomationElement::FindAllBuildCache(TreeScope_Children) \
         answered no element, as it does on the desktop, where EnumWindows finds 2 top-level \
         windows: this client's FindAll finds nothing)"
    );
    assert_eq!(
        body(&text),
        format!("    0  window \"Untitled - Notepad\" ⚠ refused: {children}"),
        "{text}"
    );
    assert_eq!(snap.nodes.len(), 1);
    assert_eq!(snap.nodes[0].id.0, "uia:42.196726");
    assert_eq!(snap.nodes[0].refused, std::slice::from_ref(&children));
    assert_eq!(code, 12);
    assert_eq!(
        why.as_deref(),
        Some(
            format!(
                "the tree is incomplete: 1 element read only in part — window \"Untitled - \
                 Notepad\": refused: {children}"
            )
            .as_str()
        )
    );
    for said in [&text, why.as_deref().unwrap_or("")] {
        assert!(!said.contains("provider does not implement"), "{said}");
        assert!(!said.contains(" bus"), "{said}");
    }
}

/// Without the evidence that its FindAll finds nothing (no top-level window listed), an empty
/// answer is taken as no children: the rule reads the evidence, not the client's name.
#[test]
fn an_empty_findall_is_believed_only_without_evidence_against_it() {
    use treeglass::backend::uia::read::Client;
    assert_eq!(Client::find_all_is_blind(0, 3), Some(3));
    assert_eq!(Client::find_all_is_blind(2, 3), None);
    assert_eq!(Client::find_all_is_blind(0, 0), None);
    let mut trace = uia::trace::parse_trace(WINE10).unwrap();
    if let Some(client) = trace.client.as_mut() {
        client.top_level_windows = 0;
    }
    let snap = uia::trace::replay(&trace, &treeglass::backend::Limits::default()).unwrap();
    assert_eq!(snap.nodes.len(), 1);
    assert!(snap.complete(), "{:?}", snap.nodes[0].refused);
}

/// A client that refuses `GetCachedChildren` alone: the children are found live, and the tree
/// is whole. One that refuses `GetRuntimeId` too: elements without a window handle get an id
/// for one read, and say so, naming the client.
#[test]
fn cached_children_refused_by_the_client_are_found_live_and_ids_are_said_made_up() {
    let mut trace = uia::trace::parse_trace(WINE10).unwrap();
    let client = trace.client.as_mut().unwrap();
    client.refuses.remove("put_TreeScope(TreeScope_Subtree)");
    client.refuses.remove("GetRuntimeId");
    client.find_all_finds_nothing = false;
    let snap = uia::trace::replay(&trace, &treeglass::backend::Limits::default()).unwrap();
    assert!(snap.complete(), "{:?}", snap.nodes);
    assert_eq!(snap.nodes.len(), 5);
    node(&snap, "menu-item \"Edit\"");

    let client = trace.client.as_mut().unwrap();
    client
        .refuses
        .insert("GetRuntimeId".into(), "E_NOTIMPL".into());
    let snap = uia::trace::replay(&trace, &treeglass::backend::Limits::default()).unwrap();
    assert_eq!(snap.nodes[0].id.0, "uia:42.196726");
    assert!(
        snap.nodes[0].refused.is_empty(),
        "{:?}",
        snap.nodes[0].refused
    );
    let edit = node(&snap, "text \"Text Editor\"");
    assert_eq!(
        edit.refused,
        [
            "its runtime id (IUIAutomationElement::GetRuntimeId failed: 0x80004001 (E_NOTIMPL): \
          not implemented (refused by the UI Automation client itself, not by the app: it \
          refuses the same call on the desktop, which no app provides)): its id holds for \
          this read only"
        ]
    );
    let made_up = snap.nodes.iter().filter(|n| !n.refused.is_empty()).count();
    assert_eq!(made_up, 4);
    assert!(!snap.complete());
}

/// Every pattern refused by the client: a write is unsupported (nothing sent, the planner's
/// next way is tried), naming `GetCurrentPattern` and the client; with a whole client the same
/// HRESULT is the app's.
#[test]
fn wine10_refuses_patterns_as_the_client_not_the_app() {
    let trace = uia::trace::parse_trace(WINE10).unwrap();
    let client = trace.client.clone().unwrap();
    let refused = client.write_refusal("Value").unwrap().error();
    assert!(
        matches!(refused, treeglass::backend::BackendError::Unsupported(_)),
        "{refused:?}"
    );
    assert_eq!(
        refused.to_string(),
        "not supported: IUIAutomationElement::GetCurrentPattern(ValuePattern) failed: \
         0x80004001 (E_NOTIMPL): not implemented (refused by the UI Automation client itself, \
         not by the app: it refuses the same call on the desktop, which no app provides)"
    );
    let whole = uia::trace::UiaClient::default();
    assert!(whole.write_refusal("Value").is_none());
}

/// Trace clients name only calls the replay knows, with HRESULTs.
#[test]
fn trace_clients_name_known_calls_and_hresults() {
    let bad = WINE10.replacen("\"GetRuntimeId\"", "\"GetEverything\"", 1);
    let e = uia::trace::parse_trace(&bad).unwrap_err().to_string();
    assert!(
        e.contains("unknown call `GetEverything` in client.refuses"),
        "{e}"
    );
    let bad = WINE10.replacen("\"E_NOTIMPL\"", "\"E_SOMETIMES\"", 1);
    let e = uia::trace::parse_trace(&bad).unwrap_err().to_string();
    assert!(e.contains("`E_SOMETIMES` for put_TreeScope"), "{e}");
}

/// AX failures as the command line reports them: the call, the AXError by name, who refused,
/// and the exit code its meaning calls for.
#[test]
fn ax_failures_name_the_call_the_axerror_and_who_with_their_exit_code() {
    use treeglass::backend::ax::{calls, map};
    let children = calls::copy_attribute("AXChildren");
    for (code, exit, said) in [
        (
            map::AX_ERROR_API_DISABLED,
            4,
            "AXUIElementCopyAttributeValue(kAXChildren) failed: -25211 (kAXErrorAPIDisabled): \
             this process is not allowed to use accessibility (refused by the system, not by \
             the app)",
        ),
        (
            map::AX_ERROR_INVALID_UI_ELEMENT,
            3,
            "AXUIElementCopyAttributeValue(kAXChildren) failed: -25202 \
             (kAXErrorInvalidUIElement): the element is no longer there (on the app's side)",
        ),
        (
            map::AX_ERROR_FAILURE,
            1,
            "AXUIElementCopyAttributeValue(kAXChildren) failed: -25200 (kAXErrorFailure): a \
             system error (refused by the system or by the app; the AXError does not say which)",
        ),
    ] {
        let e = treeglass::app::Error::from(calls::error(&children, code));
        assert!(e.message.contains(said), "{}", e.message);
        assert_eq!(e.kind.exit_code(), exit, "{}", e.message);
    }
}
