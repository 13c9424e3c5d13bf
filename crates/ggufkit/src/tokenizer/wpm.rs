//! WordPiece (`bert`, llama.cpp's `llm_tokenizer_wpm_session`): the text is normalized (NFD
//! and accents dropped, lowercased, as the BERT normalizer flags say) and split at whitespace
//! and around punctuation, symbols below U+007F and CJK ideographs; each word, prefixed with
//! `▁`, is cut greedily into the longest tokens from its start. A word that cannot be cut
//! entirely becomes the unknown token.
#![forbid(unsafe_code)]

use super::matcher::PrefixMatcher;
use super::unicode::{flags, nfd, to_lower};
use super::vocab::Vocab;
use crate::error::TokenizerError;

/// The CJK ranges BERT splits one character at a time (llama.cpp's list, which follows HF's
/// 0x2B920 where the block starts at 0x2B820).
fn is_chinese_char(cp: u32) -> bool {
    matches!(cp,
        0x04E00..=0x09FFF
        | 0x03400..=0x04DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0x0F900..=0x0FAFF
        | 0x2F800..=0x2FA1F)
}

/// The words of `text` after BERT's normalization.
fn preprocess(text: &str, lowercase: bool, strip_accents: bool) -> Vec<String> {
    let mut words = vec![String::new()];
    for c in text.chars() {
        let cp = if strip_accents {
            nfd(c as u32)
        } else {
            c as u32
        };
        let f = flags(cp);
        if f.is_whitespace() {
            if !words.last().is_some_and(String::is_empty) {
                words.push(String::new());
            }
            continue;
        }
        if cp == 0 || cp == 0xFFFD || f.is_control() {
            continue;
        }
        if strip_accents && f.is_accent_mark() {
            continue;
        }
        let out = if lowercase { to_lower(cp) } else { cp };
        let ch = char::from_u32(out).unwrap_or(char::REPLACEMENT_CHARACTER);
        if f.is_punctuation() || (cp < 0x7F && f.is_symbol()) || is_chinese_char(cp) {
            if !words.last().is_some_and(String::is_empty) {
                words.push(String::new());
            }
            if let Some(w) = words.last_mut() {
                w.push(ch);
            }
            words.push(String::new());
        } else if let Some(w) = words.last_mut() {
            w.push(ch);
        }
    }
    if words.last().is_some_and(String::is_empty) {
        words.pop();
    }
    words
}

/// Every token's text, for the longest-prefix search.
pub(crate) struct Wpm {
    matcher: PrefixMatcher,
}

impl Wpm {
    pub fn new(v: &Vocab<'_>) -> Self {
        Wpm {
            matcher: PrefixMatcher::new((0..v.n_tokens).collect(), |id| v.text(id)),
        }
    }

    /// Tokenizes one fragment, appending to `out`.
    pub fn encode(
        &self,
        v: &Vocab<'_>,
        text: &str,
        out: &mut Vec<u32>,
    ) -> Result<(), TokenizerError> {
        let mut word1 = Vec::new();
        for word in preprocess(text, v.flags.lowercase, v.flags.strip_accents) {
            if word.is_empty() {
                continue;
            }
            word1.clear();
            word1.extend_from_slice("\u{2581}".as_bytes());
            word1.extend_from_slice(word.as_bytes());
            let before = out.len();
            let mut i = 0;
            while i < word1.len() {
                // the longest token the rest of the word starts with
                let mut longest = None;
                self.matcher.prefixes(
                    |id| v.text(id),
                    &word1[i..],
                    |len, id| {
                        longest = Some((len, id));
                        true
                    },
                );
                match longest {
                    Some((len, id)) => {
                        out.push(id);
                        i += len;
                    }
                    None => {
                        out.truncate(before);
                        break;
                    }
                }
            }
            if out.len() == before {
                out.push(
                    v.special
                        .unk
                        .ok_or(TokenizerError::MissingSpecial { which: "UNK" })?,
                );
            }
        }
        Ok(())
    }
}
