//! The vocabulary as llama.cpp's loader (`llama_vocab::impl::load`) makes it from a file's
//! `tokenizer.ggml.*` keys: token texts borrowed from the header, scores, attributes, the
//! text-to-id index, the special ids, the flags, the end-of-generation set and the special
//! tokens the partition looks for, with every adjustment the loader makes.
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

use super::attr::TokenAttr;
use super::keys;
use super::model::Model;
use super::pre_name::pre_settings;
use super::pre_type::PreType;
use crate::error::TokenizerError;
use crate::read::Gguf;
use crate::value::{ArrayView, ValueType};

/// The special token ids (`None`: llama.cpp's `LLAMA_TOKEN_NULL`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpecialIds {
    /// Beginning of sequence.
    pub bos: Option<u32>,
    /// End of sequence.
    pub eos: Option<u32>,
    /// End of turn.
    pub eot: Option<u32>,
    /// End of message.
    pub eom: Option<u32>,
    /// Unknown.
    pub unk: Option<u32>,
    /// Separator.
    pub sep: Option<u32>,
    /// Padding.
    pub pad: Option<u32>,
    /// Mask.
    pub mask: Option<u32>,
    /// Fill-in-the-middle: prefix.
    pub fim_pre: Option<u32>,
    /// Fill-in-the-middle: suffix.
    pub fim_suf: Option<u32>,
    /// Fill-in-the-middle: middle.
    pub fim_mid: Option<u32>,
    /// Fill-in-the-middle: padding.
    pub fim_pad: Option<u32>,
    /// Fill-in-the-middle: repository.
    pub fim_rep: Option<u32>,
    /// Fill-in-the-middle: file separator.
    pub fim_sep: Option<u32>,
}

impl SpecialIds {
    /// The slot of the `i`-th key of [`keys::SPECIAL_ID_KEYS`].
    fn slot(&mut self, i: usize) -> &mut Option<u32> {
        match i {
            0 => &mut self.bos,
            1 => &mut self.eos,
            2 => &mut self.eot,
            3 => &mut self.eom,
            4 => &mut self.unk,
            5 => &mut self.sep,
            6 => &mut self.pad,
            7 => &mut self.mask,
            8 | 14 => &mut self.fim_pre,
            9 | 15 => &mut self.fim_suf,
            10 | 16 => &mut self.fim_mid,
            11 => &mut self.fim_pad,
            12 => &mut self.fim_rep,
            _ => &mut self.fim_sep,
        }
    }
}

/// The tokenizer flags of llama.cpp's vocabulary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Flags {
    pub add_space_prefix: bool,
    pub add_bos: bool,
    pub add_eos: bool,
    pub add_sep: bool,
    pub ignore_merges: bool,
    pub clean_spaces: bool,
    pub remove_extra_whitespaces: bool,
    pub escape_whitespaces: bool,
    pub treat_whitespace_as_suffix: bool,
    /// BERT normalizer: lowercase.
    pub lowercase: bool,
    /// BERT normalizer: strip accents.
    pub strip_accents: bool,
}

/// The `U+E000` suffix that hybriddna k-mer tokens carry in the file and lose in their pieces.
pub(crate) const DNA_KMER_MARKER: &[u8] = "\u{E000}".as_bytes();

/// The text-to-id index's tables: one per part of the hash space, built in parallel.
const INDEX_SHARDS: usize = 4;

/// One table of the index, and the first token of its part that repeats an earlier text
/// (with that earlier token).
type IndexShard = (HashTable<u32>, Option<(u32, u32)>);

/// The index table of the text of hash `h`.
#[inline]
fn index_shard(h: u64) -> usize {
    (h >> 62) as usize
}

