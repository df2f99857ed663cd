//! Names: what a screen reader announces and what automation names an element by.

use super::name_roles::{Need, need_of, row_of};
use super::{Context, Hit, Needs, Rule, Severity, interactive, shown};
use crate::backend::raw_kind;
use crate::model::{Node, RawKind, Role};

/// The element's role as the name rules say it: the raw role where the table matched it by
/// its kind (an inline frame, not the panel it normalises to).
fn role_said(n: &Node) -> String {
    match row_of(n) {
        Some(r) if raw_kind(&n.raw_role).is_some_and(|k| r.kinds.contains(&k)) => {
            n.raw_role.to_ascii_lowercase()
        }
        _ => n.role.as_str().to_string(),
    }
}

/// Whether a name is only a list marker ("•", "◦", "▪"): a browser names an item after the
/// bullet its style draws when nothing else names it, and a screen reader says "bullet".
fn marker_only(s: &str) -> bool {
    !s.trim().is_empty()
        && s.chars()
            .all(|c| c.is_whitespace() || matches!(c, '•' | '◦' | '▪' | '▫' | '‣' | '⁃' | '·'))
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
        if !blank(n.name.as_str()) || holds_text(cx, r) {
            return true;
        }
        if depth < 4 {
            stack.extend(n.children.iter().map(|&c| (c, depth + 1)));
        }
    }
    false
}

/// Whether `n` is a leaf of content that may hold words in its Text interface rather than in
/// a name or a named child (Gecko keeps a paragraph's or a heading's words so; a GTK label's
/// are its name too): an unnamed leaf, not a control, with the Text interface.
pub(crate) fn text_leaf(n: &Node) -> bool {
    n.children.is_empty()
        && n.name.as_str().trim().is_empty()
        && n.interfaces.has(crate::model::Interface::Text)
        // Not the interface: Gecko lists EditableText on everything in a page.
        && !n.states.has(crate::model::State::Editable)
        && matches!(
            n.role,
            Role::Panel
                | Role::Paragraph
                | Role::Label
                | Role::Heading
                | Role::Group
                | Role::ColumnHeader
        )
}

/// Whether the text leaf at `row` holds words: as the audit's reads counted its characters,
/// or, where they were not counted, taken to (never flagged on what is unknown).
fn holds_text(cx: &Context, row: usize) -> bool {
    let n = &cx.nodes()[row];
    if !text_leaf(n) {
        return false;
    }
    cx.facts
        .and_then(|f| f.text_chars.as_ref())
        .and_then(|c| c.get(&row))
        .is_none_or(|&count| count > 0)
}

/// What `row` needs of its name ([`need_of`]), where it is: a table cell or row outside any
/// table or tree (a button made a grid cell on its own) has no headers to say what it is, and
/// is judged like any other element.
fn need(cx: &Context, row: usize) -> Need {
    let n = &cx.nodes()[row];
    let need = need_of(n);
    let in_table = || {
        cx.ancestors(row).take(3).any(|(_, a)| {
            matches!(
                a.role,
                Role::Table | Role::Tree | Role::TableRow | Role::List
            )
        })
    };
    if need == Need::Nothing
        && matches!(n.role, Role::TableCell | Role::TableRow)
        && interactive(n)
        && !in_table()
    {
        return Need::Own;
    }
    let kind = raw_kind(&n.raw_role);
    // The browser's own frame around a page (Gecko's) is named by the page it holds; an
    // iframe in a page needs its title.
    if kind == Some(RawKind::InlineFrame) && !cx.in_document(row) {
        return Need::Nothing;
    }
    // Gecko's AT-SPI `alert` is an ARIA alert, a live region (its alert dialog is `dialog`).
    if kind == Some(RawKind::Alert) && cx.toolkit == Some(crate::model::Toolkit::Gecko) {
        return Need::Nothing;
    }
    // In a page, `alert` is Chromium's alert dialog, or another engine's ARIA alert: the ARIA
    // role the page gave, read for the audit, tells them apart; unread, it is not judged.
    if need == Need::Own
        && kind == Some(RawKind::Alert)
        && cx.in_document(row)
        && aria_role(cx, row) != Some("alertdialog")
    {
        return Need::Nothing;
    }
    need
}

/// What the web engine said of the element's name and ARIA role, where the audit read it.
fn said<'a>(cx: &Context<'a>, row: usize) -> Option<&'a crate::audit::facts::NameFrom> {
    cx.facts?.name_from.as_ref()?.get(&row)
}

