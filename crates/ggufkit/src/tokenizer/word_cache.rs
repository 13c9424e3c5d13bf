//! The ids of words already encoded in one session (`Encoder`), keyed by the word's text: in real text most
//! words repeat, and a word's ids depend on nothing but its text and the vocabulary, so a hit
//! gives exactly what merging again would. Bounded: words longer than [`MAX_WORD_BYTES`] are
//! not kept, and the words go into a generation of at most [`MAX_WORDS`] words and [`MAX_IDS`]
//! ids; a full generation becomes the previous one (the one before is forgotten), and a word
//! found in the previous one is kept again in the new, so that the words in use survive and the
//! memory never exceeds two generations whatever the text.
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

/// Word text to its ids: the words of the current generation and of the previous one.
#[derive(Default)]
pub(crate) struct WordCache {
    current: Generation,
    previous: Generation,
}

impl WordCache {
    /// The ids cached for `word`, if any (a word of the previous generation is kept again in
    /// the current one while it has room).
    #[inline]
    pub fn get(&mut self, word: &[u8]) -> Option<&[u32]> {
        if let Some((at, n)) = self.current.find(word) {
            return self.current.ids.get(at as usize..at as usize + n);
        }
        let (at, n) = self.previous.find(word)?;
        let found = self.previous.ids.get(at as usize..at as usize + n)?;
        if !self.current.has_room(word.len(), n) {
            return Some(found);
        }
        let start = self.current.ids.len();
        self.current.push(word, found);
        self.current.ids.get(start..)
    }

    /// Remembers that `word` encodes to `ids` (a word too long to keep is ignored).
    pub fn insert(&mut self, word: &[u8], ids: &[u32]) {
        if word.len() > MAX_WORD_BYTES || ids.len() > MAX_IDS {
            return;
        }
        if !self.current.has_room(word.len(), ids.len()) {
            self.turn();
        }
        self.current.push(word, ids);
    }

    /// The current generation becomes the previous one; the new one starts empty (with the
    /// forgotten one's memory).
    fn turn(&mut self) {
        std::mem::swap(&mut self.current, &mut self.previous);
        self.current.clear();
    }
}

/// One generation: the texts and the ids of its words in two arrays (no allocation per word).
#[derive(Default)]
struct Generation {
    words: HashTable<Word>,
    texts: Vec<u8>,
    ids: Vec<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Generation {
    /// Where the ids of `word` start in `ids`, and how many there are.
    #[inline]
    fn find(&self, word: &[u8]) -> Option<(u32, usize)> {
        let h = self.hasher.hash_one(word);
        let w = self.words.find(h, |w| self.text(w) == word)?;
        Some((w.ids, w.n_ids as usize))
    }

    #[inline]
    fn text(&self, w: &Word) -> &[u8] {
        &self.texts[w.text as usize..(w.text + w.len) as usize]
    }

    /// Whether a word of `bytes` bytes and `n_ids` ids fits.
    fn has_room(&self, bytes: usize, n_ids: usize) -> bool {
        self.words.len() < MAX_WORDS
            && self.ids.len() + n_ids <= MAX_IDS
            && self.texts.len() + bytes <= MAX_WORDS * MAX_WORD_BYTES
    }

    fn clear(&mut self) {
        self.words.clear();
        self.texts.clear();
        self.ids.clear();
    }

    /// Keeps `word` and its `ids` (room checked by the caller).
    fn push(&mut self, word: &[u8], ids: &[u32]) {
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
            for g in [&c.current, &c.previous] {
                assert!(g.words.len() <= MAX_WORDS && g.ids.len() <= MAX_IDS);
            }
            assert_eq!(c.get(&i.to_le_bytes()), Some(&[i, i, i, i, i][..]));
        }
    }

    #[test]
    fn a_full_generation_is_kept_as_the_previous_one() {
        let mut c = WordCache::default();
        let n = MAX_WORDS as u32;
        for i in 0..n + 1 {
            c.insert(&i.to_le_bytes(), &[i]);
        }
        // the first generation is the previous one now: its words are still found
        assert_eq!(c.current.words.len(), 1);
        assert_eq!(c.get(&0u32.to_le_bytes()), Some(&[0][..]));
        // and the word found is kept in the current generation
        assert_eq!(c.current.words.len(), 2);
        for i in n + 1..2 * n + 1 {
            c.insert(&i.to_le_bytes(), &[i]);
        }
        // one more turn: the first generation is forgotten, but for the word in use
        assert_eq!(c.get(&1u32.to_le_bytes()), None);
        assert_eq!(c.get(&0u32.to_le_bytes()), Some(&[0][..]));
    }
}
