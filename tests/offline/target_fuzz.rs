//! Property tests of the target grammar: every target (positions, labels and neighbours
//! included) prints to a terminal-safe string that parses back to it, and no input (random or a
//! mutated valid target) makes the parser panic.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use treeglass::model::{Role, State};
use treeglass::selector::{
    MAX_TARGET_CHARS, Neighbour, Parts, Query, QueryMode, RoleSpec, StateReq, Target,
};

/// Characters that stress quoting and escaping, mixed with anything at all.
fn arb_char() -> impl Strategy<Value = char> {
    prop_oneof![
        3 => proptest::char::range('a', 'z'),
        2 => prop::sample::select(vec![
            '"', '\\', ' ', '\n', '\r', '\t', '\0', '\u{1b}', '\u{7f}', '\u{9b}', '\u{202e}',
            '\u{200b}', '\u{feff}', '[', ']', '{', '}', '!', '~', '=', '*', ':', ',', 'é', '漢',
            '🦀', '\u{2028}', '\u{85}',
        ]),
        1 => any::<char>(),
    ]
}

fn arb_text() -> impl Strategy<Value = String> {
    prop::collection::vec(arb_char(), 0..14).prop_map(|v| v.into_iter().collect())
}

fn arb_role() -> impl Strategy<Value = Option<RoleSpec>> {
    prop_oneof![
        2 => Just(None),
        2 => prop::sample::select(Role::ALL.to_vec()).prop_map(|r| Some(RoleSpec::Role(r))),
        1 => arb_text().prop_map(|t| Some(RoleSpec::Raw(t))),
    ]
}

fn arb_query() -> impl Strategy<Value = Option<Query>> {
    let mode = prop::sample::select(vec![
        QueryMode::Tiered,
        QueryMode::Exact,
        QueryMode::Substring,
        QueryMode::Fuzzy,
    ]);
    prop_oneof![
        1 => Just(None),
        3 => (arb_text(), mode).prop_map(|(t, m)| Query::new(t, m).ok()),
    ]
}

fn arb_states() -> impl Strategy<Value = Vec<StateReq>> {
    prop::collection::btree_map(
        prop::sample::select(State::ALL.to_vec()),
        any::<bool>(),
        0..4,
    )
    .prop_map(|m| {
        m.into_iter()
            .map(|(state, present)| StateReq { state, present })
            .collect()
    })
}

fn arb_after() -> impl Strategy<Value = Option<Neighbour>> {
    prop_oneof![
        3 => Just(None),
        1 => (prop::sample::select(Role::ALL.to_vec()), arb_query())
            .prop_map(|(r, q)| q.map(|q| Neighbour::new(r, q))),
    ]
}

fn arb_nth() -> impl Strategy<Value = Option<u32>> {
    prop_oneof![
        3 => Just(None),
        1 => prop_oneof![1u32..20, Just(u32::MAX)].prop_map(Some),
    ]
}

fn arb_clause() -> impl Strategy<Value = Target> {
    let label = prop_oneof![3 => Just(None), 1 => arb_query()];
    (
        arb_role(),
        arb_query(),
        arb_states(),
        label,
        arb_after(),
        arb_nth(),
    )
        .prop_filter_map(
            "needs one field",
            |(role, query, states, label, after, nth)| {
                Target::from_parts(Parts {
                    role,
                    query,
                    states,
                    label,
                    after,
                    nth,
                })
                .ok()
            },
        )
}

fn arb_target() -> impl Strategy<Value = Target> {
    prop::collection::vec(arb_clause(), 1..5).prop_map(|clauses| {
        let mut it = clauses.into_iter().rev();
        let first = it.next().unwrap();
        it.fold(first, |ancestor, t| t.inside(ancestor).unwrap())
    })
}

fn is_terminal_safe(s: &str) -> bool {
    !s.chars().any(|c| {
        c.is_control()
            || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
    })
}