/// The ARIA role the page gave the element (`xml-roles`), where the audit read it.
fn aria_role<'a>(cx: &Context<'a>, row: usize) -> Option<&'a str> {
    said(cx, row)?.xml_roles.as_deref()
}

/// What a finding adds when the page made a frame or an object presentational and the engine
/// still shows it as one: a screen reader meets it, unnamed.
fn presentational_note(cx: &Context, row: usize) -> &'static str {
    let kind = raw_kind(&cx.nodes()[row].raw_role);
    if matches!(kind, Some(RawKind::InlineFrame | RawKind::EmbeddedObject))
        && matches!(aria_role(cx, row), Some("none" | "presentation"))
    {
        "; the page made it presentational (role none), yet the engine shows it as a frame"
    } else {
        ""
    }
}

/// A label that holds only the element's own value names nothing: a `<label>` wrapping a
/// field and no words of its own (Gecko reports the relation, the label's text being the
/// field's value, and leaves the name empty).
fn label_is_own_value(n: &Node) -> bool {
    let (Some(label), Some(value)) = (&n.label, n.value.as_ref().and_then(|v| v.as_text())) else {
        return false;
    };
    let value = value.as_str().trim();
    !value.is_empty() && label.as_str().trim() == value
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
    message: "an element that needs a name has none and no label",
    standard: "WCAG 4.1.2",
    anchor: "Accerciser HasLabelName; axe-windows NameNotNull",
    help: "An element with no name is announced by its role alone (\"button\", \"dialog\"), \
           and automation can name it only by its place. Give it a name (GTK: \
           get_accessible().set_name or a mnemonic label; Qt: setAccessibleName; web: a \
           <label>, alt, title or aria-label) or a label relation (GTK: \
           set_mnemonic_widget, Atk.RelationType.LABELLED_BY). Which roles need a name is a \
           table (`audit --help` prints it, with the section of WAI-ARIA or HTML-AAM each \
           row comes from): controls, links, dialogs, progress bars, tooltips, frames and \
           embedded objects, and any other element that takes the focus. Judged where a \
           person meets it: on screen, or reached without being drawn (in a page, whatever \
           the engine renders, however small or scrolled away: an empty link has no size, yet \
           Tab lands on it; elsewhere, what takes the focus under a parent on screen). Not \
           judged: scroll bars, and table cells and rows inside a table (no name is required \
           of them); list and tree items, tabs, menu items, links, buttons and \
           tooltips whose content has a name (screen readers read it; a blank name is \
           name-blank's); the text field inside a combo box and the buttons inside a text \
           field (the toolkit's own parts: GTK 3's combo entry, Qt's clear and reveal \
           buttons — the outer control carries the name and is judged).",
    needs: Needs::Labels,
    check: name_missing,
};

fn name_missing(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n, drawn) in cx.judged() {
        let need = need(cx, row);
        let own_value = label_is_own_value(n);
        if need == Need::Nothing
            || !n.name.is_empty()
            || has_label(n) && !own_value
            || need == Need::OwnOrContent && content_named(cx, row)
            || toolkit_part(cx, row)
        {
            continue;
        }
        out.push(Hit::new(
            row,
            format!(
                "{} has no name and {}{}{}",
                role_said(n),
                if own_value {
                    "its label holds only its own value"
                } else {
                    "no label relation"
                },
                presentational_note(cx, row),
                drawn.unless_drawn()
            ),
        ));
    }
}

pub(super) const NAME_BLANK: Rule = Rule {
    id: "name-blank",
    group: "names",
    severity: Severity::Error,
    message: "a name is only white space, invisible characters or a list marker",
    standard: "WCAG 4.1.2",
    anchor: "axe-windows NameNotWhiteSpace",
    help: "A name made of spaces, tabs or zero-width characters is announced as nothing, but \
           tells tools the element is named; one made of a list marker (\"•\": a browser \
           names an unnamed list item after the bullet it draws) is announced as \"bullet\". \
           Give it real text, or leave it unnamed and label it. Judged on elements that need \
           a name and on images, where a person meets them (as name-missing).",
    needs: Needs::Nothing,
    check: name_blank,
};

