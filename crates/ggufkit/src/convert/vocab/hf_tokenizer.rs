//! tokenizer.json loaded by HF's `tokenizers` as transformers' `AutoTokenizer` sets it up for the
//! script: the file's pipeline, and, when tokenizer_config.json names `add_bos_token` or
//! `add_eos_token` (or the file has no post-processor), the post-processor transformers puts in
//! its place (BOS before, EOS after each sequence, as those flags say).
#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tokenizers::processors::template::TemplateProcessing;
use tokenizers::Tokenizer;

use crate::error::ConvertError;

/// A loaded tokenizer.json and the file it came from (for errors).
pub(crate) struct HfTokenizer {
    pub(crate) tokenizer: Tokenizer,
    pub(crate) path: PathBuf,
}

/// The text of a special-token entry of tokenizer_config.json: a string, or an object's
/// `content`.
pub(crate) fn token_text(v: Option<&Value>) -> Option<&str> {
    match v? {
        Value::String(s) => Some(s),
        Value::Object(o) => o.get("content").and_then(Value::as_str),
        _ => None,
    }
}

impl HfTokenizer {
    /// Loads `tokenizer_json` (its bytes already read) with `config`, tokenizer_config.json's
    /// object when the folder has one.
    pub(crate) fn load(
        path: &Path,
        bytes: &[u8],
        config: Option<&Map<String, Value>>,
    ) -> Result<Self, ConvertError> {
        let err = |message: String| ConvertError::Tokenizer {
            path: path.to_path_buf(),
            message,
        };
        // the tokenizers crate is not ours to prove panic-free on hostile JSON: a panic in it is
        // this file's error, not the caller's crash
        let mut tokenizer = catch_unwind(AssertUnwindSafe(|| Tokenizer::from_bytes(bytes)))
            .map_err(|_| err("the tokenizers crate panicked while loading it".into()))?
            .map_err(|e| err(format!("cannot be loaded: {e}")))?;
        let explicit = config
            .is_some_and(|c| c.contains_key("add_bos_token") || c.contains_key("add_eos_token"));
        if explicit || tokenizer.get_post_processor().is_none() {
            let flag = |k: &str| {
                config
                    .and_then(|c| c.get(k))
                    .and_then(Value::as_bool)
                    .unwrap_or(false)
            };
            let text = |k: &str| token_text(config.and_then(|c| c.get(k))).map(str::to_owned);
            let bos = text("bos_token").filter(|_| flag("add_bos_token"));
            let eos = text("eos_token").filter(|_| flag("add_eos_token"));
            let mut single = String::new();
            let mut specials = Vec::new();
            for tok in [&bos, &eos] {
                let Some(t) = tok else { continue };
                let id = tokenizer.token_to_id(t).ok_or_else(|| {
                    err(format!(
                        "tokenizer_config.json's special token {t:?} is not in the vocabulary"
                    ))
                })?;
                specials.push((t.clone(), id));
            }
            if let Some(b) = &bos {
                single.push_str(&format!("{b}:0 "));
            }
            single.push_str("$A:0");
            if let Some(e) = &eos {
                single.push_str(&format!(" {e}:0"));
            }
            let mut pair = single.clone();
            if let Some(b) = &bos {
                pair.push_str(&format!(" {b}:1"));
            }
            pair.push_str(" $B:1");
            if let Some(e) = &eos {
                pair.push_str(&format!(" {e}:1"));
            }
            let pp = TemplateProcessing::builder()
                .try_single(single.as_str())
                .and_then(|b| b.try_pair(pair.as_str()))
                .map_err(|e| err(format!("post-processor template: {e}")))?
                .special_tokens(specials)
                .build()
                .map_err(|e| err(format!("post-processor template: {e}")))?;
            tokenizer.with_post_processor(Some(pp));
        }
        Ok(HfTokenizer {
            tokenizer,
            path: path.to_path_buf(),
        })
    }

    /// The ids of `text` (`add_special_tokens` as transformers' `encode` takes it).
    pub(crate) fn encode(&self, text: &str, add_special: bool) -> Result<Vec<u32>, ConvertError> {
        let r = catch_unwind(AssertUnwindSafe(|| {
            self.tokenizer.encode(text, add_special)
        }))
        .map_err(|_| self.error("the tokenizers crate panicked while encoding".into()))?;
        r.map(|e| e.get_ids().to_vec())
            .map_err(|e| self.error(format!("cannot encode {text:?}: {e}")))
    }

    /// The text of `ids`, special tokens kept (transformers' `decode` with its defaults).
    pub(crate) fn decode(&self, ids: &[u32]) -> Result<String, ConvertError> {
        let r = catch_unwind(AssertUnwindSafe(|| self.tokenizer.decode(ids, false)))
            .map_err(|_| self.error("the tokenizers crate panicked while decoding".into()))?;
        r.map_err(|e| self.error(format!("cannot decode {ids:?}: {e}")))
    }

    fn error(&self, message: String) -> ConvertError {
        ConvertError::Tokenizer {
            path: self.path.clone(),
            message,
        }
    }
}
