//! Unigram (`t5`, llama.cpp's `llm_tokenizer_ugm`): the text is normalized (user-defined tokens
//! kept, the precompiled charsmap applied, spaces escaped, merged or prefixed as the flags say),
//! then the tokenization of the highest total score is found by Viterbi over codepoint steps,
//! a codepoint no token covers costing the lowest normal score minus 10 as the unknown token
//! (consecutive unknowns written once).
#![forbid(unsafe_code)]

use super::attr::TokenAttr;
use super::charsmap::Charsmap;
use super::matcher::PrefixMatcher;
use super::spm::utf8_len;
use super::vocab::Vocab;
use crate::error::TokenizerError;

/// The Unigram model of a vocabulary.
pub(crate) struct Ugm {
    /// Normal, user-defined and unused tokens.
    tokens: PrefixMatcher,
    /// User-defined tokens.
    user_defined: PrefixMatcher,
    unknown_score: f32,
}

/// The length of the UTF-8 sequence at the start of `b` as llama.cpp's
/// `unicode_cpt_from_utf8` accepts it (continuation bits only), or `None`.
fn utf8_seq(b: &[u8]) -> Option<usize> {
    let b0 = *b.first()?;
    let n = match b0 {
        _ if b0 & 0x80 == 0 => return Some(1),
        _ if b0 & 0x40 == 0 => return None,
        _ if b0 & 0x20 == 0 => 2,
        _ if b0 & 0x10 == 0 => 3,
        _ if b0 & 0x08 == 0 => 4,
        _ => return None,
    };
    if b.len() < n || !b[1..n].iter().all(|&c| c & 0xC0 == 0x80) {
        return None;
    }
    Some(n)
}

impl Ugm {
    pub fn new(v: &Vocab<'_>) -> Self {
        let kept = TokenAttr::NORMAL | TokenAttr::USER_DEFINED | TokenAttr::UNUSED;
        let mut min_score = f32::MAX;
        for id in 0..v.n_tokens {
            if v.attr(id).has(TokenAttr::NORMAL) {
                min_score = min_score.min(v.score(id));
            }
        }
        let ids = (0..v.n_tokens).filter(|&id| v.attr(id).has(kept)).collect();
        let user = (0..v.n_tokens)
            .filter(|&id| v.attr(id).has(TokenAttr::USER_DEFINED))
            .collect();
        Ugm {
            tokens: PrefixMatcher::new(ids, |id| v.text(id)),
            user_defined: PrefixMatcher::new(user, |id| v.text(id)),
            unknown_score: min_score - 10.0,
        }
    }

    /// The normalized form of `input`.
    fn normalize(&self, v: &Vocab<'_>, input: &[u8]) -> Result<Vec<u8>, TokenizerError> {
        let f = v.flags;
        let space: &[u8] = if f.escape_whitespaces {
            "\u{2581}".as_bytes()
        } else {
            b" "
        };
        let prepend = !f.treat_whitespace_as_suffix && f.add_space_prefix;
        let append = f.treat_whitespace_as_suffix && f.add_space_prefix;
        let merge = f.remove_extra_whitespaces;
        let charsmap = Charsmap::new(v.charsmap);
        let mut out = Vec::with_capacity(input.len() * 3);
        let (mut space_prepended, mut in_word) = (false, false);
        let mut at = 0;
        while at < input.len() {
            let rest = &input[at..];
            // a user-defined token's text (as far as any matches) passes unchanged
            let user = self.user_defined.deepest(|id| v.text(id), rest);
            let (piece, consumed): (&[u8], usize) = if user > 0 {
                (&rest[..user], user)
            } else if let Some((r, n)) = charsmap.longest(rest)? {
                (r, n)
            } else if let Some(n) = utf8_seq(rest) {
                (&rest[..n], n)
            } else {
                ("\u{FFFD}".as_bytes(), 1)
            };
            for &c in piece {
                if c != b' ' {
                    if !in_word {
                        in_word = true;
                        if (prepend && !space_prepended) || merge {
                            out.extend_from_slice(space);
                            space_prepended = true;
                        }
                    }
                    out.push(c);
                } else {
                    in_word = false;
                    if !merge {
                        out.extend_from_slice(space);
                    }
                }
            }
            at += consumed;
        }
        if append {
            out.extend_from_slice(space);
        }
        Ok(out)
    }

    /// Tokenizes one fragment, appending to `out`.
    pub fn encode(
        &self,
        v: &Vocab<'_>,
        text: &[u8],
        out: &mut Vec<u32>,
    ) -> Result<(), TokenizerError> {
        let norm = self.normalize(v, text)?;
        let n = norm.len();
        if n == 0 {
            return Ok(());
        }
        let unk = v.special.unk;
        // (token, where it starts, total score) of the best tokenization ending at each offset
        let mut best: Vec<(Option<u32>, usize, f64)> = vec![(unk, 0, f64::MIN); n + 1];
        best[0] = (unk, 0, 0.0);
        let mut at = 0;
        while at < n {
            let units = utf8_len(norm[at]).min(n - at);
            let current = best[at].2;
            let mut single = false;
            self.tokens.prefixes(
                |id| v.text(id),
                &norm[at..],
                |len, id| {
                    if len == units {
                        single = true;
                    }
                    let score = if v.attr(id).has(TokenAttr::USER_DEFINED) {
                        0.0
                    } else {
                        f64::from(v.score(id))
                    };
                    let challenger = current + score;
                    if challenger > best[at + len].2 {
                        best[at + len] = (Some(id), at, challenger);
                    }
                    true
                },
            );
            if !single {
                let challenger = current + f64::from(self.unknown_score);
                if challenger > best[at + units].2 {
                    best[at + units] = (unk, at, challenger);
                }
            }
            at += units;
        }
        let start = out.len();
        let mut prev_unknown = false;
        let mut i = n;
        loop {
            let (id, from, _) = best[i];
            let is_unknown = id == unk;
            if !(prev_unknown && is_unknown) {
                out.push(id.ok_or(TokenizerError::MissingSpecial { which: "UNK" })?);
            }
            if from == 0 {
                break;
            }
            prev_unknown = is_unknown;
            i = from;
        }
        out[start..].reverse();
        Ok(())
    }
}
