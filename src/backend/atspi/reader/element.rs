//! One element read off the bus: its fields (role, states, interfaces, name, description,
//! child count), whether it may be listed and its children list, its actions, value, text and
//! label relation.

use super::*;

/// One element as read off the bus, before layout.
#[derive(Debug, Clone)]
pub struct RawNode {
    pub obj: ObjRef,
    /// Child count as the cache or `ChildCount` gave it (−1: unknown).
    pub child_count: i32,
    pub role: Role,
    pub raw_role: String,
    pub name: String,
    pub description: String,
    pub states: States,
    pub interfaces: Interfaces,
    /// Calls the element did not answer while its app answered others, or answered in a
    /// wrong form (their fields unknown).
    pub unusable: Unusable,
}

/// Calls an element gave no usable answer to: none (while its app answered others), or one in
/// a form the call never has.
#[derive(Debug, Clone, Default)]
pub struct Unusable {
    pub silent: Vec<String>,
    pub malformed: Vec<String>,
    /// Calls that found the element gone (`UnknownObject`) after it had answered others.
    pub vanished: Vec<String>,
}

impl Unusable {
    /// Puts them on `n`, after what it has.
    pub fn onto(&self, n: &mut Node) {
        for c in &self.silent {
            if !n.unanswered.contains(c) {
                n.unanswered.push(c.clone());
            }
        }
        for c in &self.malformed {
            if !n.malformed.contains(c) {
                n.malformed.push(c.clone());
            }
        }
        for c in &self.vanished {
            if !n.vanished.contains(c) {
                n.vanished.push(c.clone());
            }
        }
    }
}

/// Reads all of one element but its children and value: role, states and interfaces (methods),
/// name, description and child count (`Properties.Get` each), concurrently. A name or
/// description that fails to read is left empty, a child count −1; the element counts as
/// unreadable only when its role, states or interfaces cannot be read.
pub async fn read_raw(c: &Caller, obj: &ObjRef, toolkit: Toolkit) -> Result<RawNode, BackendError> {
    read_raw_with(c, obj, toolkit, true).await
}

/// [`read_raw`] without the child count (−1), for reads that never list the element: a single
/// element re-read (`read_node`, every read-back sample of a write), a managed descendant.
pub async fn read_fields(
    c: &Caller,
    obj: &ObjRef,
    toolkit: Toolkit,
) -> Result<RawNode, BackendError> {
    read_raw_with(c, obj, toolkit, false).await
}

pub(super) async fn read_raw_with(
    c: &Caller,
    obj: &ObjRef,
    toolkit: Toolkit,
    with_count: bool,
) -> Result<RawNode, BackendError> {
    read_raw_kept(c, obj, toolkit, with_count, false).await
}

