//! The recorder over the fixture backend: the mapping table, ids, targets and candidate counts,
//! secrets turned into sensitive inputs, flags, recording files, observed changes, and export
//! validated against the schema.
#![allow(clippy::unwrap_used)]

use crate::workflow_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use treeglass::backend::Backend;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::model::{Toggle, Value as NodeValue};
use treeglass::selector::Target;
use treeglass::session::Session;
use treeglass::workflow::record::RECORDING_VERSION;
use treeglass::workflow::schema;
use treeglass::workflow::{
    Action, ExportError, ExportOptions, Predicate, RecordError, Recorder, Transaction, Watch,
    WatchOptions,
};
use workflow_support::*;

const SECRET: &str = "hunter2-but-longer";

async fn demo() -> (FixtureBackend, Arc<Session>, treeglass::app::run::Place) {
    let fixture = FixtureBackend::demo();
    let backend: Arc<dyn Backend> = Arc::new(fixture.clone());
    let place = place(backend.as_ref(), "treeglass-demo").await;
    (fixture, Arc::new(Session::new(backend)), place)
}

#[tokio::test]
async fn every_kind_of_write_maps_to_its_step() {
    let (_f, session, place) = demo().await;
    let root = &place.root;
    let mut rec = Recorder::new("demo form");
    for (target, value) in [
        ("text \"Full name\"", "Grace Hopper"),
        ("password-text \"Password\"", SECRET),
        ("spin-button \"Quantity\"", "42"),
        ("slider \"Volume\"", "60.0"),
        ("check-box \"Subscribe\"", "on"),
        ("switch \"Dark mode\"", "true"),
        ("toggle-button \"Bold\"", "1"),
        ("combo-box", "Blue"),
        ("tab \"Advanced\"", "true"),
        ("list-item \"Banana\"", "true"),
        ("text \"Proxy host\"", ""),
        ("text \"Shout\"", "quiet please"),
        ("text \"Account ID\"", "ACC-9"),
    ] {
        write_and_record(&session, root, target, value, &mut rec).await;
    }
    invoke_and_record(&session, root, "button \"Press me\"", &mut rec).await;
    rec.record_wait(
        &Target::parse("label \"Presses: 1\"").unwrap(),
        Duration::from_secs(3),
    );
    rec.record_observe();

    let got: Vec<(&str, Action, Transaction)> = rec
        .steps()
        .iter()
        .map(|s| (s.step.id.as_str(), s.step.action, s.step.transaction))
        .collect();
    use Action::*;
    use Transaction::*;
    assert_eq!(
        got,
        [
            ("type-full-name", Type, Idempotent),
            ("type-password", Type, Idempotent),
            ("type-quantity", Type, Idempotent),
            ("type-volume", Type, Idempotent),
            ("check-subscribe", Check, Idempotent),
            ("check-dark-mode", Check, Idempotent),
            ("check-bold", Check, Idempotent),
            ("select-colour", Select, Idempotent),
            ("select-advanced", Select, Idempotent),
            ("select-banana", Select, Idempotent),
            ("clear-proxy-host", Clear, Idempotent),
            ("type-shout", Type, Idempotent),
            ("type-account-id", Type, Idempotent),
            ("click-press-me", Click, NonIdempotent),
            ("wait-presses-1", Wait, ReadOnly),
            ("observe", Observe, ReadOnly),
        ]
    );
    let s = |id: &str| rec.steps().iter().find(|s| s.step.id == id).unwrap();
    // Shortest unique targets, unique when recorded.
    assert_eq!(
        s("type-full-name").step.target.as_deref(),
        Some("text \"Full name\"")
    );
    assert_eq!(s("type-full-name").candidates, Some(1));
    assert_eq!(s("type-volume").step.text.as_deref(), Some("60"));
    assert_eq!(s("select-colour").step.value.as_deref(), Some("Blue"));
    // The demo combo is named after its option; the target uses its description instead.
    assert_eq!(
        s("select-colour").step.target.as_deref(),
        Some("combo-box \"Colour\"")
    );
    assert!(!s("select-colour").flagged);
    assert_eq!(s("select-advanced").step.value, None);
    // Expectations the effect satisfies.
    assert_eq!(
        s("type-full-name").step.expect,
        Some(Predicate::TextContains("Grace Hopper".into()))
    );
    assert_eq!(
        s("check-subscribe").step.expect,
        Some(Predicate::Visible(
            "check-box \"Subscribe\" [checked]".into()
        ))
    );
    assert_eq!(
        s("select-advanced").step.expect,
        Some(Predicate::Visible("tab \"Advanced\" [selected]".into()))
    );
    assert_eq!(s("click-press-me").step.expect, None);
    assert_eq!(
        s("wait-presses-1").step.condition.as_deref(),
        Some("visible")
    );
    assert_eq!(s("wait-presses-1").step.timeout_ms, Some(3000));
    // The secret became a sensitive input.
    assert_eq!(
        s("type-password").step.text.as_deref(),
        Some("${inputs.password}")
    );
    assert!(rec.inputs()["password"].is_sensitive());
    // Only the steps whose verdict was not verified/already/secure are flagged.
    let flagged: Vec<&str> = rec
        .flagged()
        .into_iter()
        .map(|i| rec.steps()[i].step.id.as_str())
        .collect();
    assert_eq!(flagged, ["type-shout", "type-account-id"]);
    assert_eq!(s("type-shout").verdict.as_deref(), Some("mismatch"));
    assert_eq!(s("type-shout").mismatch.as_deref(), Some("transformed"));
    assert_eq!(s("type-account-id").verdict.as_deref(), Some("refused"));
    assert_eq!(s("type-password").verdict.as_deref(), Some("secure"));

    // The export is schema-valid and never holds the secret.
    let v = rec.export(&ExportOptions::default()).unwrap();
    assert!(schema::check(&v).is_empty());
    let text = serde_json::to_string(&v).unwrap();
    assert!(!text.contains(SECRET));
    assert_eq!(v["inputs"]["password"]["sensitive"], true);
    assert_eq!(v["budgets"]["maxSteps"], 16);
    assert_eq!(v["outputs"]["title"]["source"], "page_title");
    assert_eq!(
        v["terminalCondition"]["titleContains"],
        "Settings — treeglass demo"
    );
    // The recording file never holds it either.
    let saved = serde_json::to_string(&rec.to_recording()).unwrap();
    assert!(!saved.contains(SECRET));
    // Skipping flagged steps leaves them out.
    let v = rec
        .export(&ExportOptions {
            skip_flagged: true,
            ..ExportOptions::default()
        })
        .unwrap();
    let ids: Vec<&str> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert!(!ids.contains(&"type-shout") && ids.len() == 14, "{ids:?}");
}

