//! The write engine's rules on fields the GTK fixture cannot show: a text field without
//! EditableText (the keyboard fallback), a field that reverts writes, actions and their
//! reactions. The fixture backend stands in for an app here only for these quirks; the real-bus
//! behaviour is covered by tests/desktop/atspi_set.rs.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use treeglass::backend::Backend;
use treeglass::backend::fixture::FixtureBackend;
use treeglass::write::{MismatchKind, Outcome, Placement, WriteOptions, invoke, set_value};

const QUIRKS: &str = r#"{"apps": [{"name": "quirks", "windows": [{
  "role": "frame", "name": "Quirks", "children": [
    {"role": "text", "name": "Web input", "interfaces": ["accessible", "component", "text"],
     "value": {"kind": "text", "text": "old"}},
    {"role": "text", "name": "Stubborn", "behaviour": {"revert_ms": 20},
     "value": {"kind": "text", "text": "keep"}},
    {"role": "text", "name": "Limited", "value": {"kind": "text", "text": ""}},
    {"role": "button", "name": "Inert", "actions": ["click"]},
    {"role": "button", "name": "Add", "actions": ["click"], "behaviour": {"on_press": "add-item:Box"}},
    {"role": "panel", "name": "Box"},
    {"role": "expander", "name": "More", "actions": ["activate"]}
  ]}]}]}"#;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_field_without_editable_text_is_typed_into_and_says_so() {
    rt().block_on(async {
        let b = FixtureBackend::from_json(QUIRKS).unwrap();
        let id = b.find_by_name("Web input").unwrap();
        let r = set_value(
            &b,
            &id,
            &Placement::default(),
            "new text",
            &WriteOptions::default(),
        )
        .await;
        assert_eq!(r.outcome, Outcome::Verified, "{}", r.reason);
        assert!(
            r.method.as_ref().unwrap().as_str().contains("keyboard"),
            "{:?}",
            r.method
        );
        assert_eq!(
            r.acks.len(),
            4,
            "raise the window, focus, select all, type: {:?}",
            r.acks
        );
    });
}

#[test]
fn a_field_that_puts_its_value_back_is_a_reverted_mismatch() {
    rt().block_on(async {
        let b = FixtureBackend::from_json(QUIRKS).unwrap();
        let id = b.find_by_name("Stubborn").unwrap();
        let opts = WriteOptions {
            timeout: Duration::from_millis(400),
            ..WriteOptions::default()
        };
        let r = set_value(&b, &id, &Placement::default(), "changed", &opts).await;
        assert_eq!(r.outcome, Outcome::Mismatch, "{} {:?}", r.reason, r.samples);
        assert_eq!(r.mismatch, Some(MismatchKind::Reverted));
        assert_eq!(r.observed.as_deref(), Some("\"keep\""));
    });
}

#[test]
fn invoke_reports_reactions_and_their_absence() {
    rt().block_on(async {
        let b = FixtureBackend::from_json(QUIRKS).unwrap();
        let opts = WriteOptions {
            timeout: Duration::from_millis(300),
            ..WriteOptions::default()
        };
        let add = b.find_by_name("Add").unwrap();
        let r = invoke(&b, &add, &Placement::default(), None, &opts).await;
        assert_eq!(r.outcome, Outcome::Verified, "{}", r.reason);
        assert!(
            r.events.iter().any(|e| e.contains("child-added")),
            "{:?}",
            r.events
        );
        let inert = b.find_by_name("Inert").unwrap();
        let r = invoke(&b, &inert, &Placement::default(), None, &opts).await;
        assert_eq!(r.outcome, Outcome::Unconfirmed, "{}", r.reason);
        let r = invoke(&b, &inert, &Placement::default(), Some("explode"), &opts).await;
        assert_eq!(r.outcome, Outcome::Refused);
        assert!(
            r.reason.contains("click"),
            "lists the actions: {}",
            r.reason
        );
    });
}

#[test]
fn expander_true_expands_and_false_collapses() {
    rt().block_on(async {
        let b = FixtureBackend::from_json(QUIRKS).unwrap();
        let id = b.find_by_name("More").unwrap();
        let opts = WriteOptions::default();
        let r = set_value(&b, &id, &Placement::default(), "true", &opts).await;
        assert_eq!(r.outcome, Outcome::Verified, "{}", r.reason);
        let r = set_value(&b, &id, &Placement::default(), "true", &opts).await;
        assert_eq!(r.outcome, Outcome::Already);
        let r = set_value(&b, &id, &Placement::default(), "false", &opts).await;
        assert_eq!(r.outcome, Outcome::Verified, "{}", r.reason);
        assert!(
            !b.read_node(&id)
                .await
                .unwrap()
                .states
                .has(treeglass::model::State::Expanded)
        );
    });
}

#[test]
fn a_vanished_element_is_refused_before_dispatch() {
    rt().block_on(async {
        let b = FixtureBackend::from_json(QUIRKS).unwrap();
        let id = b.find_by_name("Limited").unwrap();
        b.remove(&id).unwrap();
        let r = set_value(
            &b,
            &id,
            &Placement::default(),
            "x",
            &WriteOptions::default(),
        )
        .await;
        assert_eq!(r.outcome, Outcome::Refused);
        assert!(!r.dispatched);
    });
}
