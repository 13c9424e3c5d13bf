//! Tokenizing and detokenizing exactly as llama.cpp does, from a GGUF's `tokenizer.ggml.*`.
//!
//! [`Tokenizer::from_gguf`] loads the vocabulary as llama.cpp's loader does (the token texts stay
//! borrowed from the file); [`Tokenizer::encode`] is `llama_tokenize`, [`Tokenizer::decode`] is
//! `llama_detokenize` and [`Tokenizer::piece`] is `llama_token_to_piece`. The pipeline: the
//! special-token partition (`partition.rs`), then the vocabulary's model on each text fragment
//! (SentencePiece `spm.rs`, byte-level BPE, WordPiece, Unigram, `rwkv.rs`, PLaMo-2, llama.cpp's
//! test model `hashed.rs`), then BOS/EOS/SEP as the file's flags say.
#![forbid(unsafe_code)]

pub mod attr;
mod bpe;
mod charsmap;
mod decode;
mod encoder;
mod hashed;
mod keys;
mod matcher;
mod merges;
pub mod model;
mod partition;
mod plamo2;
pub(crate) mod pre_name;
pub mod pre_type;
mod rwkv;
mod spm;
mod ugm;
pub mod unicode;
mod vocab;
mod word_cache;
mod wpm;

use std::sync::OnceLock;

pub use attr::TokenAttr;
pub use encoder::{Encoder, Session, Sessions};
pub use model::Model;
pub use vocab::SpecialIds;

pub use crate::error::TokenizerError;
use crate::read::Gguf;
use vocab::Vocab;

/// A GGUF's tokenizer, borrowing its vocabulary from the file.
///
/// `Send + Sync`: one tokenizer encodes from many threads at once. Indexes a model needs
/// beyond the text-to-id table (tries, merge ranks) are built on first use.
pub struct Tokenizer<'g> {
    vocab: Vocab<'g>,
    /// The byte-fallback tokens (SPM, UGM), by byte.
    byte_tokens: [Option<u32>; 256],
    partition: OnceLock<partition::SpecialMatcher>,
    rwkv: OnceLock<rwkv::Rwkv>,
    merges: OnceLock<merges::Merges>,
    /// The first half of the merge table's build, when done before the table was asked for
    /// (`from_gguf_eager`).
    merges_hashed: std::sync::Mutex<Option<merges::Hashed>>,
    /// SentencePiece: whether fragments merge word by word (`spm::by_words`).
    spm_by_words: OnceLock<bool>,
    /// BPE: the tokens of single bytes.
    bpe_byte_ids: OnceLock<bpe::ByteIds>,
    pre_tokenizer: OnceLock<Result<pre_type::PreTokenizer, TokenizerError>>,
    wpm: OnceLock<wpm::Wpm>,
    ugm: OnceLock<ugm::Ugm>,
    plamo2: OnceLock<Result<plamo2::Plamo2, TokenizerError>>,
}

impl std::fmt::Debug for Tokenizer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer")
            .field("model", &self.vocab.model_name)
            .field("pre", &self.vocab.pre_name)
            .field("vocab_size", &self.vocab.n_tokens)
            .finish_non_exhaustive()
    }
}

