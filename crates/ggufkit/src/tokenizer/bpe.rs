//! Byte-level BPE (`gpt2` and its variants, llama.cpp's `llm_tokenizer_bpe_session`): the
//! pre-tokenizer splits the text into words; each word (its bytes mapped to characters, for
//! byte-level vocabularies) starts as one symbol per character, and the adjacent pair of the
//! lowest merge rank (leftmost on ties) is merged until no pair has a rank. Each final symbol
//! is its token, or the tokens of its single bytes where those exist (others are dropped, as
//! llama.cpp drops them). `ignore_merges` takes a word that is a token as a whole.
//!
//! Each symbol carries its token id; the merge rank of two adjacent tokens (and the token of
//! their joined text) is looked up by text once per session and then found by the pair of ids.
//!
//! The `whitespace` and `hybriddna` models are sessions around this one (see their functions).
#![forbid(unsafe_code)]

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::Range;

use hashbrown::HashMap;

use super::merges::Merges;
use super::pre_type::{PreTokenizer, PreType};
use super::spm::{symbols_of, Symbol};
use super::vocab::{Vocab, DNA_KMER_MARKER};
use super::word_cache::WordCache;

/// A symbol's token id when its text is no token.
pub(crate) const NO_TOKEN: u32 = u32::MAX;
/// A merged symbol's token id not looked up yet (found by text when merged).
const UNKNOWN: u32 = u32::MAX - 1;
/// The most pairs a session remembers (then it forgets them all): about 2 MB.
const MAX_PAIRS: usize = 1 << 17;
/// A fragment at least this long has its words encoded on every thread of rayon's pool.
pub(crate) const PARALLEL_MIN_BYTES: usize = 64 << 10;

/// A candidate merge of two adjacent symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bigram {
    left: i32,
    right: i32,
    rank: u32,
    size: u32,
    /// The token of the joined text ([`NO_TOKEN`], or [`UNKNOWN`] when not looked up).
    merged: u32,
}

impl PartialOrd for Bigram {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Bigram {
    /// The greatest is popped first: the lowest rank, then the leftmost.
    fn cmp(&self, o: &Self) -> Ordering {
        o.rank.cmp(&self.rank).then_with(|| o.left.cmp(&self.left))
    }
}

/// What one encoding session reuses from word to word and text to text.
#[derive(Default)]
pub(crate) struct Scratch {
    words: Vec<Range<usize>>,
    word: String,
    symbols: Vec<Symbol>,
    /// Each symbol's token id ([`NO_TOKEN`] when its text is none).
    ids: Vec<u32>,
    queue: BinaryHeap<Bigram>,
    /// The ids of the words met so far in the session (most words repeat).
    cache: WordCache,
    /// Pairs of tokens met so far: (left id, right id) to (rank, joined token), as the texts'
    /// merge rank and the joined text's token give them ([`NO_TOKEN`] rank: no merge).
    pairs: HashMap<u64, (u32, u32)>,
    /// Vocabularies that are not byte-level: the token of each character met (its bytes and
    /// length packed, see [`char_key`]; [`NO_TOKEN`] when none).
    chars: HashMap<u64, u32>,
    /// The words before [`split_at_spaces`] splits them further.
    spaced: Vec<Range<usize>>,
    /// The sessions of the other threads that encode the words of one long fragment (kept,
    /// with their caches, for the next long fragment).
    helpers: Vec<Scratch>,
}

/// The pre-tokenizer's words of `text` into `s`, for [`Bpe::encode_split`] (which needs the
/// merge table: the split does not, so a long text is split while the table is built).
pub(crate) fn split_words(pre: &PreTokenizer, text: &str, s: &mut Scratch) {
    s.words.clear();
    pre.split(text, &mut s.words);
}

/// The BPE session of one vocabulary.
pub(crate) struct Bpe<'a, 'g> {
    pub vocab: &'a Vocab<'g>,
    pub merges: &'a Merges,
    /// The merges array's bytes, where `merges` finds its pairs.
    pub merges_raw: &'a [u8],
    pub pre: &'a PreTokenizer,
    /// The tokens of single bytes ([`NO_TOKEN`] when none).
    pub byte_ids: &'a ByteIds,
}

/// The tokens single bytes stand for, by byte ([`NO_TOKEN`] when none): the token of each
/// byte's character (byte-level vocabularies), and the token a byte of a symbol that is no
/// token falls back to (its character's, or `<0xXX>` where the vocabulary is not byte-level).
pub(crate) struct ByteIds {
    chars: [u32; 256],
    fallback: [u32; 256],
}

impl Bpe<'_, '_> {
    /// The tokens of single bytes in `v` (see [`ByteIds`]).
    pub fn byte_ids(v: &Vocab<'_>) -> ByteIds {
        let mut ids = ByteIds {
            chars: [NO_TOKEN; 256],
            fallback: [NO_TOKEN; 256],
        };
        let mut buf = [0u8; 4];
        let byte_encode = v.pre.byte_encode();
        for b in 0..=255u8 {
            let c = super::unicode::byte_to_char(b).encode_utf8(&mut buf);
            ids.chars[b as usize] = v.text_to_token(c.as_bytes()).unwrap_or(NO_TOKEN);
            let fallback = if byte_encode {
                v.text_to_token(&[b])
            } else {
                v.text_to_token(format!("<0x{b:02X}>").as_bytes())
            };
            ids.fallback[b as usize] = fallback.unwrap_or(NO_TOKEN);
        }
        ids
    }