/// [`read_raw_with`]; with `keep_gone`, an element that answered some of its calls before it
/// was gone (`UnknownObject` on the others) is kept with what it answered, the calls that found
/// it gone in [`Unusable::vanished`]. An element that answered none is still an error.
pub(super) async fn read_raw_kept(
    c: &Caller,
    obj: &ObjRef,
    toolkit: Toolkit,
    with_count: bool,
    keep_gone: bool,
) -> Result<RawNode, BackendError> {
    let count = async {
        if with_count {
            c.child_count(obj).await
        } else {
            Ok(-1)
        }
    };
    let (role, states, ifaces, name, description, count) = tokio::join!(
        c.role(obj),
        c.state(obj),
        c.interfaces(obj),
        c.name(obj),
        c.description(obj),
        count,
    );
    let keep = keep_gone
        && (role.is_ok()
            || states.is_ok()
            || ifaces.is_ok()
            || name.is_ok()
            || description.is_ok()
            || with_count && count.is_ok());
    // A call the element alone did not answer costs its field, which is then unknown (and
    // said so), not the element.
    let mut unanswered = Unusable::default();
    let role = kept(role, "GetRole", keep, &mut unanswered)?;
    let ifaces = kept(ifaces, "GetInterfaces", keep, &mut unanswered)?;
    let states = kept(states, "GetState", keep, &mut unanswered)?;
    // The rest may also be refused alone (`field`, `optional`).
    let name = match kept(name, "Name", keep, &mut unanswered) {
        Ok(v) => v.unwrap_or_default(),
        Err(e) => field(Err(e), obj, "Name")?,
    };
    let description = match kept(description, "Description", keep, &mut unanswered) {
        Ok(v) => v.unwrap_or_default(),
        Err(e) => field(Err(e), obj, "Description")?,
    };
    let count = match kept(count, "ChildCount", keep, &mut unanswered) {
        Ok(v) => v,
        Err(e) => optional(Err(e), obj, "ChildCount")?,
    };
    let (role, raw_role) = match role {
        Some(r) => role_of(r),
        None => (Role::Unknown, "unknown".to_string()),
    };
    let interfaces = interfaces_of(&ifaces.unwrap_or_default());
    let mut states = states_of(&states.unwrap_or_default());
    normalise_states(toolkit, role, &mut states, interfaces);
    Ok(RawNode {
        obj: obj.clone(),
        child_count: count.unwrap_or(-1),
        role,
        raw_role,
        name,
        description,
        states,
        interfaces,
        unusable: unanswered,
    })
}

/// [`answered`], and with `keep`, an element found gone by `call` noted as vanished for it.
fn kept<T>(
    r: Result<T, BackendError>,
    call: &str,
    keep: bool,
    unusable: &mut Unusable,
) -> Result<Option<T>, BackendError> {
    match r {
        Err(BackendError::Vanished(_)) if keep => {
            unusable.vanished.push(call.to_string());
            Ok(None)
        }
        r => answered(r, unusable),
    }
}

