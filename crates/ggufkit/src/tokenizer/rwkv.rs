//! RWKV's tokenizer (`rwkv`, llama.cpp's `llm_tokenizer_rwkv`): token texts are escaped
//! (`\t`, `\n`, `\r`, `\xHH`, `\<char>`); the text is cut greedily into the longest token at
//! each position, a byte no token starts with becoming the unknown token.
#![forbid(unsafe_code)]

use super::matcher::PrefixMatcher;
use super::vocab::Vocab;
use crate::error::TokenizerError;

/// A token text's bytes (llama.cpp's `llama_unescape_rwkv_token`, whose hex digits are read
/// leniently: any byte from `a` up counts from 10, any other from `0`).
pub(crate) fn unescape(escaped: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(escaped.len());
    let mut escaping = false;
    let mut hex_remaining = 0u8;
    let mut hex_acc = 0u8;
    for &c in escaped {
        if hex_remaining != 0 {
            let value = if c >= b'a' {
                c.wrapping_sub(b'a').wrapping_add(10)
            } else {
                c.wrapping_sub(b'0')
            };
            hex_acc = (hex_acc << 4).wrapping_add(value);
            hex_remaining -= 1;
            if hex_remaining == 0 {
                out.push(hex_acc);
                hex_acc = 0;
            }
            continue;
        }
        if escaping {
            match c {
                b't' => out.push(b'\t'),
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b'x' => hex_remaining = 2,
                _ => out.push(c),
            }
            escaping = false;
            continue;
        }
        if c == b'\\' {
            escaping = true;
            continue;
        }
        out.push(c);
    }
    out
}

/// The unescaped vocabulary and its matcher.
pub(crate) struct Rwkv {
    /// Every token's bytes, concatenated.
    bytes: Vec<u8>,
    /// Where token `id`'s bytes end in `bytes` (they start where the previous token's end).
    ends: Vec<usize>,
    matcher: PrefixMatcher,
}

impl Rwkv {
    pub fn new(v: &Vocab<'_>) -> Self {
        let mut bytes = Vec::new();
        let mut ends = Vec::with_capacity(v.n_tokens as usize);
        for id in 0..v.n_tokens {
            bytes.extend_from_slice(&unescape(v.text(id)));
            // unescaping never lengthens: the total stays below the header's size
            ends.push(bytes.len());
        }
        let mut r = Rwkv {
            bytes,
            ends,
            matcher: PrefixMatcher { ids: Vec::new() },
        };
        let ids = (0..v.n_tokens).collect();
        r.matcher = PrefixMatcher::new(ids, |id| r.key(id));
        r
    }

    fn key(&self, id: u32) -> &[u8] {
        let end = self.ends[id as usize];
        let start = match id {
            0 => 0,
            _ => self.ends[id as usize - 1],
        };
        &self.bytes[start..end]
    }

    /// Tokenizes one fragment, appending to `out`.
    pub fn encode(
        &self,
        v: &Vocab<'_>,
        text: &[u8],
        out: &mut Vec<u32>,
    ) -> Result<(), TokenizerError> {
        let mut pos = 0;
        while pos < text.len() {
            if !self.matcher.has_first_byte(|id| self.key(id), text[pos]) {
                out.push(
                    v.special
                        .unk
                        .ok_or(TokenizerError::MissingSpecial { which: "UNK" })?,
                );
                pos += 1;
                continue;
            }
            let mut best = None;
            self.matcher.prefixes(
                |id| self.key(id),
                &text[pos..],
                |len, id| {
                    best = Some((len, id));
                    true
                },
            );
            match best {
                Some((len, id)) => {
                    out.push(id);
                    pos += len;
                }
                // llama.cpp goes back to the start of the fragment here, forever
                None => return Err(TokenizerError::NoProgress { offset: pos }),
            }
        }
        Ok(())
    }
}
