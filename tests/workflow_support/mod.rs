//! Helpers shared by the workflow tests: writing through the verified engine while recording,
//! building small workflow documents, and running them in-process.
#![allow(dead_code, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use treeglass::app::run::{Place, RunOptions, RunReport, Runner};
use treeglass::app::{Scope, pick};
use treeglass::backend::{Backend, Limits};
use treeglass::model::NodeId;
use treeglass::selector::Target;
use treeglass::session::Session;
use treeglass::workflow::{Recorder, Workflow};
use treeglass::write::{Placement, WriteOptions, WriteResult, invoke, set_value};

/// The window (or app) that `app` names, and the app's node.
pub async fn place(backend: &dyn Backend, app: &str) -> Place {
    let scope = Scope {
        app: Some(app.to_string()),
        ..Scope::default()
    };
    let (info, root) = pick(backend, &scope)
        .await
        .unwrap_or_else(|f| panic!("{}", f.message));
    Place {
        root,
        app: Some(info.id),
    }
}

/// Resolves `target` fresh, writes `value` with the verified engine, and records the write.
pub async fn write_and_record(
    session: &Session,
    root: &NodeId,
    target: &str,
    value: &str,
    rec: &mut Recorder,
) -> WriteResult {
    let t = Target::parse(target).unwrap();
    let fresh = session
        .resolve_fresh(root, &t, Duration::from_secs(5), &Limits::default())
        .await
        .unwrap();
    let row = fresh
        .resolution
        .unique_row()
        .unwrap_or_else(|| panic!("{target}: {:?}", fresh.resolution));
    let snap = fresh.snapshot;
    let node = &snap.nodes[row];
    let place = Placement::of(&snap, row);
    let mut r = set_value(
        session.backend.as_ref(),
        &node.id,
        &place,
        value,
        &WriteOptions::default(),
    )
    .await;
    r.target = Some(target.to_string());
    rec.record_write(&snap, row, &r, value, false).unwrap();
    r
}

/// Resolves `target` fresh, runs its default action, and records it.
pub async fn invoke_and_record(
    session: &Session,
    root: &NodeId,
    target: &str,
    rec: &mut Recorder,
) -> WriteResult {
    let t = Target::parse(target).unwrap();
    let fresh = session
        .resolve_fresh(root, &t, Duration::from_secs(5), &Limits::default())
        .await
        .unwrap();
    let row = fresh.resolution.unique_row().unwrap();
    let snap = fresh.snapshot;
    let mut r = invoke(
        session.backend.as_ref(),
        &snap.nodes[row].id,
        &Placement::of(&snap, row),
        None,
        &WriteOptions::default(),
    )
    .await;
    r.target = Some(target.to_string());
    rec.record_invoke(&snap, row, &r, None).unwrap();
    r
}

/// A workflow document around `steps` with generous budgets.
pub fn doc(steps: Value, inputs: Value, terminal: Value) -> Value {
    let n = steps.as_array().map_or(1, |a| a.len().max(1));
    json!({
        "schemaVersion": 1,
        "name": "test",
        "workflowVersion": "1",
        "inputs": inputs,
        "budgets": {"maxSteps": n, "maxDurationMs": 60000, "maxRetries": 0, "maxExtractedBytes": 4096},
        "steps": steps,
        "terminalCondition": terminal,
        "outputs": {"title": {"type": "string", "source": "page_title"}}
    })
}

/// Parses and validates a document (panicking on errors) into a workflow.
pub fn workflow(doc: &Value) -> Workflow {
    let v = treeglass::workflow::validate_value(doc);
    assert!(v.errors.is_empty(), "{:#?}", v.errors);
    v.workflow.unwrap()
}

/// Runs a workflow against `backend`'s app `app` with fast write options.
pub async fn run(
    backend: Arc<dyn Backend>,
    app: &str,
    wf: Workflow,
    inputs: &[(&str, &str)],
) -> RunReport {
    let place = place(backend.as_ref(), app).await;
    let session = Arc::new(Session::new(backend));
    let given: BTreeMap<String, String> = inputs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Runner::new(session, place, wf, given, RunOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .run()
        .await
}