/// A loaded vocabulary.
pub(crate) struct Vocab<'g> {
    /// `tokenizer.ggml.model` (a name [`Model::from_name`] knows).
    pub model_name: &'g str,
    /// `tokenizer.ggml.pre` as llama.cpp keeps it (`gemma4` for the gemma4 model).
    pub pre_name: &'g str,
    pub model: Model,
    pub pre: PreType,
    /// Number of tokens (for `none`, the `{arch}.vocab_size` dummies).
    pub n_tokens: u32,
    /// The texts as in the file (empty for `none`).
    pub texts: Vec<&'g [u8]>,
    /// The names llama.cpp gives empty tokens (`[EMPTY_<id>]`), by id.
    pub empty_names: Vec<(u32, Box<[u8]>)>,
    /// Scores (empty when the file has none: every score is 0).
    pub scores: Vec<f32>,
    pub attrs: Vec<TokenAttr>,
    /// The text-to-id index: ids by the hash of their text, one table per [`index_shard`] of
    /// the hash (built in parallel).
    index: Vec<HashTable<u32>>,
    hasher: hashbrown::DefaultHashBuilder,
    pub max_token_len: usize,
    pub special: SpecialIds,
    pub flags: Flags,
    /// The end-of-generation tokens, ascending.
    pub eog: Vec<u32>,
    /// Control, user-defined and unknown tokens, longest text first (ties by id).
    pub special_cache: Vec<u32>,
    /// `tokenizer.ggml.merges` (BPE).
    pub merges: Option<ArrayView<'g>>,
    /// `tokenizer.ggml.precompiled_charsmap` (UGM; empty when absent).
    pub charsmap: &'g [u8],
    /// hybriddna: the `<oov>` token, after which k-mer texts lose their marker in pieces.
    pub dna_oov: Option<u32>,
    /// `tokenizer.ggml.token_type_count`.
    pub n_token_types: u32,
}

impl<'g> Vocab<'g> {
    /// The text llama.cpp keys token `id` by (its `[EMPTY_<id>]` name for an empty token).
    #[inline]
    pub fn text(&self, id: u32) -> &[u8] {
        let t = self.texts[id as usize];
        if t.is_empty() {
            if let Ok(i) = self.empty_names.binary_search_by_key(&id, |e| e.0) {
                return &self.empty_names[i].1;
            }
        }
        t
    }

    /// The token whose text is `text`.
    #[inline]
    pub fn text_to_token(&self, text: &[u8]) -> Option<u32> {
        let h = self.hasher.hash_one(text);
        self.index
            .get(index_shard(h))?
            .find(h, |&id| self.text(id) == text)
            .copied()
    }

    #[inline]
    pub fn attr(&self, id: u32) -> TokenAttr {
        self.attrs[id as usize]
    }

    #[inline]
    pub fn score(&self, id: u32) -> f32 {
        self.scores.get(id as usize).copied().unwrap_or(0.0)
    }

    /// True when `id` ends generation.
    pub fn is_eog(&self, id: u32) -> bool {
        self.eog.binary_search(&id).is_ok()
    }

