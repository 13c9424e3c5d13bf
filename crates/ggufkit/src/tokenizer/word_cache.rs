//! The ids of words already encoded in one session (`Encoder`), keyed by the word's text: in real text most
//! words repeat, and a word's ids depend on nothing but its text and the vocabulary, so a hit
//! gives exactly what merging again would. Bounded: words longer than [`MAX_WORD_BYTES`] are
//! not kept, and the cache empties itself once it holds [`MAX_WORDS`] words or [`MAX_IDS`]
//! ids, so its memory never exceeds a fixed size whatever the text.
#![forbid(unsafe_code)]

use std::ops::Range;

use hashbrown::HashMap;

/// The longest word kept, in bytes.
pub(crate) const MAX_WORD_BYTES: usize = 64;
/// The most words kept at once.
pub(crate) const MAX_WORDS: usize = 1 << 16;
/// The most ids kept at once (all words together).
pub(crate) const MAX_IDS: usize = 1 << 18;

/// Word text to its ids (a range of `ids`).
#[derive(Default)]
pub(crate) struct WordCache {
    words: HashMap<Box<[u8]>, Range<u32>>,
    ids: Vec<u32>,
}

impl WordCache {
    /// The ids cached for `word`, if any.
    #[inline]
    pub fn get(&self, word: &[u8]) -> Option<&[u32]> {
        let r = self.words.get(word)?;
        self.ids.get(r.start as usize..r.end as usize)
    }

    /// Remembers that `word` encodes to `ids` (a word too long to keep is ignored).
    pub fn insert(&mut self, word: &[u8], ids: &[u32]) {
        if word.len() > MAX_WORD_BYTES || ids.len() > MAX_IDS {
            return;
        }
        if self.words.len() >= MAX_WORDS || self.ids.len() + ids.len() > MAX_IDS {
            self.words.clear();
            self.ids.clear();
        }
        let start = self.ids.len() as u32;
        self.ids.extend_from_slice(ids);
        self.words.insert(word.into(), start..self.ids.len() as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_and_returns_ids() {
        let mut c = WordCache::default();
        assert_eq!(c.get(b"hello"), None);
        c.insert(b"hello", &[1, 2]);
        c.insert(b"", &[]);
        assert_eq!(c.get(b"hello"), Some(&[1, 2][..]));
        assert_eq!(c.get(b""), Some(&[][..]));
        assert_eq!(c.get(b"hell"), None);
    }

    #[test]
    fn stays_bounded() {
        let mut c = WordCache::default();
        let long = vec![b'a'; MAX_WORD_BYTES + 1];
        c.insert(&long, &[7]);
        assert_eq!(c.get(&long), None);
        for i in 0..(MAX_WORDS as u32 * 3) {
            c.insert(&i.to_le_bytes(), &[i, i, i, i, i]);
            assert!(c.words.len() <= MAX_WORDS && c.ids.len() <= MAX_IDS);
            assert_eq!(c.get(&i.to_le_bytes()), Some(&[i, i, i, i, i][..]));
        }
    }
}
