//! PLaMo-2's tokenizer (`plamo2`, llama.cpp's `llm_tokenizer_plamo2`): every token text and
//! every suffix of one (by codepoints) is a node of a suffix automaton laid out as a table; the
//! text is walked from its end, and dynamic programming picks the tokenization of the best
//! total score (scores are the token scores times 10^4, rounded), a codepoint no token covers
//! falling back to its UTF-8 byte tokens (`<0xXX>`, all 256 required).
//!
//! Suffixes are slices of the token texts here (llama.cpp copies each one), so building costs
//! the table's size, not the square of the token lengths in memory.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use super::attr::TokenAttr;
use super::vocab::Vocab;
use crate::error::TokenizerError;

const INVALID_SCORE: i32 = -20_000_000;
const UNKNOWN_SCORE: i32 = -10_000_000;

/// One row of the table.
#[derive(Clone, Copy, Debug)]
struct Row {
    piece_length: i32,
    token_id: i32,
    score: i32,
    piece_id: i32,
}

/// The PLaMo-2 tables of a vocabulary.
pub(crate) struct Plamo2 {
    bytes: [u32; 256],
    to_suffix_id: HashMap<u64, i32>,
    table: Vec<Row>,
}

/// The byte of a `<0xXX>` text.
fn byte_of(text: &[u8]) -> Option<u8> {
    if text.len() == 6 && text.starts_with(b"<0x") && text[5] == b'>' {
        let h = std::str::from_utf8(&text[3..5]).ok()?;
        if h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return u8::from_str_radix(h, 16).ok();
        }
    }
    None
}

/// The byte offsets of the codepoints of `s` (valid UTF-8 or not: llama.cpp's lenient walk).
fn char_starts(s: &[u8]) -> Vec<usize> {
    let mut v = Vec::new();
    super::unicode::decode_lenient(s, |_, at| v.push(at));
    v
}

/// `round(score * 1e4)` as an `int32`, out-of-range values as x86 converts them.
fn scaled(score: f32) -> i32 {
    if !score.is_finite() {
        return INVALID_SCORE;
    }
    let r = (f64::from(score) * 1e4).round();
    if (-2_147_483_648.0..2_147_483_648.0).contains(&r) {
        r as i32
    } else {
        i32::MIN
    }
}

impl Plamo2 {
    pub fn new(v: &Vocab<'_>) -> Result<Self, TokenizerError> {
        let mut bytes = [0u32; 256];
        // every token text and suffix, with its score (NaN for a suffix that is no token)
        let mut score_of: HashMap<&[u8], f32> = HashMap::new();
        for id in 0..v.n_tokens {
            let text = v.text(id);
            if v.attr(id).has(TokenAttr::BYTE) {
                if let Some(b) = byte_of(text) {
                    bytes[b as usize] = id;
                }
                continue;
            }
            score_of.insert(text, v.score(id));
            for &at in char_starts(text).iter().skip(1) {
                score_of.entry(&text[at..]).or_insert(f32::NAN);
            }
        }
        if let Some(b) = bytes.iter().position(|&id| id == 0) {
            return Err(TokenizerError::MissingByteToken { byte: b as u8 });
        }
        let mut suffixes: Vec<&[u8]> = score_of.keys().copied().collect();
        suffixes.push(b"");
        suffixes.sort_unstable_by(|a, b| a.iter().rev().cmp(b.iter().rev()));

        let mut suffix_to_id: HashMap<&[u8], i32> = HashMap::with_capacity(suffixes.len());
        let mut to_suffix_id = HashMap::new();
        let mut num_pieces: i32 = 0;
        for &suffix in &suffixes {
            suffix_to_id.insert(suffix, num_pieces);
            if suffix.is_empty() {
                num_pieces += 1;
                continue;
            }
            let starts = char_starts(suffix);
            let first = first_cpt(suffix);
            let rest = starts
                .get(1)
                .map_or(&suffix[suffix.len()..], |&a| &suffix[a..]);
            let rest_id = suffix_to_id.get(rest).copied().unwrap_or(0);
            to_suffix_id.insert(code(first, rest_id), num_pieces);
            let mut pieces = 1;
            for k in (1..=starts.len()).rev() {
                let end = starts.get(k).copied().unwrap_or(suffix.len());
                if score_of.contains_key(&suffix[..end]) {
                    pieces += 1;
                }
            }
            num_pieces += pieces;
        }

        let mut table = Vec::with_capacity(num_pieces.max(0) as usize);
        for &suffix in &suffixes {
            let starts = char_starts(suffix);
            for k in (1..=starts.len()).rev() {
                let end = starts.get(k).copied().unwrap_or(suffix.len());
                let piece = &suffix[..end];
                let Some(&score) = score_of.get(piece) else {
                    continue;
                };
                table.push(Row {
                    piece_length: k as i32,
                    token_id: v.text_to_token(piece).map_or(-1, |id| id as i32),
                    score: scaled(score),
                    piece_id: suffix_to_id.get(piece).copied().unwrap_or(0),
                });
            }
            table.push(Row {
                piece_length: 1,
                token_id: -1,
                score: UNKNOWN_SCORE,
                piece_id: 0,
            });
        }
        Ok(Plamo2 {
            bytes,
            to_suffix_id,
            table,
        })
    }

