//! Token attributes (llama.cpp's `llama_token_attr`): what a token is (normal, control, byte...)
//! and how the special-token partition treats the text around it (lstrip, rstrip).
#![forbid(unsafe_code)]

/// A token's attributes, a set of llama.cpp's `LLAMA_TOKEN_ATTR_*` bits.
///
/// They start from `tokenizer.ggml.token_type` and are then adjusted by llama.cpp's loader
/// (end-of-generation texts become control tokens, control tokens named "unused" become unused,
/// and so on), exactly as [`Tokenizer::attr`](super::Tokenizer::attr) reports them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TokenAttr(pub u16);

impl TokenAttr {
    /// No attribute (`LLAMA_TOKEN_ATTR_UNDEFINED`).
    pub const UNDEFINED: TokenAttr = TokenAttr(0);
    /// The unknown token.
    pub const UNKNOWN: TokenAttr = TokenAttr(1 << 0);
    /// A reserved, unused token.
    pub const UNUSED: TokenAttr = TokenAttr(1 << 1);
    /// An ordinary token.
    pub const NORMAL: TokenAttr = TokenAttr(1 << 2);
    /// A control token (BOS, EOS, turn markers...): not rendered unless asked.
    pub const CONTROL: TokenAttr = TokenAttr(1 << 3);
    /// A user-defined token: always matched as a whole before tokenizing.
    pub const USER_DEFINED: TokenAttr = TokenAttr(1 << 4);
    /// A byte-fallback token (`<0xXX>`).
    pub const BYTE: TokenAttr = TokenAttr(1 << 5);
    /// Normalized (unused by llama.cpp's tokenizers).
    pub const NORMALIZED: TokenAttr = TokenAttr(1 << 6);
    /// Whitespace before the token is removed when it is matched as special.
    pub const LSTRIP: TokenAttr = TokenAttr(1 << 7);
    /// Whitespace after the token is removed when it is matched as special.
    pub const RSTRIP: TokenAttr = TokenAttr(1 << 8);
    /// Single word (unused by llama.cpp's tokenizers).
    pub const SINGLE_WORD: TokenAttr = TokenAttr(1 << 9);

    /// The attribute a `tokenizer.ggml.token_type` value gives (llama.cpp's `LLAMA_TOKEN_TYPE_*`);
    /// values it does not know give [`TokenAttr::UNDEFINED`].
    pub fn from_token_type(t: i32) -> TokenAttr {
        match t {
            1 => TokenAttr::NORMAL,
            2 => TokenAttr::UNKNOWN,
            3 => TokenAttr::CONTROL,
            4 => TokenAttr::USER_DEFINED,
            5 => TokenAttr::UNUSED,
            6 => TokenAttr::BYTE,
            _ => TokenAttr::UNDEFINED,
        }
    }

    /// True when any bit of `other` is set in `self`.
    #[inline]
    pub fn has(self, other: TokenAttr) -> bool {
        self.0 & other.0 != 0
    }

    /// `self` with the bits of `other` set.
    #[inline]
    pub fn with(self, other: TokenAttr) -> TokenAttr {
        TokenAttr(self.0 | other.0)
    }

    /// `self` without the bits of `other`.
    #[inline]
    pub fn without(self, other: TokenAttr) -> TokenAttr {
        TokenAttr(self.0 & !other.0)
    }
}

impl std::ops::BitOr for TokenAttr {
    type Output = TokenAttr;
    fn bitor(self, rhs: TokenAttr) -> TokenAttr {
        self.with(rhs)
    }
}
