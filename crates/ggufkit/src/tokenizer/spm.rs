//! SentencePiece BPE (`llama`, llama.cpp's `llm_tokenizer_spm`): the text, spaces written `▁`,
//! starts as one symbol per character; the adjacent pair whose joined text is the token of the
//! highest score (leftmost on ties) is merged, again and again. A final symbol that is not a
//! token is written as its bytes' fallback tokens.
//!
//! llama.cpp also records how each merged text was made, to re-split symbols that are not
//! tokens; but a merge only happens when the joined text is a token, so only single characters
//! can fail to be tokens, and they have no record: the bytes are all that is ever used.
//!
//! Where the vocabulary allows it ([`by_words`]), a fragment is merged word by word, and the
//! words already met in the session come from a bounded cache; a long fragment's words are
//! then encoded on every thread of rayon's pool, in runs, their ids joined in order.
#![forbid(unsafe_code)]

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::Range;

use super::bpe::PARALLEL_MIN_BYTES;
use super::vocab::Vocab;
use super::word_cache::WordCache;
use crate::error::TokenizerError;

/// Appends `text` to `out` with its spaces written `▁` (U+2581), as llama.cpp's
/// `llama_escape_whitespace`.
pub(crate) fn push_escaped(out: &mut String, text: &str) {
    // room for all of it at once: a long text's string grown by doubling was copied (into new,
    // page-faulted memory) a dozen times
    let spaces = memchr::memchr_iter(b' ', text.as_bytes()).count();
    out.reserve(text.len() + 2 * spaces);
    let mut rest = text;
    while let Some(i) = memchr::memchr(b' ', rest.as_bytes()) {
        out.push_str(&rest[..i]);
        out.push('\u{2581}');
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
}

/// The byte length of the UTF-8 sequence that `first` starts (llama.cpp's `unicode_len_utf8`:
/// 1 for continuation bytes).
#[inline]
pub(crate) fn utf8_len(first: u8) -> usize {
    const LOOKUP: [u8; 16] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4];
    LOOKUP[usize::from(first >> 4)] as usize
}

/// A symbol: a run of the text, linked to its neighbours.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Symbol {
    pub prev: i32,
    pub next: i32,
    pub start: u32,
    pub len: u32,
}

/// A candidate merge of two adjacent symbols.
#[derive(Clone, Copy, Debug)]
struct Bigram {
    left: i32,
    right: i32,
    score: f32,
    size: u32,
}

