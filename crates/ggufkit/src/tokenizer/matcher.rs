//! A set of byte strings that answers "which of them begin this text" (llama.cpp's
//! `naive_trie`, used by the Unigram and RWKV tokenizers), kept as ids sorted by their string:
//! four bytes an entry, built in one sort, each step of a walk two binary searches.
#![forbid(unsafe_code)]

/// Strings, by id, sorted.
pub(crate) struct PrefixMatcher {
    /// Ids sorted by (string, id).
    pub(crate) ids: Vec<u32>,
}

impl PrefixMatcher {
    /// The matcher of the strings `key(id)` for every id of `ids`; where strings repeat, the
    /// last id wins (as inserting into llama.cpp's trie in id order does).
    pub fn new<'k>(mut ids: Vec<u32>, key: impl Fn(u32) -> &'k [u8]) -> Self {
        ids.sort_unstable_by(|&a, &b| key(a).cmp(key(b)).then(a.cmp(&b)));
        PrefixMatcher { ids }
    }

    /// Calls `f(len, id)` for every string that is a prefix of `text`, shortest first (`len`
    /// its length); `f` returns false to stop.
    #[inline]
    pub fn prefixes<'k>(
        &self,
        key: impl Fn(u32) -> &'k [u8],
        text: &[u8],
        mut f: impl FnMut(usize, u32) -> bool,
    ) {
        let (mut lo, mut hi) = (0, self.ids.len());
        for (d, &c) in text.iter().enumerate() {
            // entries of length d (reported at the step before) sort first: skip them
            let ids = &self.ids[lo..hi];
            let skip = ids.partition_point(|&id| key(id).len() <= d);
            let ids = &ids[skip..];
            let a = ids.partition_point(|&id| key(id)[d] < c);
            let b = a + ids[a..].partition_point(|&id| key(id)[d] <= c);
            if a == b {
                return;
            }
            lo += skip + a;
            hi = lo + (b - a);
            // the entries equal to text[..=d] come first; the last of them wins
            let exact = self.ids[lo..hi].partition_point(|&id| key(id).len() == d + 1);
            if exact > 0 && !f(d + 1, self.ids[lo + exact - 1]) {
                return;
            }
        }
    }

    /// True when some string starts with `c`.
    pub fn has_first_byte<'k>(&self, key: impl Fn(u32) -> &'k [u8], c: u8) -> bool {
        let skip = self.ids.partition_point(|&id| key(id).is_empty());
        let ids = &self.ids[skip..];
        let a = ids.partition_point(|&id| key(id)[0] < c);
        a < ids.len() && key(ids[a])[0] == c
    }

    /// How many bytes of `text` some string shares as a prefix, at most (llama.cpp's
    /// `naive_trie::get_longest_prefix`: the deepest node reached, a string ending there or not).
    pub fn deepest<'k>(&self, key: impl Fn(u32) -> &'k [u8], text: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.ids.len());
        for (d, &c) in text.iter().enumerate() {
            let ids = &self.ids[lo..hi];
            let skip = ids.partition_point(|&id| key(id).len() <= d);
            let ids = &ids[skip..];
            let a = ids.partition_point(|&id| key(id)[d] < c);
            let b = a + ids[a..].partition_point(|&id| key(id)[d] <= c);
            if a == b {
                return d;
            }
            lo += skip + a;
            hi = lo + (b - a);
        }
        text.len()
    }
}
