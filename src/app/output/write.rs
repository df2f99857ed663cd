//! A write's verdict as JSON and as text, with the app's echoes capped.

use super::*;

/// `set --json` / `invoke --json` of a result whose echoes are capped ([`cap_echoes`]).
pub fn write_json(r: &WriteResult) -> Json {
    serde_json::to_value(r).unwrap_or_default()
}

/// Cuts every echoed value of `r` to [`ECHO_CHARS`] characters.
pub fn cap_echoes(r: &mut WriteResult) {
    cap(&mut r.requested);
    for v in [&mut r.before, &mut r.observed].into_iter().flatten() {
        cap(v);
    }
    for s in &mut r.samples {
        cap(&mut s.value);
    }
}

/// Human form of a write result: before → dispatched → samples → verdict. The method and the
/// toolkit's answers came from the app and are escaped here; the echoed values were escaped
/// by the write engine.
pub fn write_text(r: &WriteResult) -> String {
    let mut out = String::new();
    // The element written, by its own role and name; the target as typed after it (a target
    // can be a substring of the name).
    let what = match (&r.target, &r.token) {
        (Some(t), Some(k)) => {
            let named = if r.name.is_empty() {
                r.role.to_string()
            } else {
                format!("{} {}", r.role, r.name.quoted(80))
            };
            format!("{named}  ({k}; target {})", sanitize(t, 0))
        }
        (Some(t), None) => sanitize(t, 0).into_owned(),
        _ => literal(&r.node.0, 0).into_owned(),
    };
    out.push_str(&format!("element:    {what}\n"));
    out.push_str(&format!(
        "requested:  {}\n",
        sanitize(&r.requested, ECHO_CHARS)
    ));
    if let Some(b) = &r.before {
        out.push_str(&format!("before:     {}\n", sanitize(b, ECHO_CHARS)));
    }
    if r.dispatched {
        out.push_str(&format!(
            "dispatched: {} [{} path] ({} ms){}\n",
            r.method.as_ref().map_or("?".into(), |m| m.literal(120)),
            r.path.map_or("?", |p| p.as_str()),
            r.timings.dispatch_ms,
            if r.acks.is_empty() {
                String::new()
            } else {
                format!(
                    "  toolkit said: {}",
                    r.acks
                        .iter()
                        .map(|a| a.literal(200))
                        .collect::<Vec<_>>()
                        .join("; ")
                )
            }
        ));
    } else {
        out.push_str("dispatched: nothing was sent\n");
    }
    for s in &r.samples {
        out.push_str(&format!(
            "  +{:>7.1} ms  {}\n",
            s.at_ms,
            sanitize(&s.value, ECHO_CHARS)
        ));
    }
    if !r.events.is_empty() {
        out.push_str(&format!(
            "events:     {}\n",
            r.events
                .iter()
                .map(|e| sanitize(e, 120))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(o) = &r.observed {
        out.push_str(&format!("observed:   {}\n", sanitize(o, ECHO_CHARS)));
    }
    let kind = r
        .mismatch
        .map(|k| format!(" ({})", k.as_str()))
        .unwrap_or_default();
    // A reason may span lines (a refusal lists candidates): each line is sanitized on its own
    // and indented under the first, as `find` prints the same list.
    let reason = r
        .reason
        .lines()
        .take(REASON_LINES)
        .map(|l| sanitize(l, 300).into_owned())
        .collect::<Vec<_>>()
        .join("\n            ");
    out.push_str(&format!(
        "verdict:    {}{kind} — {reason}\n            {}\n",
        r.outcome.as_str(),
        r.advice
    ));
    out
}

/// The most lines of a write's reason printed (a refusal's candidate list is capped before).
const REASON_LINES: usize = 16;
