//! The steps of `treeglass doctor --backend uia` taken on Windows ([`super::doctor`] words
//! them).

use uiautomation::core::{UIAutomation, UIElement};
use uiautomation::patterns::{UIInvokePattern, UIValuePattern, UIWindowPattern};
use uiautomation::types::{Handle, TreeScope, UIProperty};

use super::calls::{self, Refusal};
use super::doctor::{Outcome, read_or_why, report};
use super::io::{cache_request, fault, top_level_handles};
use super::map::{Pattern, RPC_E_CHANGED_MODE};
use crate::model::AppText;

/// A text property of the desktop (`get_CurrentName`, …), or its refusal: the desktop is
/// itself the element no app provides, so a refusal there is the client's.
fn desktop_text(name: &str, read: uiautomation::Result<String>) -> Result<String, Refusal> {
    read.map_err(|e| {
        let f = fault(e);
        let code = f.code;
        Refusal::new(&calls::current(name), f, || Some(Err(code)))
    })
}

/// `treeglass doctor --backend uia`: the steps of [`doctor::STEPS`], taken on this thread, which
/// must not have started COM in another mode. Stops at the first that fails.
pub fn diagnose() -> crate::doctor::Report {
    let mut out = Vec::new();
    let automation = match UIAutomation::new() {
        Ok(a) => a,
        Err(e) => {
            let call = if e.code() == RPC_E_CHANGED_MODE {
                calls::co_initialize()
            } else {
                calls::create_client()
            };
            out.push(Outcome::Failed(Refusal::of(&call, fault(e))));
            return report(&out);
        }
    };
    out.push(Outcome::Ok(
        "the UI Automation client (CUIAutomation) started".into(),
    ));
    let root = match automation.get_root_element() {
        Ok(r) => r,
        Err(e) => {
            out.push(Outcome::Failed(Refusal::of(
                &calls::root_element(),
                fault(e),
            )));
            return report(&out);
        }
    };
    // Each read said as read, or as refused: never an empty value.
    let (name, name_why) = read_or_why("Name", desktop_text("Name", root.get_name()));
    let (class, class_why) =
        read_or_why("ClassName", desktop_text("ClassName", root.get_classname()));
    let detail = format!("the desktop's root element: {name}, {class}");
    out.push(match (name_why, class_why) {
        (None, None) => Outcome::Ok(detail),
        (Some(why), None) | (None, Some(why)) => Outcome::Partial(detail, why),
        (Some(first), Some(second)) => Outcome::Partial(format!("{detail} ({second})"), first),
    });
    let mut rejected = Vec::new();
    let requests =
        cache_request(&automation, TreeScope::Children, false, &mut rejected).and_then(|top| {
            Ok((
                top,
                cache_request(&automation, TreeScope::Subtree, false, &mut rejected)?,
            ))
        });
    let (top, subtree) = match requests {
        Ok(r) => r,
        // The client refuses to cache more than one element: what it still gives, element by
        // element, and what it refused.
        Err(refused) => {
            element_by_element(&automation, &root, refused, &mut out);
            return report(&out);
        }
    };
    let windows = match root.build_updated_cache(&top) {
        Ok(d) => match d.get_cached_children() {
            Ok(w) => w,
            Err(e) if e.code() == 0 => Vec::new(),
            Err(e) => {
                out.push(Outcome::Failed(Refusal::of(
                    &calls::cached_children(),
                    fault(e),
                )));
                return report(&out);
            }
        },
        Err(e) => {
            out.push(Outcome::Failed(Refusal::of(
                &calls::build_cache("TreeScope_Children"),
                fault(e),
            )));
            return report(&out);
        }
    };
    let Some(window) = windows.first() else {
        out.push(Outcome::Warn(
            "no top-level window to read: open an app and run doctor again".into(),
        ));
        out.push(Outcome::Skip("no window was read".into()));
        return report(&out);
    };
    let cached = match window.build_updated_cache(&subtree) {
        Ok(c) => c,
        Err(e) => {
            out.push(Outcome::Failed(Refusal::of(
                &calls::build_cache("TreeScope_Subtree"),
                fault(e),
            )));
            return report(&out);
        }
    };
    // The cached subtree, breadth first, within a small bound.
    let mut elements = vec![cached.clone()];
    let mut i = 0;
    while i < elements.len() && elements.len() < 2000 {
        if let Ok(kids) = elements[i].get_cached_children() {
            elements.extend(kids);
        }
        i += 1;
    }
    let name = cached.get_cached_name().unwrap_or_default();
    let pid = cached.get_cached_process_id().unwrap_or_default();
    let mut detail = format!(
        "window {} (pid {pid}): {} elements read with one cache request",
        AppText::from(name.as_str()).quoted(60),
        elements.len()
    );
    if !rejected.is_empty() {
        detail.push_str(&format!("; not cached: {}", rejected.join(", ")));
    }
    out.push(if rejected.is_empty() {
        Outcome::Ok(detail)
    } else {
        Outcome::Warn(detail)
    });
    let has = |el: &UIElement, pattern: Pattern| {
        UIProperty::try_from(pattern.availability_property())
            .ok()
            .and_then(|p| el.get_cached_property_value(p).ok())
            .and_then(|v| TryInto::<bool>::try_into(&v).ok())
            .unwrap_or(false)
    };
    let with_pattern = elements.iter().find_map(|el| {
        [Pattern::Invoke, Pattern::Value]
            .into_iter()
            .find(|p| has(el, *p))
            .map(|p| (el, p))
    });
    out.push(match with_pattern {
        None => pattern_of_window(&root, window, &name),
        Some((el, pattern)) => {
            let got = match pattern {
                Pattern::Invoke => el.get_pattern::<UIInvokePattern>().map(drop),
                _ => el.get_pattern::<UIValuePattern>().map(drop),
            };
            let what = format!(
                "{}Pattern of {}",
                pattern.name(),
                AppText::from(el.get_cached_name().unwrap_or_default().as_str()).quoted(40)
            );
            match got {
                Ok(()) => Outcome::Ok(format!("{what} answered")),
                Err(e) => Outcome::Failed(Refusal::new(
                    &calls::pattern(pattern.name()),
                    fault(e),
                    || {
                        Some(
                            match pattern {
                                Pattern::Invoke => root.get_pattern::<UIInvokePattern>().map(drop),
                                _ => root.get_pattern::<UIValuePattern>().map(drop),
                            }
                            .map_err(|e| e.code()),
                        )
                    },
                )),
            }
        }
    });
    report(&out)
}

