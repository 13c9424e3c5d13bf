//! An encoding session ([`Encoder`]): `llama_tokenize` text after text over one tokenizer,
//! keeping what one text's encoding can hand the next: the models' work buffers and the BPE
//! words already encoded (a word's ids depend on its text and the vocabulary only). One per
//! thread: `Tokenizer::encode_batch` and the batch modes keep one per worker.
#![forbid(unsafe_code)]

use std::sync::{Mutex, MutexGuard};

use crossbeam_utils::CachePadded;

use super::bpe;
use super::model::Model;
use super::partition::Fragment;
use super::spm;
use super::Tokenizer;
use crate::error::TokenizerError;

/// Encodes texts with one tokenizer, reusing buffers and encoded words from call to call.
pub struct Encoder<'t, 'g> {
    tok: &'t Tokenizer<'g>,
    bpe: bpe::Scratch,
    spm: spm::Scratch,
    /// A fragment with its spaces escaped (SPM, and BPE vocabularies that escape).
    escaped: String,
}

impl std::fmt::Debug for Encoder<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Encoder")
            .field("tokenizer", self.tok)
            .finish_non_exhaustive()
    }
}

impl<'t, 'g> Encoder<'t, 'g> {
    /// A session over `tok`.
    pub fn new(tok: &'t Tokenizer<'g>) -> Self {
        Encoder {
            tok,
            bpe: bpe::Scratch::default(),
            spm: spm::Scratch::default(),
            escaped: String::new(),
        }
    }

    /// The tokenizer this session encodes with.
    pub fn tokenizer(&self) -> &'t Tokenizer<'g> {
        self.tok
    }

    /// [`Tokenizer::encode`].
    pub fn encode(
        &mut self,
        text: &str,
        add_special: bool,
        parse_special: bool,
    ) -> Result<Vec<u32>, TokenizerError> {
        let mut out = Vec::new();
        self.encode_into(text, add_special, parse_special, &mut out)?;
        Ok(out)
    }

    /// [`Tokenizer::encode`] into `out` (cleared first).
    pub fn encode_into(
        &mut self,
        text: &str,
        add_special: bool,
        parse_special: bool,
        out: &mut Vec<u32>,
    ) -> Result<(), TokenizerError> {
        let t = self.tok;
        if text.len() >= bpe::PARALLEL_MIN_BYTES {
            // about a token per two bytes: a long text's ids mostly in one allocation (not for
            // short texts, whose results `encode_batch` keeps: they grow to their size)
            out.reserve(text.len() / 2);
        }
        if t.vocab.model == Model::Bpe
            && text.len() >= bpe::PARALLEL_MIN_BYTES
            && t.merges.get().is_none()
        {
            // a long text's first use: the merge table is built on the pool while this thread
            // cuts the text at its special tokens and splits it into words (the first thing
            // that needs the table waits for it; a pool of one thread builds it there)
            return rayon::scope(|scope| {
                scope.spawn(|_| {
                    t.merges();
                });
                self.encode_text(text, add_special, parse_special, out)
            });
        }
        self.encode_text(text, add_special, parse_special, out)
    }

