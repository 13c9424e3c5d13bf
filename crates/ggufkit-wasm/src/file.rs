//! `GgufFile`: an opened header ([`ggufkit::Gguf`], its tensor data left where it is: in the
//! caller's `Uint8Array`, `Blob` or server) and what a program asks of it, each answer the
//! library's: `toJSON` is `gguf dump --json`, `summary` `gguf info --json`, `validate` `gguf
//! validate --json`, `audit` `gguf audit --json`, `layout` `gguf layout --json`, `tensors` `gguf
//! tensors --json`, each also as its exact text (`...Text()`, byte for byte the command's
//! output). Edits give the pieces of the new file (`editPieces`), which the package's JavaScript
//! assembles into a `Blob` from the original's slices.
#![forbid(unsafe_code)]

use std::rc::Rc;

use ggufkit::audit::{Finding, Severity};
use ggufkit::chat;
#[cfg(feature = "chat")]
use ggufkit::chat::{ChatTemplate, RenderRequest};
use ggufkit::layout::ByteLayout;
use ggufkit::location::ReadCost;
use ggufkit::open::HeaderRounds;
use ggufkit::read::ReadOptions;
use ggufkit::render::audit::audit_json;
use ggufkit::render::dump::dump_json;
use ggufkit::render::layout::layout_json;
use ggufkit::render::summary::info_json;
use ggufkit::render::tensor::tensors_json;
use ggufkit::render::validation::validation_json;
use ggufkit::summary::Summary;
use ggufkit::write::{
    edited_pieces, type_for_key, MetaEdit, OwnedValue, Piece, TypeSpec, Untyped, ValueTextError,
};
use ggufkit::{ArrayView, Gguf, Value, ValueType};
use js_sys::{Array, Reflect, Uint32Array, Uint8Array, JSON};
use wasm_bindgen::prelude::*;

use crate::error::{gguf_error, other_error};
use crate::reader::{length, HeaderReader, MAX_HEADER};
#[cfg(feature = "tokenizer")]
use crate::tokenizer::Tokenizer;

/// A GGUF file's parsed header.
#[wasm_bindgen]
pub struct GgufFile {
    gguf: Rc<Gguf<'static>>,
    name: String,
    /// The whole file's length (the header's bytes are all that is held).
    total: u64,
    cost: Option<ReadCost>,
}

impl GgufFile {
    pub(crate) fn new(
        gguf: Gguf<'static>,
        name: String,
        total: u64,
        cost: Option<ReadCost>,
    ) -> Self {
        GgufFile {
            gguf: Rc::new(gguf),
            name,
            total,
            cost,
        }
    }

    /// The header's rounds again, from the bytes held (the verdicts and the layout are drawn
    /// from them exactly as when the file was read).
    fn rounds(&self) -> HeaderRounds {
        let mut r = HeaderRounds::new(self.total, 0, &ReadOptions::permissive());
        r.push(self.gguf.as_bytes());
        r
    }

    fn parse(&self, text: String) -> Result<JsValue, JsValue> {
        JSON::parse(&text).map_err(|_| other_error(&self.name, "the JSON text did not parse"))
    }
}

/// The largest `Uint8Array` that `fromBytes` copies whole into WebAssembly memory: its header
/// is then parsed once, where reading it in rounds parses it once a round and once more to
/// open it (the rounds' prefix parses are what a fetch needs, not bytes already in memory). A
/// larger one has only its header copied, in rounds, so a model's gigabytes stay in JavaScript.
pub const WHOLE_BYTES: u32 = 16 << 20;

/// A header reader holding what the parser needs of `bytes`.
fn read_bytes(bytes: &Uint8Array, name: String, permissive: bool) -> Result<HeaderReader, JsValue> {
    let total = bytes.length();
    let mut reader = HeaderReader::new(f64::from(total), name, permissive)?;
    if total <= WHOLE_BYTES {
        reader.push(&bytes.to_vec());
        return Ok(reader);
    }
    while let Some(r) = reader.next_range()? {
        reader.push(&bytes.subarray(r[0] as u32, r[1] as u32).to_vec());
    }
    Ok(reader)
}

