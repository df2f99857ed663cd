//! A one-line text input with a cursor, shared by the filter bar and the set-value prompt.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Text plus a cursor at a character boundary (a byte offset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineInput {
    pub text: String,
    pub cursor: usize,
}

impl LineInput {
    /// An input holding `text` with the cursor at its end.
    pub fn with(text: impl Into<String>) -> LineInput {
        let text = text.into();
        let cursor = text.len();
        LineInput { text, cursor }
    }

    /// The cursor position in characters (for drawing).
    pub fn cursor_chars(&self) -> usize {
        self.text[..self.cursor].chars().count()
    }

    pub fn insert_str(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
    }

    fn prev_boundary(&self) -> usize {
        self.text[..self.cursor]
            .char_indices()
            .next_back()
            .map_or(0, |(i, _)| i)
    }

    fn next_boundary(&self) -> usize {
        self.text[self.cursor..]
            .chars()
            .next()
            .map_or(self.cursor, |c| self.cursor + c.len_utf8())
    }

    /// Applies an editing key; returns `Some(changed)` when the key was an editing key.
    pub fn key(&mut self, ev: &KeyEvent) -> Option<bool> {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        match ev.code {
            KeyCode::Char('u') if ctrl => {
                let changed = !self.text.is_empty();
                self.text.clear();
                self.cursor = 0;
                Some(changed)
            }
            KeyCode::Char('a') if ctrl => {
                self.cursor = 0;
                Some(false)
            }
            KeyCode::Char('e') if ctrl => {
                self.cursor = self.text.len();
                Some(false)
            }
            KeyCode::Char(_) if ctrl => None,
            KeyCode::Char(c) => {
                let mut b = [0u8; 4];
                self.insert_str(c.encode_utf8(&mut b));
                Some(true)
            }
            KeyCode::Backspace => {
                if self.cursor == 0 {
                    return Some(false);
                }
                let p = self.prev_boundary();
                self.text.replace_range(p..self.cursor, "");
                self.cursor = p;
                Some(true)
            }
            KeyCode::Delete => {
                let n = self.next_boundary();
                if n == self.cursor {
                    return Some(false);
                }
                self.text.replace_range(self.cursor..n, "");
                Some(true)
            }
            KeyCode::Left => {
                self.cursor = self.prev_boundary();
                Some(false)
            }
            KeyCode::Right => {
                self.cursor = self.next_boundary();
                Some(false)
            }
            KeyCode::Home => {
                self.cursor = 0;
                Some(false)
            }
            KeyCode::End => {
                self.cursor = self.text.len();
                Some(false)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn edits_at_the_cursor() {
        let mut i = LineInput::with("héllo");
        i.key(&key(KeyCode::Left));
        i.key(&key(KeyCode::Backspace));
        assert_eq!(i.text, "hélo");
        i.key(&key(KeyCode::Home));
        i.key(&key(KeyCode::Char('¡')));
        assert_eq!(i.text, "¡hélo");
        assert_eq!(i.cursor_chars(), 1);
        i.key(&key(KeyCode::Delete));
        assert_eq!(i.text, "¡élo");
        assert_eq!(
            i.key(&KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
            Some(true)
        );
        assert_eq!(i.text, "");
    }
}
