//! The tool catalogue: every tool's name, description (what it changes, whether repeating it
//! changes more), MCP annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`) and the
//! input it takes, whose JSON Schema is generated from the same struct the arguments are read
//! into (unknown fields are refused).

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde_json::Value as Json;

/// The window a tool reads: the CLI's `--app`, `--pid`, `--window`.
macro_rules! scope_fields {
    ($(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $(#[$m])*
        pub struct $name {
            /// Application name: a case-insensitive regular expression (an exact name wins over
            /// partial matches). Default: the only application with windows.
            #[serde(default)]
            pub app: Option<String>,
            /// Application process id (instead of `app`).
            #[serde(default)]
            pub pid: Option<u32>,
            /// Window title: a case-insensitive regular expression. Default: the app's only
            /// window, or the whole app when it has several.
            #[serde(default)]
            pub window: Option<String>,
            /// Read the tree down to this depth (default 128): deeper elements are not read
            /// (nor found), and a read cut by it says so (`complete: false`).
            #[serde(default)]
            pub max_depth: Option<usize>,
            /// Read at most this many children of one element (default 5000): the rest are
            /// not read (nor found), and a read cut by it says so (`complete: false`,
            /// `left_out.by_cap.max_children`).
            #[serde(default)]
            pub max_children: Option<usize>,
            $($body)*
        }

        impl $name {
            pub fn scope(&self) -> crate::app::Scope {
                crate::app::Scope {
                    app: self.app.clone(),
                    pid: self.pid,
                    window: self.window.clone(),
                    read_timeout_ms: None,
                    max_depth: self.max_depth,
                    max_children: self.max_children,
                }
            }
        }
    };
}

/// No arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

scope_fields! {
    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct WindowStateArgs {
        /// Only the subtree under this element: its token (from this server's reads) or a
        /// target. A token's subtree is read alone (nothing else of the window is asked), and
        /// the window's other tokens stay valid.
        #[serde(default)]
        #[schemars(schema_with = "optional_target_schema")]
        pub root: Option<Json>,
        /// Only what is on screen: nodes that are showing, with what they sit in.
        #[serde(default)]
        pub showing_only: Option<bool>,
        /// A flat list of the elements a person can act on (buttons, fields, check boxes,
        /// options, links, …), each with its token, target and path: the compact form.
        #[serde(default)]
        pub interactive_only: Option<bool>,
        /// A flat list of the elements this target matches, with their tokens and paths.
        #[serde(default)]
        #[schemars(schema_with = "optional_target_schema")]
        pub query: Option<Json>,
        /// Continue a cut answer from where it stopped: the `next_cursor` it gave. Valid while
        /// its snapshot is the window's newest read (nothing read or written in between).
        #[serde(default)]
        pub cursor: Option<String>,
        /// The most bytes the answer may take, text and structured content together (default
        /// 100000, at least 4000, at most 1000000). A bigger tree is cut breadth first (lists: in
        /// tree order) and says what it left out and how to get it.
        #[serde(default)]
        pub budget_bytes: Option<usize>,
        /// Stop reading after this many nodes (the result then says `complete: false`,
        /// `truncated: "node_cap"`). Default 200000.
        #[serde(default)]
        pub max_nodes: Option<usize>,
        /// Every node, without folding unnamed single-child wrappers into their child.
        #[serde(default)]
        pub raw: Option<bool>,
    }
}

scope_fields! {
    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct AuditArgs {
        /// Only these rules: ids (`name-missing`, `target-positional`, …) or groups (names,
        /// keyboard, states, structure, geometry, uniqueness, automation). Default: every rule.
        #[serde(default)]
        pub rules: Option<Vec<String>>,
        /// Leave out findings below this severity: `review` (default: everything), `warning`
        /// or `error`.
        #[serde(default)]
        pub min_severity: Option<String>,
    }
}

scope_fields! {
    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct FindArgs {
        /// The target: its string form or its JSON object form.
        #[schemars(schema_with = "target_schema")]
        pub target: Json,
        /// Wait exactly this long for the target to name one element, re-reading the tree on
        /// the app's events and every half second (at most 120000): for an element the app is
        /// about to show. Without it, the tree is read again only while the app is changing:
        /// an ambiguous or missing target on an app at rest answers after one read and 500 ms
        /// without an event (at most 10000 of steady change). The answer says which.
        #[serde(default)]
        pub wait_ms: Option<u64>,
    }
}

scope_fields! {
    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct SetValueArgs {
        /// A token (`s0000002a:11`) from a snapshot this server took; give it or `target`.
        #[serde(default)]
        pub element_token: Option<String>,
        /// A target, resolved against a fresh read of the window; give it or `element_token`.
        #[serde(default)]
        #[schemars(schema_with = "optional_target_schema")]
        pub target: Option<Json>,
        /// The value: text; a number for sliders and spin buttons; true/false for check boxes,
        /// switches and toggles; an option label for combo boxes; true to select a tab or row.
        #[schemars(schema_with = "value_schema")]
        pub value: Json,
        /// How long to read the value back after writing it (default 1500).
        #[serde(default)]
        pub timeout_ms: Option<u64>,
        /// Wait exactly this long for a `target` to name one element (at most 120000): for an
        /// element the app is about to show. Without it, a target that names no single element
        /// on an app at rest is refused after one read and 500 ms without an event (nothing
        /// sent), and one the app is changing is followed for at most 10000.
        #[serde(default)]
        pub wait_ms: Option<u64>,
        /// Send a number outside min–max anyway (the verdict then says `clamped`).
        #[serde(default)]
        pub force: Option<bool>,
    }
}

scope_fields! {
    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct InvokeArgs {
        /// A token (`s0000002a:11`) from a snapshot this server took; give it or `target`.
        #[serde(default)]
        pub element_token: Option<String>,
        /// A target, resolved against a fresh read of the window; give it or `element_token`.
        #[serde(default)]
        #[schemars(schema_with = "optional_target_schema")]
        pub target: Option<Json>,
        /// The action's name (default: click, press, activate… whichever the element has).
        #[serde(default)]
        pub action: Option<String>,
        /// How long to watch for the app's reaction (default 1500).
        #[serde(default)]
        pub timeout_ms: Option<u64>,
        /// Wait exactly this long for a `target` to name one element (at most 120000): for an
        /// element the app is about to show. Without it, a target that names no single element
        /// on an app at rest is refused after one read and 500 ms without an event (nothing
        /// sent), and one the app is changing is followed for at most 10000.
        #[serde(default)]
        pub wait_ms: Option<u64>,
    }
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipboardReadArgs {
    /// Also return the plain text (default false: only the types offered).
    #[serde(default)]
    pub include_text: bool,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipboardWriteArgs {
    /// Text to put on the clipboard.
    #[serde(default)]
    pub text: Option<String>,
    /// A PNG image, by absolute path.
    #[serde(default)]
    pub image_path: Option<String>,
    /// A file, by absolute path, offered as a file URL.
    #[serde(default)]
    pub file_path: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordStartArgs {
    /// The recording's (and the workflow's) name.
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordStopArgs {
    /// The workflow's name (default: the recording's).
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    /// Leave out steps whose write was not verified (flagged).
    #[serde(default)]
    pub skip_flagged: bool,
    /// Also write the workflow to this absolute path; the file must not exist yet.
    #[serde(default)]
    pub path: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateArgs {
    /// A workflow file, by absolute path; give it or `workflow`.
    #[serde(default)]
    pub path: Option<String>,
    /// A workflow-v1 document; give it or `path`.
    #[serde(default)]
    #[schemars(schema_with = "optional_document_schema")]
    pub workflow: Option<Json>,
}

scope_fields! {
    #[derive(Debug, Default, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    pub struct RunArgs {
        /// A workflow file, by absolute path; give it or `workflow`.
        #[serde(default)]
        pub path: Option<String>,
        /// A workflow-v1 document; give it or `path`.
        #[serde(default)]
        #[schemars(schema_with = "optional_document_schema")]
        pub workflow: Option<Json>,
        /// Values of the workflow's inputs (`${inputs.NAME}`), sensitive ones included: those
        /// are masked in the report.
        #[serde(default)]
        pub inputs: BTreeMap<String, String>,
    }
}

fn target_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A target: a string such as `check-box \"Subscribe\" [enabled] in group \"Preferences\"` or `=\"Save\"`, or an object {role, query, states, within}.",
        "anyOf": [
            { "type": "string", "minLength": 1, "maxLength": 1024 },
            {
                "type": "object",
                "properties": {
                    "role": {
                        "description": "A normalised role (button, text, check-box, …) or {\"raw\": toolkit role}.",
                        "anyOf": [
                            { "type": "string" },
                            { "type": "object", "properties": { "raw": { "type": "string" } }, "required": ["raw"] }
                        ]
                    },
                    "query": {
                        "description": "Matched against name, then description, then value: a string (tiered: exact > substring > fuzzy) or {text, mode: exact|substring|fuzzy|tiered}.",
                        "anyOf": [
                            { "type": "string" },
                            {
                                "type": "object",
                                "properties": {
                                    "text": { "type": "string" },
                                    "mode": { "enum": ["exact", "substring", "fuzzy", "tiered"] }
                                },
                                "required": ["text"]
                            }
                        ]
                    },
                    "states": {
                        "description": "States that must hold; `!state` for must-not.",
                        "type": "array",
                        "items": { "type": "string" }
                    },
                    "within": { "description": "A target that must be an ancestor.", "type": "object" }
                }
            }
        ]
    })
}

/// An optional target: the same schema, the property left out of `required` (null, which serde
/// also reads as absent, is not advertised: see [`strict`]).
fn optional_target_schema(g: &mut SchemaGenerator) -> Schema {
    target_schema(g)
}

fn value_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "The value to write (a secret's is never echoed: only its length).",
        "anyOf": [
            { "type": "string" },
            { "type": "number" },
            { "type": "boolean" }
        ]
    })
}