/// `options[key]` as a string, when it is one.
pub(crate) fn opt_string(options: &JsValue, key: &str) -> Option<String> {
    if !options.is_object() {
        return None;
    }
    Reflect::get(options, &JsValue::from_str(key))
        .ok()
        .and_then(|v| v.as_string())
}

/// `options[key]` as a boolean (false when absent).
pub(crate) fn opt_bool(options: &JsValue, key: &str) -> bool {
    options.is_object()
        && Reflect::get(options, &JsValue::from_str(key))
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
}

/// `options[key]` as a JavaScript value (undefined when absent).
pub(crate) fn opt_value(options: &JsValue, key: &str) -> JsValue {
    if !options.is_object() {
        return JsValue::UNDEFINED;
    }
    Reflect::get(options, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

#[wasm_bindgen]
impl GgufFile {
    /// Opens the GGUF in `bytes`, copying only its header into WebAssembly memory (a file of up
    /// to 16 MiB, `WHOLE_BYTES`, is copied whole and parsed once). Options: `name` (what
    /// messages and the JSON's `file` say), `permissive` (open files that break rules which
    /// leave them readable, as the `gguf` command's read-only commands do).
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(bytes: &Uint8Array, options: JsValue) -> Result<GgufFile, JsValue> {
        let name = opt_string(&options, "name").unwrap_or_default();
        let reader = read_bytes(bytes, name, opt_bool(&options, "permissive"))?;
        reader.open()
    }

    /// `gguf validate --json`'s line for `bytes` (`options.name` its `file`), a file that does
    /// not open included.
    #[wasm_bindgen(js_name = validateBytes)]
    pub fn validate_bytes(bytes: &Uint8Array, options: JsValue) -> Result<String, JsValue> {
        let name = opt_string(&options, "name").unwrap_or_default();
        let reader = read_bytes(bytes, name, true)?;
        Ok(reader.validate_text())
    }

    /// The name given when it was opened (a file name, a URL).
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// The GGUF version.
    #[wasm_bindgen(getter)]
    pub fn version(&self) -> u32 {
        self.gguf.version()
    }

    /// Where the tensor data starts: the header's length with its padding.
    #[wasm_bindgen(getter, js_name = dataOffset)]
    pub fn data_offset(&self) -> f64 {
        self.gguf.data_offset() as f64
    }

    /// The file's length in bytes.
    #[wasm_bindgen(getter, js_name = fileSize)]
    pub fn file_size(&self) -> f64 {
        self.total as f64
    }

    /// The number of metadata pairs.
    #[wasm_bindgen(getter, js_name = kvCount)]
    pub fn kv_count(&self) -> u32 {
        self.gguf.kv_count() as u32
    }

    /// The number of tensors.
    #[wasm_bindgen(getter, js_name = tensorCount)]
    pub fn tensor_count(&self) -> u32 {
        self.gguf.tensor_count() as u32
    }

    /// The text of `gguf dump --json`: the header complete (no array shortened).
    #[wasm_bindgen(js_name = toJSONText)]
    pub fn to_json_text(&self) -> String {
        dump_json(&self.gguf, self.cost)
    }

    /// `gguf dump --json` as an object (integers beyond 2^53 lose precision in JavaScript
    /// numbers: `toJSONText()` has them exactly).
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        self.parse(self.to_json_text())
    }

    /// The text of `gguf info --json` (`options.context`: tokens of context for the KV cache's
    /// size, as `--context N`).
    #[wasm_bindgen(js_name = summaryText)]
    pub fn summary_text(&self, options: JsValue) -> Result<String, JsValue> {
        let context = match opt_value(&options, "context") {
            v if v.is_undefined() || v.is_null() => None,
            v => Some(v.as_f64().and_then(length).ok_or_else(|| {
                other_error(&self.name, "context must be a whole number of tokens")
            })?),
        };
        let summary = Summary::of(&self.gguf);
        Ok(info_json(
            &self.name,
            self.gguf.report(),
            &summary,
            context,
            self.cost,
        ))
    }

    /// `gguf info --json` as an object.
    pub fn summary(&self, options: JsValue) -> Result<JsValue, JsValue> {
        self.parse(self.summary_text(options)?)
    }

    /// The text of `gguf validate --json`: both verdicts and every finding.
    #[wasm_bindgen(js_name = validateText)]
    pub fn validate_text(&self) -> String {
        validation_json(&self.name, &self.rounds().report(), self.cost)
    }

    /// `gguf validate --json` as an object.
    pub fn validate(&self) -> Result<JsValue, JsValue> {
        self.parse(self.validate_text())
    }

    /// The text of `gguf audit --json` (`options.severity`: the least severity shown,
    /// `note`, `warning` (the default) or `error`).
    #[wasm_bindgen(js_name = auditText)]
    pub fn audit_text(&self, options: JsValue) -> Result<String, JsValue> {
        let least = match opt_string(&options, "severity") {
            None => Severity::Warning,
            Some(s) => Severity::from_name(&s).ok_or_else(|| {
                other_error(
                    &self.name,
                    &format!("severity '{s}' is not one of note, warning, error"),
                )
            })?,
        };
        let g = &*self.gguf;
        let findings: Vec<Finding> = ggufkit::audit::spec_findings(g)
            .into_iter()
            .chain(ggufkit::audit::audit(g))
            .filter(|f| f.severity >= least)
            .collect();
        Ok(audit_json(&self.name, least, &findings))
    }

    /// `gguf audit --json` as an object.
    pub fn audit(&self, options: JsValue) -> Result<JsValue, JsValue> {
        self.parse(self.audit_text(options)?)
    }

    /// The text of `gguf layout --json`: every field's path, offset, length and value.
    #[wasm_bindgen(js_name = layoutText)]
    pub fn layout_text(&self) -> String {
        let bytes = self.gguf.as_bytes();
        layout_json(&ByteLayout::of_prefix(bytes, self.total).fields)
    }

    /// `gguf layout --json` as an array.
    pub fn layout(&self) -> Result<JsValue, JsValue> {
        self.parse(self.layout_text())
    }

    /// The text of `gguf tensors --json`: every tensor's name, type, shape, elements, size,
    /// offset, and the totals.
    #[wasm_bindgen(js_name = tensorsText)]
    pub fn tensors_text(&self) -> String {
        let rows: Vec<_> = self.gguf.tensors().collect();
        tensors_json(&self.name, &rows, self.cost)
    }

    /// `gguf tensors --json` as an object.
    pub fn tensors(&self) -> Result<JsValue, JsValue> {
        self.parse(self.tensors_text())
    }

    /// Every metadata pair as `[key, kind, payload, type]`, the fastest hand-over of every value
    /// to JavaScript (the package's `metadata()` and `metadataEntries()` build on it): numbers as
    /// numbers (64-bit integers as BigInt), arrays of numbers as typed arrays, an array of
    /// strings as `kind` `"strings"` with one text of them all and the UTF-16 end of each in it
    /// (sliced in JavaScript: a string per crossing costs several times more; the text is
    /// written as UTF-16 here and decoded from WebAssembly's memory in place, which is several
    /// times faster than JavaScript's UTF-8 decoder on text that is not ASCII), nested arrays as
    /// arrays; `type` is the value's type as `gguf dump` names it (`uint32`, `array[string]`).
    #[wasm_bindgen(js_name = metadataParts)]
    pub fn metadata_parts(&self) -> Result<Array, JsValue> {
        let out = Array::new();
        for kv in self.gguf.metadata() {
            let entry = Array::new();
            entry.push(&JsValue::from_str(&String::from_utf8_lossy(
                kv.key.as_bytes(),
            )));
            match &kv.value {
                Value::Array(a) if a.element_type() == ValueType::String => {
                    entry.push(&JsValue::from_str("strings"));
                    let (units, ends) = joined_utf16(a);
                    let pair = Array::new();
                    // read by JavaScript in place (nothing allocates before it is read)
                    pair.push(&utf16_text(
                        &wasm_bindgen::memory(),
                        units.as_ptr() as u32,
                        units.len() as u32,
                    ));
                    pair.push(&Uint32Array::from(ends.as_slice()));
                    entry.push(&pair);
                }
                v => {
                    entry.push(&JsValue::from_str("value"));
                    entry.push(&js_value(v, 0).map_err(|m| other_error(&self.name, &m))?);
                }
            }
            entry.push(&JsValue::from_str(&match &kv.value {
                Value::Array(a) => format!("array[{}]", a.element_type().name()),
                v => v.value_type().name().to_string(),
            }));
            out.push(&entry);
        }
        Ok(out)
    }

    /// The file's tokenizer (llama.cpp's, from its `tokenizer.ggml.*` keys).
    #[cfg(feature = "tokenizer")]
    pub fn tokenizer(&self) -> Result<Tokenizer, JsValue> {
        Tokenizer::of(Rc::clone(&self.gguf), &self.name)
    }

    /// A build without the tokenizer: a `GgufError` that says so.
    #[cfg(not(feature = "tokenizer"))]
    pub fn tokenizer(&self) -> Result<JsValue, JsValue> {
        Err(not_in_build(&self.name, "tokenizer()", "tokenizer"))
    }

    /// The names of the file's chat templates (`tokenizer.chat_template[.NAME]`).
    #[wasm_bindgen(js_name = chatTemplates)]
    pub fn chat_templates(&self) -> Vec<String> {
        chat::template_names(&self.gguf)
    }

    /// The conversation `messages` rendered with the file's chat template, as transformers'
    /// `apply_chat_template(..., tokenize=False)` and `gguf chat` render it. Options: `tools`,
    /// `documents`, `addGenerationPrompt`, `kwargs` (further variables), `template` (a named
    /// template; by default transformers' pick).
    #[wasm_bindgen(js_name = applyChatTemplate)]
    pub fn apply_chat_template(
        &self,
        messages: JsValue,
        options: JsValue,
    ) -> Result<String, JsValue> {
        render_chat(&self.gguf, &self.name, messages, options)
    }

    /// The edited file as pieces, in order: a `Uint8Array` of new bytes (the header, padding) or
    /// `[start, end]`, a range of the original file. Their concatenation is the file `gguf meta
    /// set`/`rm` writes. `edits`: `{set: {key: value}, remove: [key]}`, a value as the command
    /// line takes it (text, typed as the key's existing or conventional type, else inferred; a
    /// JSON array) or `{type: "uint32" | "array[int8]" | ..., value}`.
    #[wasm_bindgen(js_name = editPieces)]
    pub fn edit_pieces(&self, edits: JsValue) -> Result<Array, JsValue> {
        let list = self.edits(&edits)?;
        let pieces = edited_pieces(&self.gguf, &list).map_err(|e| gguf_error(&self.name, &e))?;
        let out = Array::new();
        for p in pieces {
            match p {
                Piece::New(bytes) => {
                    if bytes.len() as u64 > MAX_HEADER {
                        return Err(other_error(&self.name, "the new header is too large"));
                    }
                    out.push(&Uint8Array::from(bytes.as_slice()));
                }
                Piece::Original(r) => {
                    let pair = Array::new();
                    pair.push(&JsValue::from_f64(r.start as f64));
                    pair.push(&JsValue::from_f64(r.end as f64));
                    out.push(&pair);
                }
            }
        }
        Ok(out)
    }
}

impl GgufFile {
    /// The library's edits from `{set, remove}`.
    fn edits(&self, edits: &JsValue) -> Result<Vec<MetaEdit>, JsValue> {
        let bad = |m: &str| other_error(&self.name, m);
        if !edits.is_object() {
            return Err(bad("edits must be an object {set, remove}"));
        }
        let mut out = Vec::new();
        let set = opt_value(edits, "set");
        if !set.is_undefined() && !set.is_null() {
            if !set.is_object() {
                return Err(bad("edits.set must be an object of keys and values"));
            }
            let entries = js_sys::Object::entries(set.unchecked_ref());
            for entry in entries.iter() {
                let pair: Array = entry.unchecked_into();
                let key = pair.get(0).as_string().unwrap_or_default();
                let value = self
                    .value_of(&key, &pair.get(1))
                    .map_err(|m| bad(&format!("value for '{key}': {m}")))?;
                out.push(MetaEdit::Set(key, value));
            }
        }
        let remove = opt_value(edits, "remove");
        if !remove.is_undefined() && !remove.is_null() {
            if !Array::is_array(&remove) {
                return Err(bad("edits.remove must be an array of keys"));
            }
            for k in Array::from(&remove).iter() {
                let key = k
                    .as_string()
                    .ok_or_else(|| bad("edits.remove must hold strings"))?;
                out.push(MetaEdit::Remove(key));
            }
        }
        Ok(out)
    }

    /// A value for `key` as `gguf meta set KEY VALUE [--type T]` reads it: `{type, value}` gives
    /// the type; otherwise the key's existing type, the type llama.cpp's conventions fix, or one
    /// inferred.
    fn value_of(&self, key: &str, v: &JsValue) -> Result<OwnedValue, String> {
        let typed = v.is_object() && !Array::is_array(v);
        let (spec, v) = if typed {
            let t = opt_string(v, "type").ok_or("a typed value needs a type name")?;
            let spec = TypeSpec::parse(&t).map_err(|e| e.to_string())?;
            (Some(spec), opt_value(v, "value"))
        } else {
            (type_for_key(&self.gguf, key), v.clone())
        };
        value_from_js(&v, spec.as_ref()).map_err(|e| e.to_string())
    }
}

#[wasm_bindgen(inline_js = r#"
const utf16 = new TextDecoder("utf-16le", { ignoreBOM: true });
// Node's Buffer decodes UTF-16 several times faster than its TextDecoder
const NodeBuffer = typeof globalThis.Buffer === "function" && typeof globalThis.Buffer.from === "function" ? globalThis.Buffer : null;
export function utf16_text(memory, ptr, len) {
  if (NodeBuffer) return NodeBuffer.from(memory.buffer, ptr, len * 2).toString("utf16le");
  return utf16.decode(new Uint16Array(memory.buffer, ptr, len));
}
"#)]
extern "C" {
    /// The text of the `len` UTF-16 units at `ptr` in WebAssembly's `memory`.
    fn utf16_text(memory: &JsValue, ptr: u32, len: u32) -> JsValue;
}

/// Every string of `a` as UTF-16 in one buffer, and the end of each in it (in code units). The
/// buffer is at most the array's bytes long (a UTF-8 byte gives at most one UTF-16 unit).
fn joined_utf16(a: &ArrayView<'_>) -> (Vec<u16>, Vec<u32>) {
    let mut units: Vec<u16> = Vec::with_capacity(a.raw_bytes().len());
    let mut ends = Vec::with_capacity(a.len().min(1 << 24) as usize);
    if let Some(strings) = a.strings() {
        for s in strings {
            let s = s.to_string_lossy();
            let b = s.as_bytes();
            if b.is_ascii() {
                units.extend(b.iter().map(|&c| u16::from(c)));
            } else {
                units.extend(s.encode_utf16());
            }
            ends.push(u32::try_from(units.len()).unwrap_or(u32::MAX));
        }
    }
    (units, ends)
}

/// Arrays nested deeper than this are refused by `metadataParts` (the walk is recursive; a file
/// can nest arrays as deep as its bytes allow).
const MAX_NESTING: usize = 64;

/// A metadata value as a JavaScript value (see [`GgufFile::metadata_parts`]).
fn js_value(v: &Value<'_>, depth: usize) -> Result<JsValue, String> {
    Ok(match *v {
        Value::U8(x) => x.into(),
        Value::I8(x) => x.into(),
        Value::U16(x) => x.into(),
        Value::I16(x) => x.into(),
        Value::U32(x) => x.into(),
        Value::I32(x) => x.into(),
        Value::U64(x) => js_sys::BigInt::from(x).into(),
        Value::I64(x) => js_sys::BigInt::from(x).into(),
        Value::F32(x) => x.into(),
        Value::F64(x) => x.into(),
        Value::Bool(b) => (b != 0).into(),
        Value::String(s) => JsValue::from_str(&s.to_string_lossy()),
        Value::Array(a) => {
            macro_rules! typed {
                ($t:ty, $js:ty) => {
                    match a.typed::<$t>() {
                        Some(t) => match t.as_slice() {
                            Some(s) => <$js>::from(s).into(),
                            None => <$js>::from(t.to_vec().as_slice()).into(),
                        },
                        None => JsValue::UNDEFINED,
                    }
                };
            }
            match a.element_type() {
                ValueType::U8 => typed!(u8, js_sys::Uint8Array),
                ValueType::I8 => typed!(i8, js_sys::Int8Array),
                ValueType::U16 => typed!(u16, js_sys::Uint16Array),
                ValueType::I16 => typed!(i16, js_sys::Int16Array),
                ValueType::U32 => typed!(u32, js_sys::Uint32Array),
                ValueType::I32 => typed!(i32, js_sys::Int32Array),
                ValueType::U64 => typed!(u64, js_sys::BigUint64Array),
                ValueType::I64 => typed!(i64, js_sys::BigInt64Array),
                ValueType::F32 => typed!(f32, js_sys::Float32Array),
                ValueType::F64 => typed!(f64, js_sys::Float64Array),
                _ if depth >= MAX_NESTING => {
                    return Err(format!("arrays nested deeper than {MAX_NESTING} levels"))
                }
                _ => {
                    let out = Array::new();
                    for e in a.iter() {
                        out.push(&js_value(&e, depth + 1)?);
                    }
                    out.into()
                }
            }
        }
    })
}

/// A JavaScript value as a metadata value of type `spec`: text as the command line reads it
/// (`[...]` a JSON array), numbers and booleans as their text, arrays element by element.
fn value_from_js(v: &JsValue, spec: Option<&TypeSpec>) -> Result<OwnedValue, ValueTextError> {
    if let Some(text) = v.as_string() {
        return match spec {
            None => {
                let t = text.trim();
                let array = t
                    .starts_with('[')
                    .then(|| JSON::parse(t).ok())
                    .flatten()
                    .filter(Array::is_array);
                match array {
                    Some(a) => OwnedValue::array_from_untyped(&untyped(&a), None),
                    None => Ok(OwnedValue::infer_from_text(&text)),
                }
            }
            Some(TypeSpec::Scalar(t)) => OwnedValue::from_text(&text, *t),
            Some(TypeSpec::Array(elem)) => {
                let parsed = JSON::parse(&text).map_err(|_| ValueTextError::NotAnArray {
                    shown: format!("'{text}'"),
                })?;
                OwnedValue::array_from_untyped(&untyped(&parsed), elem.as_deref())
            }
        };
    }
    if Array::is_array(v) {
        let elem = match spec {
            Some(TypeSpec::Array(elem)) => elem.as_deref(),
            _ => None,
        };
        return OwnedValue::array_from_untyped(&untyped(v), elem);
    }
    let text = scalar_text(v);
    match spec {
        Some(TypeSpec::Scalar(t)) => OwnedValue::from_text(&text, *t),
        Some(TypeSpec::Array(_)) => Err(ValueTextError::NotAnArray { shown: text }),
        None => Ok(OwnedValue::infer_from_text(&text)),
    }
}

/// A number or boolean as JavaScript writes it (a number as the shortest text that reads back,
/// `String(n)`); a string as it is.
fn scalar_text(v: &JsValue) -> String {
    if let Some(b) = v.as_bool() {
        return b.to_string();
    }
    if let Some(n) = v.as_f64() {
        if let Ok(s) = js_sys::Number::from(n).to_string_with_radix(10) {
            return s.into();
        }
    }
    v.as_string().unwrap_or_default()
}

/// A JavaScript value as the library's JSON-shaped tree (nested deeper than the library reads
/// is cut: the tree is walked with an explicit depth bound).
fn untyped(v: &JsValue) -> Untyped {
    untyped_at(v, 0)
}

const MAX_DEPTH: usize = 256;

fn untyped_at(v: &JsValue, depth: usize) -> Untyped {
    if v.is_null() || v.is_undefined() || depth > MAX_DEPTH {
        Untyped::Null
    } else if let Some(b) = v.as_bool() {
        Untyped::Bool(b)
    } else if v.as_f64().is_some() {
        Untyped::Number(scalar_text(v))
    } else if let Some(s) = v.as_string() {
        Untyped::Text(s)
    } else if Array::is_array(v) {
        Untyped::Array(
            Array::from(v)
                .iter()
                .map(|e| untyped_at(&e, depth + 1))
                .collect(),
        )
    } else if v.is_object() {
        let entries = js_sys::Object::entries(v.unchecked_ref());
        Untyped::Object(
            entries
                .iter()
                .map(|e| {
                    let pair: Array = e.unchecked_into();
                    (
                        pair.get(0).as_string().unwrap_or_default(),
                        untyped_at(&pair.get(1), depth + 1),
                    )
                })
                .collect(),
        )
    } else {
        Untyped::Null
    }
}

/// What a call to a part this build leaves out throws: the part, and how to get it.
#[cfg(not(all(feature = "tokenizer", feature = "chat")))]
fn not_in_build(name: &str, call: &str, feature: &str) -> JsValue {
    other_error(
        name,
        &format!(
            "{call} is not in this build of ggufkit-wasm (built without its `{feature}` feature, \
             scripts/build_wasm.sh --slim); the full package has it"
        ),
    )
}

/// A build without chat templates' rendering: a `GgufError` that says so.
#[cfg(not(feature = "chat"))]
pub(crate) fn render_chat(
    _g: &Gguf<'_>,
    name: &str,
    _messages: JsValue,
    _options: JsValue,
) -> Result<String, JsValue> {
    Err(not_in_build(name, "applyChatTemplate()", "chat"))
}

/// A conversation rendered with `g`'s chat template (see [`GgufFile::apply_chat_template`]).
#[cfg(feature = "chat")]
pub(crate) fn render_chat(
    g: &Gguf<'_>,
    name: &str,
    messages: JsValue,
    options: JsValue,
) -> Result<String, JsValue> {
    let fail = |e: &dyn std::fmt::Display| other_error(name, &e.to_string());
    let request = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| {
        if !v.is_undefined() && !v.is_null() {
            let _ = Reflect::set(&request, &JsValue::from_str(k), v);
        }
    };
    set("messages", &messages);
    set("tools", &opt_value(&options, "tools"));
    set("documents", &opt_value(&options, "documents"));
    set("kwargs", &opt_value(&options, "kwargs"));
    if opt_bool(&options, "addGenerationPrompt") {
        set("add_generation_prompt", &JsValue::TRUE);
    }
    let text: String = JSON::stringify(&request)
        .map_err(|_| other_error(name, "the conversation cannot be written as JSON"))?
        .into();
    let req = RenderRequest::from_json(&text).map_err(|e| fail(&e))?;
    let template = opt_string(&options, "template");
    let pick = template
        .as_deref()
        .or_else(|| chat::default_name(g, req.tools.is_some()));
    let t = ChatTemplate::from_gguf(g, pick).map_err(|e| fail(&e))?;
    // WebAssembly has no clock of its own: `strftime_now` writes the page's local time, read
    // from JavaScript's `Date` (its offset is UTC minus local, in minutes).
    let date = js_sys::Date::new_0();
    let unix = (date.get_time() / 1000.0).floor() as i64;
    let offset_minutes = date.get_timezone_offset() as i64;
    t.set_fixed_time(Some(unix.saturating_sub(offset_minutes.saturating_mul(60))));
    t.render(&req).map_err(|e| fail(&e))
}
