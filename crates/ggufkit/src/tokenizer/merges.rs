//! BPE merge ranks (`tokenizer.ggml.merges`): each merge `"left right"` (split at the first
//! space after the first byte, as llama.cpp splits it) ranks by its position; a pair listed
//! twice keeps its first rank. The table holds where each merge's text lies in the array's
//! bytes (its index there is its rank), found by the hash of the whole text: building it needs
//! no split of any merge, and a lookup of `(left, right)` hashes `left + " " + right` (a pair
//! whose left part has a space after its first byte is split otherwise by llama.cpp, so it has
//! no rank). The build has two halves: [`Hashed`] walks the array once (its lengths only) and
//! hashes the merges on every thread, sorting them by table (a few, by the hash's top bits);
//! [`Merges::from_hashed`] fills the tables, one per thread. The first needs only the merges
//! array, so it can run while the vocabulary loads. The strings stay in the file (and the
//! table owes it no lifetime, so the tokenizer stays covariant in the file's).
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

use crate::value::{ArrayView, ValueType};

/// Where each merge's text lies in the array's bytes, in order (a merge's index is its rank):
/// offset and length as two `u32`s when the array's bytes allow it (always, but in a hostile
/// file of more than 4 GiB of merges), which halves the memory the build writes.
enum Spans {
    Narrow(Vec<[u32; 2]>),
    Wide(Vec<(usize, usize)>),
}

impl Spans {
    /// The spans of the strings of `merges` in its bytes, in order.
    fn walk(merges: &ArrayView<'_>) -> Spans {
        let raw = merges.raw_bytes();
        // at most one string per 8 bytes: bounded by the array's bytes
        let cap = usize::try_from(merges.len()).map_or(0, |n| n.min(raw.len() / 8));
        let Some(strings) = merges.strings() else {
            return Spans::Narrow(Vec::new());
        };
        let spans = strings.spans();
        if u32::try_from(raw.len()).is_ok() {
            let mut narrow = Vec::with_capacity(cap);
            narrow.extend(spans.map(|(start, len)| [start as u32, len as u32]));
            Spans::Narrow(narrow)
        } else {
            let mut wide = Vec::with_capacity(cap);
            wide.extend(spans);
            Spans::Wide(wide)
        }
    }

    fn len(&self) -> usize {
        match self {
            Spans::Narrow(s) => s.len(),
            Spans::Wide(s) => s.len(),
        }
    }

    /// The merge whose text holds the byte at `offset` of the array's bytes, if any.
    fn containing(&self, offset: usize) -> Option<usize> {
        let after = match self {
            Spans::Narrow(s) => s.partition_point(|&[start, _]| start as usize <= offset),
            Spans::Wide(s) => s.partition_point(|&(start, _)| start <= offset),
        };
        let i = after.checked_sub(1)?;
        let (start, len) = self.span(i);
        (offset < start + len).then_some(i)
    }

    /// Where merge `i`'s text lies in the array's bytes: its offset and length.
    #[inline]
    fn span(&self, i: usize) -> (usize, usize) {
        match self {
            Spans::Narrow(s) => {
                let [start, len] = s[i];
                (start as usize, len as usize)
            }
            Spans::Wide(s) => s[i],
        }
    }

    /// The text of merge `i` in `raw`.
    #[inline]
    fn text<'a>(&self, raw: &'a [u8], i: usize) -> &'a [u8] {
        let (start, len) = self.span(i);
        &raw[start..start + len]
    }
}

/// The hash tables' number: a table per part of the hash space, built in parallel.
const SHARDS: usize = 4;

/// The table of the merge text of hash `h`.
#[inline]
fn shard(h: u64) -> usize {
    (h >> 62) as usize
}

/// Merges hashed per task of rayon's pool.
const CHUNK: usize = 1 << 14;

/// A lookup's `left + " " + right` is built on the stack up to this many bytes.
const STACK_KEY: usize = 128;

/// The merge ranks of a BPE vocabulary.
pub(crate) struct Merges {
    /// Every merge, in order (a text listed twice too).
    spans: Spans,
    /// Indexes into `spans` (the first of equal texts), found by the hash of their text; one
    /// table per [`shard`] of the hash.
    tables: Vec<HashTable<u32>>,
    hasher: hashbrown::DefaultHashBuilder,
    /// The last characters of the left parts of the merges that join a character other than
    /// `▁` to a right part starting with `▁` (`None`: more than [`MAX_JOINERS`], or not asked
    /// for).
    joiners: Option<Vec<Box<[u8]>>>,
}