#[tokio::test]
async fn ids_stay_unique_and_drops_prune_inputs() {
    let (_f, session, place) = demo().await;
    let mut rec = Recorder::new("ids");
    for v in ["a", "b", "c"] {
        write_and_record(&session, &place.root, "text \"Full name\"", v, &mut rec).await;
    }
    write_and_record(
        &session,
        &place.root,
        "password-text \"Password\"",
        "x1",
        &mut rec,
    )
    .await;
    write_and_record(
        &session,
        &place.root,
        "password-text \"Password\"",
        "x2",
        &mut rec,
    )
    .await;
    let ids: Vec<&str> = rec.steps().iter().map(|s| s.step.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "type-full-name",
            "type-full-name-2",
            "type-full-name-3",
            "type-password",
            "type-password-2"
        ]
    );
    // Each secret write gets its own input.
    assert_eq!(
        rec.inputs().keys().collect::<Vec<_>>(),
        ["password", "password_2"]
    );
    rec.drop_step(4).unwrap();
    assert_eq!(rec.inputs().keys().collect::<Vec<_>>(), ["password"]);
    // A literal can be turned into an input afterwards.
    rec.mark_sensitive(0).unwrap();
    assert_eq!(
        rec.steps()[0].step.text.as_deref(),
        Some("${inputs.full_name}")
    );
    assert!(rec.inputs()["full_name"].is_sensitive());
    let v = rec.export(&ExportOptions::default()).unwrap();
    assert!(!serde_json::to_string(&v).unwrap().contains("\"a\""));
    // A new id after a drop does not reuse a taken one.
    write_and_record(&session, &place.root, "text \"Full name\"", "d", &mut rec).await;
    assert_eq!(rec.steps().last().unwrap().step.id, "type-full-name-4");
}

