//! `Tokenizer`: a file's own tokenizer ([`ggufkit::Tokenizer`]: llama.cpp's `llama_tokenize` and
//! `llama_detokenize` from the `tokenizer.ggml.*` keys), borrowing its vocabulary from the
//! header the file holds, and the file's chat template.
#![forbid(unsafe_code)]

use std::rc::Rc;

use ggufkit::tokenizer::Tokenizer as Lib;
use ggufkit::Gguf;
use js_sys::Uint32Array;
use wasm_bindgen::prelude::*;

use crate::error::other_error;
use crate::file::{opt_bool, opt_value, render_chat};

self_cell::self_cell!(
    /// The header and the tokenizer that borrows from it.
    struct Owned {
        owner: Rc<Gguf<'static>>,
        #[not_covariant]
        dependent: Lib,
    }
);

/// A GGUF's tokenizer: `encode` and `decode` give llama.cpp's ids and text.
#[wasm_bindgen]
pub struct Tokenizer {
    inner: Owned,
    name: String,
}

impl Tokenizer {
    /// The tokenizer of `gguf` (named `name` in errors).
    pub(crate) fn of(gguf: Rc<Gguf<'static>>, name: &str) -> Result<Tokenizer, JsValue> {
        let inner = Owned::try_new(gguf, |g| Lib::from_gguf(g))
            .map_err(|e| other_error(name, &e.to_string()))?;
        Ok(Tokenizer {
            inner,
            name: name.to_string(),
        })
    }
}

/// `options[key]` as a boolean, `default` when absent.
fn flag(options: &JsValue, key: &str, default: bool) -> bool {
    let v = opt_value(options, key);
    if v.is_undefined() {
        default
    } else {
        opt_bool(options, key)
    }
}

#[wasm_bindgen]
impl Tokenizer {
    /// The ids of `text`, as `llama_tokenize`. Options: `addSpecial` (BOS/EOS as the vocabulary
    /// says; default true), `parseSpecial` (control tokens' texts as those tokens; default
    /// false): the defaults of `gguf tokenize`.
    pub fn encode(&self, text: &str, options: JsValue) -> Result<Uint32Array, JsValue> {
        let add = flag(&options, "addSpecial", true);
        let parse = flag(&options, "parseSpecial", false);
        self.inner
            .with_dependent(|_, t| t.encode(text, add, parse))
            .map(|ids| Uint32Array::from(ids.as_slice()))
            .map_err(|e| other_error(&self.name, &e.to_string()))
    }

    /// The bytes of `ids`, as `llama_detokenize`. Options: `removeSpecial` (drop BOS/EOS as
    /// the vocabulary adds them; default false), `unparseSpecial` (control tokens as their
    /// text; default false).
    #[wasm_bindgen(js_name = decodeBytes)]
    pub fn decode_bytes(&self, ids: &[u32], options: JsValue) -> Result<Vec<u8>, JsValue> {
        let remove = flag(&options, "removeSpecial", false);
        let unparse = flag(&options, "unparseSpecial", false);
        self.inner
            .with_dependent(|_, t| t.decode(ids, remove, unparse))
            .map_err(|e| other_error(&self.name, &e.to_string()))
    }

    /// [`Tokenizer::decode_bytes`] as text (bytes that are not UTF-8 become U+FFFD).
    pub fn decode(&self, ids: &[u32], options: JsValue) -> Result<String, JsValue> {
        self.decode_bytes(ids, options)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// The text of token `id` (`undefined` when there is no such token).
    pub fn token(&self, id: u32) -> Option<String> {
        self.inner
            .with_dependent(|_, t| t.token(id).map(str::to_string))
    }

    /// The number of tokens.
    #[wasm_bindgen(getter, js_name = vocabSize)]
    pub fn vocab_size(&self) -> u32 {
        self.inner.with_dependent(|_, t| t.vocab_size())
    }

    /// The conversation rendered with the file's chat template (see
    /// `GgufFile.applyChatTemplate`).
    #[wasm_bindgen(js_name = applyChatTemplate)]
    pub fn apply_chat_template(
        &self,
        messages: JsValue,
        options: JsValue,
    ) -> Result<String, JsValue> {
        render_chat(self.inner.borrow_owner(), &self.name, messages, options)
    }
}
