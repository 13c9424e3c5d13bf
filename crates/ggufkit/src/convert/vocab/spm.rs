//! SentencePiece from tokenizer.model, as the script writes it: `_set_vocab_sentencepiece`
//! (Llama 2, Mistral, Qwen 2 with a tokenizer.model, Gemma 2/3 with `add_space_prefix` false),
//! Phi-3's own variant, and the Llama family's choice between SentencePiece and BPE.
//!
//! Every id below the vocabulary size gets a piece (`[PAD{id}]`, score -10000, unused, where the
//! model has none); added_tokens.json and tokenizer_config.json's `added_tokens_decoder` then
//! overwrite theirs (score -1000, user-defined, or control when special).
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use prost::Message;
use serde_json::Value;

use super::bpe::does_token_look_special;
use super::files::read_json_object;
use super::special::SpecialVocab;
use super::spm_proto::ModelProto;
use super::token_type::{BYTE, CONTROL, NORMAL, UNKNOWN, UNUSED, USER_DEFINED};
use crate::convert::Kv;
use crate::error::ConvertError;
use crate::write::{OwnedArray, OwnedValue};

/// A SentencePiece model's pieces, checked as SentencePiece checks them when it loads a model.
pub(crate) struct SpmModel {
    /// (piece, score, type) by id.
    pub pieces: Vec<(String, f32, i32)>,
}

/// Reads and checks `folder/tokenizer.model`; `Ok(None)` when the folder has none.
pub(crate) fn read_model(folder: &Path) -> Result<Option<SpmModel>, ConvertError> {
    let path = folder.join("tokenizer.model");
    if !path.is_file() {
        return Ok(None);
    }
    let bytes = std::fs::read(&path).map_err(|e| ConvertError::io(&path, e))?;
    let bad = |message: String| ConvertError::SentencePiece {
        path: path.clone(),
        message,
    };
    let proto = ModelProto::decode(bytes.as_slice()).map_err(|e| bad(e.to_string()))?;
    if proto.pieces.is_empty() {
        return Err(bad("the model has no pieces".into()));
    }
    let mut seen: HashSet<&str> = HashSet::with_capacity(proto.pieces.len());
    let mut unk = None;
    for (id, p) in proto.pieces.iter().enumerate() {
        let piece = p.piece.as_deref().unwrap_or("");
        if piece.is_empty() {
            return Err(bad(format!("piece {id} is empty")));
        }
        if !seen.insert(piece) {
            return Err(bad(format!("piece {id} ({piece:?}) is already defined")));
        }
        let ty = p.r#type.unwrap_or(NORMAL);
        if !(1..=6).contains(&ty) {
            return Err(bad(format!("piece {id} has type {ty}, not 1..=6")));
        }
        if ty == UNKNOWN {
            if let Some(first) = unk {
                return Err(bad(format!(
                    "piece {id} is a second unknown token (the first is {first})"
                )));
            }
            unk = Some(id);
        }
    }
    let pieces = proto
        .pieces
        .into_iter()
        .map(|p| {
            (
                p.piece.unwrap_or_default(),
                p.score.unwrap_or(0.0),
                p.r#type.unwrap_or(NORMAL),
            )
        })
        .collect();
    Ok(Some(SpmModel { pieces }))
}

/// The vocabulary being built: token texts, scores and types by id.
struct Slots {
    tokens: Vec<String>,
    scores: Vec<f32>,
    types: Vec<i32>,
}

impl Slots {
    /// `n` unused `[PAD{i}]` slots, score -10000.
    fn padding(n: usize) -> Self {
        Slots {
            tokens: (0..n).map(|i| format!("[PAD{i}]")).collect(),
            scores: vec![-10000.0; n],
            types: vec![UNUSED; n],
        }
    }

    fn set(&mut self, id: usize, token: String, score: f32, ty: i32) {
        self.tokens[id] = token;
        self.scores[id] = score;
        self.types[id] = ty;
    }