    /// Tokenizes one fragment (already `▁`-escaped where the vocabulary escapes), appending to
    /// `out`. A long fragment's words are split across rayon's threads: a word's ids depend on
    /// its text and the vocabulary only, so encoding runs of words apart and joining their ids
    /// in order gives exactly the ids of encoding them one after the other.
    pub fn encode(&self, text: &str, s: &mut Scratch, out: &mut Vec<u32>) {
        split_words(self.pre, text, s);
        self.encode_split(text, s, out);
    }

    /// [`Bpe::encode`] of a fragment [`split_words`] has split into `s`.
    pub fn encode_split(&self, text: &str, s: &mut Scratch, out: &mut Vec<u32>) {
        let v = self.vocab;
        if !v.pre.byte_encode() && !v.flags.ignore_merges {
            if let Some(joiners) = self.merges.joiners() {
                split_at_spaces(text.as_bytes(), &mut s.words, &mut s.spaced, joiners);
            }
        }
        let words = std::mem::take(&mut s.words);
        let threads = if text.len() >= PARALLEL_MIN_BYTES {
            rayon::current_num_threads()
        } else {
            1
        };
        if threads > 1 && words.len() > 1 {
            self.encode_words_parallel(text, &words, threads, s, out);
        } else {
            self.encode_words(text, &words, s, out);
        }
        s.words = words;
    }

    /// [`Bpe::encode_words`] of `threads` runs of `words` of about equal bytes, one per
    /// thread, the first on this session; the ids joined in the words' order.
    fn encode_words_parallel(
        &self,
        text: &str,
        words: &[Range<usize>],
        threads: usize,
        s: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        let runs = split_runs(words, threads);
        let mut helpers = std::mem::take(&mut s.helpers);
        helpers.resize_with(runs.len() - 1, Scratch::default);
        // about a token per two bytes: each run's ids in one allocation, mostly
        let mut parts: Vec<Vec<u32>> = runs[1..]
            .iter()
            .map(|run| Vec::with_capacity(run_bytes(run) / 2))
            .collect();
        rayon::scope(|scope| {
            for ((run, scratch), part) in runs[1..].iter().zip(&mut helpers).zip(&mut parts) {
                scope.spawn(move |_| self.encode_words(text, run, scratch, part));
            }
            self.encode_words(text, runs[0], s, out);
        });
        out.reserve(parts.iter().map(Vec::len).sum());
        for part in &parts {
            out.extend_from_slice(part);
        }
        s.helpers = helpers;
    }

    /// The ids of `words` (ranges of `text`, in order), appended to `out`.
    fn encode_words(
        &self,
        text: &str,
        words: &[Range<usize>],
        s: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        let byte_encode = self.vocab.pre.byte_encode();
        let mut encoded = std::mem::take(&mut s.word);
        for r in words {
            let raw = &text[r.clone()];
            if let Some(ids) = s.cache.get(raw.as_bytes()) {
                out.extend_from_slice(ids);
                continue;
            }
            let first = out.len();
            let word: &str = if byte_encode {
                encoded.clear();
                encoded.extend(raw.bytes().map(super::unicode::byte_to_char));
                &encoded
            } else {
                raw
            };
            self.encode_word(word.as_bytes(), raw.as_bytes(), byte_encode, s, out);
            s.cache.insert(raw.as_bytes(), &out[first..]);
        }
        s.word = encoded;
    }

