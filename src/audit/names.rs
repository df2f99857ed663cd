//! Names: what a screen reader announces and what automation names an element by.

use super::{Context, Hit, Needs, Rule, Severity, interactive, shown};
use crate::model::{Node, Role};

/// Roles whose name a screen reader takes from their content when they have none of their own
/// (a list row, a tab, a menu item, a link or a button holding a label): a named descendant
/// names them.
fn named_by_content(role: Role) -> bool {
    matches!(
        role,
        Role::ListItem
            | Role::TreeItem
            | Role::TableRow
            | Role::TableCell
            | Role::Tab
            | Role::MenuItem
            | Role::CheckMenuItem
            | Role::RadioMenuItem
            | Role::Link
            | Role::Button
            | Role::ToggleButton
    )
}

/// Roles that need no name: a scroll bar is told by its role and orientation, a table cell
/// may be empty.
fn needs_no_name(role: Role) -> bool {
    matches!(role, Role::ScrollBar | Role::TableCell | Role::TableRow)
}

fn blank(s: &str) -> bool {
    s.chars().all(|c| c.is_whitespace() || is_invisible(c))
}

/// Characters that show nothing: zero-width spaces and joiners, the byte-order mark.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}')
}

/// Whether a descendant of `row` (within four levels) has a name that is not blank.
fn content_named(cx: &Context, row: usize) -> bool {
    let nodes = cx.nodes();
    let mut stack: Vec<(usize, u32)> = nodes[row].children.iter().map(|&c| (c, 1)).collect();
    while let Some((r, depth)) = stack.pop() {
        let Some(n) = nodes.get(r) else { continue };
        if !blank(n.name.as_str()) {
            return true;
        }
        if depth < 4 {
            stack.extend(n.children.iter().map(|&c| (c, depth + 1)));
        }
    }
    false
}

/// The text field of a combo box, or a button inside a text field: parts the toolkit makes
/// of one control, which carries the name.
fn toolkit_part(cx: &Context, row: usize) -> bool {
    let n = &cx.nodes()[row];
    let Some(parent) = n.parent.and_then(|p| cx.nodes().get(p)) else {
        return false;
    };
    n.role.is_text() && parent.role == Role::ComboBox
        || matches!(n.role, Role::Button | Role::ToggleButton) && parent.role.is_text()
}

fn has_label(n: &Node) -> bool {
    n.label.as_ref().is_some_and(|l| !blank(l.as_str()))
}

pub(super) const NAME_MISSING: Rule = Rule {
    id: "name-missing",
    group: "names",
    severity: Severity::Error,
    message: "an interactive element has no accessible name and no label",
    standard: "WCAG 4.1.2",
    anchor: "Accerciser HasLabelName; axe-windows NameNotNull",
    help: "A control with no name is announced by its role alone (\"button\"), and automation \
           can name it only by its place. Give it a name (GTK: \
           get_accessible().set_name or a mnemonic label; Qt: setAccessibleName; web: a \
           <label> or aria-label) or a label relation (GTK: set_mnemonic_widget, \
           Atk.RelationType.LABELLED_BY). Not judged: scroll bars, table cells and rows (a \
           name is not required of them); list and tree items, tabs, menu items, links and \
           buttons whose content has a name (screen readers read it: the name comes from \
           the content; a blank name is name-blank's); the text field inside a combo box and the buttons inside a text \
           field (the toolkit's own parts: GTK 3's combo entry, Qt's clear and reveal \
           buttons — the outer control carries the name and is judged).",
    needs: Needs::Labels,
    check: name_missing,
};

fn name_missing(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if !interactive(n)
            || needs_no_name(n.role)
            || !n.name.is_empty()
            || has_label(n)
            || named_by_content(n.role) && content_named(cx, row)
            || toolkit_part(cx, row)
        {
            continue;
        }
        out.push(Hit::new(
            row,
            format!("{} has no name and no label relation", n.role),
        ));
    }
}

pub(super) const NAME_BLANK: Rule = Rule {
    id: "name-blank",
    group: "names",
    severity: Severity::Error,
    message: "a name is only white space or invisible characters",
    standard: "WCAG 4.1.2",
    anchor: "axe-windows NameNotWhiteSpace",
    help: "A name made of spaces, tabs or zero-width characters is announced as nothing, but \
           tells tools the element is named. Give it real text, or leave it unnamed and \
           label it. Judged on interactive elements and images.",
    needs: Needs::Nothing,
    check: name_blank,
};

fn name_blank(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        let name = n.name.as_str();
        if name.is_empty() || !blank(name) || !(interactive(n) || is_image(n.role)) {
            continue;
        }
        let chars: Vec<String> = name
            .chars()
            .take(8)
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        out.push(Hit::new(
            row,
            format!("{}'s name is {}", n.role, chars.join(" ")),
        ));
    }
}

