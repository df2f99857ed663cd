//! Generated trees of any size, for benchmarks and scale tests (deterministic for a seed).

use super::{Interface, Interfaces, Node, NodeId, Role, State, States, Toggle, Value, preorder};

/// A settings-like tree of about `n` nodes: a frame, nested groups of forms, each form a label,
/// a text field, a check box, a spin button and a button, with names that repeat across groups
/// (so queries have unique, ambiguous and missing answers). Deterministic for `seed`.
pub fn generate(n: usize, seed: u64) -> Vec<Node> {
    let mut rng = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // xorshift64*: cheap, deterministic, good enough for names.
        rng ^= rng >> 12;
        rng ^= rng << 25;
        rng ^= rng >> 27;
        rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    const WORDS: &[&str] = &[
        "Name", "Email", "Server", "Port", "Proxy", "Colour", "Volume", "Timeout", "Path", "Theme",
        "Language", "Backup", "Update", "Printer", "Network", "Account",
    ];
    let enabled = States::EMPTY
        .with(State::Enabled)
        .with(State::Sensitive)
        .with(State::Showing)
        .with(State::Visible);
    let mut nodes: Vec<Node> = Vec::with_capacity(n + 8);
    let mk = |nodes: &mut Vec<Node>, role: Role, raw: &str, name: String| -> usize {
        let i = nodes.len();
        let mut node = Node::new(NodeId(format!("g:{i}")), role, raw);
        node.name = name.into();
        node.states = enabled;
        node.interfaces = Interfaces::EMPTY.with(Interface::Accessible);
        nodes.push(node);
        i
    };
    let root = mk(
        &mut nodes,
        Role::Frame,
        "frame",
        "Generated settings".into(),
    );
    let mut open_groups = vec![root];
    let mut form = 0usize;
    while nodes.len() < n.max(1) {
        let parent = open_groups[(next() as usize) % open_groups.len()];
        if nodes.len() + 6 > n {
            let leaf = mk(&mut nodes, Role::Label, "label", format!("Note {form}"));
            nodes[parent].children.push(leaf);
            continue;
        }
        if next() % 5 == 0 && open_groups.len() < 4096 {
            let g = mk(&mut nodes, Role::Panel, "panel", String::new());
            nodes[parent].children.push(g);
            open_groups.push(g);
            continue;
        }
        form += 1;
        let word = WORDS[(next() as usize) % WORDS.len()];
        let group = mk(
            &mut nodes,
            Role::Group,
            "grouping",
            format!("{word} settings {form}"),
        );
        nodes[parent].children.push(group);
        let label = mk(&mut nodes, Role::Label, "label", format!("{word}:"));
        let text = mk(&mut nodes, Role::Text, "text", word.to_string());
        nodes[text].value = Some(Value::Text {
            text: format!("{word} value {form}").into(),
        });
        nodes[text].states = enabled.with(State::Editable).with(State::Focusable);
        nodes[text].interfaces = nodes[text]
            .interfaces
            .with(Interface::Text)
            .with(Interface::EditableText);
        let check = mk(
            &mut nodes,
            Role::CheckBox,
            "check box",
            format!("Enable {word}"),
        );
        let on = next() % 2 == 0;
        nodes[check].value = Some(Value::Toggle {
            state: if on { Toggle::On } else { Toggle::Off },
        });
        if on {
            nodes[check].states.set(State::Checked, true);
        }
        nodes[check].actions = vec!["click".into()];
        let spin = mk(
            &mut nodes,
            Role::SpinButton,
            "spin button",
            format!("{word} count"),
        );
        nodes[spin].value = Some(Value::Number {
            current: (next() % 100) as f64,
            min: Some(0.0),
            max: Some(100.0),
            step: Some(1.0),
        });
        let button = mk(
            &mut nodes,
            Role::Button,
            "push button",
            format!("Apply {form}"),
        );
        nodes[button].actions = vec!["click".into()];
        nodes[group].children = vec![label, text, check, spin, button];
    }
    preorder(nodes, root)
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_and_determinism() {
        let a = super::generate(1000, 7);
        let b = super::generate(1000, 7);
        assert!(a.len() >= 1000 && a.len() < 1010, "{}", a.len());
        assert_eq!(a, b);
        assert!(a.iter().skip(1).all(|n| n.parent.is_some()));
    }
}
