//! The planner of elements that say what they take by interfaces and action names, in the
//! model's vocabulary (`EditableText`, `Text`, `Value`, `Selection`, `Action`, `Component`):
//! the AT-SPI backend's apps and the demo app describe theirs so. From the element, where it
//! sits (web content or not) and the requested value, [`ByInterfaces`] returns the strategies
//! to try in order, each a list of primitive [`WriteOp`]s with the path they take (semantic
//! call, keyboard, pointer) and why. A platform plugs in its toolkits' rules ([`Toolkits`]:
//! the calls a toolkit answers and ignores, a toolkit's own way to choose an option) and how
//! its results name an op; the write engine carries a plan out and verifies it by reading
//! back.

use super::{
    Context, Dest, EXPAND_ACTIONS, Path, Plan, Planner, SELECT_ACTIONS, TOGGLE_ACTIONS,
    pick_action, toggle_budget,
};
use crate::backend::{Key, WriteOp};
use crate::model::{AppText, Interface, Requested, State};

/// A platform's toolkit rules, which [`ByInterfaces`] asks where toolkits differ. Without
/// any ([`NO_RULES`]), every toolkit is taken to do what its interfaces say.
pub trait Toolkits: Sync + std::fmt::Debug {
    /// Whether the element's toolkit is known to answer `op` on it and change nothing: only
    /// then may another way follow the call, once a read-back shows nothing changed.
    fn ignores(&self, _ctx: &Context<'_>, _op: &WriteOp) -> bool {
        false
    }

    /// The toolkit's own way to choose option `i` of a choice element, where it has one (it
    /// takes the place of every other).
    fn option(&self, _ctx: &Context<'_>, _i: usize) -> Option<Result<Vec<Plan>, String>> {
        None
    }

    /// Whether the list holding the options (when it has Selection) comes before the
    /// option's own action.
    fn option_list_first(&self, _ctx: &Context<'_>) -> bool {
        false
    }
}

/// No toolkit rules: every element takes what its interfaces say.
#[derive(Debug)]
pub struct NoRules;

impl Toolkits for NoRules {}

/// The toolkit rules of a platform that has none.
pub static NO_RULES: NoRules = NoRules;

/// How results name the ops that call nothing on the element, whatever the platform behind
/// the planner by interfaces: the synthesized keys and clicks, and the waits; `None` for a
/// call, which each platform names.
pub fn input_name(op: &WriteOp) -> Option<AppText> {
    Some(AppText::from(match op {
        WriteOp::TypeText(_) => "keyboard (typed text)".to_string(),
        WriteOp::Key(k) => format!("keyboard {}", k.name()),
        WriteOp::Click => "pointer click at the centre".into(),
        WriteOp::ActivateWindow(_) => "raise and focus the window".into(),
        WriteOp::AwaitFocus => "wait for the keyboard focus".into(),
        WriteOp::AwaitMenuKeyboard => "wait for the menu to hold the keyboard".into(),
        WriteOp::SetText(_)
        | WriteOp::SetNumber(_)
        | WriteOp::StepTo(_)
        | WriteOp::Action(_)
        | WriteOp::SelectChild(_)
        | WriteOp::Focus
        | WriteOp::SelectAllText => return None,
    }))
}

/// The planner by interfaces, with a platform's toolkit rules and names.
#[derive(Debug)]
pub struct ByInterfaces {
    /// How a result names one op sent.
    pub name: fn(&WriteOp) -> AppText,
    pub toolkits: &'static dyn Toolkits,
}

impl Planner for ByInterfaces {
    fn method(&self, op: &WriteOp) -> AppText {
        (self.name)(op)
    }

    /// The strategies for writing `req` into the element, in the order to try them; `Err`
    /// with what is missing when there is none. Refusals of the request itself (disabled,
    /// read-only, wrong kind) are the rules' business and come first.
    fn plan(&self, ctx: &Context<'_>, req: &Requested) -> Result<Vec<Plan>, String> {
        match req {
            Requested::Text(t) => self.plan_text(ctx, t),
            Requested::Number(v) => self.plan_number(ctx, *v),
            Requested::Toggle(want) => self.plan_toggle(ctx, *want),
            Requested::Option(_) => self.plan_option(ctx),
            Requested::Select(_) => self.plan_select(ctx),
            Requested::Expand(want) => self.plan_expand(ctx, *want),
        }
    }
}

/// What follows the text typed into a field ([`Context::typing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterTyping {
    Nothing,
    /// Return commits it (a Qt spin box takes a typed number only then).
    Return,
}

