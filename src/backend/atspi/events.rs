//! The events treeglass registers for, and the pump that turns the bus's signals into
//! [`Event`]s and notices apps leaving the bus.

use super::*;

/// Event kinds treeglass asks applications to send (registering only these keeps the noisy
/// bounds-changed stream away).
pub(super) const EVENTS: &[&str] = &[
    "object:children-changed",
    "object:property-change",
    "object:state-changed",
    "object:text-changed",
    "object:selection-changed",
    "focus:",
    "window:create",
    "window:destroy",
];

/// Drains every AT-SPI signal into the broadcast channel. An undrained stream would block
/// every other call on the connection, so this runs for the backend's whole life. It also
/// watches the bus daemon's `NameOwnerChanged`: an app whose name loses its owner has exited or
/// dropped its accessibility connection, and every later call to it says so.
pub(super) async fn pump_events(
    conn: zbus::Connection,
    tx: broadcast::Sender<Event>,
    gone: GoneApps,
) {
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .build()
        .to_owned();
    let mut stream = match zbus::MessageStream::for_match_rule(rule, &conn, Some(1024)).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "cannot listen to accessibility events");
            return;
        }
    };
    while let Some(msg) = stream.next().await {
        let Ok(msg) = msg else { continue };
        if let Some(bus) = lost_name(&msg) {
            tracing::info!(bus = %bus, "application left the accessibility bus");
            gone.lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(bus.clone());
            let _ = tx.send(Event {
                kind: EventKind::AppRemoved,
                source: ObjRef::new(bus.clone(), ROOT_PATH).id(),
                app: bus,
                detail: AppText::default(),
                at: Some(Instant::now()),
            });
            continue;
        }
        if let Some(ev) = convert_event(&msg) {
            let _ = tx.send(ev);
        }
    }
}

/// The unique bus name a `NameOwnerChanged` signal says has lost its owner.
pub(super) fn lost_name(msg: &zbus::Message) -> Option<String> {
    let h = msg.header();
    if h.interface()?.as_str() != "org.freedesktop.DBus"
        || h.member()?.as_str() != "NameOwnerChanged"
    {
        return None;
    }
    let (name, _old, new): (String, String, String) = msg.body().deserialize().ok()?;
    (name.starts_with(':') && new.is_empty()).then_some(name)
}

pub(super) fn convert_event(msg: &zbus::Message) -> Option<Event> {
    let h = msg.header();
    let iface = h.interface()?.as_str().to_string();
    let member = h.member()?.as_str().to_string();
    let sender = h.sender()?.as_str().to_string();
    let path = h.path()?.as_str().to_string();
    if !iface.starts_with("org.a11y.atspi.Event.") {
        return None;
    }
    let body = msg.body();
    // (detail, detail1, the text of any_data when it holds one: a property's new value).
    let (detail, d1, any): (String, i32, Option<String>) =
        match body.deserialize::<zbus::zvariant::Structure<'_>>() {
            Ok(s) => {
                let f = s.fields();
                let detail = f
                    .first()
                    .and_then(|v| <&str>::try_from(v).ok())
                    .unwrap_or("")
                    .to_string();
                let d1 = f.get(1).and_then(|v| i32::try_from(v).ok()).unwrap_or(0);
                let any = f.get(3).and_then(|v| match v {
                    zbus::zvariant::Value::Value(inner) => <&str>::try_from(&**inner).ok(),
                    other => <&str>::try_from(other).ok(),
                });
                (detail, d1, any.map(str::to_string))
            }
            Err(_) => (String::new(), 0, None),
        };
    let kind = match (iface.rsplit('.').next().unwrap_or(""), member.as_str()) {
        ("Object", "ChildrenChanged") if detail.starts_with("add") => {
            EventKind::ChildAdded { index: d1 }
        }
        ("Object", "ChildrenChanged") => EventKind::ChildRemoved { index: d1 },
        ("Object", "PropertyChange") => match detail.as_str() {
            "accessible-name" => EventKind::NameChanged,
            "accessible-description" => EventKind::DescriptionChanged,
            "accessible-value" => EventKind::ValueChanged,
            other => EventKind::Other {
                name: format!("property-change:{other}").into(),
            },
        },
        ("Object", "StateChanged") => EventKind::StateChanged {
            state: detail.as_str().into(),
            on: d1 != 0,
        },
        ("Object", "TextChanged") => EventKind::TextChanged,
        ("Object", "SelectionChanged") => EventKind::SelectionChanged,
        ("Focus", "Focus") => EventKind::Focus,
        ("Window", "Create") => EventKind::WindowOpened,
        ("Window", "Destroy") => EventKind::WindowClosed,
        (_, m) => EventKind::Other { name: m.into() },
    };
    // A name or description that changed is told by its new text (as the fixture backend
    // tells it), not by the property's name; empty when the app sent none.
    let detail = match kind {
        EventKind::NameChanged | EventKind::DescriptionChanged => any.unwrap_or_default(),
        _ => detail,
    };
    let obj = ObjRef::new(sender.clone(), path);
    Some(Event {
        kind,
        source: obj.id(),
        app: sender,
        detail: detail.into(),
        at: Some(Instant::now()),
    })
}
