//! Invisible and bidirectional-control characters in the strings a user never sees rendered:
//! special tokens and the model name (templates are checked by `template`).
#![forbid(unsafe_code)]

use super::{Finding, Severity};
use crate::summary::{TokenRole, Tokenizer};
use crate::Gguf;

/// What a hidden character is, `None` for an ordinary one: zero-width characters, bidi
/// overrides, embeddings and isolates, and Unicode tag characters.
pub fn hidden_char(c: char) -> Option<&'static str> {
    match c {
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}' => {
            Some("zero-width")
        }
        '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' => {
            Some("bidirectional control")
        }
        '\u{E0000}'..='\u{E007F}' => Some("tag"),
        _ => None,
    }
}

/// Hidden characters in `general.name` and in the text of each special token.
pub(super) fn audit_names(g: &Gguf<'_>, out: &mut Vec<Finding>) {
    if let (Some(name), Some(kv)) = (g.model_name(), g.get_kv("general.name")) {
        if let Some((c, what)) = name.chars().find_map(|c| hidden_char(c).map(|w| (c, w))) {
            out.push(Finding::new(
                "hidden.model-name",
                Severity::Warning,
                "general.name",
                kv.offset,
                format!("the model name holds a {what} character U+{:04X}", c as u32),
            ));
        }
    }
    let Some(tok) = Tokenizer::of(g) else { return };
    for s in &tok.special {
        let Some(text) = &s.text else { continue };
        if let Some((c, what)) = text.chars().find_map(|c| hidden_char(c).map(|w| (c, w))) {
            let key = key_of(g, s.role);
            out.push(Finding::new(
                "hidden.special-token",
                Severity::Warning,
                key,
                g.get_kv(key).map_or(0, |kv| kv.offset),
                format!(
                    "the {} token {} holds a {what} character U+{:04X}",
                    s.role.name(),
                    s.id,
                    c as u32
                ),
            ));
        }
    }
}

/// The key that gave a role's id (the first present of its spellings).
fn key_of(g: &Gguf<'_>, role: TokenRole) -> &'static str {
    role.keys()
        .iter()
        .copied()
        .find(|k| g.get_kv(k).is_some())
        .unwrap_or(role.keys()[0])
}
