//! [`Str`]: a string of the header, text at once when the parser checked it, raw bytes otherwise.
#![forbid(unsafe_code)]

use std::fmt;

use crate::read::text::CheckedText;
use crate::rules::utf8_text as utf8;

/// A GGUF string: borrowed bytes that are valid UTF-8 in every valid file.
///
/// Files that ggml loads but the spec rejects may hold strings that are not UTF-8, so the raw
/// bytes are always available and [`Str::as_str`] says when they are not text. The strings of a
/// header whose parse checked them all (every file opened with the spec's rules) carry their
/// `&str`, so `as_str` costs nothing for them.
#[derive(Clone, Copy)]
pub struct Str<'a>(StrRepr<'a>);

#[derive(Clone, Copy)]
enum StrRepr<'a> {
    Text(&'a str),
    Bytes(&'a [u8]),
}

impl<'a> Str<'a> {
    #[inline]
    pub(crate) fn from_bytes(b: &'a [u8]) -> Self {
        Str(StrRepr::Bytes(b))
    }

    /// A string already known to be text.
    #[inline(always)]
    pub(crate) fn from_text(s: &'a str) -> Self {
        Str(StrRepr::Text(s))
    }

    /// A string of a parsed header: text at once when the parser checked every string of it.
    #[inline(always)]
    pub(crate) fn of_header(b: &'a [u8], checked: Option<CheckedText>) -> Self {
        match checked {
            Some(c) => Str(StrRepr::Text(c.str(b))),
            None => Str(StrRepr::Bytes(b)),
        }
    }

    /// The raw bytes.
    #[inline]
    pub fn as_bytes(&self) -> &'a [u8] {
        match self.0 {
            StrRepr::Text(s) => s.as_bytes(),
            StrRepr::Bytes(b) => b,
        }
    }

    /// The string, or `None` when the bytes are not UTF-8.
    #[inline]
    pub fn as_str(&self) -> Option<&'a str> {
        match self.0 {
            StrRepr::Text(s) => Some(s),
            StrRepr::Bytes(b) => utf8(b),
        }
    }

    /// The string with invalid sequences replaced by U+FFFD.
    #[inline]
    pub fn to_string_lossy(&self) -> std::borrow::Cow<'a, str> {
        match self.0 {
            StrRepr::Text(s) => std::borrow::Cow::Borrowed(s),
            // the strict check first: it is much faster than the lossy decoder on valid text
            StrRepr::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => std::borrow::Cow::Borrowed(s),
                Err(_) => String::from_utf8_lossy(b),
            },
        }
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl PartialEq for Str<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Str<'_> {}

impl std::hash::Hash for Str<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state)
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string_lossy(), f)
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}