#[tokio::test]
async fn identical_twins_get_a_positional_target_and_a_warning() {
    let json = r#"{"apps": [{"name": "twins", "windows": [{"role": "frame", "name": "Twins",
        "children": [
          {"role": "panel", "children": [{"role": "button", "actions": ["click"]}]},
          {"role": "panel", "children": [{"role": "button", "actions": ["click"]}]},
          {"role": "check-box", "name": "same", "actions": ["click"],
           "value": {"kind": "toggle", "state": "off"}},
          {"role": "check-box", "name": "same", "actions": ["click"],
           "value": {"kind": "toggle", "state": "off"}}
        ]}]}]}"#;
    let fixture = FixtureBackend::from_json(json).unwrap();
    let backend: Arc<dyn Backend> = Arc::new(fixture);
    let place = place(backend.as_ref(), "twins").await;
    let session = Session::new(backend);
    let snap = session
        .snapshot(&place.root, &Default::default())
        .await
        .unwrap();
    let row = snap
        .nodes
        .iter()
        .rposition(|n| n.role == treeglass::model::Role::Button)
        .unwrap();
    let r = treeglass::write::invoke(
        session.backend.as_ref(),
        &snap.nodes[row].id,
        &treeglass::write::Placement::of(&snap, row),
        None,
        &Default::default(),
    )
    .await;
    let mut rec = Recorder::new("twins");
    let i = rec.record_invoke(&snap, row, &r, Some("click")).unwrap();
    let step = &rec.steps()[i];
    assert_eq!(step.step.target.as_deref(), Some("button #2"));
    assert_eq!(step.candidates, Some(1));
    // (A press that changes nothing is flagged as unconfirmed; the target is not.)
    assert!(
        !step.flags.iter().any(|f| f.contains("unique")),
        "{:?}",
        step.flags
    );
    assert_eq!(step.warnings.len(), 1, "{:?}", step.warnings);
    assert!(step.warnings[0].contains("positional target"));
    assert!(
        step.summary().contains("⚠ positional target"),
        "{}",
        step.summary()
    );

    // A toggle recorded by position: the expectation cannot add [checked] (that would count
    // among the checked ones), so it names the element as recorded.
    write_and_record(
        &session,
        &place.root,
        r#"check-box "same" #2"#,
        "on",
        &mut rec,
    )
    .await;
    let step = rec.steps().last().unwrap();
    assert_eq!(step.step.target.as_deref(), Some(r#"check-box "same" #2"#));
    assert_eq!(
        step.step.expect,
        Some(Predicate::Visible(r#"check-box "same" #2"#.into()))
    );
    assert!(!step.warnings.is_empty());
    // The warning survives the recording file; the exported step is plain workflow v1.
    let saved = serde_json::to_value(step).unwrap();
    assert!(
        saved["warnings"][0]
            .as_str()
            .unwrap()
            .contains("positional")
    );
    // export validates against the schema before it returns.
    let wf = rec.export(&ExportOptions::default()).unwrap();
    assert!(schema::check(&wf).is_empty());
    assert!(wf["steps"][0].get("warnings").is_none());
}

#[tokio::test]
async fn export_refuses_empty_and_oversized_recordings() {
    let mut rec = Recorder::new("big");
    assert!(matches!(
        rec.export(&ExportOptions::default()),
        Err(ExportError::Empty(0))
    ));
    for _ in 0..65 {
        rec.record_observe();
    }
    let err = rec.export(&ExportOptions::default()).unwrap_err();
    assert!(matches!(err, ExportError::TooManySteps { count: 65 }));
    assert!(err.to_string().contains("at most 64"), "{err}");
    rec.drop_step(0);
    let v = rec.export(&ExportOptions::default()).unwrap();
    assert_eq!(v["steps"].as_array().unwrap().len(), 64);
    assert!(schema::check(&v).is_empty());
}

#[tokio::test]
async fn recording_files_round_trip_atomically() {
    let (_f, session, place) = demo().await;
    let dir = std::env::temp_dir().join(format!("tg-wf-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rec.json");
    let mut rec = Recorder::load_or_new(&path).unwrap();
    assert_eq!(rec.name(), "rec");
    write_and_record(
        &session,
        &place.root,
        "password-text \"Password\"",
        SECRET,
        &mut rec,
    )
    .await;
    write_and_record(
        &session,
        &place.root,
        "check-box \"Subscribe\"",
        "true",
        &mut rec,
    )
    .await;
    rec.save(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(SECRET));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["treeglassRecording"], RECORDING_VERSION);
    assert_eq!(v["steps"][1]["candidates"], 1);
    assert_eq!(v["steps"][1]["verdict"], "verified");
    let back = Recorder::load(&path).unwrap();
    assert_eq!(back.steps().len(), 2);
    assert_eq!(back.inputs().len(), 1);
    // No temporary files are left beside it.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["rec.json"]);
    std::fs::write(&path, r#"{"treeglassRecording": 9, "name": "x"}"#).unwrap();
    assert!(matches!(
        Recorder::load(&path),
        Err(RecordError::Version { found: 9, .. })
    ));
    std::fs::write(&path, "{oops").unwrap();
    assert!(matches!(
        Recorder::load(&path),
        Err(RecordError::Parse { line: 1, .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// In paused time: the sleeps below advance a virtual clock past the watcher's debounce, so
/// what they separate is separated exactly, however slow the machine.
#[tokio::test(start_paused = true)]
async fn observed_changes_become_steps_and_bursts_coalesce() {
    let (fixture, session, place) = demo().await;
    let shared = Arc::new(Mutex::new(Recorder::new("observed")));
    let opts = WatchOptions {
        quiet: Duration::from_millis(150),
        ..WatchOptions::default()
    };
    let watch = Watch::start(
        session.backend.clone(),
        place.root.clone(),
        shared.clone(),
        opts,
    )
    .await
    .unwrap();
    let id = |name: &str| fixture.find_by_name(name).unwrap();
    // Typing: one event burst per key.
    for partial in ["G", "Gr", "Gra", "Grac", "Grace"] {
        fixture
            .user_set(
                &id("Full name"),
                NodeValue::Text {
                    text: partial.into(),
                },
            )
            .unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Typing resumed after a pause, nothing in between: the step is updated, not duplicated.
    fixture
        .user_set(
            &id("Full name"),
            NodeValue::Text {
                text: "Grace Hopper".into(),
            },
        )
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    fixture
        .user_set(
            &id("Password"),
            NodeValue::Text {
                text: SECRET.into(),
            },
        )
        .unwrap();
    fixture
        .user_set(
            &id("Quantity"),
            NodeValue::Number {
                current: 17.0,
                min: Some(0.0),
                max: Some(100.0),
                step: Some(1.0),
            },
        )
        .unwrap();
    fixture
        .user_set(&id("Subscribe"), NodeValue::Toggle { state: Toggle::On })
        .unwrap();
    // A mixed state cannot be asked for: not recorded.
    fixture
        .user_set(
            &id("Bold"),
            NodeValue::Toggle {
                state: Toggle::Mixed,
            },
        )
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Back to a field after others: a new step.
    fixture
        .user_set(
            &id("Full name"),
            NodeValue::Text {
                text: "Grace H.".into(),
            },
        )
        .unwrap();
    let summary = watch.stop().await.unwrap();
    assert!(summary.events >= 10, "{summary:?}");
    let rec = shared.lock().unwrap().clone();
    let got: Vec<(String, Action, Option<String>, bool)> = rec
        .steps()
        .iter()
        .map(|s| {
            (
                s.step.id.clone(),
                s.step.action,
                s.step.text.clone(),
                s.observed,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "type-full-name".into(),
                Action::Type,
                Some("Grace Hopper".into()),
                true
            ),
            (
                "type-password".into(),
                Action::Type,
                Some("${inputs.password}".into()),
                true
            ),
            (
                "type-quantity".into(),
                Action::Type,
                Some("17".into()),
                true
            ),
            ("check-subscribe".into(), Action::Check, None, true),
            (
                "type-full-name-2".into(),
                Action::Type,
                Some("Grace H.".into()),
                true
            ),
        ],
        "{:#?}",
        rec.steps()
    );
    assert!(
        rec.steps()
            .iter()
            .all(|s| !s.flagged && s.verdict.is_none())
    );
    let v = rec.export(&ExportOptions::default()).unwrap();
    assert!(schema::check(&v).is_empty());
    assert!(!serde_json::to_string(&v).unwrap().contains(SECRET));
    assert!(v["description"].as_str().unwrap().contains("5 observed"));
}

#[tokio::test]
async fn echoes_of_writes_made_through_treeglass_are_not_recorded_twice() {
    let (fixture, session, place) = demo().await;
    let row_of = |snap: &treeglass::model::Snapshot, name: &str| {
        snap.nodes.iter().position(|n| n.name == name).unwrap()
    };
    // The write is recorded first; the watcher then sees its events: no second step.
    let mut rec = Recorder::new("echo");
    write_and_record(
        &session,
        &place.root,
        "check-box \"Subscribe\"",
        "true",
        &mut rec,
    )
    .await;
    let snap = session
        .snapshot(&place.root, &Default::default())
        .await
        .unwrap();
    assert_eq!(rec.record_observed(&snap, row_of(&snap, "Subscribe")), None);
    assert_eq!(rec.steps().len(), 1);
    // The watcher saw the change first: the write's step replaces the observed one.
    let mut rec = Recorder::new("echo");
    fixture
        .user_set(
            &fixture.find_by_name("Use proxy").unwrap(),
            NodeValue::Toggle { state: Toggle::On },
        )
        .unwrap();
    let snap = session
        .snapshot(&place.root, &Default::default())
        .await
        .unwrap();
    assert!(
        rec.record_observed(&snap, row_of(&snap, "Use proxy"))
            .is_some()
    );
    assert!(rec.steps()[0].observed);
    write_and_record(
        &session,
        &place.root,
        "check-box \"Use proxy\"",
        "true",
        &mut rec,
    )
    .await;
    assert_eq!(rec.steps().len(), 1, "{:#?}", rec.steps());
    assert!(!rec.steps()[0].observed);
    assert_eq!(rec.steps()[0].verdict.as_deref(), Some("already"));
}
