//! What every tool answers, as the `outputSchema` it declares (MCP 2025-06-18): the fields of
//! its `structuredContent` — the command's `--json` document — with their types, the ones
//! every successful answer carries as `required`, and the `error` object a failed call adds.
//!
//! The specification asks a server that declares an output schema to return structured
//! results that conform to it, and makes no exception for a result with `isError`; this
//! server's errors carry `structuredContent.error` (kind, exit code, message), often beside the
//! document the command would print (an ambiguous `find`'s candidates, a refused write's
//! verdict). So each schema admits both: the root lists every field, and `anyOf` asks for
//! either the fields of a successful answer or an `error`. A client that validates only
//! successful results (the reference SDKs) and one that validates every result both accept
//! every answer.
//!
//! A field whose value takes several types is declared as `anyOf` branches of one type each.

use rmcp::model::JsonObject;
use serde_json::{Value as Json, json};

use super::reply::DETAILS;
use crate::app::Kind;

fn string() -> Json {
    json!({ "type": "string" })
}

fn integer() -> Json {
    json!({ "type": "integer", "minimum": 0 })
}

fn number() -> Json {
    json!({ "type": "number" })
}

fn boolean() -> Json {
    json!({ "type": "boolean" })
}

fn object() -> Json {
    json!({ "type": "object" })
}

fn array(items: Json) -> Json {
    json!({ "type": "array", "items": items })
}

fn strings() -> Json {
    array(string())
}

fn objects() -> Json {
    array(object())
}

/// `schema` or null, as branches of one type each.
fn nullable(schema: Json) -> Json {
    json!({ "anyOf": [schema, { "type": "null" }] })
}

fn strict_object(properties: Json, required: &[&str]) -> Json {
    json!({ "type": "object", "properties": properties, "required": required })
}

/// `structuredContent.error`: the kind by name (the finer one where there is one), the command
/// line's exit code, the message, and what locates the problem.
pub fn error() -> Json {
    let mut kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    kinds.extend(DETAILS);
    kinds.sort_unstable();
    kinds.dedup();
    json!({
        "type": "object",
        "description": "Why the call did not do what was asked (isError: true).",
        "properties": {
            "kind": { "type": "string", "enum": kinds },
            "exit_code": { "type": "integer", "minimum": 1 },
            "message": string(),
            "terminal": boolean(),
            "column": integer(),
            "current_snapshot": string(),
            "resolution": object(),
            "retry_after_ms": integer()
        },
        "required": ["kind", "exit_code", "message"]
    })
}

/// A tool's output schema: `properties` and the ones a successful answer always has; `defs`
/// for the documents that nest (`$defs`, referred to as `#/$defs/NAME`).
fn document(mut properties: Json, required: &[&str], defs: Option<Json>) -> JsonObject {
    properties["error"] = error();
    let mut schema = json!({
        "type": "object",
        "properties": properties,
        "anyOf": [
            { "required": required },
            { "required": ["error"] }
        ]
    });
    if let Some(defs) = defs {
        schema["$defs"] = defs;
    }
    match schema {
        Json::Object(o) => o,
        _ => JsonObject::new(),
    }
}

/// A suggested target and its grade.
fn suggestion() -> Json {
    strict_object(
        json!({ "target": string(), "grade": string() }),
        &["target", "grade"],
    )
}

/// A candidate or near miss of a resolution.
fn candidate() -> Json {
    strict_object(
        json!({
            "row": integer(),
            "token": string(),
            "path": string(),
            "role": string(),
            "name": string(),
            "why": string(),
            "hidden": boolean(),
            "suggestion": nullable(suggestion())
        }),
        &["row", "token", "path", "role", "why"],
    )
}

/// `find --json`.
fn resolution_properties() -> Json {
    json!({
        "outcome": { "type": "string", "enum": ["unique", "ambiguous", "not_found", "incomplete"] },
        "target": string(),
        "snapshot": string(),
        "reads": integer(),
        "waited_ms": integer(),
        "at_rest": boolean(),
        "row": integer(),
        "token": string(),
        "tier": string(),
        "why": string(),
        "path": string(),
        "id": string(),
        "suggestion": nullable(suggestion()),
        "count": integer(),
        "candidates": array(candidate()),
        "near_misses": array(candidate()),
        "fuzzy_only": boolean(),
        "reason": string(),
        "narrowed": strict_object(json!({ "candidates": integer() }), &["candidates"]),
        "not_searched": objects()
    })
}