/// The most distinct [`Merges::joiners`] kept.
const MAX_JOINERS: usize = 16;

/// `▁`, the escaped space.
const SPACE: &[u8] = "\u{2581}".as_bytes();

/// The last UTF-8 character of `t` (its last bytes from the last one that is not a
/// continuation byte, at most four).
#[inline]
pub(crate) fn last_char(t: &[u8]) -> &[u8] {
    let n = t.len();
    let from = (n.saturating_sub(4)..n)
        .rev()
        .find(|&i| t[i] & 0xc0 != 0x80)
        .unwrap_or(n.saturating_sub(1));
    &t[from..]
}

/// Where llama.cpp splits a merge's text: the first space after the first byte.
#[inline]
fn separator(word: &[u8]) -> Option<usize> {
    word.iter().skip(1).position(|&b| b == b' ').map(|i| i + 1)
}

/// The character a merge joins to a following `▁`, if it is such a merge (see
/// [`Merges::joiners`]).
#[inline]
fn joiner_of(word: &[u8]) -> Option<&[u8]> {
    let i = separator(word)?;
    let (left, right) = (&word[..i], &word[i + 1..]);
    (right.starts_with(SPACE) && !left.ends_with(SPACE)).then(|| last_char(left))
}

impl Merges {
    /// The ranks of `merges` (absent: none, as for kimi-k2) from [`Hashed::new`]`(merges, ..)`:
    /// the hash tables filled, one per thread.
    pub fn from_hashed(hashed: Hashed, merges: Option<ArrayView<'_>>) -> Self {
        let Hashed { mut m, by_shard } = hashed;
        if by_shard.is_empty() {
            return m;
        }
        let raw = merges.map(|a| a.raw_bytes()).unwrap_or_default();
        let (spans, hasher) = (&m.spans, &m.hasher);
        m.tables = map_on_threads(SHARDS, |part| {
            let count = by_shard.iter().map(|h| h[part].len()).sum();
            let mut table = HashTable::with_capacity(count);
            // in rank order: a text listed again keeps its first rank
            for &[lo, hi, index] in by_shard.iter().flat_map(|h| &h[part]) {
                let h = u64::from(hi) << 32 | u64::from(lo);
                let key = spans.text(raw, index as usize);
                if let Entry::Vacant(v) = table.entry(
                    h,
                    |&r: &u32| spans.text(raw, r as usize) == key,
                    |&r| hasher.hash_one(spans.text(raw, r as usize)),
                ) {
                    v.insert(index);
                }
            }
            table
        });
        m
    }

    /// Finds the [`Merges::joiners`] in `raw`, the array's bytes. A joining merge has a space
    /// then a `▁` where llama.cpp splits it: those four bytes are searched in the whole array at
    /// once (rare, and found at memory speed) and the merges they fall in are looked at, not
    /// every merge (which took a quarter of the build of a 515k-merge table).
    fn find_joiners(&mut self, raw: &[u8]) {
        let pattern = [b" ", SPACE].concat();
        for at in memchr::memmem::find_iter(raw, &pattern) {
            let Some(i) = self.spans.containing(at) else {
                continue;
            };
            // (a place past the merge's split, or the merge's first byte, joins nothing)
            if let Some(c) = joiner_of(self.spans.text(raw, i)) {
                self.note_joiner(c);
                if self.joiners.is_none() {
                    return;
                }
            }
        }
    }

    /// Remembers that a merge joins `c` to a following `▁`.
    fn note_joiner(&mut self, c: &[u8]) {
        if let Some(j) = &mut self.joiners {
            if !j.iter().any(|x| **x == *c) {
                if j.len() == MAX_JOINERS {
                    self.joiners = None;
                } else {
                    j.push(c.into());
                }
            }
        }
    }

    /// The characters after which a `▁` may be merged to them (`None`: too many to say): at a
    /// `▁` after any other character, no merge ever joins the text before it to the text
    /// from it, so the two sides merge apart exactly as they merge together.
    pub fn joiners(&self) -> Option<&[Box<[u8]>]> {
        self.joiners.as_deref()
    }

