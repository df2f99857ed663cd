//! Target grammar: canonical round trips, JSON form, lenient parsing, limits and errors with
//! columns.
#![allow(clippy::unwrap_used)]

use treeglass::model::{Role, State};
use treeglass::selector::{
    MAX_TARGET_CHARS, MAX_WITHIN, ParseError, Query, QueryMode, RoleSpec, StateReq, Target,
};

fn parse(s: &str) -> Target {
    match Target::parse(s) {
        Ok(t) => t,
        Err(e) => panic!("{s:?} failed: {e}"),
    }
}

fn err(s: &str) -> ParseError {
    match Target::parse(s) {
        Ok(t) => panic!("{s:?} parsed as {t}"),
        Err(e) => e,
    }
}

#[test]
fn canonical_forms() {
    let table: &[(&str, &str)] = &[
        (
            r#"check-box "Enable" [enabled !checked] in frame "Settings""#,
            r#"check-box "Enable" [enabled !checked] in frame "Settings""#,
        ),
        (
            r#"  [!checked, enabled] "Enable"   check-box   in   frame  "Settings" "#,
            r#"check-box "Enable" [enabled !checked] in frame "Settings""#,
        ),
        ("button", "button"),
        (r#"="Save""#, r#"="Save""#),
        (r#"*"ave""#, r#"*"ave""#),
        (r#"~"sve""#, r#"~"sve""#),
        (r#"button"OK"in dialog"#, r#"button "OK" in dialog"#),
        (r#"role:"push button" "OK""#, r#"role:"push button" "OK""#),
        (r#"role: " Push Button ""#, r#"role:"Push Button""#),
        (r#""  Save  ""#, r#""Save""#),
        ("[read_only Focused]", "[focused read-only]"),
        (
            r#""a\"b\\c\n\t\r\0\u{1b}[31m\x9b""#,
            r#""a\"b\\c\n\t\r\x00\x1b[31m\x9b""#,
        ),
        (r#""\u{41}\u{202e}é""#, r#""A\u{202e}é""#),
        ("\"tab\there\"", r#""tab\there""#),
        (
            r#"text in panel in group "Proxy" in frame"#,
            r#"text in panel in group "Proxy" in frame"#,
        ),
    ];
    for (input, canonical) in table {
        let t = parse(input);
        assert_eq!(t.to_string(), *canonical, "input {input:?}");
        assert_eq!(parse(canonical), t, "canonical {canonical:?}");
    }
}

#[test]
fn structure_of_a_parsed_target() {
    let t = parse(r#"check-box ~"enbl" [!checked] in role:"filler" in frame"#);
    assert_eq!(t.role(), Some(&RoleSpec::Role(Role::CheckBox)));
    let q = t.query().unwrap();
    assert_eq!((q.text(), q.mode()), ("enbl", QueryMode::Fuzzy));
    assert_eq!(t.states(), &[StateReq::must_not(State::Checked)]);
    let w = t.within().unwrap();
    assert_eq!(w.role(), Some(&RoleSpec::Raw("filler".into())));
    assert_eq!(
        w.within().unwrap().role(),
        Some(&RoleSpec::Role(Role::Frame))
    );
    assert_eq!(t.depth(), 2);
}

#[test]
fn json_form() {
    let t = parse(
        r#"{"role":"check-box","query":"Enable","states":["enabled","!checked"],
            "within":{"role":"frame","query":{"text":"Settings","mode":"exact"}}}"#,
    );
    assert_eq!(
        t.to_string(),
        r#"check-box "Enable" [enabled !checked] in frame ="Settings""#
    );
    let json = serde_json::to_string(&t).unwrap();
    assert_eq!(
        json,
        r#"{"role":"check-box","query":"Enable","states":["enabled","!checked"],"within":{"role":"frame","query":{"text":"Settings","mode":"exact"}}}"#
    );
    assert_eq!(serde_json::from_str::<Target>(&json).unwrap(), t);
    let raw = parse(r#" {"role":{"raw":"push button"},"query":{"text":"x"},"within":null}"#);
    assert_eq!(raw.to_string(), r#"role:"push button" "x""#);
    assert_eq!(
        serde_json::to_string(&raw).unwrap(),
        r#"{"role":{"raw":"push button"},"query":"x"}"#
    );
}

#[test]
fn errors_have_columns_and_hints() {
    // (input, column, part of the message)
    let table: &[(&str, usize, &str)] = &[
        ("", 1, "empty"),
        ("   \t", 1, "empty"),
        ("s0000002a:11", 1, "element token, not a target"),
        ("  s0000002a:11", 3, "element token"),
        (
            "Save",
            1,
            r#"unknown role "Save" (to match text, quote it: "Save")"#,
        ),
        ("chek-box", 1, r#"did you mean "check-box"?"#),
        ("push-button", 1, r#"did you mean "button"?"#),
        ("Button", 1, r#"did you mean "button"?"#),
        (r#"button "Save"#, 8, "unterminated string"),
        ("button [enabled", 8, "never closed"),
        ("button []", 8, "state list is empty"),
        (
            "button [chekced]",
            9,
            r#"unknown state "chekced" (did you mean "checked"?)"#,
        ),
        ("button [zzzzqqq]", 9, "states are: enabled, sensitive"),
        ("button [!]", 10, "`!` must be followed"),
        ("button [! checked]", 10, "`!` must be followed"),
        (
            "button [checked !checked]",
            17,
            "both required and excluded",
        ),
        ("button [checked checked]", 17, "listed twice"),
        ("button in", 10, "`in` needs a target after it"),
        ("button in   ", 13, "`in` needs a target after it"),
        ("in button", 1, "`in` needs a target before it"),
        ("button in in frame", 11, "`in` needs a target before it"),
        ("button frame", 8, "one role"),
        (r#""a" "b""#, 5, "one query"),
        ("button [enabled] [checked]", 18, "one state list"),
        ("~Save", 2, "must be followed by a quoted query"),
        ("= \"x\"", 2, "must be followed by a quoted query"),
        ("role:push", 6, "raw role names are quoted"),
        ("role:", 6, "must be followed by a quoted raw role"),
        (r#"role:"  ""#, 6, "raw role is empty"),
        (r#""""#, 1, "query is empty"),
        (r#"" ""#, 1, "query is empty"),
        (r#""a\q""#, 3, "unknown escape \\q"),
        (r#""\u{d800}""#, 2, "not a Unicode scalar value"),
        (r#""\u{110000}""#, 2, "not a Unicode scalar value"),
        (r#""\u12""#, 2, "\\u must be followed by {hex digits}"),
        (r#""\xZZ""#, 2, "two hex digits"),
        ("button ]", 8, "without a matching `[`"),
        ("button {", 8, "JSON target must be the whole input"),
    ];
    for (input, column, message) in table {
        let e = err(input);
        assert_eq!(e.column, *column, "{input:?}: {e}");
        assert!(e.message.contains(message), "{input:?}: {e}");
        assert!(!e.expected.is_empty(), "{input:?}");
        assert_eq!(e.to_string(), format!("column {}: {}", e.column, e.message));
    }
}

#[test]
fn error_messages_are_terminal_safe() {
    for input in [
        "\u{1b}[31mred",
        "button [\u{1b}]",
        "\"\\q\u{202e}",
        "{\"\u{1b}\":1}",
    ] {
        let e = err(input);
        assert!(
            !e.to_string()
                .chars()
                .any(|c| c.is_control() || c == '\u{202e}'),
            "{input:?}: {e:?}"
        );
    }
}

#[test]
fn json_errors() {
    let table: &[(&str, &str)] = &[
        (r#"{"role":"chek-box"}"#, r#"did you mean "check-box"?"#),
        (r#"{"role":"push buton"}"#, r#"{"raw": "push buton"}"#),
        (
            r#"{"role":"button","colour":1}"#,
            r#"unknown field "colour""#,
        ),
        (r#"{"role":"button","role":"text"}"#, "appears twice"),
        ("{}", "a target needs a role, a query or states"),
        (r#"{"query":""}"#, "the query is empty"),
        (
            r#"{"query":{"text":"x","mode":"regex"}}"#,
            "unknown query mode",
        ),
        (r#"{"states":["chekced"]}"#, r#"did you mean "checked""#),
        (
            r#"{"states":["checked","!checked"]}"#,
            "both to hold and not to hold",
        ),
        (r#"{"role":"button""#, "EOF"),
        (r#"{"role":"button"} x"#, "trailing characters"),
        (r#"{"role":7}"#, "invalid type"),
    ];
    for (input, message) in table {
        let e = err(input);
        assert!(e.message.contains(message), "{input:?}: {e}");
        assert!(
            e.column >= 1 && e.column <= input.chars().count() + 1,
            "{input:?}: {e}"
        );
    }
    // The column counts characters, not bytes.
    let e = err(r#"{"query":"ééé","role":"chek-box"}"#);
    assert_eq!(e.column, 32, "{e}");
}

#[test]
fn tokens_are_not_targets() {
    for token in ["s0000002a:11", "s00000001:0", " s0000ffff:123456 "] {
        assert!(Target::parse(token).is_err(), "{token}");
        assert!(Target::parse_lenient(token).is_err(), "{token}");
    }
}

#[test]
fn lenient_parse_falls_back_to_text_only_for_plain_words() {
    let q = |s: &str| Target::from_query(Query::tiered(s).unwrap());
    assert_eq!(Target::parse_lenient("save as").unwrap(), q("save as"));
    assert_eq!(Target::parse_lenient(" Button ").unwrap(), q("Button"));
    assert_eq!(Target::parse_lenient("in").unwrap(), q("in"));
    assert_eq!(Target::parse_lenient("text in").unwrap(), q("text in"));
    assert_eq!(
        Target::parse_lenient("button").unwrap(),
        Target::from_role(Role::Button).unwrap()
    );
    assert_eq!(
        Target::parse_lenient("save as").unwrap().to_string(),
        r#""save as""#
    );
    for tried in [r#"button "x"#, "button [chekced", "{\"role\":1}", "", "   "] {
        assert!(Target::parse_lenient(tried).is_err(), "{tried:?}");
    }
}

#[test]
fn length_limit() {
    let at_limit = format!("\"{}\"", "a".repeat(MAX_TARGET_CHARS - 2));
    assert!(Target::parse(&at_limit).is_ok());
    let over = format!("\"{}\"", "a".repeat(MAX_TARGET_CHARS - 1));
    let e = err(&over);
    assert_eq!(e.column, MAX_TARGET_CHARS + 1);
    assert_eq!(
        e.message,
        "the target is 1025 characters long; the limit is 1024"
    );
    // Multi-byte characters count once.
    assert!(Target::parse(&format!("\"{}\"", "é".repeat(MAX_TARGET_CHARS - 2))).is_ok());

    let huge = "x".repeat(100 * 1024);
    let e = err(&huge);
    assert!(e.message.contains("102400 characters"), "{e}");
    assert!(Target::parse_lenient(&huge).is_err());
    assert!(Target::parse(&format!("{{{huge}")).is_err());

    // Fits as typed, but raw control characters print escaped and would not fit.
    let sneaky = format!("\"{}\"", "\u{1b}".repeat(300));
    let e = err(&sneaky);
    assert!(e.message.contains("canonical form"), "{e}");
    assert!(Target::parse_lenient(&"\u{1b}".repeat(300)).is_err());
}

#[test]
fn nesting_limit_in_string_form() {
    let chain = |clauses: usize| vec!["panel"; clauses].join(" in ");
    let ok = parse(&chain(MAX_WITHIN + 1));
    assert_eq!(ok.depth(), MAX_WITHIN);
    assert_eq!(parse(&ok.to_string()), ok);
    let e = err(&chain(MAX_WITHIN + 2));
    assert!(
        e.message.contains("too many `in` levels; the limit is 32"),
        "{e}"
    );
    // As many `in`s as fit in 1024 characters.
    let e = err(&vec!["[busy]"; 100].join(" in "));
    assert!(e.message.contains("limit is 32"), "{e}");
}

#[test]
fn nesting_limit_in_json_form() {
    let nested = |depth: usize| {
        format!(
            "{}{{\"role\":\"panel\"}}{}",
            "{\"query\":\"x\",\"within\":".repeat(depth),
            "}".repeat(depth)
        )
    };
    let ok = parse(&nested(MAX_WITHIN));
    assert_eq!(ok.depth(), MAX_WITHIN);
    for depth in [MAX_WITHIN + 1, 40, 43] {
        let e = err(&nested(depth));
        assert!(
            e.message.contains("nests more than 32 levels"),
            "{depth}: {e}"
        );
    }
    // Deeper than serde_json's own limit (128) and far past the character limit: the
    // deserializer stops at our limit first, with our message, and nothing overflows.
    for depth in [200, 1000, 100_000] {
        let json = nested(depth);
        let e = serde_json::from_str::<Target>(&json).unwrap_err();
        assert!(e.to_string().contains("nests more than 32 levels"), "{e}");
        assert!(err(&json).message.contains("characters long"));
    }
}

#[test]
fn serde_round_trip_of_modes_and_raw_roles() {
    for s in [
        r#"="Save""#,
        r#"*"ave" [editable]"#,
        r#"role:"push button" ~"ok" in dialog "Save as""#,
        r#"[enabled !checked]"#,
    ] {
        let t = parse(s);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<Target>(&json).unwrap(), t, "{json}");
        assert_eq!(parse(&json), t);
    }
}

#[test]
fn positions_labels_and_neighbours() {
    let table: &[(&str, &str)] = &[
        (
            r#"check-box "checkbutton" #3"#,
            r#"check-box "checkbutton" #3"#,
        ),
        (
            r#"#3 "checkbutton"  check-box"#,
            r#"check-box "checkbutton" #3"#,
        ),
        (r#"check-box#2 in group#1"#, "check-box #2 in group #1"),
        (
            r#"text labelled-by "Full name:""#,
            r#"text labelled-by "Full name:""#,
        ),
        (
            r#"labeled-by ="Full name:" text"#,
            r#"text labelled-by ="Full name:""#,
        ),
        (r#"text after "City:""#, r#"text after label "City:""#),
        (r#"text after label "City:""#, r#"text after label "City:""#),
        (
            r#"after heading ~"adr" combo-box"#,
            r#"combo-box after heading ~"adr""#,
        ),
        (
            r#"#2 after "A" labelled-by *"b" [showing] "x" text in group "G" #4"#,
            r#"text "x" [showing] labelled-by *"b" after label "A" #2 in group "G" #4"#,
        ),
        (r#"[focused] #1"#, "[focused] #1"),
        (r#"labelled-by "\x1b[31m""#, r#"labelled-by "\x1b[31m""#),
    ];
    for (input, canonical) in table {
        let t = parse(input);
        assert_eq!(t.to_string(), *canonical, "input {input:?}");
        assert_eq!(parse(canonical), t, "canonical {canonical:?}");
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(parse(&json), t, "{json}");
    }
    let t = parse(r#"text "x" labelled-by "L" after heading "H" #2 in group #3"#);
    assert_eq!(t.label().map(|q| q.text()), Some("L"));
    let after = t.after().unwrap();
    assert_eq!((after.role(), after.query().text()), (Role::Heading, "H"));
    assert_eq!(t.nth(), Some(2));
    assert_eq!(t.within().unwrap().nth(), Some(3));
}

#[test]
fn grades() {
    use treeglass::selector::Grade;
    for (s, grade) in [
        (r#"button "Save""#, Grade::Stable),
        ("slider", Grade::Stable),
        (r#"role:"push button" "OK""#, Grade::Stable),
        (r#"button "OK" [showing]"#, Grade::Contextual),
        (r#"text labelled-by "Name:""#, Grade::Contextual),
        (r#"text after label "City:""#, Grade::Contextual),
        (r#"button "OK" in dialog "Save""#, Grade::Contextual),
        (r#"check-box "x" #2"#, Grade::Positional),
        (r#"check-box "x" in group #2"#, Grade::Positional),
    ] {
        assert_eq!(parse(s).grade(), grade, "{s}");
    }
    assert_eq!(Grade::Positional.to_string(), "positional");
}

#[test]
fn errors_in_the_new_forms() {
    let table: &[(&str, usize, &str)] = &[
        ("button #", 9, "`#` must be followed by a position"),
        ("button #0", 8, "positions count from 1"),
        ("button #2x", 10, "a position is digits only"),
        ("button #99999999999", 8, "the position is too large"),
        ("button #1 #2", 11, "one position"),
        ("#3", 1, "a position needs something to count"),
        ("button in #3", 11, "a position needs something to count"),
        ("text labelled-by", 17, "must be followed by a quoted text"),
        (
            "text labelled-by Name",
            18,
            "must be followed by a quoted text",
        ),
        (r#"text labelled-by """#, 18, "query is empty"),
        (
            r#"text labelled-by "a" labelled-by "b""#,
            22,
            "one labelled-by",
        ),
        ("text after", 11, "must be followed by the neighbour's text"),
        (r#"text after lable "x""#, 12, r#"did you mean "label"?"#),
        ("text after label", 17, "must be followed by a quoted text"),
        (r#"text after "a" after "b""#, 16, "one after"),
    ];
    for (input, column, message) in table {
        let e = err(input);
        assert_eq!(e.column, *column, "{input:?}: {e}");
        assert!(e.message.contains(message), "{input:?}: {e}");
    }
    let json: &[(&str, &str)] = &[
        (r#"{"role":"button","nth":0}"#, "positions count from 1"),
        (r#"{"nth":2}"#, "a position needs something to count"),
        (r#"{"role":"button","nth":-1}"#, "invalid value"),
        (r#"{"label":""}"#, "the query is empty"),
        (
            r#"{"after":{"role":"spin button","query":"x"}}"#,
            "unknown role",
        ),
        (
            r#"{"after":{"query":"x","colour":1}}"#,
            "an after object has role and query",
        ),
        (
            r#"{"after":{"role":"label"}}"#,
            "an after object needs query",
        ),
    ];
    for (input, message) in json {
        let e = err(input);
        assert!(e.message.contains(message), "{input:?}: {e}");
    }
}

#[test]
fn json_forms_of_the_new_fields() {
    let t = parse(
        r#"{"role":"text","label":{"text":"Name:","mode":"exact"},"after":"City:","nth":2,
            "within":{"role":"group","nth":1}}"#,
    );
    assert_eq!(
        t.to_string(),
        r#"text labelled-by ="Name:" after label "City:" #2 in group #1"#
    );
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"role":"text","label":{"text":"Name:","mode":"exact"},"after":{"role":"label","query":"City:"},"nth":2,"within":{"role":"group","nth":1}}"#
    );
    let t = parse(
        r#"{"role":"combo-box","after":{"role":"heading","query":{"text":"adr","mode":"fuzzy"}}}"#,
    );
    assert_eq!(t.to_string(), r#"combo-box after heading ~"adr""#);
    // A raw AT-SPI role name is accepted as the raw role; the string form keeps role:"…".
    let t = parse(r#"{"role":"spin button","query":"Count"}"#);
    assert_eq!(t.role(), Some(&RoleSpec::Raw("spin button".into())));
    assert_eq!(t.to_string(), r#"role:"spin button" "Count""#);
    assert_eq!(
        serde_json::to_string(&t).unwrap(),
        r#"{"role":{"raw":"spin button"},"query":"Count"}"#
    );
    assert_eq!(
        parse(r#"{"role":"spin-button"}"#).role(),
        Some(&RoleSpec::Role(Role::SpinButton))
    );
}

#[test]
fn the_new_forms_fit_the_workflow_limit() {
    // Every item at once, nested to the limit, still within 1024 characters or refused
    // clearly: never a target that a workflow file cannot store.
    let clause = r#"text "x" [showing] labelled-by "L" after label "A" #2"#;
    let chain = vec![clause; 18].join(" in ");
    assert!(chain.chars().count() <= MAX_TARGET_CHARS);
    let t = parse(&chain);
    assert_eq!(t.to_string(), chain);
    let too_long = vec![clause; 20].join(" in ");
    let e = err(&too_long);
    assert!(e.message.contains("the limit is 1024"), "{e}");
}