/// A node of a `get_window_state` answer; its children nest (`#/$defs/node`).
fn node() -> Json {
    strict_object(
        json!({
            "row": integer(),
            "token": string(),
            "role": string(),
            "name": string(),
            "states": strings(),
            "target": string(),
            "grade": string(),
            "folded": integer(),
            "parent": string(),
            "path": string(),
            "children": array(json!({ "$ref": "#/$defs/node" }))
        }),
        &["row", "token", "role"],
    )
}

fn window_state() -> JsonObject {
    let node_ref = json!({ "$ref": "#/$defs/node" });
    document(
        json!({
            "snapshot": string(),
            "app": string(),
            "window": string(),
            "pid": nullable(integer()),
            "read_ms": number(),
            "node_count": integer(),
            "partial": integer(),
            "unreadable": integer(),
            "unreadable_elements": objects(),
            "truncated": nullable(string()),
            "complete": boolean(),
            "all_elements": boolean(),
            "left_out": object(),
            "folded": boolean(),
            "form": { "type": "string", "enum": ["tree", "interactive", "matches"] },
            "shown": integer(),
            "selected": integer(),
            "from": integer(),
            "below_max_depth": integer(),
            "showing_unknown": string(),
            "budget_bytes": integer(),
            "root": node_ref.clone(),
            "roots": array(node_ref.clone()),
            "elements": array(node_ref),
            "root_path": string(),
            "omitted": strict_object(
                json!({
                    "count": integer(),
                    "by_role": { "type": "object", "additionalProperties": integer() }
                }),
                &["count", "by_role"],
            ),
            "next_cursor": string(),
            "more": string()
        }),
        &[
            "snapshot",
            "app",
            "window",
            "node_count",
            "complete",
            "all_elements",
            "form",
            "shown",
            "selected",
        ],
        Some(json!({ "node": node() })),
    )
}

/// A value a write echoes (`requested`, `before`, `observed`): text, a number, a state, a
/// secret's length only, or null when there was none.
fn echoed() -> Json {
    json!({
        "anyOf": [
            { "type": "string" },
            { "type": "number" },
            { "type": "boolean" },
            strict_object(
                json!({ "secret": { "type": "boolean", "const": true }, "length": integer() }),
                &["secret", "length"],
            ),
            { "type": "null" }
        ]
    })
}

/// `set --json` and `invoke --json`: the verdict.
fn verdict() -> JsonObject {
    document(
        json!({
            "requested": echoed(),
            "before": echoed(),
            "observed": echoed(),
            "outcome": {
                "type": "string",
                "enum": ["verified", "already", "mismatch", "unconfirmed", "secure", "refused"]
            },
            "mismatch": nullable(json!({
                "type": "string",
                "enum": ["transformed", "partial", "clamped", "unchanged", "reverted"]
            })),
            "reason": string(),
            "advice": string(),
            "target": nullable(string()),
            "token": nullable(string()),
            "node": string(),
            "role": string(),
            "name": string(),
            "method": nullable(string()),
            "path": nullable(string()),
            "acks": strings(),
            "dispatched": boolean(),
            "samples": array(strict_object(
                json!({ "at_ms": number(), "value": string() }),
                &["at_ms", "value"],
            )),
            "changed_after": nullable(strict_object(
                json!({ "at_ms": number(), "value": string() }),
                &["at_ms", "value"],
            )),
            "events": strings(),
            "timings": { "type": "object", "additionalProperties": number() },
            "changes": object(),
            "recorded": object()
        }),
        &[
            "outcome",
            "reason",
            "advice",
            "dispatched",
            "role",
            "timings",
        ],
        None,
    )
}

fn clipboard() -> JsonObject {
    document(
        json!({
            "types": strings(),
            "text": string(),
            "image": { "type": "array", "items": integer(), "minItems": 2, "maxItems": 2 },
            "files": strings()
        }),
        &["types"],
        None,
    )
}

/// `workflow validate --json`, and a run that did not start.
fn validation_properties() -> Json {
    json!({
        "file": string(),
        "valid": boolean(),
        "errors": objects(),
        "warnings": objects(),
        "ran": boolean(),
        "message": string()
    })
}

fn workflow_validate() -> JsonObject {
    let mut p = validation_properties();
    p["steps"] = nullable(integer());
    document(p, &["file", "valid", "errors", "warnings"], None)
}