    /// One word: `word` is the text merged (`raw` byte-encoded, for byte-level vocabularies).
    fn encode_word(
        &self,
        word: &[u8],
        raw: &[u8],
        byte_encode: bool,
        s: &mut Scratch,
        out: &mut Vec<u32>,
    ) {
        let v = self.vocab;
        // a word that is a token as a whole (gemma4: a run of newlines) stays one symbol
        let whole_word =
            v.flags.ignore_merges || (v.pre == PreType::Gemma4 && word.iter().all(|&b| b == b'\n'));
        let whole = if whole_word {
            v.text_to_token(word)
        } else {
            None
        };
        if let Some(id) = whole {
            // llama.cpp keeps the word as one symbol, which then is this token
            out.push(id);
            return;
        }
        let Scratch {
            symbols,
            ids,
            queue,
            pairs,
            chars,
            ..
        } = s;
        symbols_of(word, symbols);
        ids.clear();
        if byte_encode {
            // one symbol per byte of the raw word
            ids.extend(raw.iter().map(|&b| self.byte_ids.chars[b as usize]));
        } else {
            if chars.len() >= MAX_PAIRS {
                chars.clear();
            }
            ids.extend(symbols.iter().map(|sym| {
                let t = &word[sym.start as usize..(sym.start + sym.len) as usize];
                *chars
                    .entry(char_key(t))
                    .or_insert_with(|| v.text_to_token(t).unwrap_or(NO_TOKEN))
            }));
        }
        if pairs.len() >= MAX_PAIRS {
            pairs.clear();
        }
        queue.clear();
        let add = |symbols: &[Symbol],
                   ids: &[u32],
                   queue: &mut BinaryHeap<Bigram>,
                   pairs: &mut HashMap<u64, (u32, u32)>,
                   left: i32,
                   right: i32| {
            if left < 0 || right < 0 {
                return;
            }
            let (l, r) = (symbols[left as usize], symbols[right as usize]);
            let lt = &word[l.start as usize..(l.start + l.len) as usize];
            let rt = &word[r.start as usize..(r.start + r.len) as usize];
            let (il, ir) = (ids[left as usize], ids[right as usize]);
            let (rank, merged) = if il < UNKNOWN && ir < UNKNOWN {
                // both texts are tokens: the pair's answer depends on nothing else
                *pairs
                    .entry(u64::from(il) << 32 | u64::from(ir))
                    .or_insert_with(|| match self.merges.rank(self.merges_raw, lt, rt) {
                        Some(rank) => {
                            // the symbols are adjacent: the joined text is the word's bytes
                            let joined = &word[l.start as usize..(r.start + r.len) as usize];
                            (rank, v.text_to_token(joined).unwrap_or(NO_TOKEN))
                        }
                        None => (NO_TOKEN, NO_TOKEN),
                    })
            } else {
                match self.merges.rank(self.merges_raw, lt, rt) {
                    Some(rank) => (rank, UNKNOWN),
                    None => (NO_TOKEN, NO_TOKEN),
                }
            };
            if rank != NO_TOKEN {
                queue.push(Bigram {
                    left,
                    right,
                    rank,
                    size: l.len + r.len,
                    merged,
                });
            }
        };
        for i in 1..symbols.len() as i32 {
            add(symbols, ids, queue, pairs, i - 1, i);
        }
        while let Some(b) = queue.pop() {
            let (l, r) = (symbols[b.left as usize], symbols[b.right as usize]);
            // a bigram whose symbols changed since it was queued is outdated
            if l.len == 0 || r.len == 0 || l.len + r.len != b.size {
                continue;
            }
            symbols[b.left as usize].len += r.len;
            symbols[b.right as usize].len = 0;
            symbols[b.left as usize].next = r.next;
            if r.next >= 0 {
                symbols[r.next as usize].prev = b.left;
            }
            ids[b.left as usize] = if b.merged == UNKNOWN {
                let joined = &word[l.start as usize..(l.start + l.len + r.len) as usize];
                v.text_to_token(joined).unwrap_or(NO_TOKEN)
            } else {
                b.merged
            };
            add(symbols, ids, queue, pairs, l.prev, b.left);
            add(symbols, ids, queue, pairs, b.left, r.next);
        }
        for (sym, &id) in symbols.iter().zip(ids.iter()).filter(|(s, _)| s.len > 0) {
            if id != NO_TOKEN {
                out.push(id);
                continue;
            }
            let piece = &word[sym.start as usize..(sym.start + sym.len) as usize];
            for &byte in piece {
                let id = self.byte_ids.fallback[byte as usize];
                if id != NO_TOKEN {
                    out.push(id);
                }
            }
        }
    }

