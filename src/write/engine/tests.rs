//! The engine against a scripted element: what it sends, in which order, and what it stops at.
#![allow(clippy::unwrap_used)]

use std::sync::Mutex;

use async_trait::async_trait;
use tokio::sync::broadcast;

use super::*;
use crate::backend::strategy::{Planner, toggle_budget};
use crate::backend::{AppInfo, Event, Limits, WriteAck};
use crate::model::{Interface, Requested, Snapshot, State, Toggle, Toolkit};

/// The planner these tests write with, so that they test the engine alone (each backend's
/// planner has its own tests): text by the element's whole-text call where it has one, which
/// a browser is taken to ignore (marked known-ignored, typing planned after it); typing where
/// the element only shows text; a toggle by its first action, pressed until the state shows.
#[derive(Debug)]
struct Ways;

static WAYS: Ways = Ways;

impl Planner for Ways {
    fn method(&self, op: &WriteOp) -> AppText {
        format!("{op:?}").into()
    }

    fn plan(&self, ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String> {
        let plan = |path, ops: Vec<WriteOp>, max_sends, known_ignored| Plan {
            path,
            method: format!("{ops:?}").into(),
            ops: ops.into_iter().map(|op| (Dest::Element, op)).collect(),
            max_sends,
            reason: "the tests' planner".into(),
            known_ignored,
        };
        let typing = |t: &str| {
            let ops = vec![WriteOp::Focus, WriteOp::TypeText(t.into())];
            plan(Path::Keyboard, ops, 1, false)
        };
        let node = ctx.node;
        match req {
            Requested::Text(t) if node.interfaces.has(Interface::EditableText) => {
                let browser = ctx.toolkit.is_some_and(Toolkit::is_browser);
                let set = vec![WriteOp::SetText(t.clone())];
                let mut plans = vec![plan(Path::Semantic, set, 1, browser)];
                if browser {
                    plans.push(typing(t));
                }
                Ok(plans)
            }
            Requested::Text(t) => Ok(vec![typing(t)]),
            Requested::Toggle(_) => {
                let action = node.actions.first().ok_or("no action")?;
                let current = match node.value {
                    Some(Value::Toggle { state }) => Some(state),
                    _ => None,
                };
                let ops = vec![WriteOp::Action(action.clone())];
                let budget = toggle_budget(node.role, current);
                Ok(vec![plan(Path::Semantic, ops, budget, false)])
            }
            _ => Err("not planned in these tests".into()),
        }
    }
}

type Script = fn(&WriteOp, &mut Node) -> WriteAck;

struct Scripted {
    node: Mutex<Node>,
    sent: Mutex<Vec<WriteOp>>,
    /// Reads since the first write, and what the element does at each.
    reads: std::sync::atomic::AtomicUsize,
    on_read: Option<fn(usize, &mut Node)>,
    script: Script,
    toolkit: Toolkit,
    events: broadcast::Sender<Event>,
}

impl Scripted {
    fn new(node: Node, toolkit: Toolkit, script: Script) -> Scripted {
        Scripted {
            node: Mutex::new(node),
            sent: Mutex::new(Vec::new()),
            reads: Default::default(),
            on_read: None,
            script,
            toolkit,
            events: broadcast::channel(16).0,
        }
    }
    fn sent(&self) -> Vec<WriteOp> {
        self.sent.lock().unwrap().clone()
    }
}

#[async_trait]
impl Backend for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }
    fn planner(&self) -> &'static dyn Planner {
        &WAYS
    }
    fn input(&self) -> crate::backend::strategy::InputPaths {
        crate::backend::strategy::InputPaths::both("scripted keys and clicks")
    }
    async fn toolkit(&self, _id: &NodeId) -> Option<Toolkit> {
        Some(self.toolkit)
    }
    async fn apps(&self) -> Result<Vec<AppInfo>, BackendError> {
        Ok(Vec::new())
    }
    async fn snapshot(&self, _: &NodeId, _: &Limits) -> Result<Snapshot, BackendError> {
        Err(BackendError::Unsupported("no trees here".into()))
    }
    async fn read_node(&self, _: &NodeId) -> Result<Node, BackendError> {
        let mut n = self.node.lock().unwrap();
        if !self.sent.lock().unwrap().is_empty() {
            let i = self
                .reads
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if let Some(f) = self.on_read {
                f(i + 1, &mut n);
            }
        }
        Ok(n.clone())
    }
    async fn children(&self, _: &NodeId) -> Result<Vec<Node>, BackendError> {
        Ok(Vec::new())
    }
    async fn write(&self, _: &NodeId, op: &WriteOp) -> WriteAck {
        self.sent.lock().unwrap().push(op.clone());
        (self.script)(op, &mut self.node.lock().unwrap())
    }
    fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }
}