    /// Tokenizes one fragment, appending to `out`.
    pub fn encode(&self, text: &str, out: &mut Vec<u32>) -> Result<(), TokenizerError> {
        let mut data: Vec<u32> = text.chars().map(|c| c as u32).collect();
        if data.first() == Some(&0xFEFF) {
            data.remove(0);
        }
        let n = data.len();
        if n == 0 {
            return Ok(());
        }
        let mut scores = vec![1i64 << 60; n + 1];
        scores[n] = 0;
        // (token length, token id, token count) of the best path from each position
        let mut path = vec![(0i32, 0i32, 0i32); n + 1];
        let mut suffix_id: i32 = 0;
        for i in (0..n).rev() {
            let c = data[i];
            for p in suffix_id.max(0) as usize..self.table.len() {
                let row = self.table[p];
                suffix_id = self
                    .to_suffix_id
                    .get(&code(c, row.piece_id))
                    .copied()
                    .unwrap_or(0);
                if suffix_id > 0 || row.score == UNKNOWN_SCORE {
                    break;
                }
            }
            for p in suffix_id.max(0) as usize..self.table.len() {
                let row = self.table[p];
                if row.score > INVALID_SCORE {
                    let end = i + row.piece_length.max(0) as usize;
                    if end <= n {
                        let s = scores[end] - i64::from(row.score);
                        if s < scores[i] {
                            scores[i] = s;
                            let mut count = path[end].2 + 1;
                            if row.score == UNKNOWN_SCORE {
                                count += i32::from(c >= 0x80)
                                    + i32::from(c >= 0x800)
                                    + i32::from(c >= 0x10000);
                            }
                            path[i] = (row.piece_length, row.token_id, count);
                        }
                    }
                }
                if row.score == UNKNOWN_SCORE {
                    break;
                }
            }
        }
        let mut pos = 0;
        while pos < n {
            let (len, id, _) = path[pos];
            if id >= 0 {
                out.push(id as u32);
            } else {
                let mut buf = [0u8; 4];
                let ch = char::from_u32(data[pos]).unwrap_or(char::REPLACEMENT_CHARACTER);
                for &b in ch.encode_utf8(&mut buf).as_bytes() {
                    out.push(self.bytes[b as usize]);
                }
            }
            if len <= 0 {
                return Err(TokenizerError::NoProgress { offset: pos });
            }
            pos += len as usize;
        }
        Ok(())
    }
}

/// The first codepoint of `s` (leniently decoded).
fn first_cpt(s: &[u8]) -> u32 {
    let mut first = None;
    super::unicode::decode_lenient(s, |cp, _| {
        if first.is_none() {
            first = Some(cp);
        }
    });
    first.unwrap_or(0)
}

/// A table key: a codepoint and a suffix id.
fn code(cp: u32, suffix_id: i32) -> u64 {
    (u64::from(cp) << 32) | u64::from(suffix_id as u32)
}
