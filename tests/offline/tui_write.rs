//! TUI: set value and invoke with their read-back timelines — verified ("Full name"),
//! mismatch ("Shout" upper-cases after ~50 ms), refused ("Locked field" is disabled), password
//! fields that never show their text, numbers, toggles, the option picker, the copy menu and
//! the recorder hook (exported through the workflow recorder and validated).
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crossterm::event::KeyCode;
use insta::assert_snapshot;
use treeglass::backend::Backend;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::model::Value;
use treeglass::tui::Recorder;
use treeglass::tui::app::{PromptKind, WriteKind};
use treeglass::tui::harness::Harness;
use treeglass::write::{MismatchKind, Outcome};

async fn start() -> (FixtureBackend, Harness) {
    let b = FixtureBackend::demo();
    let h = Harness::start(Arc::new(b.clone()), 140, 40, None)
        .await
        .unwrap();
    (b, h)
}

/// Selects `target`, opens the prompt, replaces its text with `value` and presses Enter.
fn write_text(h: &mut Harness, target: &str, value: &str) {
    h.select(target);
    h.key(KeyCode::Char('e'));
    assert!(h.app.prompt().is_some(), "no prompt for {target}");
    h.ctrl('u');
    h.type_str(value);
    h.key(KeyCode::Enter);
}