    /// [`Encoder::encode_into`], the tables built by whatever needs them first.
    fn encode_text(
        &mut self,
        text: &str,
        add_special: bool,
        parse_special: bool,
        out: &mut Vec<u32>,
    ) -> Result<(), TokenizerError> {
        out.clear();
        let t = self.tok;
        let v = &t.vocab;
        if v.model == Model::None {
            return Err(TokenizerError::NoVocab {
                model: v.model_name.to_string(),
            });
        }
        let fragments = if text.is_empty() {
            Vec::new()
        } else {
            t.partition(text, parse_special)
        };
        let f = v.flags;
        let sp = v.special;
        let bos = || {
            sp.bos
                .ok_or(TokenizerError::MissingSpecial { which: "BOS" })
        };
        let eos = || {
            sp.eos
                .ok_or(TokenizerError::MissingSpecial { which: "EOS" })
        };
        match v.model {
            Model::Spm => {
                if add_special && f.add_bos {
                    out.push(bos()?);
                }
                let by_words = t.spm_by_words();
                let mut is_prev_special = true;
                let buf = &mut self.escaped;
                for frag in &fragments {
                    match *frag {
                        Fragment::Text(a, b) => {
                            buf.clear();
                            if f.add_space_prefix && is_prev_special {
                                buf.push('\u{2581}');
                            }
                            spm::push_escaped(buf, &text[a..b]);
                            spm::encode(
                                v,
                                &t.byte_tokens,
                                buf.as_bytes(),
                                by_words,
                                &mut self.spm,
                                out,
                            )?;
                            is_prev_special = false;
                        }
                        Fragment::Token(id) => {
                            out.push(id);
                            is_prev_special = true;
                        }
                    }
                }
                if add_special && f.add_eos {
                    out.push(eos()?);
                }
            }
            Model::Bpe => {
                let pre = t.pre_tokenizer()?;
                let bpe = || bpe::Bpe {
                    vocab: v,
                    merges: t.merges(),
                    merges_raw: v.merges.map(|m| m.raw_bytes()).unwrap_or_default(),
                    pre,
                    byte_ids: t.bpe_byte_ids(),
                };
                if add_special && f.add_bos {
                    out.push(bos()?);
                }
                let scratch = &mut self.bpe;
                for frag in &fragments {
                    match *frag {
                        Fragment::Text(a, b) => {
                            let mut piece = &text[a..b];
                            if f.escape_whitespaces {
                                self.escaped.clear();
                                spm::push_escaped(&mut self.escaped, piece);
                                piece = &self.escaped;
                            }
                            match v.model_name {
                                "hybriddna" => bpe().encode_dna(piece, scratch, out),
                                "whitespace" => bpe().encode_whitespace(piece, scratch, out),
                                _ if piece.len() >= bpe::PARALLEL_MIN_BYTES
                                    && t.merges.get().is_none() =>
                                {
                                    // the merge table is being built (`encode_into`): split
                                    // the text into words before waiting for it
                                    bpe::split_words(pre, piece, scratch);
                                    bpe().encode_split(piece, scratch, out);
                                }
                                _ => bpe().encode(piece, scratch, out),
                            }
                        }
                        Fragment::Token(id) => out.push(id),
                    }
                }
                if add_special && f.add_eos {
                    out.push(eos()?);
                }
            }
            Model::Wpm => {
                if add_special {
                    out.push(bos()?);
                }
                let wpm = t.wpm.get_or_init(|| super::wpm::Wpm::new(v));
                for frag in &fragments {
                    match *frag {
                        Fragment::Text(a, b) => wpm.encode(v, &text[a..b], out)?,
                        Fragment::Token(id) => out.push(id),
                    }
                }
                if add_special {
                    out.push(
                        sp.sep
                            .ok_or(TokenizerError::MissingSpecial { which: "SEP" })?,
                    );
                }
            }
            Model::Ugm => {
                if add_special && f.add_bos {
                    out.push(bos()?);
                }
                let ugm = t.ugm.get_or_init(|| super::ugm::Ugm::new(v));
                for frag in &fragments {
                    match *frag {
                        Fragment::Text(a, b) => ugm.encode(v, &text.as_bytes()[a..b], out)?,
                        Fragment::Token(id) => out.push(id),
                    }
                }
                if add_special && f.add_eos {
                    out.push(eos()?);
                }
            }
            Model::Plamo2 => {
                let p = t.plamo2()?;
                for frag in &fragments {
                    match *frag {
                        Fragment::Text(a, b) => p.encode(&text[a..b], out)?,
                        Fragment::Token(id) => out.push(id),
                    }
                }
            }
            Model::Rwkv => {
                let rwkv = t.rwkv();
                for frag in &fragments {
                    match *frag {
                        Fragment::Text(a, b) => rwkv.encode(v, &text.as_bytes()[a..b], out)?,
                        Fragment::Token(id) => out.push(id),
                    }
                }
            }
            Model::Test => {
                for frag in &fragments {
                    match *frag {
                        Fragment::Text(a, b) => {
                            super::hashed::encode(v.n_tokens, &text.as_bytes()[a..b], out)
                        }
                        Fragment::Token(id) => out.push(id),
                    }
                }
            }
            Model::None => unreachable!("refused above"),
        }
        Ok(())
    }
}

/// Encoding sessions kept for the parts of parallel work (`encode_batch`, `gguf tokenize
/// --jsonl`), so that the words a session has encoded serve the next parts too: part `k` of `n`
/// takes the session of its place (one per thread of rayon's pool, each over its own run of the
/// parts, so that a session keeps meeting the same kind of text), else any free one, else a
/// session of its own. Taking one never waits (a thread whose part waits inside an encode may
/// take up another part meanwhile).
pub struct Sessions<'t, 'g> {
    tok: &'t Tokenizer<'g>,
    /// Each on cache lines of its own: a session's buffers' lengths change at every word, and
    /// two sessions side by side would make the two threads write the same cache line.
    slots: Vec<CachePadded<Mutex<Option<Encoder<'t, 'g>>>>>,
}

impl std::fmt::Debug for Sessions<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("slots", &self.slots.len())
            .finish_non_exhaustive()
    }
}

impl<'t, 'g> Sessions<'t, 'g> {
    /// One kept session per thread of rayon's current pool, made when first taken.
    pub fn new(tok: &'t Tokenizer<'g>) -> Self {
        Sessions {
            tok,
            slots: (0..rayon::current_num_threads().max(1))
                .map(|_| CachePadded::new(Mutex::new(None)))
                .collect(),
        }
    }

    /// The session for part `part` of `parts` (see [`Sessions`]), held until dropped.
    pub fn take(&self, part: usize, parts: usize) -> Session<'_, 't, 'g> {
        let home = (part * self.slots.len() / parts.max(1)).min(self.slots.len() - 1);
        let held = (home..self.slots.len())
            .chain(0..home)
            .find_map(|i| self.slots[i].try_lock().ok())
            .map_or_else(|| Held::Own(Box::new(None)), Held::Slot);
        Session {
            tok: self.tok,
            held,
        }
    }
}

/// A session taken from [`Sessions`]: [`Session::encoder`].
pub struct Session<'s, 't, 'g> {
    tok: &'t Tokenizer<'g>,
    held: Held<'s, 't, 'g>,
}

enum Held<'s, 't, 'g> {
    Slot(MutexGuard<'s, Option<Encoder<'t, 'g>>>),
    Own(Box<Option<Encoder<'t, 'g>>>),
}

impl std::fmt::Debug for Session<'_, '_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").finish_non_exhaustive()
    }
}

impl<'t, 'g> Session<'_, 't, 'g> {
    /// The encoding session.
    pub fn encoder(&mut self) -> &mut Encoder<'t, 'g> {
        let slot = match &mut self.held {
            Held::Slot(guard) => &mut **guard,
            Held::Own(own) => &mut **own,
        };
        let tok = self.tok;
        slot.get_or_insert_with(|| tok.encoder())
    }
}
