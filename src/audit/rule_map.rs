//! What each rule corresponds to in the checkers people already run: axe-core in the browser,
//! axe-windows (Accessibility Insights for Windows) on the desktop; and the axe-core checks an
//! accessibility tree cannot make. Printed by `audit --help` and docs/audit.md, and carried in
//! the SARIF rules (`helpUri`, tags).

/// One treeglass rule's counterparts.
#[derive(Debug)]
pub struct Mapped {
    pub rule: &'static str,
    /// axe-core rule ids that judge the same thing on a web page.
    pub axe: &'static [&'static str],
    /// axe-windows rule ids that judge the same thing in UI Automation.
    pub axe_windows: &'static [&'static str],
}

/// The axe-core version the rule pages below are linked at.
pub const AXE_VERSION: &str = "4.10";

/// Every rule's counterparts, in rule order (a test holds it to `RULES`).
pub static RULE_MAP: &[Mapped] = &[
    Mapped {
        rule: "name-missing",
        axe: &[
            "button-name",
            "input-button-name",
            "link-name",
            "label",
            "select-name",
            "aria-command-name",
            "aria-toggle-field-name",
            "aria-input-field-name",
            "aria-meter-name",
            "aria-progressbar-name",
            "aria-tooltip-name",
            "aria-dialog-name",
            "aria-treeitem-name",
            "summary-name",
            "frame-title",
            "object-alt",
        ],
        axe_windows: &[
            "NameNotNull",
            "NameNotEmpty",
            "NameWithValidBoundingRectangle",
        ],
    },
    Mapped {
        rule: "name-blank",
        axe: &["button-name", "link-name", "label", "image-alt"],
        axe_windows: &["NameNotWhiteSpace"],
    },
    Mapped {
        rule: "name-is-role",
        axe: &[],
        axe_windows: &[
            "NameExcludesControlType",
            "NameExcludesLocalizedControlType",
        ],
    },
    Mapped {
        rule: "name-too-long",
        axe: &[],
        axe_windows: &["NameReasonableLength"],
    },
    Mapped {
        rule: "image-unnamed",
        axe: &[
            "image-alt",
            "role-img-alt",
            "svg-img-alt",
            "input-image-alt",
        ],
        axe_windows: &[],
    },
    Mapped {
        rule: "heading-empty",
        axe: &["empty-heading"],
        axe_windows: &[],
    },
    Mapped {
        rule: "header-unnamed",
        axe: &["empty-table-header"],
        axe_windows: &[],
    },
    Mapped {
        rule: "action-not-focusable",
        axe: &["scrollable-region-focusable"],
        axe_windows: &["IsKeyboardFocusableShouldBeTrue"],
    },
    Mapped {
        rule: "focused-not-focusable",
        axe: &[],
        axe_windows: &[],
    },
    Mapped {
        rule: "focus-multiple",
        axe: &[],
        axe_windows: &[],
    },
    Mapped {
        rule: "checked-not-checkable",
        axe: &["aria-allowed-attr", "aria-conditional-attr"],
        axe_windows: &[],
    },
    Mapped {
        rule: "selected-not-selectable",
        axe: &["aria-allowed-attr"],
        axe_windows: &[],
    },
    Mapped {
        rule: "expanded-not-expandable",
        axe: &["aria-allowed-attr"],
        axe_windows: &[],
    },
    Mapped {
        rule: "radio-no-group",
        axe: &[],
        axe_windows: &[],
    },
    Mapped {
        rule: "label-not-reciprocal",
        axe: &[],
        axe_windows: &[],
    },
    Mapped {
        rule: "label-dangling",
        axe: &[],
        axe_windows: &[],
    },
    Mapped {
        rule: "label-name-mismatch",
        axe: &["label-content-name-mismatch"],
        axe_windows: &[],
    },
    Mapped {
        rule: "index-in-parent",
        axe: &[],
        axe_windows: &[],
    },
    Mapped {
        rule: "table-index-mismatch",
        axe: &["td-headers-attr"],
        axe_windows: &[],
    },
    Mapped {
        rule: "bounds-empty",
        axe: &[],
        axe_windows: &["BoundingRectangleNotAllZeros", "BoundingRectangleNotNull"],
    },
    Mapped {
        rule: "bounds-outside-parent",
        axe: &[],
        axe_windows: &["BoundingRectangleContainedInParent"],
    },
    Mapped {
        rule: "bounds-outside-window",
        axe: &[],
        axe_windows: &["BoundingRectangleContainedInParent"],
    },
    Mapped {
        rule: "siblings-not-unique",
        axe: &["frame-title-unique"],
        axe_windows: &["SiblingUniqueAndFocusable"],
    },
    Mapped {
        rule: "target-positional",
        axe: &[],
        axe_windows: &[],
    },
];