    /// Loads the vocabulary of `g` as llama.cpp's loader does.
    pub fn load(g: &'g Gguf<'_>) -> Result<Vocab<'g>, TokenizerError> {
        Self::load_keys(g)?.load_tokens_and_specials(g)
    }

    /// The first part of [`Vocab::load`], its cheap part: the model, the pre-tokenizer, the
    /// flags they set and the merges array, but no token yet (what the merge table needs, so
    /// that it can be built while the tokens load).
    pub fn load_keys(g: &'g Gguf<'_>) -> Result<Vocab<'g>, TokenizerError> {
        let model_str =
            keys::string(g, keys::MODEL)?.ok_or(TokenizerError::MissingKey { key: keys::MODEL })?;
        let model_bytes = model_str.as_bytes();
        let model = Model::from_name(model_bytes).ok_or_else(|| TokenizerError::UnknownModel {
            model: model_str.to_string_lossy().into_owned(),
        })?;
        // every known name is ASCII
        let model_name = model_str.as_str().unwrap_or_default();
        let pre_str = keys::string(g, keys::PRE)?;
        let mut pre_name: &'g str = match pre_str {
            Some(s) => s.as_str().unwrap_or_default(),
            None => "",
        };
        let pre_bytes: &[u8] = pre_str.map(|s| s.as_bytes()).unwrap_or_default();
        let n_token_types = keys::uint32(g, keys::TOKEN_TYPE_COUNT)?.unwrap_or(0);

        let mut v = Vocab {
            model_name,
            pre_name,
            model,
            pre: PreType::Default,
            n_tokens: 0,
            texts: Vec::new(),
            empty_names: Vec::new(),
            scores: Vec::new(),
            attrs: Vec::new(),
            index: Vec::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
            max_token_len: 0,
            special: SpecialIds::default(),
            flags: Flags {
                escape_whitespaces: true,
                lowercase: true,
                strip_accents: true,
                ..Flags::default()
            },
            eog: Vec::new(),
            special_cache: Vec::new(),
            merges: None,
            charsmap: &[],
            dna_oov: None,
            n_token_types,
        };

        if model == Model::None {
            // dummy tokens only; no special ids, nothing else is read
            if let Some(arch) = g.architecture() {
                if let Some(n) = keys::uint32(g, &format!("{arch}.vocab_size"))? {
                    v.n_tokens = n;
                }
            }
            return Ok(v);
        }

        let mut sp = SpecialIds::default();
        match model {
            Model::Spm => {
                sp.bos = Some(1);
                sp.eos = Some(2);
                sp.unk = Some(0);
            }
            Model::Wpm => {
                sp.bos = Some(101);
                sp.unk = Some(100);
                sp.sep = Some(102);
                sp.pad = Some(0);
                sp.mask = Some(103);
                v.flags.add_sep = true;
            }
            Model::Bpe => {
                let is_gemma4 = model_bytes == b"gemma4";
                let need_merges = is_gemma4 || pre_bytes != b"kimi-k2";
                match keys::array(g, keys::MERGES, &[ValueType::String], "array[string]")? {
                    Some(m) => v.merges = Some(m),
                    None if need_merges => {
                        return Err(TokenizerError::MissingKey { key: keys::MERGES })
                    }
                    None => {}
                }
                if is_gemma4 {
                    pre_name = "gemma4";
                } else {
                    sp.bos = Some(11);
                    sp.eos = Some(11);
                }
            }
            Model::Ugm => {
                sp.eos = Some(1);
                sp.unk = Some(2);
                sp.pad = Some(0);
                if let Some(a) = keys::array(
                    g,
                    keys::CHARSMAP,
                    &[ValueType::I8, ValueType::U8],
                    "array[int8 or uint8]",
                )? {
                    let bytes = a.raw_bytes();
                    if bytes.len() < 4 {
                        return Err(TokenizerError::Charsmap {
                            reason: "shorter than its 4-byte size field",
                        });
                    }
                    let blob = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                    if u64::from(blob) + 4 >= bytes.len() as u64 {
                        return Err(TokenizerError::Charsmap {
                            reason: "its trie is larger than the array",
                        });
                    }
                    v.charsmap = bytes;
                }
            }
            Model::Plamo2 => {
                sp.bos = Some(1);
                sp.eos = Some(2);
                sp.unk = Some(0);
                sp.pad = Some(3);
            }
            Model::Rwkv | Model::Test | Model::None => {}
        }
        v.pre_name = pre_name;

        // flags by model, and by pre-tokenizer for BPE
        let f = &mut v.flags;
        match model {
            Model::Bpe => {
                f.add_space_prefix = false;
                f.escape_whitespaces = false;
                f.clean_spaces = true;
                let s = pre_settings(pre_name.as_bytes()).ok_or_else(|| {
                    TokenizerError::UnknownPre {
                        pre: pre_str
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or_default(),
                    }
                })?;
                v.pre = s.pre;
                f.ignore_merges |= s.ignore_merges;
                f.add_bos |= s.add_bos;
                f.clean_spaces = s.clean_spaces;
                f.escape_whitespaces |= s.escape_whitespaces;
                f.add_sep |= s.add_sep;
                if s.keep_case {
                    f.lowercase = false;
                }
                if s.no_bos {
                    sp.bos = None;
                }
            }
            Model::Spm => {
                f.add_space_prefix = true;
                f.clean_spaces = false;
                f.add_bos = true;
                f.add_eos = false;
            }
            Model::Wpm => {
                f.add_space_prefix = false;
                f.clean_spaces = true;
                f.add_bos = true;
                f.add_eos = false;
                f.add_sep = true;
            }
            Model::Ugm => {
                f.add_bos = false;
                f.add_eos = true;
            }
            Model::Rwkv => {
                f.add_space_prefix = false;
                f.clean_spaces = false;
                f.add_bos = false;
                f.add_eos = false;
            }
            Model::Plamo2 | Model::Test | Model::None => {}
        }
        if let Some(b) = keys::boolean(g, keys::ADD_PREFIX)? {
            f.add_space_prefix = b;
        }
        if let Some(b) = keys::boolean(g, keys::REMOVE_EXTRA_WS)? {
            f.remove_extra_whitespaces = b;
        }

        // the model's defaults, until the file's keys are read with the tokens
        v.special = sp;
        Ok(v)
    }

    /// The rest of [`Vocab::load`] after [`Vocab::load_keys`]: the tokens and their index, the
    /// special ids and the tokens' attributes.
    pub fn load_tokens_and_specials(
        mut self,
        g: &'g Gguf<'_>,
    ) -> Result<Vocab<'g>, TokenizerError> {
        if self.model == Model::None {
            return Ok(self);
        }
        self.load_tokens(g)?;
        let defaults = self.special;
        self.read_special_ids(g, defaults)?;
        self.adjust_attrs();
        self.build_special_cache();
        self.check_pieces()?;
        self.model_specific_attrs(g)?;
        Ok(self)
    }

    /// Tokens, scores, types, the index, and the hybriddna marker's start.
    fn load_tokens(&mut self, g: &'g Gguf<'_>) -> Result<(), TokenizerError> {
        let tokens = keys::array(g, keys::TOKENS, &[ValueType::String], "array[string]")?
            .ok_or(TokenizerError::MissingKey { key: keys::TOKENS })?;
        let count = tokens.len();
        if count > i32::MAX as u64 {
            return Err(TokenizerError::TooManyTokens { count });
        }
        let n = count as u32;
        let scores = keys::array(
            g,
            keys::SCORES,
            &[ValueType::I32, ValueType::F32],
            "array[int32 or float32]",
        )?;
        if let Some(s) = scores {
            if s.len() < count {
                return Err(TokenizerError::ArrayTooShort {
                    key: keys::SCORES,
                    len: s.len(),
                    tokens: count,
                });
            }
        }
        let types = keys::array(g, keys::TOKEN_TYPE, &[ValueType::I32], "array[int32]")?;
        if let Some(t) = types {
            if t.len() < count {
                return Err(TokenizerError::ArrayTooShort {
                    key: keys::TOKEN_TYPE,
                    len: t.len(),
                    tokens: count,
                });
            }
        }

        // the array's count was checked against its bytes (8 bytes at least per string)
        let mut texts = Vec::with_capacity(n as usize);
        // the iterator itself, not `Option`'s flattened: a `Flatten` around it moved its state
        // through memory at every string, a third of the load of 262k tokens
        let short = |len: usize| TokenizerError::ArrayTooShort {
            key: keys::TOKENS,
            len: len as u64,
            tokens: count,
        };
        let mut strings = tokens.strings().ok_or_else(|| short(0))?;
        for _ in 0..n {
            let s = strings.next().ok_or_else(|| short(texts.len()))?;
            texts.push(s.as_bytes());
        }
        self.texts = texts;
        self.n_tokens = n;

        self.scores = match scores {
            Some(s) => match s.element_type() {
                ValueType::F32 => s
                    .typed::<f32>()
                    .map(|t| t.iter().take(n as usize).collect())
                    .unwrap_or_default(),
                _ => s
                    .typed::<i32>()
                    .map(|t| t.iter().take(n as usize).map(|x| x as f32).collect())
                    .unwrap_or_default(),
            },
            None => Vec::new(),
        };
        self.attrs = match types.and_then(|t| t.typed::<i32>()) {
            Some(t) => t
                .iter()
                .take(n as usize)
                .map(TokenAttr::from_token_type)
                .collect(),
            None => vec![TokenAttr::NORMAL; n as usize],
        };

        for (id, t) in self.texts.iter().enumerate() {
            if t.is_empty() {
                let name = format!("[EMPTY_{id}]").into_bytes().into_boxed_slice();
                self.empty_names.push((id as u32, name));
            }
        }

        self.build_index()?;

        if self.model_name == "hybriddna" {
            self.dna_oov = self.text_to_token(b"<oov>");
        }
        Ok(())
    }

    /// The text-to-id index and the longest text; a text given to two tokens is refused (the
    /// lowest id that repeats an earlier text, as one pass in id order finds it). The texts are
    /// hashed, and the tables filled, on rayon's pool.
    fn build_index(&mut self) -> Result<(), TokenizerError> {
        use rayon::prelude::*;
        let v = &*self;
        let hashes: Vec<u64> = (0..v.n_tokens)
            .into_par_iter()
            .with_min_len(1 << 14)
            .map(|id| v.hasher.hash_one(v.text(id)))
            .collect();
        let built: Vec<IndexShard> = (0..INDEX_SHARDS)
            .into_par_iter()
            .map(|part| {
                let count = hashes.iter().filter(|&&h| index_shard(h) == part).count();
                let mut table = HashTable::with_capacity(count);
                for (id, &h) in hashes.iter().enumerate() {
                    if index_shard(h) != part {
                        continue;
                    }
                    let id = id as u32;
                    let t = v.text(id);
                    let repeated =
                        match table.entry(h, |&j| v.text(j) == t, |&j| hashes[j as usize]) {
                            Entry::Occupied(first) => Some(*first.get()),
                            Entry::Vacant(slot) => {
                                slot.insert(id);
                                None
                            }
                        };
                    if let Some(first) = repeated {
                        return (table, Some((id, first)));
                    }
                }
                (table, None)
            })
            .collect();
        if let Some((id, first)) = built.iter().filter_map(|b| b.1).min() {
            return Err(TokenizerError::DuplicateToken {
                id,
                first,
                text: String::from_utf8_lossy(self.text(id)).into_owned(),
            });
        }
        self.max_token_len = (0..self.n_tokens)
            .map(|id| self.text(id).len())
            .max()
            .unwrap_or(0);
        self.index = built.into_iter().map(|b| b.0).collect();
        Ok(())
    }

    /// Special ids from the keys over the model's defaults, the add flags, the normalizer.
    fn read_special_ids(&mut self, g: &Gguf<'_>, mut sp: SpecialIds) -> Result<(), TokenizerError> {
        let n = self.n_tokens;
        for (i, key) in keys::SPECIAL_ID_KEYS.iter().enumerate() {
            let slot = sp.slot(i);
            if slot.is_some_and(|id| id >= n) {
                // a default out of the vocabulary's range is disabled
                *slot = None;
            }
            if let Some(new_id) = keys::uint32(g, key)? {
                if new_id < n {
                    *slot = Some(new_id);
                }
            }
        }
        self.special = sp;

        let f = &mut self.flags;
        if let Some(b) = keys::boolean(g, keys::ADD_BOS)? {
            f.add_bos = b;
        }
        if let Some(b) = keys::boolean(g, keys::ADD_EOS)? {
            f.add_eos = b;
        }
        if let Some(b) = keys::boolean(g, keys::ADD_SEP)? {
            f.add_sep = b;
        }
        if self.pre == PreType::Gemma4 {
            f.add_bos = true;
        }
        if let Some(b) = keys::boolean(g, keys::LOWERCASE)? {
            f.lowercase = b;
        }
        f.strip_accents = f.lowercase;
        if let Some(b) = keys::boolean(g, keys::STRIP_ACCENTS)? {
            f.strip_accents = b;
        }
        // read for its type only: llama.cpp refuses one that is not an int32 array
        keys::array(g, keys::SUPPRESS_TOKENS, &[ValueType::I32], "array[int32]")?;
        Ok(())
    }

    /// The loader's adjustments by token text: special ids found by their usual texts, unused
    /// control tokens, the end-of-generation set and its exceptions.
    fn adjust_attrs(&mut self) {
        const EOT: &[&str] = &[
            "<|eot_id|>",
            "<|im_end|>",
            "<|end|>",
            "<end_of_turn>",
            "<|endoftext|>",
            "<|end_of_text|>",
            "<EOT>",
            "_<EOT>",
            "[EOT]",
            "<｜end▁of▁sentence｜>",
            "<end_of_utterance>",
        ];
        const EOM: &[&str] = &["<|eom_id|>"];
        const FIM_PRE: &[&str] = &[
            "<|fim_prefix|>",
            "<fim-prefix>",
            "<fim_prefix>",
            "<｜fim▁begin｜>",
            "<PRE>",
            "▁<PRE>",
            "<|code_prefix|>",
            "<|prefix|>",
        ];
        const FIM_SUF: &[&str] = &[
            "<|fim_suffix|>",
            "<fim-suffix>",
            "<fim_suffix>",
            "<｜fim▁hole｜>",
            "<SUF>",
            "▁<SUF>",
            "<|code_suffix|>",
            "<|suffix|>",
        ];
        const FIM_MID: &[&str] = &[
            "<|fim_middle|>",
            "<fim-middle>",
            "<fim_middle>",
            "<｜fim▁end｜>",
            "<MID>",
            "▁<MID>",
            "<|code_middle|>",
            "<|middle|>",
        ];
        const FIM_PAD: &[&str] = &["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"];
        const FIM_REP: &[&str] = &[
            "<|fim_repo|>",
            "<|repo_name|>",
            "<fim-repo>",
            "<REPO>",
            "<reponame>",
        ];
        const FIM_SEP: &[&str] = &["<|file_sep|>"];
        const EOG: &[&str] = &[
            "<|eot_id|>",
            "<|im_end|>",
            "<|end|>",
            "<|return|>",
            "<|call|>",
            "<|flush|>",
            "<|calls|>",
            "<end_of_turn>",
            "<|endoftext|>",
            "</s>",
            "<|eom_id|>",
            "<EOT>",
            "_<EOT>",
            "[EOT]",
            "[EOS]",
            "<|end_of_text|>",
            "<end_of_utterance>",
            "<eos>",
            "<turn|>",
            "<|tool_response>",
            "<｜end▁of▁sentence｜>",
            "[e~[",
        ];

        // llama.cpp walks its hash map and takes the first text that matches; the lowest id
        // is taken here (the same token whenever a vocabulary has one candidate)
        let mut detect = |slot: fn(&mut SpecialIds) -> &mut Option<u32>, texts: &[&str]| {
            if slot(&mut self.special).is_some() {
                return;
            }
            let found = texts
                .iter()
                .filter_map(|t| self.text_to_token(t.as_bytes()))
                .min();
            if let Some(id) = found {
                *slot(&mut self.special) = Some(id);
                let a = &mut self.attrs[id as usize];
                *a = a.with(TokenAttr::CONTROL);
            }
        };
        detect(|s| &mut s.eot, EOT);
        detect(|s| &mut s.eom, EOM);
        detect(|s| &mut s.fim_pre, FIM_PRE);
        detect(|s| &mut s.fim_suf, FIM_SUF);
        detect(|s| &mut s.fim_mid, FIM_MID);
        detect(|s| &mut s.fim_pad, FIM_PAD);
        detect(|s| &mut s.fim_rep, FIM_REP);
        detect(|s| &mut s.fim_sep, FIM_SEP);

        // control tokens named "unused" are unused
        for id in 0..self.n_tokens {
            let a = self.attrs[id as usize];
            if a.has(TokenAttr::CONTROL)
                && !a.has(TokenAttr::UNUSED)
                && memchr::memmem::find(self.text(id), b"unused").is_some()
            {
                self.attrs[id as usize] = a.with(TokenAttr::UNUSED);
            }
        }

        let mut eog: Vec<u32> = Vec::new();
        let sp = self.special;
        eog.extend(sp.fim_pad);
        eog.extend(sp.fim_rep);
        eog.extend(sp.fim_sep);
        for t in EOG {
            if let Some(id) = self.text_to_token(t.as_bytes()) {
                eog.push(id);
                let a = &mut self.attrs[id as usize];
                *a = a.with(TokenAttr::CONTROL);
            }
        }
        // gpt-oss: always rendered
        for t in ["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"] {
            if let Some(id) = self.text_to_token(t.as_bytes()) {
                self.attrs[id as usize] = TokenAttr::USER_DEFINED;
            }
        }
        eog.extend(sp.eos);
        eog.extend(sp.eot);
        eog.extend(sp.eom);
        eog.sort_unstable();
        eog.dedup();

        // o200k_harmony and solar-open: "<|end|>" does not end generation there;
        // gemma4 and plamo have a normal "</s>"
        let find = |eog: &[u32], t: &[u8]| eog.iter().copied().find(|&id| self.text(id) == t);
        let has = |eog: &[u32], t: &str| find(eog, t.as_bytes()).is_some();
        let (has_return, has_call, has_flush) = (
            has(&eog, "<|return|>"),
            has(&eog, "<|call|>") || has(&eog, "<|calls|>"),
            has(&eog, "<|flush|>"),
        );
        let end = find(&eog, b"<|end|>");
        let normal_s_marker = has(&eog, "<|tool_response>") || has(&eog, "<|plamo:eos|>");
        let s = find(&eog, b"</s>");
        if let Some(end) = end {
            if has_call && (has_return || has_flush) {
                eog.retain(|&id| id != end);
                self.attrs[end as usize] = TokenAttr::USER_DEFINED;
            }
        }
        if let (true, Some(s)) = (normal_s_marker, s) {
            eog.retain(|&id| id != s);
            self.attrs[s as usize] = TokenAttr::NORMAL;
        }
        self.eog = eog;
    }

    /// Control, user-defined and unknown tokens, longest first.
    fn build_special_cache(&mut self) {
        let mask = TokenAttr::CONTROL | TokenAttr::USER_DEFINED | TokenAttr::UNKNOWN;
        let mut cache: Vec<u32> = (0..self.n_tokens)
            .filter(|&id| self.attrs[id as usize].has(mask))
            .collect();
        // stable: equal lengths keep id order
        cache.sort_by_key(|&id| std::cmp::Reverse(self.text(id).len()));
        self.special_cache = cache;
    }

    /// llama.cpp renders every token's piece while loading: a byte token whose value cannot be
    /// read makes it fail there (a WordPiece byte token aborts it).
    fn check_pieces(&self) -> Result<(), TokenizerError> {
        if !matches!(
            self.model,
            Model::Spm | Model::Ugm | Model::Bpe | Model::Wpm
        ) {
            return Ok(());
        }
        let shown =
            TokenAttr::UNKNOWN | TokenAttr::CONTROL | TokenAttr::USER_DEFINED | TokenAttr::NORMAL;
        for id in 0..self.n_tokens {
            let a = self.attrs[id as usize];
            if a.has(TokenAttr::BYTE)
                && !a.has(shown)
                && (self.model == Model::Wpm || self.text(id).len() < 3)
            {
                return Err(TokenizerError::BadByteToken { id });
            }
        }
        Ok(())
    }

    /// Attributes llama.cpp sets by model, tokenizer or architecture name.
    fn model_specific_attrs(&mut self, g: &Gguf<'_>) -> Result<(), TokenizerError> {
        let name = keys::string(g, keys::GENERAL_NAME)?
            .map(|s| s.as_bytes().to_ascii_lowercase())
            .unwrap_or_default();
        let pre = keys::string(g, keys::PRE)?
            .map(|s| s.as_bytes())
            .unwrap_or_default();
        let arch = keys::string(g, keys::GENERAL_ARCH)?
            .map(|s| s.as_bytes())
            .unwrap_or_default();
        let contains = |hay: &[u8], needles: &[&str]| {
            needles
                .iter()
                .any(|n| memchr::memmem::find(hay, n.as_bytes()).is_some())
        };
        let need = |v: &Self, text: &'static str, reason| {
            v.text_to_token(text.as_bytes())
                .ok_or(TokenizerError::MissingToken { text, reason })
        };
        if contains(pre, &["jina-v2-de", "jina-v2-es", "jina-v2-code"])
            || contains(arch, &["nomic-bert-moe", "jina-bert-v3"])
        {
            if let Some(id) = self.text_to_token(b"<mask>") {
                let a = &mut self.attrs[id as usize];
                *a = a.with(TokenAttr::LSTRIP);
            }
        } else if contains(&name, &["phi-3", "phi3"]) {
            for i in 0..self.special_cache.len() {
                let id = self.special_cache[i] as usize;
                self.attrs[id] = self.attrs[id].with(TokenAttr::RSTRIP);
            }
            let s = need(self, "</s>", "a Phi-3 model")?;
            self.attrs[s as usize] = self.attrs[s as usize].with(TokenAttr::RSTRIP);
            for t in ["<unk>", "<s>", "<|endoftext|>"] {
                let id = need(self, t, "a Phi-3 model")? as usize;
                self.attrs[id] = self.attrs[id].without(TokenAttr::RSTRIP);
            }
        } else if contains(&name, &["modern-bert"]) {
            if let Some(id) = self.text_to_token(b"[MASK]") {
                let a = &mut self.attrs[id as usize];
                *a = a.with(TokenAttr::LSTRIP);
            }
        }
        Ok(())
    }
}