impl Context<'_> {
    fn has(&self, i: Interface) -> bool {
        self.node.interfaces.has(i)
    }

    pub(crate) fn action(&self, prefs: &[&str]) -> Option<AppText> {
        pick_action(&self.node.actions, prefs).cloned()
    }

    /// Synthesized keys (after raising the window) can be sent here, or why not.
    pub(crate) fn keyboard(&self) -> Result<(), String> {
        self.input
            .keyboard
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    /// Synthesized clicks can be sent here, or why not.
    fn pointer(&self) -> Result<(), String> {
        self.input
            .pointer
            .as_ref()
            .map(|_| ())
            .map_err(Clone::clone)
    }

    /// Focus the element for typing: raise its window, give it keyboard focus.
    fn focus_ops(&self) -> Vec<(Dest, WriteOp)> {
        vec![
            (Dest::Element, WriteOp::ActivateWindow(self.window.clone())),
            (Dest::Element, WriteOp::Focus),
        ]
    }

    /// Focus, select all, type `text` (an empty text: delete the selection). Line breaks are
    /// Return presses, so only a multi-line field takes them (in a single-line one Return
    /// would activate the form); a tab would move the focus away, so none is typed.
    fn typing(
        &self,
        text: &str,
        then: AfterTyping,
        reason: impl Into<String>,
    ) -> Result<Plan, String> {
        self.keyboard()
            .map_err(|why| format!("it can only be typed into, and {why}"))?;
        if text.contains('\t') {
            return Err(
                "a tab cannot be typed into the field (the key moves the focus away)".into(),
            );
        }
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        if text.contains('\n') && !self.node.states.has(State::MultiLine) {
            return Err(
                "a single-line field cannot hold a line break (typing Return would \
                        activate the form)"
                    .into(),
            );
        }
        let mut ops = self.focus_ops();
        if self.has(Interface::Text) {
            ops.push((Dest::Element, WriteOp::SelectAllText));
        }
        if text.is_empty() {
            ops.push((Dest::Element, WriteOp::Key(Key::BackSpace)));
        }
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                ops.push((Dest::Element, WriteOp::Key(Key::Return)));
            }
            if !line.is_empty() {
                ops.push((Dest::Element, WriteOp::TypeText(line.to_string())));
            }
        }
        if then == AfterTyping::Return {
            ops.push((Dest::Element, WriteOp::Key(Key::Return)));
        }
        Ok(Plan {
            path: Path::Keyboard,
            ops,
            max_sends: 1,
            method: if then == AfterTyping::Return {
                "keyboard (focus, select all, type, Return)".into()
            } else {
                "keyboard (focus, select all, type)".into()
            },
            reason: reason.into(),
            known_ignored: false,
        })
    }
}

impl ByInterfaces {
    /// One semantic call to `dest`, named as the platform names it.
    fn semantic(&self, op: WriteOp, dest: Dest, reason: impl Into<String>) -> Plan {
        let name = (self.name)(&op);
        let method = match dest {
            Dest::Element => name,
            Dest::Parent => format!("parent {}", name.as_str()).into(),
            Dest::Option(i) => format!("option {i} {}", name.as_str()).into(),
            Dest::OptionList => format!("option list {}", name.as_str()).into(),
        };
        Plan {
            path: Path::Semantic,
            ops: vec![(dest, op)],
            max_sends: 1,
            method,
            reason: reason.into(),
            known_ignored: false,
        }
    }

    /// Text: the semantic call where there is EditableText (and typing after it where the toolkit
    /// ignores it), typing where there is only Text; web content is typed into.
    fn plan_text(&self, ctx: &Context<'_>, t: &str) -> Result<Vec<Plan>, String> {
        let node = ctx.node;
        if ctx.in_web_content && ctx.has(Interface::Text) {
            return Ok(vec![ctx.typing(
                t,
                AfterTyping::Nothing,
                "web content ignores the semantic text calls: focus, select all, type",
            )?]);
        }
        let mut plans = Vec::new();
        if ctx.has(Interface::EditableText) {
            let mut p = self.semantic(
                WriteOp::SetText(t.to_string()),
                Dest::Element,
                "the element has EditableText",
            );
            p.known_ignored = self.toolkits.ignores(ctx, &p.ops[0].1);
            plans.push(p);
        }
        let ignored = plans.first().is_some_and(|p| p.known_ignored);
        let typable = ctx.has(Interface::Text) || node.states.has(State::Editable);
        if typable && (plans.is_empty() || ignored && ctx.keyboard().is_ok()) {
            let typed = ctx.typing(
                t,
                AfterTyping::Nothing,
                if plans.is_empty() {
                    "no EditableText: focus, select all, type"
                } else {
                    "the toolkit ignores EditableText: focus, select all, type"
                },
            );
            match typed {
                Ok(p) => plans.push(p),
                // The semantic call alone, then; or the reason nothing can be typed.
                Err(e) if plans.is_empty() => return Err(e),
                Err(_) => {}
            }
        }
        if plans.is_empty() {
            return Err("no EditableText or Text interface".into());
        }
        Ok(plans)
    }

    /// A number: Value, typed after it (and Return) where the toolkit ignores Value; as text
    /// without Value.
    fn plan_number(&self, ctx: &Context<'_>, v: f64) -> Result<Vec<Plan>, String> {
        let text = crate::model::format_number(v);
        let mut plans = Vec::new();
        if ctx.has(Interface::Value) {
            let mut p = self.semantic(
                WriteOp::SetNumber(v),
                Dest::Element,
                "the element has Value",
            );
            p.known_ignored = self.toolkits.ignores(ctx, &p.ops[0].1);
            let typed_fallback =
                p.known_ignored && ctx.keyboard().is_ok() && ctx.has(Interface::EditableText);
            plans.push(p);
            if typed_fallback {
                plans.push(ctx.typing(
                    &text,
                    AfterTyping::Return,
                    "the toolkit ignores Value here: typed text + Return",
                )?);
            }
        } else if ctx.has(Interface::EditableText) {
            plans.push(self.semantic(
                WriteOp::SetText(text),
                Dest::Element,
                "no Value: the number as text (EditableText)",
            ));
        }
        if plans.is_empty() {
            return Err("no Value interface".into());
        }
        Ok(plans)
    }