/// axe-core checks no accessibility tree can make, and why: a team that runs axe in the browser
/// keeps them there.
pub const AXE_NOT_JUDGED: &[(&str, &str)] = &[
    (
        "color-contrast, color-contrast-enhanced, link-in-text-block",
        "colours and pixels are not in the accessibility tree",
    ),
    (
        "duplicate-id, duplicate-id-aria, duplicate-id-active",
        "the DOM's ids are not exposed as such (a browser's `id` attribute is optional and \
         not read)",
    ),
    (
        "valid-lang, html-has-lang, html-lang-valid",
        "the language attributes are not in the tree",
    ),
    (
        "meta-viewport, meta-refresh",
        "the page's head is not in the tree",
    ),
    (
        "aria-valid-attr, aria-valid-attr-value, aria-allowed-role, aria-prohibited-attr",
        "the tree holds what the browser made of the ARIA markup, not the markup",
    ),
    (
        "heading-order",
        "not yet judged (heading levels can be read from the tree)",
    ),
];

/// The entry for `rule`.
pub fn of(rule: &str) -> Option<&'static Mapped> {
    RULE_MAP.iter().find(|m| m.rule == rule)
}

/// The axe-core rule's page.
pub fn axe_url(axe_rule: &str) -> String {
    format!("https://dequeuniversity.com/rules/axe/{AXE_VERSION}/{axe_rule}")
}

/// One line per rule, for `audit --help` and docs/audit.md.
pub fn lines() -> Vec<String> {
    RULE_MAP
        .iter()
        .map(|m| {
            let list = |l: &[&str]| {
                if l.is_empty() {
                    "—".to_string()
                } else {
                    l.join(", ")
                }
            };
            format!(
                "{}: axe-core {}; axe-windows {}",
                m.rule,
                list(m.axe),
                list(m.axe_windows)
            )
        })
        .collect()
}

/// The map as docs/audit.md prints it: each rule's counterparts, with links to axe-core's rule
/// pages; then what axe-core judges that no tree can.
pub fn markdown() -> String {
    let mut s = String::from("| treeglass | axe-core | axe-windows |\n|---|---|---|\n");
    for m in RULE_MAP {
        let axe: Vec<String> = m
            .axe
            .iter()
            .map(|a| format!("[{a}]({})", axe_url(a)))
            .collect();
        let dash = |v: Vec<String>| {
            if v.is_empty() {
                "—".to_string()
            } else {
                v.join(", ")
            }
        };
        s.push_str(&format!(
            "| `{}` | {} | {} |\n",
            m.rule,
            dash(axe),
            dash(m.axe_windows.iter().map(|a| a.to_string()).collect())
        ));
    }
    s.push_str("\naxe-core checks no accessibility tree can make (keep running axe for them):\n\n");
    for (rules, why) in AXE_NOT_JUDGED {
        s.push_str(&format!("- {rules}: {why}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_rule_map() {
        crate::backend::readme::check_section("rule-map", &markdown());
    }

    #[test]
    fn every_rule_is_mapped_once_in_rule_order() {
        let ids: Vec<&str> = super::super::RULES.iter().map(|r| r.id).collect();
        let mapped: Vec<&str> = RULE_MAP.iter().map(|m| m.rule).collect();
        assert_eq!(ids, mapped);
    }
}