    /// The rank of merging `left` and `right`; `raw` is the merges array's bytes.
    #[inline]
    pub fn rank(&self, raw: &[u8], left: &[u8], right: &[u8]) -> Option<u32> {
        // llama.cpp splits a merge at the first space after its first byte
        if left.get(1..).is_none_or(|rest| rest.contains(&b' ')) {
            return None;
        }
        let n = left.len() + 1 + right.len();
        let mut stack = [0u8; STACK_KEY];
        let heap;
        let key: &[u8] = if n <= STACK_KEY {
            stack[..left.len()].copy_from_slice(left);
            stack[left.len()] = b' ';
            stack[left.len() + 1..n].copy_from_slice(right);
            &stack[..n]
        } else {
            heap = [left, b" ", right].concat();
            &heap
        };
        let h = self.hasher.hash_one(key);
        self.tables[shard(h)]
            .find(h, |&r| self.spans.text(raw, r as usize) == key)
            .copied()
    }
}

/// The first half of a merge table's build, which needs the merges array only (not the
/// vocabulary): the merges walked, hashed and sorted by table, and the `▁` joiners found. The
/// second half, [`Merges::from_hashed`], fills the tables.
pub(crate) struct Hashed {
    /// The table without its hash tables yet.
    m: Merges,
    /// Each chunk's merges by table (so that each table's build reads its own): the hash's two
    /// halves and the rank (12 bytes, not a padded 16).
    by_shard: Vec<[Vec<[u32; 3]>; SHARDS]>,
}

impl Hashed {
    /// The first half of the table of `merges`; with `joiners`, the characters merged to a
    /// following `▁` too (see [`Merges::joiners`]).
    pub fn new(merges: Option<ArrayView<'_>>, joiners: bool) -> Self {
        let mut m = Merges {
            spans: Spans::Narrow(Vec::new()),
            tables: (0..SHARDS).map(|_| HashTable::new()).collect(),
            hasher: hashbrown::DefaultHashBuilder::default(),
            joiners: joiners.then(Vec::new),
        };
        let Some(a) = merges.filter(|a| a.element_type() == ValueType::String) else {
            return Hashed {
                m,
                by_shard: Vec::new(),
            };
        };
        let raw = a.raw_bytes();
        m.spans = Spans::walk(&a);
        let hasher = &m.hasher.clone();
        let spans = &m.spans;
        let n = spans.len();
        let chunks = n.div_ceil(CHUNK);
        let by_shard: Vec<[Vec<[u32; 3]>; SHARDS]> = map_on_threads(chunks, |c| {
            let mut by_shard: [Vec<[u32; 3]>; SHARDS] = Default::default();
            let range = c * CHUNK..n.min((c + 1) * CHUNK);
            for part in &mut by_shard {
                part.reserve(range.len() / SHARDS + range.len() / 16);
            }
            for i in range {
                let h = hasher.hash_one(spans.text(raw, i));
                by_shard[shard(h)].push([h as u32, (h >> 32) as u32, i as u32]);
            }
            by_shard
        });
        if joiners {
            m.find_joiners(raw);
        }
        Hashed { m, by_shard }
    }
}

/// `f(0)`, ..., `f(n - 1)` in order, computed on as many OS threads as rayon's pool has (the
/// calling thread among them). Not on rayon's pool itself: the table is built inside a
/// `OnceLock`'s initialisation, and a rayon worker waiting for its pool's help steals other jobs,
/// one of which may be an encode waiting for this very table (a thread waiting for itself).
/// Scoped threads wait by joining, and take nothing else up.
fn map_on_threads<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = rayon::current_num_threads().clamp(1, n.max(1));
    if threads == 1 {
        return (0..n).map(f).collect();
    }
    let f = &f;
    let mut parts: Vec<Vec<(usize, T)>> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|t| scope.spawn(move || (t..n).step_by(threads).map(|i| (i, f(i))).collect()))
            .collect();
        let mut parts = vec![(0..n).step_by(threads).map(|i| (i, f(i))).collect()];
        for h in helpers {
            match h.join() {
                Ok(part) => parts.push(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        parts
    });
    let mut all: Vec<(usize, T)> = parts.drain(..).flatten().collect();
    all.sort_unstable_by_key(|&(i, _)| i);
    all.into_iter().map(|(_, v)| v).collect()
}