/// The call an error came back from: the one it names (a wrong form, no answer, at-spi2-atk's
/// `Method "GetRole" with signature …`), else `default`.
pub fn call_named(e: &BackendError, default: &str) -> String {
    match e {
        BackendError::Silent { call, .. } | BackendError::BadReply { call, .. } => {
            return call.clone();
        }
        _ => {}
    }
    let text = e.to_string();
    text.split_once("Method \"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(m, _)| m.to_string())
        .filter(|m| !m.is_empty() && m.len() <= 64)
        .unwrap_or_else(|| default.to_string())
}

/// Why a call failed, in a few words for a list of unreadable elements.
pub fn why_short(e: &BackendError) -> String {
    match e {
        BackendError::Vanished(_) => "found no such object (it is gone)".into(),
        BackendError::NoInterface(_) => "lacks the interface".into(),
        BackendError::Silent { .. } => "did not answer (the app answers other calls)".into(),
        BackendError::BadReply { .. } => "answered in a wrong form".into(),
        e => {
            let t = e.to_string();
            let line = t.lines().next().unwrap_or_default();
            let mut short: String = line.chars().take(120).collect();
            if short.len() < line.len() {
                short.push('…');
            }
            format!("failed: {short}")
        }
    }
}

/// Notes on `unusable` that `call` gave nothing usable (no answer, a wrong form, the element
/// gone, a refusal); a timeout or the app gone is the caller's.
pub(super) fn note_unusable(
    unusable: &mut Unusable,
    default: &str,
    e: BackendError,
) -> Result<(), BackendError> {
    let call = call_named(&e, default);
    match e {
        BackendError::Timeout { .. } | BackendError::AppGone { .. } => return Err(e),
        BackendError::Silent { .. } => unusable.silent.push(call),
        BackendError::Vanished(_) => unusable.vanished.push(call),
        _ => unusable.malformed.push(call),
    }
    Ok(())
}

/// A call's answer, or `None` with the call noted in `unusable` when the element alone did not
/// answer it (`BackendError::Silent`) or answered it in a wrong form (`BadReply`); any other
/// error is the caller's.
pub fn answered<T>(
    r: Result<T, BackendError>,
    unusable: &mut Unusable,
) -> Result<Option<T>, BackendError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(BackendError::Silent { call, .. }) => {
            unusable.silent.push(call);
            Ok(None)
        }
        Err(BackendError::BadReply { call, .. }) => {
            unusable.malformed.push(call);
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// A string property that may fail alone: the toolkit refusing it leaves it empty (and is
/// logged); the element or app being gone, or a timeout, still ends the element's read.
pub(super) fn field(
    r: Result<String, BackendError>,
    obj: &ObjRef,
    what: &str,
) -> Result<String, BackendError> {
    match r {
        Ok(s) => Ok(s),
        Err(BackendError::Failed(e))
        | Err(BackendError::Unsupported(e))
        | Err(BackendError::NoInterface(e))
        | Err(BackendError::BadReply { detail: e, .. }) => {
            tracing::debug!(bus = %obj.bus, path = %obj.path, field = what, error = %e, "field unreadable");
            Ok(String::new())
        }
        Err(e) => Err(e),
    }
}

/// Whether an element may be asked for its children, by what was read of it.
pub fn listable(raw: &RawNode) -> Result<Listable<'_>, Unlisted> {
    Listable::check(
        &raw.obj,
        raw.states.has(State::ManagesDescendants),
        raw.child_count,
    )
}

/// The children of an element read whole, or `None` when they are not to be enumerated (it
/// manages its descendants or has more than `LIST_MAX`). A child count the reads did not give
/// is asked first (`ChildCount`), never guessed.
pub async fn list(c: &Caller, raw: &RawNode) -> Result<Option<Vec<ObjRef>>, BackendError> {
    Ok(list_counted(c, raw).await?.1)
}

/// [`list`], with the child count it went by (−1 when the toolkit would not say).
pub(super) async fn list_counted(
    c: &Caller,
    raw: &RawNode,
) -> Result<(i32, Option<Vec<ObjRef>>), BackendError> {
    let mut raw = std::borrow::Cow::Borrowed(raw);
    if matches!(listable(&raw), Err(Unlisted::CountUnknown)) {
        let n = optional(c.child_count(&raw.obj).await, &raw.obj, "ChildCount")?;
        let Some(n) = n else { return Ok((-1, None)) };
        raw.to_mut().child_count = n;
    }
    let manages = raw.states.has(State::ManagesDescendants);
    list_checked(c, &raw.obj, manages, raw.child_count).await
}

/// Lists `obj` when [`Listable::check`] allows (none when its count is 0), with the count.
/// An element that claims more than `LIST_MAX` children without managing its descendants is
/// asked for them one at a time, up to [`ONE_BY_ONE`]: when it runs out before that, its
/// claim was wrong and the children it gave are its children (the count it went by stays
/// the claimed one, for the caller to show both).
pub(super) async fn list_checked(
    c: &Caller,
    obj: &ObjRef,
    manages: bool,
    count: i32,
) -> Result<(i32, Option<Vec<ObjRef>>), BackendError> {
    match Listable::check(obj, manages, count) {
        Ok(_) if count == 0 => Ok((0, Some(Vec::new()))),
        Ok(l) => Ok((count, Some(c.children(&l).await?))),
        Err(Unlisted::TooMany) => match Listable::one_by_one(obj, manages) {
            Some(l) => Ok((count, children_one_by_one(c, &l).await?)),
            None => Ok((count, None)),
        },
        Err(_) => Ok((count, None)),
    }
}

/// How many children an element that claims too many is asked for, one at a time, before
/// its claim is believed.
pub const ONE_BY_ONE: i32 = 256;

/// The children `GetChildAtIndex` gives from 0 on, in growing batches (asked concurrently),
/// until the first index with none: `Some` when that came before [`ONE_BY_ONE`], `None` when
/// every index up to it had a child (the element may well have as many as it says).
async fn children_one_by_one(
    c: &Caller,
    of: &Listable<'_>,
) -> Result<Option<Vec<ObjRef>>, BackendError> {
    let mut out = Vec::new();
    let mut batch = 8;
    let mut from = 0;
    while from < ONE_BY_ONE {
        let to = (from + batch).min(ONE_BY_ONE);
        let got = futures::future::join_all((from..to).map(|i| c.child_at_index(of, i))).await;
        for g in got {
            match g {
                Ok(Some(k)) => out.push(k),
                Ok(None) => return Ok(Some(out)),
                // An index past the real children refused (`InvalidArgs`) instead of answered
                // with none: the count lied, and the list ends there.
                Err(BackendError::Failed(_)) => return Ok(Some(out)),
                Err(e) => return Err(e),
            }
        }
        from = to;
        batch *= 4;
    }
    Ok(None)
}

/// The children of an element not read yet (GTK 4's discovery): its states and child count
/// first, so it is listed only when [`listable`] allows.
pub(super) async fn discover(
    c: &Caller,
    obj: &ObjRef,
) -> Result<(i32, Option<Vec<ObjRef>>), BackendError> {
    let (states, count) = tokio::join!(c.state(obj), c.child_count(obj));
    let count = optional(count, obj, "ChildCount")?.unwrap_or(-1);
    let manages = states_of(&states?).has(State::ManagesDescendants);
    list_checked(c, obj, manages, count).await
}

/// [`optional`] for what is read of a managed element's visible part: its descendants come and
/// go as the toolkit makes them, so one gone (or refused) costs that one, not the element.
pub(super) fn soft<T>(
    r: Result<T, BackendError>,
    obj: &ObjRef,
    what: &str,
) -> Result<Option<T>, BackendError> {
    match r {
        Err(BackendError::Vanished(e)) => {
            tracing::debug!(bus = %obj.bus, path = %obj.path, field = what, error = %e, "managed part gone");
            Ok(None)
        }
        r => optional(r, obj, what),
    }
}

/// A field that may be refused alone: `Ok(None)` when the toolkit said no.
pub(super) fn optional<T>(
    r: Result<T, BackendError>,
    obj: &ObjRef,
    what: &str,
) -> Result<Option<T>, BackendError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(BackendError::Failed(e))
        | Err(BackendError::Unsupported(e))
        | Err(BackendError::NoInterface(e))
        | Err(BackendError::BadReply { detail: e, .. }) => {
            tracing::debug!(bus = %obj.bus, path = %obj.path, field = what, error = %e, "field unreadable");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Action names for programs (`GetName(i)`; never the localized `GetActions` names, which some
/// bridges fill with `;;` or nothing), and the localized ones for display when `labels`.
pub async fn read_actions(
    c: &Caller,
    obj: &ObjRef,
    labels: bool,
) -> Result<(Vec<String>, Vec<String>), BackendError> {
    let n = match optional(c.n_actions(obj).await, obj, "NActions")? {
        Some(n) => n.clamp(0, 64),
        None => return Ok((Vec::new(), Vec::new())),
    };
    let names = futures::future::join_all((0..n).map(|i| c.action_name(obj, i))).await;
    let mut out = Vec::with_capacity(n as usize);
    for (i, r) in names.into_iter().enumerate() {
        out.push(optional(r, obj, "Action.GetName")?.unwrap_or_else(|| format!("action {i}")));
    }
    let shown = if labels {
        optional(c.action_list(obj).await, obj, "Action.GetActions")?
            .map(|l| l.into_iter().map(|(name, _, _)| name).collect::<Vec<_>>())
            .filter(|l| l.len() == out.len() && *l != out)
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    Ok((out, shown))
}

/// Whether the model shows a value for this element: text fields, numbers, toggles, choices.
/// Labels, headings and containers carry their text in their name (or children).
pub fn has_value(role: Role, states: States, interfaces: Interfaces) -> bool {
    role.is_toggle()
        || role.is_choice()
        || (role.is_numeric() || role == Role::ProgressBar) && interfaces.has(Interface::Value)
        || role.is_text() && interfaces.has(Interface::Text)
        || states.has(State::Editable) && interfaces.has(Interface::EditableText)
}

/// The current value of a value-bearing element (see [`has_value`]); `None` for others. A
/// number whose current value cannot be read has no value; a bound that cannot be read is
/// `None` in the value (Chromium cannot read some sliders' minimum).
pub async fn get_value(
    c: &Caller,
    raw: &RawNode,
    toolkit: Toolkit,
    known: Option<&Known>,
) -> Result<Option<Value>, BackendError> {
    let (obj, role, states, interfaces) = (&raw.obj, raw.role, raw.states, raw.interfaces);
    if !has_value(role, states, interfaces) {
        return Ok(None);
    }
    if role.is_toggle() {
        let state = if states.has(State::Indeterminate) {
            Toggle::Mixed
        } else if states.has(State::Checked) || states.has(State::Pressed) {
            Toggle::On
        } else {
            Toggle::Off
        };
        return Ok(Some(Value::Toggle { state }));
    }
    // Elements that list an interface they then say they lack: their twins are not asked.
    let lacks = |iface: &str| c.lacks(&obj.bus, iface, &raw.raw_role);
    if (role.is_numeric() || role == Role::ProgressBar)
        && interfaces.has(Interface::Value)
        && !lacks("Value")
    {
        let cur = c.note_lacking(
            c.value(obj, ValueProp::Current).await,
            &obj.bus,
            "Value",
            &raw.raw_role,
        );
        let Some(current) = optional(cur, obj, "CurrentValue")? else {
            return Ok(None);
        };
        let (min, max, step) = tokio::join!(
            c.value(obj, ValueProp::Minimum),
            c.value(obj, ValueProp::Maximum),
            c.value(obj, ValueProp::Increment),
        );
        return Ok(Some(Value::Number {
            current,
            min: optional(min, obj, "MinimumValue")?,
            max: optional(max, obj, "MaximumValue")?,
            step: optional(step, obj, "MinimumIncrement")?,
        }));
    }
    if role.is_choice() {
        let selected = match selected_label(c, raw, known).await {
            Ok(s) => s,
            Err(e @ (BackendError::AppGone { .. } | BackendError::Timeout { .. })) => {
                return Err(e);
            }
            Err(_) => None,
        };
        // Where the selection cannot be read, Qt and GTK 3 name a combo after its current
        // text; GTK 4.8 names it after its class ("GtkComboBox") and Chromium after its label,
        // so there the value stays unknown rather than wrong.
        let named_after_value = toolkit.is_qt() || toolkit == Toolkit::Gtk3;
        let selected = selected
            .or_else(|| (named_after_value && !raw.name.is_empty()).then(|| raw.name.clone()));
        return Ok(match selected {
            Some(s) => Some(Value::Choice {
                selected: Some(s.into()),
            }),
            None if named_after_value => Some(Value::Choice { selected: None }),
            None => None,
        });
    }
    if interfaces.has(Interface::Text) && !lacks("Text") {
        let text = c.note_lacking(
            get_text(c, obj, toolkit).await,
            &obj.bus,
            "Text",
            &raw.raw_role,
        );
        let Some(mut text) = optional(text, obj, "Text")? else {
            return Ok(None);
        };
        // Qt hides a password's text entirely (an empty string) but counts its characters:
        // a mask of that length says what can be known.
        if text.is_empty()
            && role == Role::PasswordText
            && let Some(n) = optional(c.character_count(obj).await, obj, "CharacterCount")?
        {
            text = "●".repeat(n.clamp(0, 1 << 20) as usize);
        }
        return Ok(Some(Value::Text { text: text.into() }));
    }
    Ok(None)
}

/// Whole text of a Text element: `GetText(0, -1)` in one call; GTK 4 answers "" to that, so
/// there an empty answer is checked against `CharacterCount`.
pub async fn get_text(c: &Caller, obj: &ObjRef, toolkit: Toolkit) -> Result<String, BackendError> {
    let all = c.text(obj, 0, -1).await?;
    if !all.is_empty() || toolkit != Toolkit::Gtk4 {
        return Ok(all);
    }
    let count = c.character_count(obj).await?;
    if count <= 0 {
        return Ok(String::new());
    }
    c.text(obj, 0, count).await
}

/// Roles and names already read in this snapshot, so value and label reads can skip calls.
pub type Known = HashMap<ObjRef, (Role, String)>;

/// The label of a combo box's selected option: the combo's selected child, or (GTK 3) the
/// selected child of the menu the combo selects.
pub(super) async fn selected_label(
    c: &Caller,
    raw: &RawNode,
    known: Option<&Known>,
) -> Result<Option<String>, BackendError> {
    let combo = &raw.obj;
    let mut holder = combo.clone();
    for _ in 0..2 {
        let sel = c.selected_child(&holder, 0).await.ok().flatten();
        let Some(sel) = sel else {
            // No selection on this level: GTK 3 keeps it on the combo's only (menu) child.
            if holder != *combo {
                return Ok(None);
            }
            match list(c, raw).await?.unwrap_or_default().as_slice() {
                [menu] => {
                    holder = menu.clone();
                    continue;
                }
                _ => return Ok(None),
            }
        };
        let (role, name) = match known.and_then(|k| k.get(&sel)) {
            Some((r, n)) => (*r, Some(n.clone())),
            None => (role_of(c.role(&sel).await?).0, None),
        };
        if role == Role::Menu {
            holder = sel;
            continue;
        }
        return Ok(Some(match name {
            Some(n) => n,
            None => c.name(&sel).await?,
        }));
    }
    Ok(None)
}

/// The names of the elements that label `obj` (`labelled-by`), joined with a space.
pub async fn read_label(
    c: &Caller,
    obj: &ObjRef,
    known: Option<&Known>,
) -> Result<Option<String>, BackendError> {
    let Some(rels) = optional(c.relations(obj).await, obj, "GetRelationSet")? else {
        return Ok(None);
    };
    let targets: Vec<ObjRef> = rels
        .into_iter()
        .filter(|(kind, _)| *kind == RELATION_LABELLED_BY)
        .flat_map(|(_, t)| t)
        .filter(|t| t != obj)
        .take(4)
        .collect();
    if targets.is_empty() {
        return Ok(None);
    }
    let mut names = Vec::with_capacity(targets.len());
    for t in &targets {
        let mut name = match known.and_then(|k| k.get(t)) {
            Some((_, n)) => n.clone(),
            None => match c.name(t).await {
                Ok(n) => n,
                Err(e @ (BackendError::AppGone { .. } | BackendError::Timeout { .. })) => {
                    return Err(e);
                }
                Err(_) => String::new(),
            },
        };
        // A browser's <label> has no name of its own: its text is what labels the field (as
        // libatspi's clients read it).
        if name.trim().is_empty() {
            match c.text(t, 0, -1).await {
                Ok(text) => name = text.replace(crate::model::display::EMBEDDED_OBJECT, " "),
                Err(e @ (BackendError::AppGone { .. } | BackendError::Timeout { .. })) => {
                    return Err(e);
                }
                Err(_) => {}
            }
        }
        if !name.trim().is_empty() {
            names.push(name.trim().to_string());
        }
    }
    Ok((!names.is_empty()).then(|| names.join(" ")))
}

/// Turns a raw node into a model node (children are filled by layout).
pub(super) fn to_node(raw: &RawNode) -> Node {
    let mut n = Node::new(raw.obj.id(), raw.role, raw.raw_role.clone());
    n.name = raw.name.as_str().into();
    n.description = raw.description.as_str().into();
    n.states = raw.states;
    n.interfaces = raw.interfaces;
    raw.unusable.onto(&mut n);
    n
}