    /// The pairs `_set_vocab_sentencepiece` writes, `SpecialVocab` included.
    fn into_kvs(self, folder: &Path) -> Result<Vec<Kv>, ConvertError> {
        let n = self.tokens.len();
        let mut kvs: Vec<Kv> = vec![
            ("tokenizer.ggml.model".into(), OwnedValue::from("llama")),
            ("tokenizer.ggml.pre".into(), OwnedValue::from("default")),
            (
                "tokenizer.ggml.tokens".into(),
                OwnedValue::Array(OwnedArray::of_strings(self.tokens)),
            ),
            (
                "tokenizer.ggml.scores".into(),
                OwnedValue::Array(OwnedArray::of_f32(self.scores)),
            ),
            (
                "tokenizer.ggml.token_type".into(),
                OwnedValue::Array(OwnedArray::of_i32(self.types)),
            ),
        ];
        kvs.extend(SpecialVocab::load(folder, false, Some(n))?.to_kvs());
        Ok(kvs)
    }
}

/// A vocab_size that would make padding slots the files do not justify (see
/// `bpe::check_padding`: the same bound).
fn check_size(path: &Path, pieces: usize, vocab_size: usize) -> Result<(), ConvertError> {
    let bound = pieces.saturating_mul(4).saturating_add(1 << 16);
    if vocab_size > bound {
        return Err(ConvertError::Vocab {
            path: path.to_path_buf(),
            problem: format!(
                "config.json's vocab_size {vocab_size} is far past the model's {pieces} pieces \
                 (at most {bound} accepted)"
            ),
        });
    }
    Ok(())
}

/// An id of a JSON file's added token, which must name a slot of the vocabulary (`None`: past
/// it, which the script skips).
fn added_id(
    path: &Path,
    key: &str,
    id: Option<i64>,
    vocab_size: usize,
    skip_past: bool,
) -> Result<Option<usize>, ConvertError> {
    let id = id.ok_or_else(|| ConvertError::bad_key(path, key, "an integer token id"))?;
    if id < 0 {
        return Err(ConvertError::bad_key(path, key, "a token id, not negative"));
    }
    let id = id as u64;
    if id >= vocab_size as u64 {
        if skip_past {
            return Ok(None);
        }
        return Err(ConvertError::bad_key(
            path,
            key,
            format!("a token id below the vocabulary size {vocab_size}"),
        ));
    }
    Ok(Some(id as usize))
}

fn pieces_type(ty: i32) -> i32 {
    // SentencePiece's IsUnknown / IsControl / IsUnused / IsByte, in that order; else normal
    match ty {
        UNKNOWN | CONTROL | UNUSED | BYTE => ty,
        _ => NORMAL,
    }
}

/// added_tokens.json: content -> id, each a user-defined token with score -1000.
fn apply_added_tokens_json(
    folder: &Path,
    slots: &mut Slots,
    skip_past: bool,
) -> Result<(), ConvertError> {
    let path = folder.join("added_tokens.json");
    let Some(added) = read_json_object(&path)? else {
        return Ok(());
    };
    let n = slots.tokens.len();
    for (content, id) in &added {
        if let Some(id) = added_id(&path, content, id.as_i64(), n, skip_past)? {
            slots.set(id, content.clone(), -1000.0, USER_DEFINED);
        }
    }
    Ok(())
}

fn tokenizer_config_path(folder: &Path) -> PathBuf {
    folder.join("tokenizer_config.json")
}

/// `_create_vocab_sentencepiece` over a read model.
fn create_vocab(
    folder: &Path,
    model: &SpmModel,
    vocab_size: Option<usize>,
) -> Result<Slots, ConvertError> {
    let path = folder.join("tokenizer.model");
    let n = vocab_size.filter(|&n| n > 0).unwrap_or(model.pieces.len());
    check_size(&path, model.pieces.len(), n)?;
    let mut slots = Slots::padding(n);
    // pieces past vocab_size are dropped, as the script drops them with a warning
    for (id, (piece, score, ty)) in model.pieces.iter().enumerate().take(n) {
        slots.set(id, piece.clone(), *score, pieces_type(*ty));
    }
    apply_added_tokens_json(folder, &mut slots, true)?;
    let tc_path = tokenizer_config_path(folder);
    if let Some(config) = read_json_object(&tc_path)? {
        if let Some(Value::Object(dec)) = config.get("added_tokens_decoder") {
            for (key, data) in dec {
                let k = format!("added_tokens_decoder.{key}");
                let id = key.trim().parse::<i64>().ok();
                let Some(id) = added_id(&tc_path, &k, id, n, true)? else {
                    continue;
                };
                let content = data
                    .get("content")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ConvertError::bad_key(&tc_path, &k, "a string `content`"))?;
                let special = data.get("special").is_some_and(truthy);
                if special || does_token_look_special(content) {
                    slots.set(id, content.to_string(), -1000.0, CONTROL);
                } else {
                    slots.set(id, content.replace('\u{2581}', " "), -1000.0, USER_DEFINED);
                }
            }
        }
    }
    Ok(slots)
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn missing_model(folder: &Path) -> ConvertError {
    ConvertError::MissingFile {
        path: folder.join("tokenizer.model"),
        what: "a SentencePiece vocabulary's tokenizer.model",
    }
}

