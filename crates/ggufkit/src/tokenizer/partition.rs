//! The special-token partition (llama.cpp's `tokenizer_st_partition`): before a model sees the
//! text, every occurrence of a special token's text becomes that token, longest tokens first,
//! each splitting the text fragments the longer ones left. Control and unknown tokens take part
//! only with `parse_special`; user-defined tokens always do. A token with the LSTRIP (RSTRIP)
//! attribute also takes the whitespace before (after) it.
//!
//! llama.cpp searches the whole text once per special token. Here one Aho-Corasick pass finds
//! which special tokens occur in the text at all (a token absent from the text is absent from
//! every fragment of it), and only those are applied, in llama.cpp's order: the same fragments.
#![forbid(unsafe_code)]

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::attr::TokenAttr;
use super::vocab::Vocab;

/// A piece of the partitioned text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fragment {
    /// Bytes `start..end` of the text, for the model to tokenize.
    Text(usize, usize),
    /// A special token matched in the text.
    Token(u32),
}

/// Below this many special tokens, each is searched for directly.
const DIRECT_MAX: usize = 16;

/// What finds the special tokens in a text.
pub(crate) struct SpecialMatcher {
    /// All special tokens' texts, in the vocabulary's special-cache order (`None` when few).
    automaton: Option<AhoCorasick>,
}

/// C's `isspace` in the "C" locale.
#[inline]
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

impl SpecialMatcher {
    pub fn new(v: &Vocab<'_>) -> Self {
        let automaton = if v.special_cache.len() > DIRECT_MAX {
            AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(v.special_cache.iter().map(|&id| v.text(id)))
                .ok()
        } else {
            None
        };
        SpecialMatcher { automaton }
    }

    /// The fragments of `text` (not empty).
    pub fn split(&self, v: &Vocab<'_>, text: &[u8], parse_special: bool) -> Vec<Fragment> {
        let mut frags = vec![Fragment::Text(0, text.len())];
        let skip = TokenAttr::CONTROL | TokenAttr::UNKNOWN;
        let take = |id: u32| parse_special || !v.attr(id).has(skip);
        match &self.automaton {
            Some(ac) => {
                let mut present = vec![false; v.special_cache.len()];
                let mut any = false;
                for m in ac.find_overlapping_iter(text) {
                    present[m.pattern().as_usize()] = true;
                    any = true;
                }
                if !any {
                    return frags;
                }
                for (i, &id) in v.special_cache.iter().enumerate() {
                    if present[i] && take(id) {
                        frags = apply(v, text, id, frags);
                    }
                }
            }
            None => {
                for &id in &v.special_cache {
                    if take(id) && memchr::memmem::find(text, v.text(id)).is_some() {
                        frags = apply(v, text, id, frags);
                    }
                }
            }
        }
        frags
    }
}

/// Splits every text fragment at the occurrences of special token `id`, as llama.cpp does.
fn apply(v: &Vocab<'_>, raw: &[u8], id: u32, frags: Vec<Fragment>) -> Vec<Fragment> {
    let tok = v.text(id);
    let attr = v.attr(id);
    let finder = memchr::memmem::Finder::new(tok);
    let mut out = Vec::with_capacity(frags.len() + 2);
    for f in frags {
        let Fragment::Text(start, end) = f else {
            out.push(f);
            continue;
        };
        let (mut off, mut len) = (start, end - start);
        loop {
            let Some(rel) = finder.find(&raw[off..off + len]) else {
                // no (more) occurrences: what is left stays text
                out.push(Fragment::Text(off, off + len));
                break;
            };
            let m = off + rel;
            if m > off {
                let mut left_len = m - off;
                if attr.has(TokenAttr::LSTRIP) {
                    while left_len > 0 && is_c_space(raw[off + left_len - 1]) {
                        left_len -= 1;
                    }
                }
                if left_len > 0 {
                    out.push(Fragment::Text(off, off + left_len));
                }
            }
            out.push(Fragment::Token(id));
            let after = m + tok.len();
            if after < off + len {
                let mut r_off = after;
                let mut r_len = off + len - after;
                if attr.has(TokenAttr::RSTRIP) {
                    while r_len > 0 && is_c_space(raw[r_off]) {
                        r_off += 1;
                        r_len -= 1;
                    }
                }
                if r_len == 0 {
                    break;
                }
                off = r_off;
                len = r_len;
            } else {
                break;
            }
        }
    }
    out
}