/// The round-trip promise for anything the parser accepted.
fn assert_stable(input: &str, t: &Target) -> Result<(), TestCaseError> {
    let printed = t.to_string();
    prop_assert!(is_terminal_safe(&printed), "{printed:?}");
    let again = Target::parse(&printed);
    prop_assert_eq!(
        again.as_ref(),
        Ok(t),
        "input {:?} printed {:?}",
        input,
        printed
    );
    Ok(())
}

/// Grammar-shaped noise: role names, keywords and punctuation glued together.
fn arb_grammarish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        prop::sample::select(Role::ALL.to_vec()).prop_map(|r| r.as_str().to_string()),
        prop::sample::select(State::ALL.to_vec()).prop_map(|s| s.as_str().to_string()),
        prop::sample::select(vec![
            " in ",
            "in",
            " ",
            "\"",
            "\\",
            "[",
            "]",
            "!",
            "=",
            "~",
            "*",
            "role:",
            "{",
            "}",
            ",",
            "\\u{",
            "\\x",
            "\"\"",
            ":",
            "\n",
            "#",
            "#0",
            "#7",
            "99999999999",
            " labelled-by ",
            "labeled-by",
            " after ",
            "after label ",
            "\"nth\":",
            "\"label\":",
            "\"after\":",
        ])
        .prop_map(str::to_string),
        arb_text(),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|v| v.concat())
}

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Insert(usize, char),
    Swap(usize),
    Truncate(usize),
    Duplicate(usize, usize),
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), arb_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        any::<usize>().prop_map(Edit::Swap),
        any::<usize>().prop_map(Edit::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::Duplicate(a, b)),
    ]
}

fn mutate(s: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    for e in edits {
        let n = chars.len();
        match *e {
            Edit::Delete(i) if n > 0 => {
                chars.remove(i % n);
            }
            Edit::Insert(i, c) => chars.insert(i % (n + 1), c),
            Edit::Swap(i) if n > 1 => chars.swap(i % (n - 1), i % (n - 1) + 1),
            Edit::Truncate(i) => chars.truncate(i % (n + 1)),
            Edit::Duplicate(a, b) if n > 0 => {
                let (lo, hi) = ((a % n).min(b % n), (a % n).max(b % n));
                let copy: Vec<char> = chars[lo..=hi].to_vec();
                chars.splice(hi + 1..hi + 1, copy);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn print_then_parse_is_identity(t in arb_target()) {
        let printed = t.to_string();
        prop_assert!(is_terminal_safe(&printed), "{printed:?}");
        if printed.chars().count() <= MAX_TARGET_CHARS {
            prop_assert_eq!(Target::parse(&printed), Ok(t.clone()), "printed {:?}", printed);
        }
        let json = serde_json::to_string(&t).unwrap();
        prop_assert_eq!(serde_json::from_str::<Target>(&json).unwrap(), t);
    }

    #[test]
    fn arbitrary_strings_never_panic(s in any::<String>()) {
        if let Ok(t) = Target::parse(&s) {
            assert_stable(&s, &t)?;
        }
        if let Ok(t) = Target::parse_lenient(&s) {
            assert_stable(&s, &t)?;
        }
    }

    #[test]
    fn grammar_shaped_noise_never_panics(s in arb_grammarish()) {
        match Target::parse(&s) {
            Ok(t) => assert_stable(&s, &t)?,
            Err(e) => {
                prop_assert!(e.column >= 1 && e.column <= s.chars().count().max(1) + 1, "{s:?}: {e}");
                prop_assert!(is_terminal_safe(&e.to_string()), "{e:?}");
            }
        }
        if let Ok(t) = Target::parse_lenient(&s) {
            assert_stable(&s, &t)?;
        }
    }

    #[test]
    fn mutated_targets_never_panic(
        t in arb_target(),
        edits in prop::collection::vec(arb_edit(), 1..4),
        as_json in any::<bool>(),
    ) {
        let printed = if as_json { serde_json::to_string(&t).unwrap() } else { t.to_string() };
        let s = mutate(&printed, &edits);
        if let Ok(t) = Target::parse(&s) {
            assert_stable(&s, &t)?;
        }
        if let Ok(t) = Target::parse_lenient(&s) {
            assert_stable(&s, &t)?;
        }
    }
}
