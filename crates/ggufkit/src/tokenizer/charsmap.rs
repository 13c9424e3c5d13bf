//! SentencePiece's precompiled normalizer (`tokenizer.ggml.precompiled_charsmap`): a
//! little-endian u32 size, then that many bytes of an XOR-compressed compact double array (each
//! entry a packed u32: BASE in bits 10-30, shifted by 8 when bit 9 is set; LCHECK in bits 0-7
//! and 31; LEAF in bit 8), then NUL-terminated replacement strings. The longest input prefix
//! the array knows is replaced by its string.
#![forbid(unsafe_code)]

use crate::error::TokenizerError;

/// The two parts of a charsmap, borrowed from the file.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Charsmap<'g> {
    /// The packed entries (4 bytes each, little-endian).
    xcda: &'g [u8],
    /// The replacement strings.
    replacements: &'g [u8],
}

fn out_of_bounds() -> TokenizerError {
    TokenizerError::Charsmap {
        reason: "a trie index out of its bounds",
    }
}

impl<'g> Charsmap<'g> {
    /// The parts of `bytes` (already checked by the loader: a size that fits; empty: none).
    pub fn new(bytes: &'g [u8]) -> Self {
        if bytes.len() < 4 {
            return Charsmap::default();
        }
        let size = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        let end = (4 + size).min(bytes.len());
        let xcda = &bytes[4..end];
        Charsmap {
            xcda: &xcda[..xcda.len() / 4 * 4],
            replacements: &bytes[end..],
        }
    }

    fn node(&self, i: u32) -> Result<u32, TokenizerError> {
        let at = (i as usize).checked_mul(4).ok_or_else(out_of_bounds)?;
        let b = self.xcda.get(at..at + 4).ok_or_else(out_of_bounds)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn base(&self, i: u32) -> Result<u32, TokenizerError> {
        let n = self.node(i)?;
        Ok((n >> 10) << ((n & (1 << 9)) >> 6))
    }

    /// The replacement of the longest prefix of `input` the array knows, with the length of that
    /// prefix; `None` when no prefix is known.
    pub fn longest(&self, input: &[u8]) -> Result<Option<(&'g [u8], usize)>, TokenizerError> {
        if self.xcda.is_empty() {
            return Ok(None);
        }
        let mut longest = None;
        let mut node = self.base(0)?;
        for (k, &c) in input.iter().enumerate() {
            if c == 0 {
                break;
            }
            node ^= u32::from(c);
            let packed = self.node(node)?;
            if packed & ((1 << 31) | 0xff) != u32::from(c) {
                break;
            }
            let is_leaf = (packed >> 8) & 1 == 1;
            node ^= self.base(node)?;
            if is_leaf {
                let value = self.node(node)? & ((1 << 31) - 1);
                longest = Some((k + 1, value as usize));
            }
        }
        let Some((len, offset)) = longest else {
            return Ok(None);
        };
        let rest = self
            .replacements
            .get(offset..)
            .filter(|r| !r.is_empty())
            .ok_or(TokenizerError::Charsmap {
                reason: "a replacement offset out of its bounds",
            })?;
        let n = memchr::memchr(0, rest).ok_or(TokenizerError::Charsmap {
            reason: "an unterminated replacement string",
        })?;
        Ok(Some((&rest[..n], len)))
    }
}
