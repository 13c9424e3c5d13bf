//! Strings the parser has already checked: besides the map, the reader's one use of `unsafe`.
//!
//! Opening a file checks every string of its header as UTF-8 (keys, values, array elements at any
//! depth, tensor names), a whole vocabulary in one vectorised pass. Checking each string again
//! when it is read would make walking a vocabulary cost as much as opening it. A [`CheckedText`]
//! is the parser's statement that every string of one header was checked and is valid; the
//! views into that header carry it and turn a string's bytes into `&str` without a second check.
//!
//! Why that is sound: the bytes cannot have changed since the check. A slice is borrowed
//! immutably for as long as any view of it lives; a stream's header is an owned buffer nobody
//! writes; a memory map relies on the contract every mapped reader relies on (`map.rs`): the file
//! is not modified while it is mapped. That contract already makes the `&[u8]` views of a map
//! sound, and a `&str` checked on every read would be no safer without it (the bytes could change
//! right after the check). Debug builds (the tests, the fuzzers) check every string again.
#![allow(unsafe_code)]

/// Proof that every string of one parsed header is valid UTF-8.
///
/// Only the parser makes one (the constructor is private to the reader), and only when a parse
/// ends with every string of the header checked and none invalid: a permissive parse that found
/// a string that is not UTF-8 makes none, and its strings are checked as they are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CheckedText {
    _private: (),
}

impl CheckedText {
    /// Made by the parser at the end of a header in which every string was checked.
    pub(super) fn every_string_checked() -> CheckedText {
        CheckedText { _private: () }
    }

    /// The string whose bytes are `string`: the bytes of one string (key, value, array element
    /// or tensor name) of the header this proof was made for, and nothing else.
    #[inline(always)]
    pub(crate) fn str(self, string: &[u8]) -> &str {
        debug_assert!(
            std::str::from_utf8(string).is_ok(),
            "a string the parser did not check: {string:?}"
        );
        // SAFETY: the parser checked these bytes as UTF-8 (see the type's invariant: callers pass
        // only the bytes of a string of the header the proof belongs to), and they have not
        // changed since (see the module docs).
        unsafe { std::str::from_utf8_unchecked(string) }
    }
}