fn name_blank(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n, drawn) in cx.judged() {
        let name = n.name.as_str();
        if name.is_empty()
            || !(blank(name) || marker_only(name))
            || !(need_of(n) != Need::Nothing || is_image(n.role))
        {
            continue;
        }
        let chars: Vec<String> = name
            .chars()
            .take(8)
            .map(|c| format!("U+{:04X}", c as u32))
            .collect();
        out.push(Hit::new(
            row,
            format!(
                "{}'s name is {}{}",
                n.role,
                chars.join(" "),
                drawn.unless_drawn()
            ),
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
        if !(interactive(n) || is_image(n.role)) || need_of(n) == Need::Nothing && !is_image(n.role)
        {
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
            && need_of(n) == Need::OwnOrContent
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
    message: "an image or an image button has no text alternative",
    standard: "WCAG 1.1.1",
    anchor: "Accerciser ImageHasName",
    help: "An image with no text alternative is announced as \"image\" or skipped. Give it a \
           name saying what it shows, or, when it is only decoration, keep it out of the \
           accessibility tree. In a page, an image button with no alt text is named by the \
           browser's default label (\"Submit\"), and Chromium names one unlabelled image \
           itself (\"To get missing image descriptions…\"): both are found where the engine \
           says where a name comes from (Chromium's name-from; Firefox does not say, and \
           its default \"Submit Query\" is not told from a submit button's). In a page an \
           image with only a description is flagged too (ARIA's img needs a name). Judged where a \
           person meets it (as name-missing). Not judged: an image inside a control (a \
           button's icon: the control carries the name, and name-missing judges it).",
    needs: Needs::Nothing,
    check: image_unnamed,
};

/// Whether the browser named the element, not the page: an image button (`<input
/// type=image>`) with no alt text is named by the engine's default submit label ("Submit";
/// Chromium says `name-from: value` of an `input` that holds an image or is not a button);
/// an image Chromium named itself has no source at all ("To get missing image
/// descriptions…"), in a window whose engine says where names come from.
fn browser_named(cx: &Context, row: usize) -> Option<&'static str> {
    let f = said(cx, row)?;
    let n = &cx.nodes()[row];
    let holds_image = n
        .children
        .iter()
        .any(|&c| cx.nodes().get(c).is_some_and(|c| is_image(c.role)));
    if f.tag.as_deref() == Some("input")
        && f.from.as_deref() == Some("value")
        && (n.role != Role::Button || holds_image)
    {
        return Some("an image button with no alt text gets the default label of a submit button");
    }
    let engine_says = || {
        cx.facts
            .and_then(|x| x.name_from.as_ref())
            .is_some_and(|m| m.values().any(|f| f.from.is_some()))
    };
    if is_image(n.role) && f.from.is_none() && !f.explicit && engine_says() {
        return Some("the page gives the image no name; the browser made this one up");
    }
    None
}

/// Whether the element is an image whose alt text is white space, which Gecko shows as an
/// unnamed `static` (its tag, read for the audit, is `img`).
fn blank_alt(cx: &Context, row: usize) -> bool {
    let n = &cx.nodes()[row];
    raw_kind(&n.raw_role) == Some(RawKind::StaticText)
        && blank(n.name.as_str())
        && said(cx, row).is_some_and(|f| f.tag.as_deref() == Some("img"))
}

fn image_unnamed(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n, drawn) in cx.judged() {
        if let Some(why) = browser_named(cx, row) {
            out.push(Hit::new(
                row,
                format!(
                    "{} is named {} by the browser, not the page: {why}",
                    n.role,
                    n.name.quoted(40)
                ),
            ));
            continue;
        }
        if blank_alt(cx, row) {
            out.push(Hit::new(
                row,
                format!(
                    "an image whose text alternative is only white space, which the engine \
                     shows as text ({}){}",
                    n.raw_role.to_ascii_lowercase(),
                    drawn.unless_drawn()
                ),
            ));
            continue;
        }
        if !is_image(n.role) || !blank(n.name.as_str()) {
            continue;
        }
        // In a page an image needs a name (ARIA 1.2 `img`: "name required"); a description
        // (an SVG's `desc`, `aria-describedby`) is read after the name, not instead of it.
        // Elsewhere a toolkit's description is what a screen reader reads for an image.
        let described = !blank(n.description.as_str());
        if described && !cx.in_document(row) {
            continue;
        }
        if cx.ancestors(row).any(|(_, a)| interactive(a)) {
            continue;
        }
        let what = if described {
            "has a description but no name; in a page an image needs a name, and the \
             description is read after it, not in its place"
        } else {
            "has neither name nor description"
        };
        out.push(Hit::new(
            row,
            format!("{} {what}{}", shown(n), drawn.unless_drawn()),
        ));
    }
}

pub(super) const HEADING_EMPTY: Rule = Rule {
    id: "heading-empty",
    group: "names",
    severity: Severity::Warning,
    message: "a heading has no text",
    standard: "WCAG 2.4.6",
    anchor: "axe-core empty-heading",
    help: "Screen-reader users move through a window by its headings; an empty one is \
           announced as \"heading\" and says nothing about what follows. Give it text, or \
           drop the heading role. Judged on screen; a heading that keeps its words in its \
           Text interface and not in a name (Gecko) is judged by its character count, read \
           for the audit (without it, it is not judged).",
    needs: Needs::Nothing,
    check: heading_empty,
};

fn heading_empty(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if n.role != Role::Heading
            || !blank(n.name.as_str())
            || holds_text(cx, row)
            || content_named(cx, row)
        {
            continue;
        }
        out.push(Hit::new(row, "heading has no name and no named content"));
    }
}