fn text_field(ifaces: &[Interface]) -> Node {
    let mut n = Node::new(NodeId("t".into()), Role::Text, "entry");
    n.interfaces = ifaces.iter().copied().collect();
    n.states = [State::Enabled, State::Sensitive, State::Editable]
        .into_iter()
        .collect();
    n.value = Some(Value::Text { text: "old".into() });
    n
}

fn quick() -> WriteOptions {
    WriteOptions {
        timeout: Duration::from_millis(150),
        settle: Duration::from_millis(20),
        poll: Duration::from_millis(5),
        watch: Duration::ZERO,
        force: false,
    }
}

fn set(n: &mut Node, text: &str) {
    n.value = Some(Value::Text { text: text.into() });
}

const EDITABLE: &[Interface] = &[Interface::Text, Interface::EditableText];

#[tokio::test(start_paused = true)]
async fn no_answer_is_unconfirmed_and_no_second_write_follows() {
    // A browser: the semantic call, then typing. The first never answers.
    let b = Scripted::new(text_field(EDITABLE), Toolkit::Chromium, |op, _| match op {
        WriteOp::SetText(_) => Err(BackendError::Timeout {
            what: "the text call".into(),
            ms: 1500,
        }),
        _ => Ok(true),
    });
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Unconfirmed, "{}", r.reason);
    assert_eq!(b.sent(), [WriteOp::SetText("new".into())]);
}

#[tokio::test(start_paused = true)]
async fn a_call_known_to_be_ignored_that_changed_nothing_lets_the_next_strategy_run() {
    let b = Scripted::new(text_field(EDITABLE), Toolkit::Chromium, |op, n| {
        if let WriteOp::TypeText(t) = op {
            set(n, t);
        }
        Ok(true)
    });
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.reason);
    assert_eq!(r.path, Some(Path::Keyboard));
    let sent = b.sent();
    assert_eq!(sent[0], WriteOp::SetText("new".into()));
    assert_eq!(sent.last(), Some(&WriteOp::TypeText("new".into())));
}

#[tokio::test(start_paused = true)]
async fn typing_cut_short_is_unconfirmed_even_when_the_text_reads_back_right() {
    // The desktop's input server went away part way: whatever the field shows, the write
    // was not done as sent, and no verdict says it was (nor that nothing was sent).
    let b = Scripted::new(text_field(EDITABLE), Toolkit::Chromium, |op, n| match op {
        WriteOp::TypeText(t) => {
            set(n, t);
            Err(BackendError::InputCut(
                "Mutter's EIS: the EIS server closed the connection".into(),
            ))
        }
        _ => Ok(true),
    });
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Unconfirmed, "{}", r.reason);
    assert!(r.reason.contains("cut short"), "{}", r.reason);
    assert!(!r.reason.contains("nothing was sent"), "{}", r.reason);
    assert_eq!(b.sent().last(), Some(&WriteOp::TypeText("new".into())));
}

#[tokio::test(start_paused = true)]
async fn a_call_not_known_to_be_ignored_is_never_followed_by_another_write() {
    // GTK: the text call says yes and (this time) does nothing. It may still land, so
    // nothing else is sent and the verdict says so.
    let b = Scripted::new(text_field(EDITABLE), Toolkit::Gtk3, |_, _| Ok(true));
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Unconfirmed, "{}", r.reason);
    assert_eq!(b.sent(), [WriteOp::SetText("new".into())]);
}