    /// A check box, switch or toggle button into a state: the action naming the state, else a
    /// toggle action or a click until the state shows.
    fn plan_toggle(&self, ctx: &Context<'_>, want: bool) -> Result<Vec<Plan>, String> {
        let node = ctx.node;
        let explicit = if want { "check" } else { "uncheck" };
        if let Some(a) = ctx.action(&[explicit]) {
            return Ok(vec![self.semantic(
                WriteOp::Action(a),
                Dest::Element,
                "the element names the action for this state",
            )]);
        }
        let current = match &node.value {
            Some(crate::model::Value::Toggle { state }) => Some(*state),
            _ => None,
        };
        let budget = toggle_budget(node.role, current);
        if let Some(a) = ctx.action(TOGGLE_ACTIONS) {
            let mut p = self.semantic(
                WriteOp::Action(a),
                Dest::Element,
                "a toggle action, pressed until the state shows",
            );
            p.max_sends = budget;
            return Ok(vec![p]);
        }
        if node.interfaces.has(Interface::Component) {
            ctx.pointer().map_err(|why| {
                format!("it has no toggle action, so it can only be clicked, and {why}")
            })?;
            return Ok(vec![Plan {
                path: Path::Pointer,
                ops: vec![
                    (Dest::Element, WriteOp::ActivateWindow(ctx.window.clone())),
                    (Dest::Element, WriteOp::Click),
                ],
                max_sends: budget,
                method: "pointer click at the centre".into(),
                reason: "no toggle action (GTK 4.8 check boxes and switches expose none): a \
                         click at the element's centre, until the state shows"
                    .into(),
                known_ignored: false,
            }]);
        }
        Err(format!(
            "no toggle action (actions: {})",
            node.actions_listed()
        ))
    }

    /// An option of a combo box (`ctx.chosen`): the toolkit's own way where it has one, else the
    /// combo's Selection, the option list's, or the option's own action, as the toolkit takes it.
    fn plan_option(&self, ctx: &Context<'_>) -> Result<Vec<Plan>, String> {
        let Some(i) = ctx.chosen else {
            return Err("no option chosen".into());
        };
        if let Some(own) = self.toolkits.option(ctx, i) {
            return own;
        }
        if ctx.has(Interface::Selection) {
            return Ok(vec![self.semantic(
                WriteOp::SelectChild(i),
                Dest::Element,
                "the combo has Selection",
            )]);
        }
        // Some toolkits want the list that holds the options (a closed `<select>`'s option may
        // answer its select action and change nothing); on others the list answers and changes
        // nothing, and the option's own action does it.
        let list = || {
            self.semantic(
                WriteOp::SelectChild(i),
                Dest::OptionList,
                "the option list has Selection",
            )
        };
        if ctx.option_list_selection && self.toolkits.option_list_first(ctx) {
            return Ok(vec![list()]);
        }
        let option = ctx.options.get(i).ok_or("the option is gone")?;
        if let Some(a) = pick_action(&option.actions, SELECT_ACTIONS) {
            return Ok(vec![self.semantic(
                WriteOp::Action(a.clone()),
                Dest::Option(i),
                "the option's own action",
            )]);
        }
        if ctx.option_list_selection {
            return Ok(vec![list()]);
        }
        Err("no Selection on the combo or its option list, and no action on the option".into())
    }

    /// A list item or tab selected: the parent's Selection, else the element's own action.
    fn plan_select(&self, ctx: &Context<'_>) -> Result<Vec<Plan>, String> {
        if let Some(i) = ctx.parent_selection {
            return Ok(vec![self.semantic(
                WriteOp::SelectChild(i),
                Dest::Parent,
                "the parent has Selection",
            )]);
        }
        match ctx.action(SELECT_ACTIONS) {
            Some(a) => Ok(vec![self.semantic(
                WriteOp::Action(a),
                Dest::Element,
                "the element's own action",
            )]),
            None => Err("no Selection on the parent and no select action".into()),
        }
    }

    /// Expanded or collapsed: the action naming it, else an expand action.
    fn plan_expand(&self, ctx: &Context<'_>, want: bool) -> Result<Vec<Plan>, String> {
        let explicit = if want { "expand" } else { "collapse" };
        match ctx
            .action(&[explicit])
            .or_else(|| ctx.action(EXPAND_ACTIONS))
        {
            Some(a) => Ok(vec![self.semantic(
                WriteOp::Action(a),
                Dest::Element,
                "an expand action",
            )]),
            None => Err("no expand/activate action".into()),
        }
    }
}