fn optional_document_schema(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "description": "A workflow document (schemaVersion 1).",
        "type": "object"
    })
}

/// How a tool may change things, for the MCP annotations.
#[derive(Debug, Clone, Copy)]
struct Effect {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
}

const READ_ONLY: Effect = Effect {
    read_only: true,
    destructive: false,
    idempotent: true,
};

/// The formats JSON Schema draft 2020-12 defines; a strict client refuses any other.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The bounds a schemars integer format stands for, where a JSON number holds them exactly.
fn format_bounds(format: &str) -> Option<(i64, i64)> {
    Some(match format {
        "int8" => (i8::MIN.into(), i8::MAX.into()),
        "int16" => (i16::MIN.into(), i16::MAX.into()),
        "int32" => (i32::MIN.into(), i32::MAX.into()),
        "uint8" => (0, u8::MAX.into()),
        "uint16" => (0, u16::MAX.into()),
        "uint32" => (0, u32::MAX.into()),
        _ => return None,
    })
}

/// Makes a generated schema one a strict draft 2020-12 client takes, and one a client that maps
/// schemas onto a single-`type` dialect (the OpenAPI subset of some model providers) takes
/// whole: only standard formats (schemars writes `uint32`, `uint64`, `uint`…; what they bound
/// is kept as `minimum` and `maximum`); no `default: null`; one `type` per schema. schemars
/// writes an `Option<T>` as `"type": [T, "null"]`: the null is dropped, since an optional
/// parameter is one left out of `required` and its absence already means its default (serde
/// still reads an explicit null as absent). A union of real types becomes `anyOf` branches of
/// one `type` each.
fn strict(schema: &mut Json) {
    match schema {
        Json::Object(o) => {
            if o.get("default").is_some_and(Json::is_null) {
                o.remove("default");
            }
            if let Some(Json::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                let types = std::mem::take(types);
                o.remove("type");
                match types.len() {
                    0 => {}
                    1 => {
                        o.insert("type".into(), types.into_iter().next().unwrap_or_default());
                    }
                    _ if !o.contains_key("anyOf") => {
                        let branches = types
                            .into_iter()
                            .map(|t| serde_json::json!({ "type": t }))
                            .collect();
                        o.insert("anyOf".into(), Json::Array(branches));
                    }
                    // Kept as it was: the test of every tool's schema names it.
                    _ => {
                        o.insert("type".into(), Json::Array(types));
                    }
                }
            }
            let odd = o
                .get("format")
                .and_then(Json::as_str)
                .filter(|f| !STANDARD_FORMATS.contains(f))
                .map(str::to_string);
            if let Some(f) = odd {
                o.remove("format");
                if let Some((min, max)) = format_bounds(&f) {
                    o.entry("minimum").or_insert(min.into());
                    o.entry("maximum").or_insert(max.into());
                }
            }
            for (k, v) in o.iter_mut() {
                // Values, not schemas.
                if !matches!(k.as_str(), "default" | "const" | "enum" | "examples") {
                    strict(v);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(strict),
        _ => {}
    }
}

fn schema<T: JsonSchema + 'static>() -> Arc<JsonObject> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or_default();
    strict(&mut value);
    let mut object = match value {
        Json::Object(o) => o,
        // A derived schema is always an object; an empty object schema stands in otherwise.
        _ => JsonObject::new(),
    };
    // The wrapper's name and doc are noise to a model; MCP wants a root object schema.
    object.remove("title");
    object.remove("description");
    object.insert("type".into(), "object".into());
    Arc::new(object)
}

fn tool<T: JsonSchema + 'static>(name: &'static str, title: &str, text: &str, e: Effect) -> Tool {
    let mut t = Tool::new(name, text.to_string(), schema::<T>());
    t.output_schema = Some(Arc::new(super::outputs::schema(name)));
    t.title = Some(title.to_string());
    t.annotations = Some(
        ToolAnnotations::with_title(title)
            .read_only(e.read_only)
            .destructive(e.destructive)
            .idempotent(e.idempotent)
            .open_world(false),
    );
    t
}

/// Every tool, in the order they are listed.
pub fn all() -> Vec<Tool> {
    vec![
        tool::<NoArgs>(
            "list_apps",
            "List applications",
            &format!(
                "Lists the applications {}: name, pid, bus name (the app's address where the \
                 platform has a bus, `pid:N` elsewhere), toolkit and windows. Read-only.",
                crate::backend::pick::APPS_ARE
            ),
            READ_ONLY,
        ),
        tool::<WindowStateArgs>(
            "get_window_state",
            "Read a window's tree",
            "Reads one window's accessibility tree now and returns it folded (unnamed \
             single-child wrappers fold into their child), every node with its element token \
             (`<snapshot>:<row>`) and its suggested shortest unique target, plus the snapshot id \
             and whether the answer is complete. An answer holds at most budget_bytes (default \
             100000): a bigger window is cut breadth first, says what it left out \
             (omitted.by_role) and how to get the rest — scope it with root (a token or \
             target: one subtree), interactive_only (the actionable elements, flat), \
             showing_only (what is on screen), query (the elements a target matches), \
             max_depth, or page on with cursor. Read-only for the app; this read supersedes the \
             window's earlier tokens (they are then refused as stale); a read under a root \
             token keeps them.",
            READ_ONLY,
        ),
        tool::<FindArgs>(
            "find",
            "Resolve a target",
            "Resolves a target against a fresh read of the window: unique (with its token), \
             ambiguous (count and candidates), not_found (closest near misses) or incomplete \
             (the tree was cut short). An app at rest is read once and answered at once; \
             wait_ms waits that long for the target to become unique (an element about to \
             appear). Read-only for the app; the read supersedes the window's earlier tokens.",
            READ_ONLY,
        ),
        tool::<SetValueArgs>(
            "set_value",
            "Write a value, verified",
            "Writes a value into one element, by element_token (used at once) or by target \
             (resolved fresh), then reads it back: verified, already (held it: nothing sent), \
             mismatch (how: transformed, partial, clamped, unchanged, reverted), secure \
             (password: the length matches; the value is never echoed), refused (nothing sent: \
             fix the input) or unconfirmed (terminal: observe the tree before anything else; \
             never write again blindly). Changes the app; the same value again sends nothing.",
            Effect {
                read_only: false,
                destructive: true,
                idempotent: true,
            },
        ),
        tool::<InvokeArgs>(
            "invoke",
            "Run an element's action",
            "Runs one action of an element (default: click, press, activate… whichever it has), \
             by element_token or target, and reports whether the app reacted: verified (events \
             or changes followed), unconfirmed (nothing seen) or refused (nothing sent). Changes \
             the app; not idempotent (a second press presses again).",
            Effect {
                read_only: false,
                destructive: true,
                idempotent: false,
            },
        ),
        tool::<ClipboardReadArgs>(
            "clipboard_read",
            "Read the clipboard",
            "Lists the types the system clipboard offers (text, html, image, files); its text \
             only with include_text. Read-only.",
            READ_ONLY,
        ),
        tool::<ClipboardWriteArgs>(
            "clipboard_write",
            "Write the clipboard",
            "Replaces the system clipboard with exactly one of text, image_path (PNG) or \
             file_path (absolute paths only), then lists what it offers. On X11 this server \
             keeps serving it until another application takes the clipboard or the server \
             exits. Replaces what was there; idempotent.",
            Effect {
                read_only: false,
                destructive: true,
                idempotent: true,
            },
        ),
        tool::<RecordStartArgs>(
            "workflow_record_start",
            "Start recording",
            "Starts recording this session's set_value and invoke calls as workflow steps. \
             Changes nothing in any app; refused while a recording is running.",
            Effect {
                read_only: false,
                destructive: false,
                idempotent: false,
            },
        ),
        tool::<RecordStopArgs>(
            "workflow_record_stop",
            "Stop recording and export",
            "Stops the recording and returns it as a workflow-v1 document, validated against \
             the schema (passwords become sensitive inputs, never literals). With path, also \
             writes it there (never replacing a file). When the export is refused the recording \
             keeps running, nothing lost.",
            Effect {
                read_only: false,
                destructive: false,
                idempotent: false,
            },
        ),
        tool::<ValidateArgs>(
            "workflow_validate",
            "Validate a workflow",
            "Checks a workflow (a file by absolute path, or a document): JSON syntax, \
             schemaVersion, the schema (errors located by JSON pointer), then targets, inputs, \
             secrets and budgets. Read-only.",
            READ_ONLY,
        ),
        tool::<RunArgs>(
            "workflow_run",
            "Run a workflow",
            "Replays a workflow on a window: every step resolved fresh and written with the \
             same verified writes, stopping at the first step that does not pass, then the \
             terminal condition; returns every step's report. Nothing runs when the workflow \
             or its inputs are refused. Changes the app; not idempotent.",
            Effect {
                read_only: false,
                destructive: true,
                idempotent: false,
            },
        ),
        tool::<AuditArgs>(
            "audit",
            "Check a window's accessibility",
            "Reads one window now and runs treeglass's accessibility checks on it: unnamed \
             controls, names that only repeat the role, controls out of the keyboard's reach, \
             contradictory states, look-alike siblings, interactive elements that can be named \
             only by their place. Findings are grouped by rule (id, severity, standard, help), \
             each with the element's token (usable with this server's other tools), suggested \
             target, path and row; rules the read cannot judge are listed as not evaluated. \
             Findings are exit code 14, a read that was not whole 12 (never a clean result). \
             Read-only for the app; the read supersedes the window's earlier tokens.",
            READ_ONLY,
        ),
        tool::<NoArgs>(
            "doctor",
            "Diagnose the accessibility stack",
            &format!(
                "Checks why trees may be missing or tiny: {}. Read-only.",
                crate::backend::pick::DOCTOR_CHECKS
            ),
            READ_ONLY,
        ),
    ]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_an_object_schema_and_annotations() {
        let tools = all();
        assert_eq!(tools.len(), 13);
        for t in &tools {
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
            let a = t.annotations.as_ref().unwrap();
            assert!(a.read_only_hint.is_some() && a.destructive_hint.is_some());
            assert!(a.idempotent_hint.is_some(), "{}", t.name);
        }
        let set = tools.iter().find(|t| t.name == "set_value").unwrap();
        let props = set.input_schema["properties"].as_object().unwrap();
        assert!(props.contains_key("element_token") && props.contains_key("target"));
        assert_eq!(set.input_schema["required"], serde_json::json!(["value"]));
        assert_eq!(set.input_schema["additionalProperties"], false);
    }

    /// What the MCP Inspector's `--strict` reports about a schema (its rules, written again):
    /// a `type` array, a `$ref` outside the document, a bare boolean where a schema goes, a
    /// schema that constrains nothing. Paths of what it finds.
    pub(crate) fn unportable(schema: &Json) -> Vec<String> {
        const CONSTRAINING: [&str; 37] = [
            "type",
            "enum",
            "const",
            "multipleOf",
            "maximum",
            "exclusiveMaximum",
            "minimum",
            "exclusiveMinimum",
            "maxLength",
            "minLength",
            "pattern",
            "format",
            "contentMediaType",
            "contentEncoding",
            "contentSchema",
            "maxItems",
            "minItems",
            "uniqueItems",
            "maxContains",
            "minContains",
            "maxProperties",
            "minProperties",
            "required",
            "dependentRequired",
            "allOf",
            "anyOf",
            "oneOf",
            "not",
            "items",
            "prefixItems",
            "contains",
            "properties",
            "patternProperties",
            "additionalProperties",
            "unevaluatedProperties",
            "propertyNames",
            "$ref",
        ];
        fn walk(node: &Json, path: String, keyword: Option<&str>, out: &mut Vec<String>) {
            let o = match node {
                Json::Bool(_) => {
                    if !matches!(
                        keyword,
                        Some("additionalProperties" | "unevaluatedProperties")
                    ) {
                        out.push(format!("{path}: a bare boolean schema"));
                    }
                    return;
                }
                Json::Object(o) => o,
                _ => return,
            };
            if o.get("type").is_some_and(Json::is_array) {
                out.push(format!("{path}: type is an array"));
            }
            if o.get("type") == Some(&Json::from("null"))
                && keyword.is_some_and(|k| k == "properties")
            {
                out.push(format!("{path}: a property of type null"));
            }
            if o.get("$ref")
                .and_then(Json::as_str)
                .is_some_and(|r| !r.starts_with('#'))
            {
                out.push(format!("{path}: a remote $ref"));
            }
            if keyword != Some("not") && !o.keys().any(|k| CONSTRAINING.contains(&k.as_str())) {
                out.push(format!("{path}: constrains nothing"));
            }
            for map in ["properties", "patternProperties", "$defs"] {
                if let Some(Json::Object(m)) = o.get(map) {
                    for (k, v) in m {
                        walk(v, format!("{path}.{map}.{k}"), Some(map), out);
                    }
                }
            }
            for list in ["allOf", "anyOf", "oneOf", "prefixItems"] {
                if let Some(Json::Array(a)) = o.get(list) {
                    for (i, v) in a.iter().enumerate() {
                        walk(v, format!("{path}.{list}[{i}]"), Some(list), out);
                    }
                }
            }
            for one in [
                "items",
                "not",
                "additionalProperties",
                "contains",
                "propertyNames",
            ] {
                if let Some(v) = o.get(one) {
                    walk(v, format!("{path}.{one}"), Some(one), out);
                }
            }
        }
        let mut out = Vec::new();
        walk(schema, String::new(), None, &mut out);
        out
    }

    #[test]
    fn every_schema_is_portable_one_type_per_schema_and_no_null_parameter() {
        for t in all() {
            let input = Json::Object((*t.input_schema).clone());
            assert_eq!(unportable(&input), Vec::<String>::new(), "{} input", t.name);
            let text = input.to_string();
            assert!(!text.contains("\"null\""), "{}: {text}", t.name);
            let output = Json::Object((*t.output_schema.clone().unwrap()).clone());
            assert_eq!(
                unportable(&output),
                Vec::<String>::new(),
                "{} output",
                t.name
            );
            assert_eq!(output["type"], "object", "{}", t.name);
            // Both are JSON Schema draft 2020-12 a validator compiles.
            assert!(jsonschema::draft202012::new(&input).is_ok(), "{}", t.name);
            assert!(jsonschema::draft202012::new(&output).is_ok(), "{}", t.name);
        }
        // What schemars writes for an optional parameter, and for a union of real types.
        let mut s = serde_json::json!({"properties": {
            "a": {"type": ["string", "null"]},
            "b": {"type": ["integer", "null"], "minimum": 0},
            "c": {"type": ["string", "number"]}
        }});
        strict(&mut s);
        assert_eq!(s["properties"]["a"], serde_json::json!({"type": "string"}));
        assert_eq!(
            s["properties"]["b"],
            serde_json::json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            s["properties"]["c"],
            serde_json::json!({"anyOf": [{"type": "string"}, {"type": "number"}]})
        );
        // The rules find what they are for.
        let bad = serde_json::json!({"type": "object", "properties": {
            "a": {"type": ["string", "null"]}, "b": {"description": "x"}, "c": true,
            "d": {"$ref": "https://example.com/s.json"}
        }});
        assert_eq!(unportable(&bad).len(), 4, "{:?}", unportable(&bad));
    }

    #[test]
    fn schemas_have_standard_formats_and_no_null_defaults() {
        for t in all() {
            let text = serde_json::to_string(&*t.input_schema).unwrap();
            assert!(!text.contains("\"format\""), "{}: {text}", t.name);
            assert!(!text.contains("\"default\":null"), "{}: {text}", t.name);
        }
        let state = schema::<WindowStateArgs>();
        assert_eq!(state["properties"]["pid"]["minimum"], 0);
        assert_eq!(state["properties"]["pid"]["maximum"], u64::from(u32::MAX));
        assert_eq!(state["properties"]["max_nodes"]["minimum"], 0);
        assert!(state["properties"]["max_nodes"].get("maximum").is_none());
        // Kept: a standard format, and a default that is not null.
        let mut s = serde_json::json!({"properties": {
            "re": {"type": "string", "format": "regex", "default": ""},
            "n": {"type": "integer", "format": "int8", "default": null, "enum": [{"format": "x"}]}
        }});
        strict(&mut s);
        assert_eq!(s["properties"]["re"]["format"], "regex");
        assert_eq!(s["properties"]["re"]["default"], "");
        assert_eq!(
            s["properties"]["n"],
            serde_json::json!({"type": "integer", "minimum": -128, "maximum": 127,
                               "enum": [{"format": "x"}]})
        );
    }
}
