//! BPE merge ranks (`tokenizer.ggml.merges`): each merge `"left right"` (split at the first
//! space after the first byte, as llama.cpp splits it) ranks by its position; a pair listed
//! twice keeps its first rank. The table holds where each merge's text lies in the array's
//! bytes (its index there is its rank), found by the hash of the whole text: building it needs
//! no split of any merge, and a lookup of `(left, right)` hashes `left + " " + right` (a pair
//! whose left part has a space after its first byte is split otherwise by llama.cpp, so it has
//! no rank). The array is walked once; the hashing and the tables (a few, by the hash's top
//! bits) run on rayon's pool. The strings stay in the file (and the table owes it no lifetime,
//! so the tokenizer stays covariant in the file's).
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

use crate::value::ArrayView;

/// Where a merge's text lies in the array's bytes (its index in [`Merges::spans`] is its
/// rank).
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    len: u32,
}

impl Span {
    #[inline]
    fn of<'a>(&self, raw: &'a [u8]) -> &'a [u8] {
        &raw[self.start..self.start + self.len as usize]
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
    spans: Vec<Span>,
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
    /// The ranks of `merges` (absent: none, as for kimi-k2); with `joiners`, the characters
    /// merged to a following `▁` too (see [`Merges::joiners`]).
    pub fn new(merges: Option<ArrayView<'_>>, joiners: bool) -> Self {
        let mut m = Merges {
            spans: Vec::new(),
            tables: (0..SHARDS).map(|_| HashTable::new()).collect(),
            hasher: hashbrown::DefaultHashBuilder::default(),
            joiners: joiners.then(Vec::new),
        };
        let Some((raw, strings)) = merges.and_then(|a| Some((a.raw_bytes(), a.strings()?))) else {
            return m;
        };
        // at most one entry per string of the array: bounded by its bytes
        m.spans
            .reserve(strings.size_hint().1.unwrap_or(0).min(1 << 24));
        let base = raw.as_ptr() as usize;
        for s in strings {
            let word = s.as_bytes();
            m.spans.push(Span {
                start: word.as_ptr() as usize - base,
                len: word.len() as u32,
            });
        }
        let hasher = &m.hasher;
        let spans = &m.spans;
        let hashes: Vec<u64> = map_on_threads(spans.len().div_ceil(CHUNK), |c| {
            let chunk = &spans[c * CHUNK..spans.len().min((c + 1) * CHUNK)];
            chunk
                .iter()
                .map(|p| hasher.hash_one(p.of(raw)))
                .collect::<Vec<u64>>()
        })
        .concat();
        if joiners {
            let found: Vec<Vec<&[u8]>> = map_on_threads(spans.len().div_ceil(CHUNK), |c| {
                let chunk = &spans[c * CHUNK..spans.len().min((c + 1) * CHUNK)];
                let mut found: Vec<&[u8]> = Vec::new();
                for p in chunk {
                    if let Some(c) = joiner_of(p.of(raw)) {
                        if !found.contains(&c) {
                            found.push(c);
                            if found.len() > MAX_JOINERS {
                                break;
                            }
                        }
                    }
                }
                found
            });
            for c in found.iter().flatten() {
                m.note_joiner(c);
            }
        }
        let spans = &m.spans;
        m.tables = map_on_threads(SHARDS, |part| {
            let count = hashes.iter().filter(|&&h| shard(h) == part).count();
            let mut table = HashTable::with_capacity(count);
            for (index, &h) in hashes.iter().enumerate() {
                if shard(h) != part {
                    continue;
                }
                let key = spans[index].of(raw);
                // a text listed again keeps its first rank
                if let Entry::Vacant(v) = table.entry(
                    h,
                    |&r: &u32| spans[r as usize].of(raw) == key,
                    |&r| hashes[r as usize],
                ) {
                    v.insert(index as u32);
                }
            }
            table
        });
        m
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
            .find(h, |&r| self.spans[r as usize].of(raw) == key)
            .copied()
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
