//! Byte-level BPE (`gpt2` and its variants, llama.cpp's `llm_tokenizer_bpe_session`): the
//! pre-tokenizer splits the text into words; each word (its bytes mapped to characters, for
//! byte-level vocabularies) starts as one symbol per character, and the adjacent pair of the
//! lowest merge rank (leftmost on ties) is merged until no pair has a rank. Each final symbol
//! is its token, or the tokens of its single bytes where those exist (others are dropped, as
//! llama.cpp drops them). `ignore_merges` takes a word that is a token as a whole.
//!
//! The `whitespace` and `hybriddna` models are sessions around this one (see their functions).
#![forbid(unsafe_code)]

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::Range;

use super::merges::Merges;
use super::pre_type::{PreTokenizer, PreType};
use super::spm::{symbols_of, Symbol};
use super::vocab::{Vocab, DNA_KMER_MARKER};
use super::word_cache::WordCache;

/// A candidate merge of two adjacent symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bigram {
    left: i32,
    right: i32,
    rank: u32,
    size: u32,
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

/// What one encoding call reuses from word to word.
#[derive(Default)]
pub(crate) struct Scratch {
    words: Vec<Range<usize>>,
    word: String,
    symbols: Vec<Symbol>,
    queue: BinaryHeap<Bigram>,
    /// The ids of the words met so far (most words repeat).
    cache: WordCache,
}

/// The BPE session of one vocabulary.
pub(crate) struct Bpe<'a, 'g> {
    pub vocab: &'a Vocab<'g>,
    pub merges: &'a Merges,
    /// The merges array's bytes, where `merges` finds its pairs.
    pub merges_raw: &'a [u8],
    pub pre: &'a PreTokenizer,
}

impl Bpe<'_, '_> {
    /// Tokenizes one fragment (already `▁`-escaped where the vocabulary escapes), appending to
    /// `out`.
    pub fn encode(&self, text: &str, s: &mut Scratch, out: &mut Vec<u32>) {
        let v = self.vocab;
        let byte_encode = v.pre.byte_encode();
        s.words.clear();
        self.pre.split(text, &mut s.words);
        let words = std::mem::take(&mut s.words);
        for r in &words {
            let raw = &text[r.clone()];
            if let Some(ids) = s.cache.get(raw.as_bytes()) {
                out.extend_from_slice(ids);
                continue;
            }
            let first = out.len();
            let word: &str = if byte_encode {
                s.word.clear();
                s.word.extend(raw.bytes().map(super::unicode::byte_to_char));
                &s.word
            } else {
                raw
            };
            self.encode_word(
                word.as_bytes(),
                byte_encode,
                &mut s.symbols,
                &mut s.queue,
                out,
            );
            s.cache.insert(raw.as_bytes(), &out[first..]);
        }
        s.words = words;
    }

    fn encode_word(
        &self,
        word: &[u8],
        byte_encode: bool,
        symbols: &mut Vec<Symbol>,
        queue: &mut BinaryHeap<Bigram>,
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
        symbols_of(word, symbols);
        queue.clear();
        let add = |symbols: &[Symbol], queue: &mut BinaryHeap<Bigram>, left: i32, right: i32| {
            if left < 0 || right < 0 {
                return;
            }
            let (l, r) = (symbols[left as usize], symbols[right as usize]);
            let lt = &word[l.start as usize..(l.start + l.len) as usize];
            let rt = &word[r.start as usize..(r.start + r.len) as usize];
            if let Some(rank) = self.merges.rank(self.merges_raw, lt, rt) {
                queue.push(Bigram {
                    left,
                    right,
                    rank,
                    size: l.len + r.len,
                });
            }
        };
        for i in 1..symbols.len() as i32 {
            add(symbols, queue, i - 1, i);
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
            add(symbols, queue, l.prev, b.left);
            add(symbols, queue, b.left, r.next);
        }
        for sym in symbols.iter().filter(|s| s.len > 0) {
            let piece = &word[sym.start as usize..(sym.start + sym.len) as usize];
            match v.text_to_token(piece) {
                Some(id) => out.push(id),
                None => {
                    for &byte in piece {
                        let id = if byte_encode {
                            v.text_to_token(&[byte])
                        } else {
                            v.text_to_token(format!("<0x{byte:02X}>").as_bytes())
                        };
                        out.extend(id);
                    }
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