/// The words a toolkit or a developer uses for a role, lower-cased without spaces, hyphens or
/// underscores: a name that is one of them says nothing the role does not.
fn role_words(role: Role) -> &'static [&'static str] {
    match role {
        Role::Button => &["button", "pushbutton", "btn"],
        Role::ToggleButton => &["togglebutton", "button"],
        Role::CheckBox => &["checkbox", "checkbutton", "check"],
        Role::RadioButton => &["radiobutton", "radio"],
        Role::Switch => &["switch"],
        Role::Text => &["text", "entry", "textfield", "textbox", "lineedit", "edit"],
        Role::PasswordText => &["passwordtext", "entry", "text"],
        Role::SpinButton => &["spinbutton", "spinbox"],
        Role::Slider => &["slider", "scale"],
        Role::ComboBox => &["combobox", "combo", "comboboxtext", "dropdown"],
        Role::MenuButton => &["menubutton"],
        Role::MenuItem => &["menuitem"],
        Role::Link => &["link"],
        Role::Tab => &["tab", "pagetab"],
        Role::ListItem => &["listitem", "listboxrow", "row"],
        Role::Image | Role::Icon => &["image", "icon", "picture"],
        _ => &[],
    }
}

fn squashed(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `squashed` (already squashed) is `raw` squashed, without building it.
fn squashed_eq(squashed: &str, raw: &str) -> bool {
    let mut a = squashed.chars();
    let mut b = raw
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .flat_map(char::to_lowercase);
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            _ => return false,
        }
    }
}