impl PartialEq for Bigram {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Bigram {}
impl PartialOrd for Bigram {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Bigram {
    /// The greatest is popped first: the highest score, then the leftmost.
    fn cmp(&self, o: &Self) -> Ordering {
        self.score
            .partial_cmp(&o.score)
            .unwrap_or(Ordering::Equal)
            .then_with(|| o.left.cmp(&self.left))
    }
}

/// Splits `text` into one symbol per UTF-8 sequence.
pub(crate) fn symbols_of(text: &[u8], symbols: &mut Vec<Symbol>) {
    symbols.clear();
    let mut offs = 0;
    let mut index = 0i32;
    while offs < text.len() {
        let n = utf8_len(text[offs]).min(text.len() - offs);
        symbols.push(Symbol {
            prev: index - 1,
            next: if offs + n == text.len() {
                -1
            } else {
                index + 1
            },
            start: offs as u32,
            len: n as u32,
        });
        offs += n;
        index += 1;
    }
}

/// What one encoding session reuses from fragment to fragment.
#[derive(Default)]
pub(crate) struct Scratch {
    symbols: Vec<Symbol>,
    queue: BinaryHeap<Bigram>,
    /// The ids of the words met so far in the session, when fragments go word by word.
    cache: WordCache,
    /// The sessions of the other threads that encode the words of one long fragment.
    helpers: Vec<Scratch>,
}

/// `▁`, the escaped space.
const SPACE: &[u8] = "\u{2581}".as_bytes();

/// Whether the vocabulary lets a fragment be encoded word by word, a word starting at each `▁`
/// that follows another character: when no token has a `▁` right after a character other than
/// `▁`, no merge can join a word's end to the next word's `▁` (every merged symbol is a token),
/// so the words' merges never meet and each word merges as it would in the whole text (in the
/// same order: the highest score first, the leftmost on ties). Scores that are NaN have no
/// order to keep: such a vocabulary is encoded whole.
pub(crate) fn by_words(v: &Vocab<'_>) -> bool {
    if v.scores.iter().any(|s| s.is_nan()) {
        return false;
    }
    (0..v.n_tokens).all(|id| {
        let t = v.text(id);
        memchr::memmem::find_iter(t, SPACE).all(|at| at == 0 || after_space(t, at))
    })
}

/// True when the bytes before `at` are a `▁`.
#[inline]
fn after_space(t: &[u8], at: usize) -> bool {
    at >= SPACE.len() && &t[at - SPACE.len()..at] == SPACE
}

/// Tokenizes one escaped fragment, appending to `out`; `by_words` as [`by_words`] says of the
/// vocabulary.
pub(crate) fn encode(
    v: &Vocab<'_>,
    byte_tokens: &[Option<u32>; 256],
    text: &[u8],
    by_words: bool,
    scratch: &mut Scratch,
    out: &mut Vec<u32>,
) -> Result<(), TokenizerError> {
    if !by_words {
        return encode_piece(v, byte_tokens, text, scratch, out);
    }
    let threads = if text.len() >= PARALLEL_MIN_BYTES {
        rayon::current_num_threads()
    } else {
        1
    };
    if threads < 2 {
        let mut start = 0;
        for at in memchr::memmem::find_iter(text, SPACE) {
            if at > start && !after_space(text, at) {
                encode_word(v, byte_tokens, &text[start..at], scratch, out)?;
                start = at;
            }
        }
        return encode_word(v, byte_tokens, &text[start..], scratch, out);
    }
    // a long fragment: its words in runs of about equal bytes, one per thread (each word's ids
    // depend on its text alone, so the joined ids are those of the words one after the other)
    let mut words = Vec::new();
    let mut start = 0;
    for at in memchr::memmem::find_iter(text, SPACE) {
        if at > start && !after_space(text, at) {
            words.push(start..at);
            start = at;
        }
    }
    words.push(start..text.len());
    let runs = super::bpe::split_runs(&words, threads);
    let mut helpers = std::mem::take(&mut scratch.helpers);
    helpers.resize_with(runs.len() - 1, Scratch::default);
    let mut parts: Vec<(Vec<u32>, Result<(), TokenizerError>)> =
        (1..runs.len()).map(|_| (Vec::new(), Ok(()))).collect();
    let encode_run = |run: &[Range<usize>], scratch: &mut Scratch, out: &mut Vec<u32>| {
        run.iter()
            .try_for_each(|w| encode_word(v, byte_tokens, &text[w.clone()], scratch, out))
    };
    let mut first = Ok(());
    rayon::scope(|scope| {
        for ((run, scratch), (ids, done)) in runs[1..].iter().zip(&mut helpers).zip(&mut parts) {
            scope.spawn(move |_| *done = encode_run(run, scratch, ids));
        }
        first = encode_run(runs[0], scratch, out);
    });
    scratch.helpers = helpers;
    first?;
    for (ids, done) in parts {
        done?;
        out.extend_from_slice(&ids);
    }
    Ok(())
}

/// One word of a fragment encoded word by word, through the session's cache.
fn encode_word(
    v: &Vocab<'_>,
    byte_tokens: &[Option<u32>; 256],
    w: &[u8],
    scratch: &mut Scratch,
    out: &mut Vec<u32>,
) -> Result<(), TokenizerError> {
    if let Some(ids) = scratch.cache.get(w) {
        out.extend_from_slice(ids);
        return Ok(());
    }
    let first = out.len();
    encode_piece(v, byte_tokens, w, scratch, out)?;
    scratch.cache.insert(w, &out[first..]);
    Ok(())
}

/// The merges of one piece of text (a fragment, or one of its words).
fn encode_piece(
    v: &Vocab<'_>,
    byte_tokens: &[Option<u32>; 256],
    text: &[u8],
    scratch: &mut Scratch,
    out: &mut Vec<u32>,
) -> Result<(), TokenizerError> {
    let Scratch { symbols, queue, .. } = scratch;
    symbols_of(text, symbols);
    queue.clear();
    let try_add = |symbols: &[Symbol], queue: &mut BinaryHeap<Bigram>, left: i32, right: i32| {
        if left < 0 || right < 0 {
            return;
        }
        let (l, r) = (symbols[left as usize], symbols[right as usize]);
        let start = l.start as usize;
        let end = start + (l.len + r.len) as usize;
        if let Some(id) = v.text_to_token(&text[start..end]) {
            queue.push(Bigram {
                left,
                right,
                score: v.score(id),
                size: l.len + r.len,
            });
        }
    };
    for i in 1..symbols.len() as i32 {
        try_add(symbols, queue, i - 1, i);
    }
    while let Some(b) = queue.pop() {
        let (l, r) = (symbols[b.left as usize], symbols[b.right as usize]);
        if l.len == 0 || r.len == 0 || l.len + r.len != b.size {
            continue;
        }
        symbols[b.left as usize].len += r.len;
        symbols[b.right as usize].len = 0;
        symbols[b.left as usize].next = r.next;
        if r.next >= 0 {
            symbols[r.next as usize].prev = b.left;
        }
        try_add(symbols, queue, l.prev, b.left);
        try_add(symbols, queue, b.left, r.next);
    }
    if symbols.is_empty() {
        return Ok(());
    }
    let mut i = 0i32;
    while i != -1 {
        let s = symbols[i as usize];
        let piece = &text[s.start as usize..(s.start + s.len) as usize];
        match v.text_to_token(piece) {
            Some(id) => out.push(id),
            None => {
                for &byte in piece {
                    out.push(
                        byte_tokens[byte as usize].ok_or(TokenizerError::NoByteToken { byte })?,
                    );
                }
            }
        }
        i = s.next;
    }
    Ok(())
}
