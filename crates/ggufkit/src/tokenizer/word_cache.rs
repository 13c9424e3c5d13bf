//! The ids of words already encoded in one session (`Encoder`), keyed by the word's text: in real text most
//! words repeat, and a word's ids depend on nothing but its text and the vocabulary, so a hit
//! gives exactly what merging again would. Bounded: words longer than [`MAX_WORD_BYTES`] are
//! not kept, and the cache empties itself once it holds [`MAX_WORDS`] words or [`MAX_IDS`]
//! ids, so its memory never exceeds a fixed size whatever the text.
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::HashTable;

/// The longest word kept, in bytes.
pub(crate) const MAX_WORD_BYTES: usize = 64;
/// The most words kept at once.
pub(crate) const MAX_WORDS: usize = 1 << 16;
/// The most ids kept at once (all words together).
pub(crate) const MAX_IDS: usize = 1 << 18;

/// A word kept: its text in [`WordCache::texts`], its ids in [`WordCache::ids`].
#[derive(Clone, Copy)]
struct Word {
    text: u32,
    len: u32,
    ids: u32,
    n_ids: u32,
}

/// Word text to its ids; the texts and the ids of all words kept in two arrays (no
/// allocation per word).
#[derive(Default)]
pub(crate) struct WordCache {
    words: HashTable<Word>,
    texts: Vec<u8>,
    ids: Vec<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl WordCache {
    /// The ids cached for `word`, if any.
    #[inline]
    pub fn get(&self, word: &[u8]) -> Option<&[u32]> {
        let h = self.hasher.hash_one(word);
        let w = self.words.find(h, |w| self.text(w) == word)?;
        self.ids
            .get(w.ids as usize..w.ids as usize + w.n_ids as usize)
    }

    #[inline]
    fn text(&self, w: &Word) -> &[u8] {
        &self.texts[w.text as usize..(w.text + w.len) as usize]
    }

    /// Remembers that `word` encodes to `ids` (a word too long to keep is ignored).
    pub fn insert(&mut self, word: &[u8], ids: &[u32]) {
        if word.len() > MAX_WORD_BYTES || ids.len() > MAX_IDS {
            return;
        }
        if self.words.len() >= MAX_WORDS || self.ids.len() + ids.len() > MAX_IDS {
            self.words.clear();
            self.texts.clear();
            self.ids.clear();
        }
        let w = Word {
            text: self.texts.len() as u32,
            len: word.len() as u32,
            ids: self.ids.len() as u32,
            n_ids: ids.len() as u32,
        };
        self.texts.extend_from_slice(word);
        self.ids.extend_from_slice(ids);
        let h = self.hasher.hash_one(word);
        let (texts, hasher) = (&self.texts, &self.hasher);
        self.words.insert_unique(h, w, |w| {
            hasher.hash_one(&texts[w.text as usize..(w.text + w.len) as usize])
        });
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