/// `_set_vocab_sentencepiece`: the pairs of a SentencePiece folder (model `llama`, pre
/// `default`, tokens, scores, types, then `SpecialVocab`). `vocab_size` is config.json's
/// (`None` or 0: the model's piece count).
pub fn sentencepiece_vocab(
    folder: &Path,
    vocab_size: Option<usize>,
) -> Result<Vec<Kv>, ConvertError> {
    let model = read_model(folder)?.ok_or_else(|| missing_model(folder))?;
    create_vocab(folder, &model, vocab_size)?.into_kvs(folder)
}

/// Gemma 2 and Gemma 3 with a tokenizer.model: `_set_vocab_sentencepiece`, then
/// `add_space_prefix` false. A Gemma 3 folder without one is BPE (`_set_vocab_gpt2`).
pub fn gemma3_vocab(folder: &Path, vocab_size: Option<usize>) -> Result<Vec<Kv>, ConvertError> {
    if !folder.join("tokenizer.model").is_file() {
        return super::bpe::gpt2_vocab(folder, vocab_size);
    }
    let mut kvs = sentencepiece_vocab(folder, vocab_size)?;
    kvs.push((
        "tokenizer.ggml.add_space_prefix".into(),
        OwnedValue::Bool(false),
    ));
    Ok(kvs)
}

/// Gemma 2: `_set_vocab_sentencepiece` (a tokenizer.model is required), then `add_space_prefix`
/// false.
pub fn gemma2_vocab(folder: &Path, vocab_size: Option<usize>) -> Result<Vec<Kv>, ConvertError> {
    let mut kvs = sentencepiece_vocab(folder, vocab_size)?;
    kvs.push((
        "tokenizer.ggml.add_space_prefix".into(),
        OwnedValue::Bool(false),
    ));
    Ok(kvs)
}

/// The Llama family's `set_vocab` (Llama 2 and 3, Mistral, and the classes that inherit it):
/// tokenizer_config.json's `add_prefix_space` first as `add_space_prefix`, then SentencePiece
/// when there is a tokenizer.model, else a Llama 2 style tokenizer.json (`llama_hf.rs`), else
/// BPE from tokenizer.json; CodeLlama's infill tokens
/// (vocab_size 32016) and granite-small's add_bos false (vocab_size 49152) after.
pub fn llama_vocab(folder: &Path, vocab_size: Option<usize>) -> Result<Vec<Kv>, ConvertError> {
    let mut kvs: Vec<Kv> = Vec::new();
    let tc_path = tokenizer_config_path(folder);
    if let Some(config) = read_json_object(&tc_path)? {
        if let Some(v) = config.get("add_prefix_space").filter(|v| !v.is_null()) {
            let b = v.as_bool().ok_or_else(|| {
                ConvertError::bad_key(&tc_path, "add_prefix_space", "true or false")
            })?;
            kvs.push((
                "tokenizer.ggml.add_space_prefix".into(),
                OwnedValue::Bool(b),
            ));
        }
    }
    if folder.join("tokenizer.model").is_file() {
        kvs.extend(sentencepiece_vocab(folder, vocab_size)?);
    } else if let super::llama_hf::HfKind::LlamaHf = super::llama_hf::classify(folder)? {
        kvs.extend(super::llama_hf::llama_hf_vocab(folder)?);
    } else {
        kvs.extend(super::bpe::gpt2_vocab(folder, vocab_size)?);
    }
    match vocab_size {
        Some(32016) => {
            for (key, id) in [
                ("prefix_token_id", 32007u32),
                ("suffix_token_id", 32008),
                ("middle_token_id", 32009),
                ("eot_token_id", 32010),
            ] {
                let key = format!("tokenizer.ggml.{key}");
                // the writer keeps a key's first place and takes the later value
                match kvs.iter_mut().find(|(k, _)| *k == key) {
                    Some(kv) => kv.1 = OwnedValue::U32(id),
                    None => kvs.push((key, OwnedValue::U32(id))),
                }
            }
        }
        Some(49152) => {
            let key = "tokenizer.ggml.add_bos_token".to_string();
            match kvs.iter_mut().find(|(k, _)| *k == key) {
                Some(kv) => kv.1 = OwnedValue::Bool(false),
                None => kvs.push((key, OwnedValue::Bool(false))),
            }
        }
        _ => {}
    }
    Ok(kvs)
}