/// A window's `WindowPattern`, the pattern every top-level window has: asked when no element
/// lists one treeglass writes through, or none could be read.
fn pattern_of_window(root: &UIElement, window: &UIElement, name: &str) -> Outcome {
    let what = format!("WindowPattern of {}", AppText::from(name).quoted(40));
    match window.get_pattern::<UIWindowPattern>() {
        Ok(_) => Outcome::Ok(format!(
            "{what} answered (no element read lists InvokePattern or ValuePattern)"
        )),
        Err(e) => Outcome::Failed(Refusal::new(
            &calls::pattern(Pattern::Window.name()),
            fault(e),
            || {
                Some(
                    root.get_pattern::<UIWindowPattern>()
                        .map(drop)
                        .map_err(|e| e.code()),
                )
            },
        )),
    }
}

/// The window and pattern steps for a client that refused a cache request for more than one
/// element (`refused`): the top-level windows `EnumWindows` lists, the first read alone.
fn element_by_element(
    automation: &UIAutomation,
    root: &UIElement,
    refused: Refusal,
    out: &mut Vec<Outcome>,
) {
    let handles = top_level_handles();
    let found = handles.iter().find_map(|(hwnd, pid)| {
        automation
            .element_from_handle(Handle::from(*hwnd as isize))
            .ok()
            .map(|el| (el, *pid))
    });
    let Some((window, pid)) = found else {
        out.push(Outcome::Partial(
            format!(
                "EnumWindows lists {} visible top-level windows, and no element of one could be \
                 had (ElementFromHandle); open an app and run doctor again",
                handles.len()
            ),
            refused,
        ));
        out.push(Outcome::Skip("no window was read".into()));
        return;
    };
    let name = window.get_name();
    let (name_text, name_refused) = match &name {
        Ok(n) => (AppText::from(n.as_str()).quoted(60).to_string(), None),
        Err(e) => (
            "its Name not read".to_string(),
            Some(Refusal::new(
                &calls::current("Name"),
                super::read::Fault {
                    code: e.code(),
                    message: e.message().to_string(),
                },
                || Some(root.get_name().map(drop).map_err(|e| e.code())),
            )),
        ),
    };
    let mut detail = format!(
        "{} visible top-level window{} found by EnumWindows, the first read alone \
         (ElementFromHandle): {name_text} (pid {pid}); its children not read",
        handles.len(),
        if handles.len() == 1 { "" } else { "s" }
    );
    if let Some(r) = name_refused {
        detail.push_str(&format!(" ({r})"));
    }
    out.push(Outcome::Partial(detail, refused));
    out.push(pattern_of_window(
        root,
        &window,
        name.as_deref().unwrap_or_default(),
    ));
}
