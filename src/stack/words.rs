//! `--app-cmd 'my-app --flag "two words"'` split into a program and its arguments the way a
//! POSIX shell splits words, with no shell: quotes and backslashes are honoured, nothing is
//! expanded, and what only a shell could do (variables, pipes, redirections, `;`, `&`,
//! subshells, command substitution) is refused unquoted rather than passed on as an argument.

/// Why a command line could not be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SplitError {
    #[error("an unterminated {0} quote")]
    Unterminated(&'static str),
    #[error("a backslash at the very end")]
    TrailingBackslash,
    #[error(
        "`{0}` needs a shell, and the command is not run by one: quote it, or run \
         `sh -c '…'` as the command"
    )]
    NeedsShell(char),
    #[error("no command")]
    Empty,
}

/// The characters that mean something only to a shell.
const SHELL_ONLY: &[char] = &['|', '&', ';', '<', '>', '(', ')', '$', '`'];

/// Splits `line` into words: blanks (space, tab, newline) separate words outside quotes;
/// `'…'` is literal; inside `"…"` a backslash escapes only `"`, `\`, `$` and `` ` `` (and
/// removes a newline), elsewhere it escapes any character. `''` is an empty word.
pub fn split(line: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    // The word being built; `None` between words (so that `''` still makes one).
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err(SplitError::Unterminated("single")),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => w.push(c),
                            Some('\n') => {}
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err(SplitError::Unterminated("double")),
                        },
                        Some(c) => w.push(c),
                        None => return Err(SplitError::Unterminated("double")),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err(SplitError::TrailingBackslash),
            },
            c if SHELL_ONLY.contains(&c) => return Err(SplitError::NeedsShell(c)),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(w) = word {
        words.push(w);
    }
    if words.is_empty() {
        return Err(SplitError::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> Vec<String> {
        split(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    #[test]
    fn words_are_split_on_blanks() {
        assert_eq!(ok("  my-app --flag\tx\n"), ["my-app", "--flag", "x"]);
    }

    #[test]
    fn quotes_and_backslashes_work_as_in_a_shell() {
        assert_eq!(
            ok(r#"app 'two words' "and \"more\"" a\ b '' "" x"y"'z'"#),
            ["app", "two words", "and \"more\"", "a b", "", "", "xyz"]
        );
        // Inside double quotes a backslash before an ordinary character stays.
        assert_eq!(ok(r#"app "a\b""#), ["app", r"a\b"]);
        // Single quotes keep everything, backslashes and shell characters included.
        assert_eq!(
            ok(r"sh -c 'echo $X | cat; exit 3'"),
            ["sh", "-c", "echo $X | cat; exit 3"]
        );
        assert_eq!(ok(r#"sh -c "a && b""#), ["sh", "-c", "a && b"]);
        assert_eq!(ok(r"a\;b \$HOME"), ["a;b", "$HOME"]);
    }

    #[test]
    fn what_needs_a_shell_is_refused_unquoted() {
        for (line, c) in [
            ("app > log", '>'),
            ("app | tee", '|'),
            ("app; other", ';'),
            ("app &", '&'),
            ("app $HOME", '$'),
            ("app `date`", '`'),
            ("(app)", '('),
        ] {
            assert_eq!(split(line), Err(SplitError::NeedsShell(c)), "{line}");
        }
    }

    #[test]
    fn broken_lines_are_refused() {
        assert_eq!(split("app 'x"), Err(SplitError::Unterminated("single")));
        assert_eq!(split("app \"x"), Err(SplitError::Unterminated("double")));
        assert_eq!(split("app x\\"), Err(SplitError::TrailingBackslash));
        assert_eq!(split("   "), Err(SplitError::Empty));
        assert_eq!(split(""), Err(SplitError::Empty));
    }
}