impl<'g> Tokenizer<'g> {
    /// Loads the tokenizer of `gguf` as llama.cpp's loader does; a vocabulary llama.cpp refuses
    /// is refused with the key (or token) at fault.
    pub fn from_gguf(gguf: &'g Gguf<'_>) -> Result<Tokenizer<'g>, TokenizerError> {
        Self::with_vocab(Vocab::load(gguf)?)
    }

    /// [`Tokenizer::from_gguf`], with the half of a BPE vocabulary's merge table that needs
    /// nothing of the vocabulary but its merges array (walking and hashing the merges) done
    /// while the tokens are loaded and indexed; the rest is built at first use, as by
    /// `from_gguf`. For a long text, which needs the table: its first encode fills the table
    /// while it cuts the text into words. A short text may need no table at all.
    pub fn from_gguf_eager(gguf: &'g Gguf<'_>) -> Result<Tokenizer<'g>, TokenizerError> {
        let keys = Vocab::load_keys(gguf)?;
        let merges_of = (keys.model == Model::Bpe).then(|| (keys.merges, merge_joiners(&keys)));
        let (vocab, hashed) = rayon::join(
            || keys.load_tokens_and_specials(gguf),
            || merges_of.map(|(array, joiners)| merges::Hashed::new(array, joiners)),
        );
        let t = Self::with_vocab(vocab?)?;
        if let (Some(h), Ok(mut slot)) = (hashed, t.merges_hashed.lock()) {
            *slot = Some(h);
        }
        Ok(t)
    }

    /// The build that suits a first text of `text_bytes` bytes: [`Tokenizer::from_gguf_eager`]
    /// for a long one, which needs the tables (built in part while the vocabulary loads), and
    /// [`Tokenizer::from_gguf`] for a short one, which builds what it needs.
    pub fn from_gguf_for(
        gguf: &'g Gguf<'_>,
        text_bytes: usize,
    ) -> Result<Tokenizer<'g>, TokenizerError> {
        if text_bytes >= bpe::PARALLEL_MIN_BYTES {
            Self::from_gguf_eager(gguf)
        } else {
            Self::from_gguf(gguf)
        }
    }

    /// [`Tokenizer::from_gguf_eager`] and then [`Tokenizer::prepare`]: every table built, the
    /// merges hashed while the tokens load. For a batch of texts.
    pub fn from_gguf_prepared(gguf: &'g Gguf<'_>) -> Result<Tokenizer<'g>, TokenizerError> {
        let t = Self::from_gguf_eager(gguf)?;
        t.prepare()?;
        Ok(t)
    }

    /// The tokenizer of a loaded vocabulary.
    fn with_vocab(vocab: Vocab<'g>) -> Result<Tokenizer<'g>, TokenizerError> {
        let mut byte_tokens = [None; 256];
        if matches!(vocab.model, Model::Spm | Model::Ugm) {
            for (b, slot) in byte_tokens.iter_mut().enumerate() {
                let hex = format!("<0x{b:02X}>");
                *slot = vocab
                    .text_to_token(hex.as_bytes())
                    .or_else(|| vocab.text_to_token(&[b as u8]));
            }
        }
        let t = Tokenizer {
            vocab,
            byte_tokens,
            partition: OnceLock::new(),
            rwkv: OnceLock::new(),
            merges: OnceLock::new(),
            merges_hashed: std::sync::Mutex::new(None),
            bpe_byte_ids: OnceLock::new(),
            spm_by_words: OnceLock::new(),
            pre_tokenizer: OnceLock::new(),
            wpm: OnceLock::new(),
            ugm: OnceLock::new(),
            plamo2: OnceLock::new(),
        };
        if t.vocab.model == Model::Plamo2 {
            // llama.cpp builds these tables while loading, and refuses a vocabulary there
            t.plamo2()?;
        }
        Ok(t)
    }

    /// Number of tokens (`llama_vocab_n_tokens`).
    pub fn vocab_size(&self) -> u32 {
        self.vocab.n_tokens
    }

    /// The model (`LLAMA_VOCAB_TYPE_*`).
    pub fn model_type(&self) -> Model {
        self.vocab.model
    }

    /// `tokenizer.ggml.model` (`llama`, `gpt2`, `bert`, `t5`, ...).
    pub fn model(&self) -> &'g str {
        self.vocab.model_name
    }

    /// The pre-tokenizer's name as llama.cpp keeps it: `tokenizer.ggml.pre`, empty when absent
    /// (`gemma4` for the gemma4 model).
    pub fn pre(&self) -> &'g str {
        self.vocab.pre_name
    }

    /// The pre-tokenizer type (BPE vocabularies; `Default` for the others).
    pub fn pre_type(&self) -> pre_type::PreType {
        self.vocab.pre
    }

    /// Beginning-of-sequence token.
    pub fn bos_id(&self) -> Option<u32> {
        self.vocab.special.bos
    }

    /// End-of-sequence token.
    pub fn eos_id(&self) -> Option<u32> {
        self.vocab.special.eos
    }

    /// Every special id (BOS, EOS, EOT, EOM, UNK, SEP, PAD, MASK, FIM).
    pub fn special_ids(&self) -> SpecialIds {
        self.vocab.special
    }

    /// The tokens that end generation (`llama_vocab_is_eog`), ascending.
    pub fn eog_ids(&self) -> &[u32] {
        &self.vocab.eog
    }

    /// True when `id` ends generation.
    pub fn is_eog(&self, id: u32) -> bool {
        self.vocab.is_eog(id)
    }

    /// Whether encoding with `add_special` adds BOS, EOS and SEP.
    pub fn adds_bos(&self) -> bool {
        self.vocab.flags.add_bos
    }

    /// See [`Tokenizer::adds_bos`].
    pub fn adds_eos(&self) -> bool {
        self.vocab.flags.add_eos
    }

    /// See [`Tokenizer::adds_bos`].
    pub fn adds_sep(&self) -> bool {
        self.vocab.flags.add_sep
    }

    /// `tokenizer.ggml.token_type_count` (BERT-style token types; 0 when absent).
    pub fn token_type_count(&self) -> u32 {
        self.vocab.n_token_types
    }

    /// Token `id`'s text as the file stores it (`None` past the vocabulary, and for a text that
    /// is not UTF-8).
    pub fn token(&self, id: u32) -> Option<&'g str> {
        let t = *self.vocab.texts.get(id as usize)?;
        std::str::from_utf8(t).ok()
    }

    /// Token `id`'s text as bytes, as the file stores it.
    pub fn token_bytes(&self, id: u32) -> Option<&'g [u8]> {
        self.vocab.texts.get(id as usize).copied()
    }

    /// Token `id`'s score (0 when the file has none).
    pub fn score(&self, id: u32) -> Option<f32> {
        (id < self.vocab.n_tokens && self.vocab.model != Model::None).then(|| self.vocab.score(id))
    }

    /// Token `id`'s attributes after llama.cpp's adjustments.
    pub fn attr(&self, id: u32) -> Option<TokenAttr> {
        self.vocab.attrs.get(id as usize).copied()
    }

    /// The id of the token whose text is `text`.
    pub fn token_id(&self, text: &str) -> Option<u32> {
        if self.vocab.model == Model::None {
            return None;
        }
        self.vocab.text_to_token(text.as_bytes())
    }

    /// `llama_tokenize`: the ids of `text`. `add_special` adds BOS/EOS/SEP as the vocabulary's
    /// flags say; `parse_special` matches control tokens' texts as those tokens (user-defined
    /// tokens are always matched).
    pub fn encode(
        &self,
        text: &str,
        add_special: bool,
        parse_special: bool,
    ) -> Result<Vec<u32>, TokenizerError> {
        let mut out = Vec::new();
        self.encode_into(text, add_special, parse_special, &mut out)?;
        Ok(out)
    }

    /// [`Tokenizer::encode`] into `out` (cleared first), for reusing its allocation. For many
    /// texts, an [`Encoder`] (or [`Tokenizer::encode_batch`]) also reuses the work buffers and
    /// the words already encoded.
    pub fn encode_into(
        &self,
        text: &str,
        add_special: bool,
        parse_special: bool,
        out: &mut Vec<u32>,
    ) -> Result<(), TokenizerError> {
        self.encoder()
            .encode_into(text, add_special, parse_special, out)
    }

    /// An encoding session over this tokenizer: encodes text after text, keeping its work
    /// buffers and the words it has already encoded (one per thread).
    pub fn encoder(&self) -> Encoder<'_, 'g> {
        Encoder::new(self)
    }

    /// Builds now what the first [`Tokenizer::encode`] would build (the special-token matcher,
    /// the pre-tokenizer, the merge ranks and the model's other tables), on rayon's pool. For
    /// callers that encode on many threads at once: otherwise the first thread builds them
    /// while the others wait for it. The error is the one `encode` would give.
    pub fn prepare(&self) -> Result<(), TokenizerError> {
        let v = &self.vocab;
        if v.model == Model::None {
            return Ok(());
        }
        let (_, model) = rayon::join(
            || {
                self.partition
                    .get_or_init(|| partition::SpecialMatcher::new(v));
            },
            || -> Result<(), TokenizerError> {
                match v.model {
                    Model::Bpe => {
                        self.pre_tokenizer()?;
                        self.bpe_byte_ids();
                        self.merges();
                    }
                    Model::Spm => {
                        self.spm_by_words();
                    }
                    Model::Wpm => {
                        self.wpm.get_or_init(|| wpm::Wpm::new(v));
                    }
                    Model::Ugm => {
                        self.ugm.get_or_init(|| ugm::Ugm::new(v));
                    }
                    Model::Plamo2 => {
                        self.plamo2()?;
                    }
                    Model::Rwkv => {
                        self.rwkv();
                    }
                    Model::Test | Model::None => {}
                }
                Ok(())
            },
        );
        model
    }

    /// [`Tokenizer::encode`] of every text, on rayon's pool, the ids in the texts' order; the
    /// first error, if any. The texts go in runs of 64 through the sessions of
    /// [`Sessions`] (one per thread, each over its own share of the runs), so that words met in
    /// one text are not merged again in the next, and short runs keep the threads' shares even.
    pub fn encode_batch<S: AsRef<str> + Sync>(
        &self,
        texts: &[S],
        add_special: bool,
        parse_special: bool,
    ) -> Result<Vec<Vec<u32>>, TokenizerError> {
        use rayon::prelude::*;
        if texts.len() > 1 {
            // every worker would wait for the first to build the tables
            self.prepare()?;
        }
        let sessions = Sessions::new(self);
        let runs = texts.len().div_ceil(BATCH_RUN);
        let parts: Vec<Vec<Vec<u32>>> = texts
            .par_chunks(BATCH_RUN)
            .enumerate()
            .map(|(k, run)| {
                let mut session = sessions.take(k, runs);
                let e = session.encoder();
                run.iter()
                    .map(|t| e.encode(t.as_ref(), add_special, parse_special))
                    .collect()
            })
            .collect::<Result<_, _>>()?;
        Ok(parts.into_iter().flatten().collect())
    }

    /// `llama_token_to_piece` with no leading spaces stripped: the bytes token `id` stands
    /// for. Control and unknown tokens give nothing unless `special`.
    pub fn piece(&self, id: u32, special: bool) -> Result<Vec<u8>, TokenizerError> {
        let mut out = Vec::new();
        self.piece_into(id, 0, special, &mut out)?;
        Ok(out)
    }

    /// `llama_token_to_piece` appended to `out`, with up to `lstrip` leading spaces skipped.
    pub fn piece_into(
        &self,
        id: u32,
        lstrip: u32,
        special: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), TokenizerError> {
        decode::piece(self, id, lstrip, special, out)
    }

    /// `llama_detokenize`: the bytes of `ids` (pieces may be partial UTF-8). `remove_special`
    /// drops a leading BOS and a trailing EOS the vocabulary adds; `unparse_special` renders
    /// control tokens. An id out of range is an error naming it.
    pub fn decode(
        &self,
        ids: &[u32],
        remove_special: bool,
        unparse_special: bool,
    ) -> Result<Vec<u8>, TokenizerError> {
        let mut out = Vec::new();
        decode::detokenize(self, ids, remove_special, unparse_special, &mut out)?;
        Ok(out)
    }

    /// The special-token partition of `text`.
    fn partition(&self, text: &str, parse_special: bool) -> Vec<partition::Fragment> {
        let m = self
            .partition
            .get_or_init(|| partition::SpecialMatcher::new(&self.vocab));
        m.split(&self.vocab, text.as_bytes(), parse_special)
    }

    fn merges(&self) -> &merges::Merges {
        self.merges.get_or_init(|| {
            let early = self.merges_hashed.lock().ok().and_then(|mut h| h.take());
            let hashed = early.unwrap_or_else(|| {
                merges::Hashed::new(self.vocab.merges, merge_joiners(&self.vocab))
            });
            merges::Merges::from_hashed(hashed, self.vocab.merges)
        })
    }

    fn spm_by_words(&self) -> bool {
        *self.spm_by_words.get_or_init(|| spm::by_words(&self.vocab))
    }

    fn bpe_byte_ids(&self) -> &bpe::ByteIds {
        self.bpe_byte_ids
            .get_or_init(|| bpe::Bpe::byte_ids(&self.vocab))
    }

    fn pre_tokenizer(&self) -> Result<&pre_type::PreTokenizer, TokenizerError> {
        let pre = self.vocab.pre;
        self.pre_tokenizer
            .get_or_init(|| {
                pre_type::PreTokenizer::new(pre).map_err(|e| TokenizerError::PreTokenizer {
                    pre: format!("{pre:?}"),
                    message: e.to_string(),
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn plamo2(&self) -> Result<&plamo2::Plamo2, TokenizerError> {
        self.plamo2
            .get_or_init(|| plamo2::Plamo2::new(&self.vocab))
            .as_ref()
            .map_err(Clone::clone)
    }

    fn rwkv(&self) -> &rwkv::Rwkv {
        self.rwkv.get_or_init(|| rwkv::Rwkv::new(&self.vocab))
    }
}

/// Texts per run of [`Tokenizer::encode_batch`]: each run is one task of rayon's pool.
const BATCH_RUN: usize = 64;

/// Whether the merge table of `v` records the characters merged to a following `▁`: only words
/// that are not byte-level, and merged, are cut at a `▁` (`bpe.rs`).
fn merge_joiners(v: &Vocab<'_>) -> bool {
    !v.pre.byte_encode() && !v.flags.ignore_merges
}

#[cfg(test)]
mod tests;