/// Phi-3's `set_vocab`: BPE when tokenizer_config.json's `tokenizer_class` is GPT2Tokenizer
/// (Phi-4), else its own SentencePiece reading: every piece, then added_tokens.json,
/// tokenizer_config.json's `added_tokens_decoder` and tokenizer.json's `added_tokens` (user-
/// defined, or control when special; score -1000).
pub fn phi3_vocab(folder: &Path, vocab_size: Option<usize>) -> Result<Vec<Kv>, ConvertError> {
    let tc_path = tokenizer_config_path(folder);
    let config = read_json_object(&tc_path)?;
    if let Some(c) = &config {
        let class = c.get("tokenizer_class").ok_or_else(|| {
            ConvertError::bad_key(&tc_path, "tokenizer_class", "present (Phi-3 reads it)")
        })?;
        if class.as_str() == Some("GPT2Tokenizer") {
            return super::bpe::gpt2_vocab(folder, vocab_size);
        }
    }
    let model = read_model(folder)?.ok_or_else(|| missing_model(folder))?;
    let path = folder.join("tokenizer.model");
    let n = vocab_size.unwrap_or(model.pieces.len());
    check_size(&path, model.pieces.len(), n)?;
    if model.pieces.len() > n {
        return Err(ConvertError::Vocab {
            path,
            problem: format!(
                "{} pieces, more than config.json's vocab_size {n}",
                model.pieces.len()
            ),
        });
    }
    let mut slots = Slots::padding(n);
    for (id, (piece, score, ty)) in model.pieces.iter().enumerate() {
        slots.set(id, piece.clone(), *score, pieces_type(*ty));
    }
    apply_added_tokens_json(folder, &mut slots, true)?;
    let mut apply = |path: &Path, key: String, id: Option<i64>, data: &Value| {
        let Some(id) = added_id(path, &key, id, n, false)? else {
            return Ok::<(), ConvertError>(());
        };
        let content = data
            .get("content")
            .and_then(Value::as_str)
            .ok_or_else(|| ConvertError::bad_key(path, &key, "a string `content`"))?;
        let ty = if data.get("special").is_some_and(truthy) {
            CONTROL
        } else {
            USER_DEFINED
        };
        slots.set(id, content.to_string(), -1000.0, ty);
        Ok(())
    };
    if let Some(Value::Object(dec)) = config.as_ref().and_then(|c| c.get("added_tokens_decoder")) {
        for (key, data) in dec {
            let id = key.trim().parse::<i64>().ok();
            apply(&tc_path, format!("added_tokens_decoder.{key}"), id, data)?;
        }
    }
    let tj_path = folder.join("tokenizer.json");
    if let Some(tj) = read_json_object(&tj_path)? {
        if let Some(Value::Array(added)) = tj.get("added_tokens") {
            for (i, data) in added.iter().enumerate() {
                let id = data.get("id").and_then(Value::as_i64);
                apply(&tj_path, format!("added_tokens[{i}].id"), id, data)?;
            }
        }
    }
    slots.into_kvs(folder)
}

/// Qwen 2 / 2.5 / 3's `set_vocab`: SentencePiece when there is a tokenizer.model, else BPE.
pub fn qwen2_vocab(folder: &Path, vocab_size: Option<usize>) -> Result<Vec<Kv>, ConvertError> {
    if folder.join("tokenizer.model").is_file() {
        sentencepiece_vocab(folder, vocab_size)
    } else {
        super::bpe::gpt2_vocab(folder, vocab_size)
    }
}