async fn text_of(b: &FixtureBackend, name: &str) -> String {
    let id = b.find_by_name(name).unwrap();
    match b.read_node(&id).await.unwrap().value {
        Some(Value::Text { text }) => text.as_str().to_string(),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn verified_write() {
    let (b, mut h) = start().await;
    h.select("text \"Full name\"");
    h.key(KeyCode::Enter);
    // The prompt is pre-filled with the current value.
    match &h.app.prompt().unwrap().kind {
        PromptKind::Text { input, secret } => {
            assert_eq!(input.text, "Ada Lovelace");
            assert!(!secret);
        }
        other => panic!("{other:?}"),
    }
    assert_snapshot!("prompt_text", h.render());
    h.ctrl('u');
    h.type_str("Grace Hopper");
    h.key(KeyCode::Enter);
    assert_eq!(h.verdict().await.unwrap(), Outcome::Verified);
    h.settle().await.unwrap();
    assert_eq!(text_of(&b, "Full name").await, "Grace Hopper");
    // The tree shows the new value (re-read after the write's events).
    let screen = h.render();
    assert!(
        screen.contains("text \"Full name\" = \"Grace Hopper\""),
        "{screen}"
    );
    assert_snapshot!("write_verified", screen);
    // The recorder hook saw it with its target and value.
    let w = h.completed.last().unwrap();
    assert_eq!(w.target, "text \"Full name\"");
    assert_eq!(w.value.as_deref(), Some("Grace Hopper"));
    assert_eq!(w.kind, WriteKind::Set);
    assert_eq!(w.result.outcome, Outcome::Verified);
}

#[tokio::test]
async fn mismatch_when_the_app_transforms_the_value() {
    let (b, mut h) = start().await;
    write_text(&mut h, "text \"Shout\"", "hello");
    assert_eq!(h.verdict().await.unwrap(), Outcome::Mismatch);
    let r = h.app.writes.entries.last().unwrap().result.clone().unwrap();
    assert_eq!(r.mismatch, Some(MismatchKind::Transformed));
    assert_eq!(r.observed.as_deref(), Some("\"HELLO\""));
    h.settle().await.unwrap();
    assert_eq!(text_of(&b, "Shout").await, "HELLO");
    let screen = h.render();
    assert!(screen.contains("MISMATCH (TRANSFORMED)"), "{screen}");
    assert!(
        screen.contains("retrying the same write will not help"),
        "{screen}"
    );
    assert_snapshot!("write_mismatch", screen);
}

#[tokio::test]
async fn refused_write_to_a_disabled_field() {
    let (b, mut h) = start().await;
    h.select("text \"Locked field\"");
    h.key(KeyCode::Char('e'));
    let screen = h.render();
    assert!(
        screen.contains("this element is disabled: the write will be refused"),
        "{screen}"
    );
    h.ctrl('u');
    h.type_str("open sesame");
    h.key(KeyCode::Enter);
    assert_eq!(h.verdict().await.unwrap(), Outcome::Refused);
    let r = h.app.writes.entries.last().unwrap().result.clone().unwrap();
    assert!(!r.dispatched);
    h.settle().await.unwrap();
    assert_eq!(text_of(&b, "Locked field").await, "locked");
    let screen = h.render();
    assert!(screen.contains("nothing was sent"), "{screen}");
    assert_snapshot!("write_refused", screen);
}

#[tokio::test]
async fn password_text_is_never_shown() {
    let (b, mut h) = start().await;
    h.select("password-text");
    h.key(KeyCode::Char('e'));
    match &h.app.prompt().unwrap().kind {
        PromptKind::Text { input, secret } => {
            assert!(secret);
            assert_eq!(
                input.text, "",
                "a secret's current text is never pre-filled"
            );
        }
        other => panic!("{other:?}"),
    }
    h.type_str("s3cret!");
    let screen = h.render();
    assert!(screen.contains("password: •••••••"), "{screen}");
    assert!(!screen.contains("s3cret"));
    h.key(KeyCode::Enter);
    assert_eq!(h.verdict().await.unwrap(), Outcome::Secure);
    h.settle().await.unwrap();
    let id = b.find_by_name("Password").unwrap();
    assert_eq!(b.secret_of(&id).as_deref(), Some("s3cret!"));
    let screen = h.render();
    assert!(!screen.contains("s3cret"), "{screen}");
    assert!(screen.contains("(secret, 7 chars)"), "{screen}");
    // History keeps no copy of it; the copy menu refuses the value; the step uses an input.
    assert!(!format!("{:?}", h.app.writes).contains("s3cret"));
    h.key(KeyCode::Char('y'));
    h.key(KeyCode::Char('v'));
    assert!(h.copied.is_empty());
    assert!(h.app.notice.as_deref().unwrap().contains("never copied"));
    h.key(KeyCode::Char('y'));
    h.key(KeyCode::Char('s'));
    let step: serde_json::Value = serde_json::from_str(h.copied.last().unwrap()).unwrap();
    assert_eq!(step["text"], "${inputs.password}");
}

#[tokio::test]
async fn number_toggle_and_option_picker() {
    let (b, mut h) = start().await;
    h.select("spin-button \"Quantity\"");
    h.key(KeyCode::Char('e'));
    assert!(h.render().contains("number 0–100 (step 1): 5"));
    h.ctrl('u');
    h.type_str("42");
    h.key(KeyCode::Enter);
    assert_eq!(h.verdict().await.unwrap(), Outcome::Verified);

    h.select("check-box \"Subscribe\"");
    h.key(KeyCode::Char('e'));
    assert!(matches!(
        h.app.prompt().unwrap().kind,
        PromptKind::Toggle { on: false }
    ));
    h.key(KeyCode::Char(' '));
    h.key(KeyCode::Enter);
    assert_eq!(h.verdict().await.unwrap(), Outcome::Verified);

    h.select("combo-box");
    h.key(KeyCode::Char('e'));
    let screen = h.render();
    for o in ["Red", "Green", "Blue", "Dark Red"] {
        assert!(screen.contains(&format!(" {o}")), "{screen}");
    }
    assert_snapshot!("prompt_options", screen);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    assert_eq!(h.verdict().await.unwrap(), Outcome::Verified);
    h.settle().await.unwrap();
    let combo = b.find_by_name("Green");
    assert!(combo.is_some());
    assert!(h.has_node("Green"));
    assert_eq!(h.app.writes.entries.len(), 3);
}

#[tokio::test]
async fn invoke_runs_the_default_action_and_the_tree_follows() {
    let (_b, mut h) = start().await;
    h.select("button \"Press me\"");
    h.key(KeyCode::Char('i'));
    assert_eq!(h.verdict().await.unwrap(), Outcome::Verified);
    h.until(
        "the counter label",
        std::time::Duration::from_secs(5),
        |a| {
            a.view
                .tree
                .as_ref()
                .is_some_and(|t| t.snap.nodes.iter().any(|n| n.name == "Presses: 1"))
        },
    )
    .await
    .unwrap();
    // The action menu lists the node's actions.
    h.key(KeyCode::Char('a'));
    assert_eq!(h.app.action_menu().unwrap().actions, vec!["click"]);
    h.key(KeyCode::Enter);
    assert_eq!(h.app.writes.entries.len(), 2);
    h.verdict().await.unwrap();
}

#[tokio::test]
async fn copy_menu() {
    let (_b, mut h) = start().await;
    h.select("text \"Full name\"");
    h.settle().await.unwrap();
    h.key(KeyCode::Char('y'));
    assert_snapshot!("copy_menu", h.render());
    h.key(KeyCode::Char('g'));
    for k in ['t', 'v', 'j', 's'] {
        h.key(KeyCode::Char('y'));
        h.key(KeyCode::Char(k));
    }
    let c = &h.copied;
    assert_eq!(c[0], "text \"Full name\"");
    assert!(treeglass::model::Token::looks_like(&c[1]), "{}", c[1]);
    assert_eq!(c[2], "Ada Lovelace");
    let node: serde_json::Value = serde_json::from_str(&c[3]).unwrap();
    assert_eq!(node["name"], "Full name");
    assert_eq!(node["target"], "text \"Full name\"");
    // The workflow step is the recorder's mapping, expectation included.
    let step: serde_json::Value = serde_json::from_str(&c[4]).unwrap();
    assert_eq!(
        step,
        serde_json::json!({"id": "type-full-name", "action": "type",
            "target": "text \"Full name\"", "text": "Ada Lovelace", "transaction": "idempotent",
            "timeoutMs": 10000, "expect": {"textContains": "Ada Lovelace"}})
    );
    // A toggle's step checks the state it is in, and says so in `expect`.
    h.select("check-box \"Subscribe\"");
    h.settle().await.unwrap();
    h.key(KeyCode::Char('y'));
    h.key(KeyCode::Char('s'));
    let step: serde_json::Value = serde_json::from_str(h.copied.last().unwrap()).unwrap();
    assert_eq!(step["action"], "uncheck");
    assert_eq!(
        step["expect"]["visible"],
        "check-box \"Subscribe\" [!checked]"
    );
}

#[tokio::test]
async fn recorded_writes_export_a_valid_workflow() {
    let (_b, mut h) = start().await;
    h.key(KeyCode::Char('r'));
    assert!(h.app.recording);
    assert!(h.render().contains("● REC"));
    write_text(&mut h, "text \"Full name\"", "Grace Hopper");
    h.verdict().await.unwrap();
    write_text(&mut h, "password-text", "hunter3");
    h.verdict().await.unwrap();
    h.select("button \"Save\"");
    h.key(KeyCode::Char('i'));
    h.verdict().await.unwrap();
    assert_eq!(h.completed.len(), 3);
    assert!(h.completed.iter().all(|w| w.snapshot.is_some()));

    let dir = std::env::temp_dir().join(format!("treeglass-tui-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rec = treeglass::tui::WorkflowRecorder::new(&dir);
    rec.start(
        &"treeglass-demo".into(),
        &"Settings — treeglass demo".into(),
    )
    .unwrap();
    for w in &h.completed {
        rec.record(w);
    }
    assert_eq!(rec.steps(), 3);
    let msg = rec.export().unwrap();
    let path = msg.rsplit(" to ").next().unwrap().to_string();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("hunter3"), "{text}");
    let v = treeglass::workflow::validate_path(std::path::Path::new(&path)).unwrap();
    assert!(v.errors.is_empty(), "{:?}\n{text}", v.errors);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let steps = doc["steps"].as_array().unwrap();
    assert_eq!(steps[0]["action"], "type");
    assert_eq!(steps[0]["text"], "Grace Hopper");
    assert_eq!(steps[2]["action"], "click");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn unconfirmed_is_terminal() {
    use treeglass::tui::Msg;
    use treeglass::write::WriteResult;
    let (_b, mut h) = start().await;
    h.select("text \"Slow field\"");
    h.key(KeyCode::Char('e'));
    h.ctrl('u');
    h.type_str("later");
    // Start the write but answer it ourselves: the toolkit said yes, nothing showed up.
    let fx = h.app.update(Msg::Key(crossterm::event::KeyEvent::new(
        KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    )));
    assert!(
        fx.iter()
            .any(|e| matches!(e, treeglass::tui::Effect::SetValue { .. }))
    );
    let mut r = WriteResult::refused_unresolved("text \"Slow field\"", "", "\"later\"");
    r.outcome = Outcome::Unconfirmed;
    r.dispatched = true;
    r.reason = "the value did not change within 1500 ms and the toolkit reported success".into();
    r.advice = Outcome::Unconfirmed.advice().into();
    r.node = h.app.selected_node().unwrap().1.id.clone();
    h.send(Msg::WriteDone {
        write: h.app.writes.entries.last().unwrap().id,
        result: Box::new(r),
    });
    h.settle().await.unwrap();
    let screen = h.render();
    assert!(screen.contains("UNCONFIRMED"), "{screen}");
    assert!(
        screen.contains("TERMINAL   observe before writing again"),
        "{screen}"
    );
    assert!(screen.contains("⚠ unconfirmed write"), "{screen}");
    // Writing there again warns first.
    h.key(KeyCode::Char('e'));
    assert!(
        h.app
            .prompt()
            .unwrap()
            .warning
            .as_deref()
            .unwrap()
            .contains("UNCONFIRMED")
    );
}