/// `GtkEntry`, `QLineEdit`: a toolkit's class name, which some toolkits give an unnamed
/// widget.
fn is_class_name(name: &str) -> bool {
    let rest = name
        .strip_prefix("Gtk")
        .or_else(|| name.strip_prefix("Gdk"))
        .or_else(|| name.strip_prefix('Q'));
    rest.is_some_and(|r| {
        r.len() >= 3
            && r.starts_with(|c: char| c.is_ascii_uppercase())
            && r.chars().any(|c| c.is_ascii_lowercase())
            && r.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

pub(super) const NAME_IS_ROLE: Rule = Rule {
    id: "name-is-role",
    group: "names",
    severity: Severity::Warning,
    message: "a name only repeats the role or names the widget's class",
    standard: "WCAG 4.1.2",
    anchor: "axe-windows NameExcludesControlType",
    help: "A check box named \"checkbutton\" or an entry named \"GtkEntry\" is announced as \
           \"checkbutton check box\": the name tells the user nothing the role does not, and \
           several of them cannot be told apart. Name it after what it does (\"Enable \
           sync\"). GTK 4.8 names a widget the app left unnamed after its class \
           (\"GtkEntry\", a button holding an icon \"GtkImage\"): the fix is the app's, a \
           name or a label. Judged on interactive elements and images; not on scroll bars, \
           table cells and rows (they need no name) nor on the parts GTK makes inside its \
           own widgets (GTK 4's colour chooser swatches, \"GtkColorSwatch\"); a tab, list \
           item, menu item, link or button whose content names it otherwise (GTK 4.8 names \
           every notebook tab \"Tab\" and puts the title in a child label).",
    needs: Needs::Nothing,
    check: name_is_role,
};

/// Widgets a toolkit makes inside its own composite widgets, named after their class, which
/// the app cannot name: GTK 4's colour chooser swatches.
const TOOLKIT_INTERNAL: &[&str] = &["GtkColorSwatch"];

fn name_is_role(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if !(interactive(n) || is_image(n.role)) || needs_no_name(n.role) {
            continue;
        }
        let name = n.name.as_str().trim();
        if name.is_empty() || TOOLKIT_INTERNAL.contains(&name) {
            continue;
        }
        // No role word or class name is this long: most names stop here, unsquashed.
        if name.len() > 32 {
            continue;
        }
        let s = squashed(name);
        let is_word = |s: &str| {
            squashed_eq(s, n.role.as_str())
                || squashed_eq(s, &n.raw_role)
                || role_words(n.role).contains(&s)
        };
        // GTK 4.8 names every notebook tab "Tab" and puts its title in a child label: the
        // content names it.
        let word = is_word(&s);
        let content_says_more = word
            && named_by_content(n.role)
            && cx.descendant(row, 2, |d| {
                let t = squashed(d.name.as_str());
                !t.is_empty() && !is_word(&t)
            });
        if word && !content_says_more {
            out.push(Hit::new(
                row,
                format!("{} is named {}: its role", n.role, n.name.quoted(40)),
            ));
        } else if is_class_name(name) {
            out.push(Hit::new(
                row,
                format!(
                    "{} is named {}: a toolkit class name",
                    n.role,
                    n.name.quoted(40)
                ),
            ));
        }
    }
}

/// Longer names than this are not names but text (axe-windows draws the line at 512 too).
pub(crate) const MAX_NAME_CHARS: usize = 512;

pub(super) const NAME_TOO_LONG: Rule = Rule {
    id: "name-too-long",
    group: "names",
    severity: Severity::Review,
    message: "a name is unreasonably long (more than 512 characters)",
    standard: "WCAG 2.4.6",
    anchor: "axe-windows NameReasonableLength",
    help: "A screen reader reads the whole name every time the element gets the focus. Keep \
           the name short and put the rest in the description. Judged on interactive \
           elements and images (a paragraph's name is its text).",
    needs: Needs::Nothing,
    check: name_too_long,
};

fn name_too_long(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if !(interactive(n) || is_image(n.role)) {
            continue;
        }
        let len = n.name.as_str().chars().count();
        if len > MAX_NAME_CHARS {
            out.push(Hit::new(
                row,
                format!("{}'s name has {len} characters", n.role),
            ));
        }
    }
}

fn is_image(role: Role) -> bool {
    matches!(role, Role::Image | Role::Icon)
}

pub(super) const IMAGE_UNNAMED: Rule = Rule {
    id: "image-unnamed",
    group: "names",
    severity: Severity::Warning,
    message: "an image has no name and no description",
    standard: "WCAG 1.1.1",
    anchor: "Accerciser ImageHasName",
    help: "An image with no text alternative is announced as \"image\" or skipped. Give it a \
           name saying what it shows, or, when it is only decoration, keep it out of the \
           accessibility tree. Not judged: an image inside a control (a button's icon: the \
           control carries the name, and name-missing judges it).",
    needs: Needs::Nothing,
    check: image_unnamed,
};

fn image_unnamed(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if !is_image(n.role) || !blank(n.name.as_str()) || !blank(n.description.as_str()) {
            continue;
        }
        if cx.ancestors(row).any(|(_, a)| interactive(a)) {
            continue;
        }
        out.push(Hit::new(
            row,
            format!("{} has neither name nor description", shown(n)),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::model::{Role, State};

    #[test]
    fn name_missing_fires_on_an_unnamed_control_only() {
        let mut labelled = focusable(n(Role::Text, ""));
        labelled.label = Some("Street:".into());
        let snap = tree(vec![
            (focusable(n(Role::Text, "")), vec![]),
            (labelled, vec![]),
            (focusable(n(Role::Text, "City")), vec![]),
            // Named by its content.
            (n(Role::ListItem, ""), vec![n(Role::Label, "Apple")]),
            (n(Role::ListItem, ""), vec![]),
            // Not on screen: not judged.
            (
                without(focusable(n(Role::Text, "")), State::Showing),
                vec![],
            ),
            (n(Role::ScrollBar, ""), vec![]),
        ]);
        let rows = rows(&snap, "name-missing");
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(snap.nodes[rows[0]].role, Role::Text);
        assert!(snap.nodes[rows[0]].label.is_none());
        assert_eq!(snap.nodes[rows[1]].role, Role::ListItem);
        assert!(snap.nodes[rows[1]].children.is_empty());
    }

    #[test]
    fn name_blank_fires_on_white_space_only() {
        let snap = tree(vec![
            (focusable(n(Role::Button, " \u{200b} ")), vec![]),
            (focusable(n(Role::Button, "OK")), vec![]),
        ]);
        assert_eq!(rows(&snap, "name-blank"), vec![1]);
    }

    #[test]
    fn name_is_role_fires_on_role_words_and_class_names() {
        let snap = tree(vec![
            (focusable(n(Role::CheckBox, "checkbutton")), vec![]),
            (focusable(n(Role::Text, "GtkEntry")), vec![]),
            (focusable(n(Role::Button, "Button")), vec![]),
            (focusable(n(Role::Button, "Check spelling")), vec![]),
            (focusable(n(Role::Text, "Quantity")), vec![]),
            (n(Role::Label, "label"), vec![]),
        ]);
        let got = rows(&snap, "name-is-role");
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(got.iter().all(|&r| {
            ["checkbutton", "GtkEntry", "Button"].contains(&snap.nodes[r].name.as_str())
        }));
    }

    #[test]
    fn name_is_role_spares_a_tab_whose_label_names_it() {
        let snap = tree(vec![
            (n(Role::Tab, "Tab"), vec![n(Role::Label, "Sunset")]),
            (n(Role::Tab, "Tab"), vec![n(Role::Label, "tab")]),
        ]);
        let got = rows(&snap, "name-is-role");
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(snap.nodes[got[0] + 1].name.as_str(), "tab");
    }

    #[test]
    fn name_too_long_fires_past_512_characters() {
        let long = "x".repeat(513);
        let ok = "y".repeat(512);
        let snap = tree(vec![
            (focusable(n(Role::Button, &long)), vec![]),
            (focusable(n(Role::Button, &ok)), vec![]),
            (n(Role::Paragraph, &long), vec![]),
        ]);
        assert_eq!(rows(&snap, "name-too-long"), vec![1]);
    }

    #[test]
    fn image_unnamed_fires_outside_controls_only() {
        let mut described = n(Role::Image, "");
        described.description = "A red circle".into();
        let snap = tree(vec![
            (
                n(Role::Panel, "Pictures"),
                vec![n(Role::Image, ""), described],
            ),
            (focusable(n(Role::Button, "Save")), vec![n(Role::Image, "")]),
        ]);
        let got = rows(&snap, "image-unnamed");
        assert_eq!(got, vec![2]);
    }
}