pub(super) const HEADER_UNNAMED: Rule = Rule {
    id: "header-unnamed",
    group: "names",
    severity: Severity::Warning,
    message: "a table's column or row header has no name",
    standard: "WCAG 1.3.1",
    anchor: "axe-core empty-table-header",
    help: "A header names the cells under it: a screen reader reads it before each cell's \
           value. An empty one leaves the column unnamed. Give it text (GTK: the tree view \
           column's title; Qt: the model's headerData; web: the th's content). Judged on \
           screen; a header that keeps its words in its Text interface is judged by its \
           character count, read for the audit (without it, it is not judged).",
    needs: Needs::Nothing,
    check: header_unnamed,
};

fn header_unnamed(cx: &Context, out: &mut Vec<Hit>) {
    for (row, n) in cx.showing() {
        if n.role != Role::ColumnHeader
            || !blank(n.name.as_str())
            || holds_text(cx, row)
            || content_named(cx, row)
            || has_label(n)
        {
            continue;
        }
        out.push(Hit::new(
            row,
            format!("{} has no name", n.raw_role.to_ascii_lowercase()),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::model::{RawKind, Role, State};

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
            // Neither on screen nor visible: not judged.
            (
                without(
                    without(focusable(n(Role::Text, "")), State::Showing),
                    State::Visible,
                ),
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

    #[test]
    fn image_unnamed_in_a_page_takes_no_description_for_a_name() {
        let mut described = n(Role::Image, "");
        described.description = "A red circle".into();
        let snap = tree(vec![(
            n(Role::Document, "Page"),
            vec![described, n(Role::Image, "Logo")],
        )]);
        let got = rows(&snap, "image-unnamed");
        assert_eq!(got, vec![2]);
    }

    fn hidden(node: crate::model::Node) -> crate::model::Node {
        without(node, State::Showing)
    }

    #[test]
    fn name_missing_judges_what_a_person_reaches_without_its_being_drawn() {
        let snap = tree(vec![
            (
                n(Role::Document, "Page"),
                vec![
                    // An empty link: no size, not showing, yet Tab lands on it.
                    hidden(focusable(n(Role::Link, ""))),
                    // Not focusable, but in the page's reading order.
                    hidden(n(Role::ProgressBar, "")),
                    // Neither visible nor showing: display none, never reached.
                    without(hidden(focusable(n(Role::Button, ""))), State::Visible),
                ],
            ),
            // Under a hidden parent (another notebook page): no keyboard reaches it.
            (
                hidden(n(Role::Panel, "")),
                vec![hidden(focusable(n(Role::Text, "")))],
            ),
            // Focusable and visible under a parent on screen, outside any page.
            (
                n(Role::Panel, ""),
                vec![hidden(focusable(n(Role::Button, "")))],
            ),
        ]);
        let got = rows(&snap, "name-missing");
        let roles: Vec<Role> = got.iter().map(|&r| snap.nodes[r].role).collect();
        assert_eq!(
            roles,
            vec![Role::Link, Role::ProgressBar, Role::Button],
            "{got:?}"
        );
        let a = crate::audit::audit(&snap, &Default::default()).expect("audit");
        let link = a
            .findings
            .iter()
            .find(|f| f.row == got[0] && f.rule.id == "name-missing")
            .expect("the link's finding");
        assert!(
            link.detail.contains("yet the keyboard reaches it"),
            "{}",
            link.detail
        );
    }

    #[test]
    fn roles_that_need_a_name_come_from_the_table() {
        let note = of_kind(n(Role::Alert, ""), RawKind::LiveAlert);
        let snap = tree(vec![
            (
                n(Role::Panel, "Box"),
                vec![
                    n(Role::Dialog, ""),
                    of_kind(n(Role::Alert, ""), RawKind::Alert),
                    note,
                    of_kind(n(Role::Unknown, ""), RawKind::EmbeddedObject),
                    n(Role::ToolTip, ""),
                    n(Role::ProgressBar, ""),
                    n(Role::Dialog, "Settings"),
                    n(Role::Panel, ""),
                    // Outside a page: a browser's own frame around it, named by the page.
                    of_kind(n(Role::Panel, ""), RawKind::InlineFrame),
                ],
            ),
            (
                n(Role::Document, "Page"),
                vec![of_kind(n(Role::Panel, ""), RawKind::InlineFrame)],
            ),
        ]);
        let got = rows(&snap, "name-missing");
        assert_eq!(got, vec![2, 3, 5, 6, 7, 12], "{got:?}");
        let a = crate::audit::audit(&snap, &Default::default()).expect("audit");
        assert!(
            a.findings
                .iter()
                .any(|f| f.row == 12 && f.detail.starts_with("internal frame has no name")),
            "the raw role is said where the table matched it"
        );
    }

    #[test]
    fn a_cell_outside_any_table_is_judged_and_one_inside_is_not() {
        let snap = tree(vec![
            (n(Role::Panel, ""), vec![focusable(n(Role::TableCell, ""))]),
            (
                n(Role::Table, "Scores"),
                vec![focusable(n(Role::TableCell, ""))],
            ),
        ]);
        assert_eq!(rows(&snap, "name-missing"), vec![2]);
    }

    #[test]
    fn a_label_holding_only_the_fields_own_value_names_nothing() {
        let mut own = focusable(n(Role::Text, ""));
        own.label = Some("val".into());
        own.value = Some(crate::model::Value::Text { text: "val".into() });
        let mut real = focusable(n(Role::Text, ""));
        real.label = Some("Email".into());
        real.value = Some(crate::model::Value::Text {
            text: "a@b.c".into(),
        });
        let snap = tree(vec![(n(Role::Panel, "Form"), vec![own, real])]);
        assert_eq!(rows(&snap, "name-missing"), vec![2]);
        let a = crate::audit::audit(&snap, &Default::default()).expect("audit");
        assert!(a.findings.iter().any(|f| f.rule.id == "name-missing"
            && f.detail.contains("its label holds only its own value")));
    }

    #[test]
    fn a_name_that_is_only_a_list_marker_is_blank() {
        let snap = tree(vec![(
            n(Role::Menu, "Edit"),
            vec![
                n(Role::CheckMenuItem, "•"),
                n(Role::CheckMenuItem, "• Word wrap"),
            ],
        )]);
        assert_eq!(rows(&snap, "name-blank"), vec![2]);
    }

    #[test]
    fn content_kept_as_text_names_a_link_and_is_not_judged() {
        let mut article = n(Role::Panel, "");
        article.interfaces = article.interfaces.with(crate::model::Interface::Text);
        let snap = tree(vec![
            (focusable(n(Role::Link, "")), vec![article]),
            (focusable(n(Role::Link, "")), vec![n(Role::Panel, "")]),
        ]);
        assert_eq!(rows(&snap, "name-missing"), vec![3]);
    }

    #[test]
    fn empty_headings_and_headers_are_found() {
        let mut gecko = n(Role::Heading, "");
        gecko.interfaces = gecko.interfaces.with(crate::model::Interface::Text);
        let snap = tree(vec![
            (n(Role::Heading, ""), vec![]),
            (n(Role::Heading, "Shipping"), vec![]),
            (n(Role::Heading, ""), vec![n(Role::Label, "Billing")]),
            (gecko, vec![]),
            (n(Role::ColumnHeader, ""), vec![]),
            (n(Role::ColumnHeader, "Fruit"), vec![]),
        ]);
        assert_eq!(rows(&snap, "heading-empty"), vec![1]);
        assert_eq!(rows(&snap, "header-unnamed"), vec![6]);
        // Its characters counted: none, so it is empty too; some, and it is not.
        let mut facts = crate::audit::Facts::of(snap.id);
        facts.text_chars = Some([(5, 0)].into_iter().collect());
        assert_eq!(rows_with(&snap, "heading-empty", facts), vec![1, 5]);
        let mut facts = crate::audit::Facts::of(snap.id);
        facts.text_chars = Some([(5, 12)].into_iter().collect());
        assert_eq!(rows_with(&snap, "heading-empty", facts), vec![1]);
    }

    #[test]
    fn a_name_the_browser_gave_is_no_text_alternative() {
        use crate::audit::facts::NameFrom;
        let snap = tree(vec![(
            n(Role::Document, "Page"),
            vec![
                // <input type=image> with no alt: Chromium's default, from its value.
                focusable(n(Role::Button, "Submit")),
                n(Role::Image, ""),
                // <input type=button value=Go>: named from its value by the page.
                focusable(n(Role::Button, "Go")),
                // An unlabelled image Chromium named itself.
                n(
                    Role::Image,
                    "To get missing image descriptions, open the context menu.",
                ),
                n(Role::Image, "Logo"),
            ],
        )]);
        // Rows: frame 0, document 1, then 2..=6 in order.
        let mut facts = crate::audit::Facts::of(snap.id);
        let from = |f: Option<&str>, explicit: bool, tag: &str| NameFrom {
            from: f.map(str::to_string),
            explicit,
            tag: Some(tag.to_string()),
            ..NameFrom::default()
        };
        facts.name_from = Some(
            [
                (2, from(Some("value"), true, "input")),
                (4, from(Some("value"), true, "input")),
                (5, from(None, false, "img")),
                (6, from(Some("attribute"), true, "img")),
            ]
            .into_iter()
            .collect(),
        );
        // The image button holds its image: make the submit hold row 3.
        let mut snap = snap;
        snap.nodes[1].children.retain(|&c| c != 3);
        snap.nodes[2].children.push(3);
        snap.nodes[3].parent = Some(2);
        let got = rows_with(&snap, "image-unnamed", facts);
        assert_eq!(got, vec![2, 5], "{got:?}");
    }

    #[test]
    fn an_alert_in_a_page_needs_a_name_only_when_the_page_made_it_a_dialog() {
        use crate::audit::facts::NameFrom;
        let alert = || of_kind(n(Role::Alert, ""), RawKind::Alert);
        let snap = tree(vec![
            (n(Role::Document, "Page"), vec![alert(), alert(), alert()]),
            // A toolkit's message dialog, outside any page.
            (alert(), vec![]),
        ]);
        let aria = |role: &str| NameFrom {
            xml_roles: Some(role.to_string()),
            ..NameFrom::default()
        };
        let mut facts = crate::audit::Facts::of(snap.id);
        facts.name_from = Some(
            [(2, aria("alertdialog")), (3, aria("alert"))]
                .into_iter()
                .collect(),
        );
        // Row 4 was not read: not judged. Row 5 is no page's.
        assert_eq!(rows_with(&snap, "name-missing", facts), vec![2, 5]);
        assert_eq!(rows(&snap, "name-missing"), vec![5]);
    }

    #[test]
    fn a_frame_the_page_made_presentational_is_judged_as_the_engine_shows_it() {
        use crate::audit::facts::NameFrom;
        let frame = || of_kind(n(Role::Panel, ""), RawKind::InlineFrame);
        let snap = tree(vec![(n(Role::Document, "Page"), vec![frame(), frame()])]);
        let mut facts = crate::audit::Facts::of(snap.id);
        facts.name_from = Some(
            [(
                2,
                NameFrom {
                    xml_roles: Some("none".into()),
                    ..NameFrom::default()
                },
            )]
            .into_iter()
            .collect(),
        );
        let a = crate::audit::audit(
            &snap,
            &crate::audit::Options {
                facts: Some(std::sync::Arc::new(facts)),
                ..Default::default()
            },
        )
        .expect("audit");
        let details: Vec<(usize, &str)> = a
            .findings
            .iter()
            .filter(|f| f.rule.id == "name-missing")
            .map(|f| (f.row, f.detail.as_str()))
            .collect();
        assert_eq!(details.len(), 2, "{details:?}");
        assert!(
            details[0].1.contains("made it presentational"),
            "{details:?}"
        );
        assert!(!details[1].1.contains("presentational"), "{details:?}");
    }
}
