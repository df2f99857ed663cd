//! The steps of `treeglass doctor --backend uia` taken on Windows ([`super::doctor`] words
//! them).

use uiautomation::core::{UIAutomation, UIElement};
use uiautomation::patterns::{UIInvokePattern, UIValuePattern};
use uiautomation::types::{TreeScope, UIProperty};

use super::io::{cache_request, fault};
use super::map::Pattern;
use crate::model::AppText;

/// `treeglass doctor --backend uia`: the steps of [`doctor::STEPS`], taken on this thread, which
/// must not have started COM in another mode. Stops at the first that fails.
pub fn diagnose() -> crate::doctor::Report {
    use super::doctor::{Outcome, report};
    let mut out = Vec::new();
    let automation = match UIAutomation::new() {
        Ok(a) => a,
        Err(e) => {
            out.push(Outcome::Failed("CoCreateInstance(CUIAutomation)", fault(e)));
            return report(&out);
        }
    };
    out.push(Outcome::Ok(
        "the UI Automation client (CUIAutomation) started".into(),
    ));
    let root = match automation.get_root_element() {
        Ok(r) => r,
        Err(e) => {
            out.push(Outcome::Failed("GetRootElement", fault(e)));
            return report(&out);
        }
    };
    out.push(Outcome::Ok(format!(
        "the desktop's root element ({})",
        root.get_classname().unwrap_or_default()
    )));
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
        Err(e) => {
            out.push(Outcome::Failed("CreateCacheRequest", fault(e)));
            return report(&out);
        }
    };
    let windows = match root.build_updated_cache(&top) {
        Ok(d) => match d.get_cached_children() {
            Ok(w) => w,
            Err(e) if e.code() == 0 => Vec::new(),
            Err(e) => {
                out.push(Outcome::Failed("GetCachedChildren (the desktop)", fault(e)));
                return report(&out);
            }
        },
        Err(e) => {
            out.push(Outcome::Failed("BuildUpdatedCache (the desktop)", fault(e)));
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
            out.push(Outcome::Failed("BuildUpdatedCache", fault(e)));
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
        None => {
            Outcome::Skip("no element in that window lists InvokePattern or ValuePattern".into())
        }
        Some((el, pattern)) => {
            let got = match pattern {
                Pattern::Invoke => el.get_pattern::<UIInvokePattern>().map(|_| ()),
                _ => el.get_pattern::<UIValuePattern>().map(|_| ()),
            };
            let what = format!(
                "{}Pattern of {}",
                pattern.name(),
                AppText::from(el.get_cached_name().unwrap_or_default().as_str()).quoted(40)
            );
            match got {
                Ok(()) => Outcome::Ok(format!("{what} answered")),
                Err(e) => Outcome::Failed("GetCurrentPattern", fault(e)),
            }
        }
    });
    report(&out)
}