#[tokio::test(start_paused = true)]
async fn an_app_gone_before_delivery_is_refused_after_it_unconfirmed() {
    let b = Scripted::new(text_field(EDITABLE), Toolkit::Gtk3, |_, _| {
        Err(BackendError::AppGone {
            app: ":1.9".into(),
            delivered: false,
        })
    });
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Refused, "{}", r.reason);
    assert!(!r.dispatched);
    let b = Scripted::new(text_field(EDITABLE), Toolkit::Gtk3, |_, _| {
        Err(BackendError::AppGone {
            app: ":1.9".into(),
            delivered: true,
        })
    });
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Unconfirmed, "{}", r.reason);
    assert!(r.dispatched);
    assert!(r.reason.contains("may have landed"), "{}", r.reason);
}

#[tokio::test(start_paused = true)]
async fn a_tri_state_check_box_is_pressed_until_it_shows_the_state() {
    // Qt's tri-state cycle: mixed → on → off.
    let mut n = Node::new(NodeId("c".into()), Role::CheckBox, "tri-state");
    n.interfaces = [Interface::Action].into_iter().collect();
    n.actions = vec!["Toggle".into()];
    n.states = [State::Enabled, State::Sensitive, State::Indeterminate]
        .into_iter()
        .collect();
    n.value = Some(Value::Toggle {
        state: Toggle::Mixed,
    });
    let b = Scripted::new(n, Toolkit::Qt5, |_, n| {
        let next = match n.value {
            Some(Value::Toggle {
                state: Toggle::Mixed,
            }) => Toggle::On,
            Some(Value::Toggle { state: Toggle::On }) => Toggle::Off,
            _ => Toggle::Mixed,
        };
        n.states.set(State::Indeterminate, next == Toggle::Mixed);
        n.states.set(State::Checked, next == Toggle::On);
        n.value = Some(Value::Toggle { state: next });
        Ok(true)
    });
    let r = set_value(
        &b,
        &NodeId("c".into()),
        &Placement::default(),
        "false",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Verified, "{} {:?}", r.reason, r.samples);
    assert_eq!(b.sent().len(), 2, "two presses: mixed → on → off");
}

#[tokio::test(start_paused = true)]
async fn a_late_revert_within_the_watch_window_turns_the_verdict() {
    let mut b = Scripted::new(text_field(EDITABLE), Toolkit::Gtk3, |op, n| {
        if let WriteOp::SetText(t) = op {
            set(n, t);
        }
        Ok(true)
    });
    // Settling takes at most settle / poll + 1 = 5 reads (each is followed by a poll's
    // sleep); the old value comes back at the 10th, which only the watch can see.
    b.on_read = Some(|i, n| {
        if i == 10 {
            set(n, "old");
        }
    });
    let opts = WriteOptions {
        watch: Duration::from_secs(5),
        ..quick()
    };
    let r = set_value(&b, &NodeId("t".into()), &Placement::default(), "new", &opts).await;
    assert_eq!(r.outcome, Outcome::Mismatch, "{}", r.reason);
    assert_eq!(r.mismatch, Some(MismatchKind::Reverted));
    let late = r.changed_after.expect("seen after the verdict");
    assert_eq!(late.value, "\"old\"");
    assert_eq!(r.observed.as_deref(), Some("\"old\""));
}

#[tokio::test(start_paused = true)]
async fn typed_text_still_arriving_is_waited_for() {
    // A busy app takes the keys one by one: "ne" holds for longer than the settle window
    // before the last key lands. The keyboard path waits for the rest (to the timeout).
    let mut b = Scripted::new(text_field(&[Interface::Text]), Toolkit::Gtk3, |op, n| {
        if let WriteOp::TypeText(t) = op {
            set(n, &t[..2]);
        }
        Ok(true)
    });
    b.on_read = Some(|i, n| {
        if i == 12 {
            set(n, "new");
        }
    });
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.path, Some(Path::Keyboard));
    assert_eq!(
        r.outcome,
        Outcome::Verified,
        "{}: {:?}",
        r.reason,
        r.samples
    );

    // Text that stops short for good is still a partial write, at the timeout.
    let b = Scripted::new(text_field(&[Interface::Text]), Toolkit::Gtk3, |op, n| {
        if let WriteOp::TypeText(t) = op {
            set(n, &t[..2]);
        }
        Ok(true)
    });
    let r = set_value(
        &b,
        &NodeId("t".into()),
        &Placement::default(),
        "new",
        &quick(),
    )
    .await;
    assert_eq!(r.outcome, Outcome::Mismatch, "{}", r.reason);
    assert_eq!(r.mismatch, Some(MismatchKind::Partial));
}