    /// The `whitespace` model: whitespace separates segments and is dropped; each segment,
    /// lowercased when the normalizer says so, is tokenized alone.
    pub fn encode_whitespace(&self, text: &str, s: &mut Scratch, out: &mut Vec<u32>) {
        let lowercase = self.vocab.flags.lowercase;
        let mut segment = String::new();
        let flush = |segment: &mut String, s: &mut Scratch, out: &mut Vec<u32>| {
            if !segment.is_empty() {
                self.encode(segment, s, out);
                segment.clear();
            }
        };
        super::unicode::decode_lenient(text.as_bytes(), |cp, _| {
            if super::unicode::flags(cp).is_whitespace() {
                flush(&mut segment, s, out);
            } else {
                let cp = if lowercase {
                    super::unicode::to_lower(cp)
                } else {
                    cp
                };
                segment.push(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        });
        flush(&mut segment, s, out);
    }

    /// The `hybriddna` model: `<dna>...</dna>` spans become 6-base k-mer tokens (uppercased,
    /// the last padded with `A`, `<oov>` for a k-mer not in the vocabulary); the rest is BPE.
    pub fn encode_dna(&self, text: &str, s: &mut Scratch, out: &mut Vec<u32>) {
        const OPEN: &str = "<dna>";
        const CLOSE: &str = "</dna>";
        let v = self.vocab;
        let (Some(begin), Some(end), Some(oov)) = (
            v.text_to_token(OPEN.as_bytes()),
            v.text_to_token(CLOSE.as_bytes()),
            v.text_to_token(b"<oov>"),
        ) else {
            return self.encode(text, s, out);
        };
        let mut pos = 0;
        while pos < text.len() {
            let Some(start) = text[pos..].find(OPEN).map(|i| i + pos) else {
                self.encode(&text[pos..], s, out);
                break;
            };
            if start > pos {
                self.encode(&text[pos..start], s, out);
            }
            out.push(begin);
            let content = start + OPEN.len();
            let close = text[content..].find(CLOSE).map(|i| i + content);
            let seq = &text.as_bytes()[content..close.unwrap_or(text.len())];
            let upper: Vec<u8> = seq
                .iter()
                .map(|&c| if c.is_ascii_lowercase() { c - 32 } else { c })
                .collect();
            let mut kmer = Vec::with_capacity(6 + DNA_KMER_MARKER.len());
            for chunk in upper.chunks(6) {
                kmer.clear();
                kmer.extend_from_slice(chunk);
                kmer.resize(6, b'A');
                kmer.extend_from_slice(DNA_KMER_MARKER);
                out.push(v.text_to_token(&kmer).unwrap_or(oov));
            }
            let Some(close) = close else {
                break;
            };
            out.push(end);
            pos = close + CLOSE.len();
        }
    }
}

/// Splits each of `words` (ranges of `text`) again before each `▁` that follows a character
/// no merge joins to a `▁` (none of `joiners`, and not `▁` itself): no merged symbol can span
/// such a point (see [`Merges::joiners`]), so the pieces' ids, joined, are the word's. The
/// SentencePiece-style vocabularies (gemma4) pre-tokenize by lines only; this gives their
/// words back, and with them the session's cache of encoded words.
fn split_at_spaces(
    text: &[u8],
    words: &mut Vec<Range<usize>>,
    spaced: &mut Vec<Range<usize>>,
    joiners: &[Box<[u8]>],
) {
    const SPACE: &[u8] = "\u{2581}".as_bytes();
    std::mem::swap(words, spaced);
    words.clear();
    let finder = memchr::memmem::Finder::new(SPACE);
    for w in spaced.iter() {
        let mut start = w.start;
        for at in finder.find_iter(&text[w.clone()]).map(|i| w.start + i) {
            if at == start {
                continue;
            }
            let before = super::merges::last_char(&text[start..at]);
            if before != SPACE && !joiners.iter().any(|j| **j == *before) {
                words.push(start..at);
                start = at;
            }
        }
        words.push(start..w.end);
    }
}

/// A character's bytes (one to four: a symbol before any merge) and their number, as one key.
#[inline]
fn char_key(t: &[u8]) -> u64 {
    t.iter().fold(t.len() as u64, |k, &b| k << 8 | u64::from(b))
}

/// The bytes from the first of `words` to the end of the last.
fn run_bytes(words: &[Range<usize>]) -> usize {
    match (words.first(), words.last()) {
        (Some(first), Some(last)) => last.end.saturating_sub(first.start),
        _ => 0,
    }
}

/// `words` cut into at most `n` runs of consecutive words, of about equal bytes each.
pub(crate) fn split_runs(words: &[Range<usize>], n: usize) -> Vec<&[Range<usize>]> {
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return vec![words];
    };
    let total = last.end - first.start;
    let mut runs = Vec::with_capacity(n);
    let mut rest = words;
    for k in 1..n {
        // the first word that ends past this run's share of the bytes closes the run
        let goal = first.start + total * k / n;
        let cut = rest
            .partition_point(|w| w.end <= goal)
            .max(1)
            .min(rest.len());
        let (run, tail) = rest.split_at(cut);
        runs.push(run);
        rest = tail;
        if rest.is_empty() {
            break;
        }
    }
    if !rest.is_empty() {
        runs.push(rest);
    }
    runs
}