/// A run's report; a run refused or invalid answers the validation's fields with its error.
/// `steps` is the report's steps, or the number a valid workflow has.
fn workflow_run() -> JsonObject {
    let mut p = validation_properties();
    for (k, v) in [
        ("workflow", string()),
        ("workflow_version", string()),
        ("passed", boolean()),
        ("preconditions", objects()),
        ("terminal", object()),
        ("outputs", object()),
        ("stopped", string()),
        ("budget", object()),
        (
            "steps",
            json!({ "anyOf": [objects(), integer(), { "type": "null" }] }),
        ),
    ] {
        p[k] = v;
    }
    document(p, &["workflow", "passed", "steps", "budget"], None)
}

/// Every tool's output schema, by name.
pub fn schema(tool: &str) -> JsonObject {
    match tool {
        "list_apps" => document(
            json!({
                "backend": string(),
                "apps": array(strict_object(
                    json!({
                        "id": string(),
                        "name": string(),
                        "pid": nullable(integer()),
                        "bus_name": string(),
                        "toolkit": nullable(string()),
                        "toolkit_version": nullable(string()),
                        "responding": boolean(),
                        "windows": array(strict_object(
                            json!({
                                "id": string(),
                                "name": string(),
                                "role": string(),
                                "states": strings()
                            }),
                            &["id", "name", "role"],
                        ))
                    }),
                    &["id", "name", "bus_name", "windows", "responding"],
                ))
            }),
            &["backend", "apps"],
            None,
        ),
        "get_window_state" => window_state(),
        "find" => document(
            resolution_properties(),
            &[
                "outcome",
                "target",
                "snapshot",
                "reads",
                "waited_ms",
                "at_rest",
            ],
            None,
        ),
        "set_value" | "invoke" => verdict(),
        "clipboard_read" | "clipboard_write" => clipboard(),
        "workflow_record_start" => document(
            json!({ "recording": boolean(), "name": string() }),
            &["recording", "name"],
            None,
        ),
        "workflow_record_stop" => document(
            json!({
                "schemaVersion": integer(),
                "name": string(),
                "workflowVersion": string(),
                "description": string(),
                "inputs": object(),
                "budgets": object(),
                "steps": objects(),
                "terminalCondition": object(),
                "outputs": object()
            }),
            &["schemaVersion", "name", "steps"],
            None,
        ),
        "workflow_validate" => workflow_validate(),
        "workflow_run" => workflow_run(),
        "audit" => document(
            json!({
                "app": string(),
                "window": string(),
                "snapshot": string(),
                "pid": nullable(integer()),
                "complete": boolean(),
                "node_count": integer(),
                "min_severity": string(),
                "rules": objects(),
                "summary": object(),
                "not_evaluated": objects(),
                "left_out": objects(),
                "truncated": nullable(string()),
                "unreadable": integer(),
                "facts_unreadable": integer()
            }),
            &["rules", "summary", "complete"],
            None,
        ),
        "doctor" => document(
            json!({
                "backend": string(),
                "checks": array(strict_object(
                    json!({
                        "name": string(),
                        "status": string(),
                        "detail": string(),
                        "fix": string()
                    }),
                    &["name", "status", "detail"],
                )),
                "apps": objects(),
                "healthy": boolean()
            }),
            &["backend", "checks", "apps", "healthy"],
            None,
        ),
        // Every tool is listed above (a test holds the catalogue to it); an unknown name
        // still gets a schema that admits any object with or without an error.
        _ => document(json!({}), &[], None),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::Arc;

    use serde_json::{Value as Json, json};

    use crate::mcp::{Link, State, server, tools};
    use crate::session::Session;

    fn demo() -> Arc<State> {
        let session = Arc::new(Session::new(crate::backend::pick::demo()));
        let doctor: crate::mcp::Doctor =
            Arc::new(|| Box::pin(crate::backend::pick::doctor(Some("fixture"))));
        Arc::new(State::new(Link::up(session), doctor))
    }

    /// The token of the node named `name` under `node`.
    fn token_named(node: &Json, name: &str) -> String {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n["name"] == name {
                return n["token"].as_str().unwrap().to_string();
            }
            stack.extend(n["children"].as_array().into_iter().flatten());
        }
        panic!("no {name} in {node}");
    }

    /// Calls `tool` and checks its answer against the tool's output schema, and that every field
    /// it holds is one the schema names (a field added to a document and not to its schema
    /// fails here). The answer's structured content.
    async fn checked(state: &Arc<State>, tool: &str, args: Json) -> (bool, Json) {
        let raw = match args {
            Json::Object(o) => Some(o),
            _ => None,
        };
        let r = server::call(state.clone(), tool, raw).await.into_result();
        let doc = r.structured_content.clone().unwrap();
        let listed = tools::all().into_iter().find(|t| t.name == tool).unwrap();
        let schema = Json::Object((*listed.output_schema.unwrap()).clone());
        let v = jsonschema::draft202012::new(&schema).unwrap();
        let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
        let shown: String = doc.to_string().chars().take(1500).collect();
        assert!(errors.is_empty(), "{tool}: {errors:?}\n{shown}");
        for key in doc.as_object().unwrap().keys() {
            assert!(
                schema["properties"].get(key).is_some(),
                "{tool}: `{key}` is not in its output schema"
            );
        }
        (r.is_error == Some(true), doc)
    }

    #[tokio::test(start_paused = true)]
    async fn every_tool_answers_what_its_output_schema_says_errors_included() {
        let s = demo();
        let workflows = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/workflows");
        let (err, apps) = checked(&s, "list_apps", json!({})).await;
        assert!(!err && apps["apps"][0]["windows"][0]["id"].is_string());
        let (_, page) = checked(&s, "get_window_state", json!({"budget_bytes": 4000})).await;
        let cursor = page["next_cursor"].as_str().unwrap().to_string();
        checked(
            &s,
            "get_window_state",
            json!({"budget_bytes": 4000, "cursor": cursor}),
        )
        .await;
        let (_, state) = checked(&s, "get_window_state", json!({})).await;
        let token = state["root"]["children"][0]["token"]
            .as_str()
            .unwrap()
            .to_string();
        let (_, sub) = checked(&s, "get_window_state", json!({"root": token})).await;
        assert!(sub["root_path"].is_string(), "{sub}");
        for args in [
            json!({"interactive_only": true}),
            json!({"query": "check-box", "showing_only": true}),
            json!({"max_depth": 2, "raw": true}),
            json!({"app": "no such app"}),
            json!({"cursor": "nonsense"}),
        ] {
            checked(&s, "get_window_state", args).await;
        }
        for target in [
            json!("button \"Save\""),
            json!("check-box"),
            json!("button =\"Nope\""),
            json!("button [checkd"),
            json!({"role": "text", "query": "Full name"}),
        ] {
            checked(&s, "find", json!({"target": target})).await;
        }
        let (_, state) = checked(&s, "get_window_state", json!({})).await;
        let full_name = token_named(&state["root"], "Full name");
        for args in [
            json!({"element_token": full_name, "value": "Grace"}),
            json!({"element_token": full_name, "value": "Grace"}),
            json!({"target": "text \"Full name\"", "value": "Grace"}),
            json!({"target": "text \"Shout\"", "value": "quiet"}),
            json!({"target": "password-text", "value": "s3cret"}),
            json!({"target": "slider", "value": 500}),
            json!({"target": "check-box \"Subscribe\"", "value": true}),
            json!({"target": "check-box", "value": true}),
            json!({"target": "text \"Account ID\"", "value": "x"}),
            json!({"target": "button =\"Nope\"", "value": "x"}),
            json!({"element_token": "s0000ffff:1", "value": "x"}),
            json!({"value": "x"}),
        ] {
            checked(&s, "set_value", args).await;
        }
        checked(&s, "invoke", json!({"target": "button \"Add item\""})).await;
        checked(&s, "invoke", json!({"target": "button", "action": "click"})).await;
        checked(&s, "workflow_record_start", json!({"name": "r"})).await;
        checked(&s, "workflow_record_start", json!({})).await;
        let (_, w) = checked(
            &s,
            "set_value",
            json!({"target": "text \"Proxy host\"", "value": "h"}),
        )
        .await;
        assert!(w["recorded"].is_object(), "{w}");
        checked(&s, "workflow_record_stop", json!({"path": "relative.json"})).await;
        checked(&s, "workflow_record_stop", json!({})).await;
        checked(&s, "workflow_record_stop", json!({})).await;
        for args in [
            json!({"path": format!("{workflows}/good-demo.json")}),
            json!({"path": format!("{workflows}/bad-schema.json")}),
            json!({"workflow": {"x": 1}}),
        ] {
            checked(&s, "workflow_validate", args).await;
        }
        for args in [
            json!({"path": format!("{workflows}/good-demo.json"), "inputs": {"password": "p"}}),
            json!({"path": format!("{workflows}/good-demo.json")}),
            json!({"path": format!("{workflows}/bad-semantics.json")}),
            json!({"path": format!("{workflows}/over-budget.json")}),
        ] {
            checked(&s, "workflow_run", args).await;
        }
        checked(&s, "audit", json!({})).await;
        checked(&s, "audit", json!({"rules": ["states"]})).await;
        checked(&s, "doctor", json!({})).await;
        checked(&s, "list_apps", json!({"extra": 1})).await;
    }
}
