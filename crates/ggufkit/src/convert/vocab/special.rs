//! gguf-py's `SpecialVocab`, which every vocabulary builder of the script ends with: the BPE
//! merges, the special token ids (from tokenizer_config.json's tokens looked up in
//! tokenizer.json's added tokens, then config.json's `*_token_id`), the add_bos / add_eos /
//! add_sep flags (tokenizer.json's post-processor first, then tokenizer_config.json), the chat
//! template and the normalizer's lowercase / strip-accents flags, written in that order.
#![forbid(unsafe_code)]

use std::path::Path;

use serde_json::{Map, Value};

use super::chat_template::{self, ChatTemplate};
use super::files::{read_json_object, read_text};
use super::hf_tokenizer::token_text;
use crate::convert::Kv;
use crate::error::ConvertError;
use crate::write::{OwnedArray, OwnedValue};

/// The special token types `SpecialVocab` looks for by default, in its order.
pub const DEFAULT_TYPES: [&str; 7] = ["bos", "eos", "unk", "sep", "pad", "cls", "mask"];

/// What `SpecialVocab` gathered from a folder, in the order it gathered it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecialVocab {
    /// The merges, `"a b"` each.
    pub merges: Vec<String>,
    /// Special token type (`bos`, `eos`, ...) -> id, in the order they were set.
    pub special_token_ids: Vec<(String, u32)>,
    /// `add_{type}_token` flags, in the order they were set.
    pub add_special_token: Vec<(String, bool)>,
    /// The chat template, when the folder has one.
    pub chat_template: Option<ChatTemplate>,
    /// tokenizer.json's normalizer lowercases.
    pub normalizer_lowercase: Option<bool>,
    /// tokenizer.json's normalizer strips accents.
    pub normalizer_strip_accents: Option<bool>,
    types: Vec<String>,
    n_vocab: Option<usize>,
    load_merges: bool,
}

fn get_flag(list: &[(String, bool)], typ: &str) -> Option<bool> {
    list.iter().find(|(t, _)| t == typ).map(|(_, v)| *v)
}

fn set_default(list: &mut Vec<(String, bool)>, typ: &str, v: bool) {
    if get_flag(list, typ).is_none() {
        list.push((typ.to_string(), v));
    }
}

fn set_flag(list: &mut Vec<(String, bool)>, typ: &str, v: bool) {
    match list.iter_mut().find(|(t, _)| t == typ) {
        Some(e) => e.1 = v,
        None => list.push((typ.to_string(), v)),
    }
}

/// The `SpecialToken` id of a TemplateProcessing piece (`{"SpecialToken": {"id": ...}}`).
fn special_id(piece: Option<&Value>) -> Option<String> {
    piece?
        .get("SpecialToken")?
        .get("id")?
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// The `Sequence` id of a TemplateProcessing piece.
fn sequence_id(piece: Option<&Value>) -> Option<&str> {
    piece?.get("Sequence")?.get("id")?.as_str()
}

/// A config's special-token entry as the script holds it: any JSON value, `None` when absent or
/// null. Only a string equals a template's token id; any other value (an AddedToken object, say)
/// is truthy but never equal, as in Python.
type Entry = Option<Value>;

fn entry(config: &Option<Map<String, Value>>, key: &str) -> Entry {
    config
        .as_ref()
        .and_then(|c| c.get(key))
        .filter(|v| !v.is_null())
        .cloned()
}

fn is(e: &Entry, id: &str) -> bool {
    matches!(e, Some(Value::String(s)) if s == id)
}

fn present(e: &Entry) -> bool {
    e.as_ref().is_some_and(truthy)
}

fn config_set(config: &mut Option<Map<String, Value>>, key: &str, v: &Entry) {
    if let Some(c) = config.as_mut().filter(|c| !c.is_empty()) {
        c.insert(key.to_string(), v.clone().unwrap_or(Value::Null));
    }
}

fn id_entry(id: &str) -> Entry {
    Some(Value::String(id.to_string()))
}

impl SpecialVocab {
    /// Reads `folder` as `SpecialVocab(folder, load_merges, n_vocab=n_vocab)` does.
    pub fn load(
        folder: &Path,
        load_merges: bool,
        n_vocab: Option<usize>,
    ) -> Result<Self, ConvertError> {
        let mut sv = SpecialVocab {
            types: DEFAULT_TYPES.iter().map(|s| s.to_string()).collect(),
            n_vocab,
            load_merges,
            ..Default::default()
        };
        sv.read_tokenizer_json(folder)?;
        sv.read_config_json(folder)?;
        if sv.load_merges && sv.merges.is_empty() {
            sv.read_merges_txt(folder)?;
        }
        Ok(sv)
    }

    fn set_special_token(
        &mut self,
        path: &Path,
        typ: &str,
        tid: Option<&Value>,
    ) -> Result<(), ConvertError> {
        // Python's isinstance(tid, int): booleans are ints too
        let tid = match tid {
            Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n.as_i64().unwrap_or(i64::MAX),
            Some(Value::Bool(b)) => i64::from(*b),
            _ => return Ok(()),
        };
        if tid < 0 {
            return Err(ConvertError::bad_key(
                path,
                format!("{typ}_token"),
                format!("a token id, not {tid}"),
            ));
        }
        let in_range = match self.n_vocab {
            None => true,
            Some(n) => (tid as u64) < n as u64,
        };
        // ids past the vocabulary are skipped, as the script warns and skips them
        if in_range && !self.special_token_ids.iter().any(|(t, _)| t == typ) {
            let id = u32::try_from(tid).map_err(|_| {
                ConvertError::bad_key(path, format!("{typ}_token"), "an id below 2^32")
            })?;
            self.special_token_ids.push((typ.to_string(), id));
        }
        Ok(())
    }

    fn parse_normalizer(&mut self, n: &Value) {
        match n.get("type").and_then(Value::as_str) {
            Some("Lowercase") => self.normalizer_lowercase = Some(true),
            Some("StripAccents") => self.normalizer_strip_accents = Some(true),
            Some("BertNormalizer") => {
                if let Some(v) = n.get("lowercase") {
                    self.normalizer_lowercase = v.as_bool();
                }
                if let Some(v) = n.get("strip_accents") {
                    self.normalizer_strip_accents = v.as_bool();
                }
            }
            Some("Sequence") => {
                if let Some(list) = n.get("normalizers").and_then(Value::as_array) {
                    for x in list {
                        self.parse_normalizer(x);
                    }
                }
            }
            _ => {}
        }
    }

    fn read_merges(&mut self, path: &Path, merges: &Value) -> Result<(), ConvertError> {
        let Some(list) = merges.as_array().filter(|l| !l.is_empty()) else {
            return Ok(());
        };
        let bad = |i: usize| {
            ConvertError::bad_key(
                path,
                format!("model.merges[{i}]"),
                "\"a b\" strings or [\"a\", \"b\"] pairs, as the first merge is",
            )
        };
        let mut out = Vec::with_capacity(list.len());
        if list[0].is_string() {
            for (i, m) in list.iter().enumerate() {
                out.push(m.as_str().ok_or_else(|| bad(i))?.to_string());
            }
        } else if list[0]
            .as_array()
            .is_some_and(|p| p.len() == 2 && p[0].is_string())
        {
            // transformers 4.45's pairs: spaces inside a part are written as U+0120 ('Ġ')
            for (i, m) in list.iter().enumerate() {
                let pair = m.as_array().ok_or_else(|| bad(i))?;
                let mut s = String::new();
                for (j, part) in pair.iter().enumerate() {
                    let part = part.as_str().ok_or_else(|| bad(i))?;
                    if j > 0 {
                        s.push(' ');
                    }
                    s.extend(part.chars().map(|c| if c == ' ' { '\u{120}' } else { c }));
                }
                out.push(s);
            }
        } else {
            return Err(bad(0));
        }
        self.merges = out;
        Ok(())
    }

    fn read_tokenizer_json(&mut self, folder: &Path) -> Result<(), ConvertError> {
        let tj_path = folder.join("tokenizer.json");
        let tokenizer = read_json_object(&tj_path)?;
        let mut added_tokens: Vec<Value> = Vec::new();
        if let Some(t) = &tokenizer {
            if self.load_merges {
                if let Some(m) = t.get("model").and_then(|m| m.get("merges")) {
                    self.read_merges(&tj_path, m)?;
                }
            }
            if let Some(n) = t.get("normalizer").filter(|n| !n.is_null()) {
                self.parse_normalizer(n);
            }
            if let Some(Value::Array(a)) = t.get("added_tokens") {
                added_tokens = a.clone();
            }
        }
        let tc_path = folder.join("tokenizer_config.json");
        let mut config = read_json_object(&tc_path)?;
        if let Some(t) = tokenizer.as_ref().filter(|t| !t.is_empty()) {
            self.post_processor_flags(t, &mut config);
        }
        let Some(config) = config.filter(|c| !c.is_empty()) else {
            return Ok(());
        };
        self.chat_template = chat_template::from_folder(folder, &config, &tc_path)?;
        let types = self.types.clone();
        for typ in &types {
            if let Some(Value::Bool(b)) = config.get(&format!("add_{typ}_token")) {
                set_default(&mut self.add_special_token, typ, *b);
            }
            let Some(content) = token_text(config.get(&format!("{typ}_token"))) else {
                continue;
            };
            let id = added_tokens
                .iter()
                .find(|a| a.get("content").and_then(Value::as_str) == Some(content))
                .and_then(|a| a.get("id"));
            self.set_special_token(&tc_path, typ, id)?;
        }
        Ok(())
    }

    /// What tokenizer.json's post-processor says about adding BOS, EOS and SEP (the script's
    /// crude reading of simple templates, kept as crude), updating the config's tokens as it does.
    fn post_processor_flags(
        &mut self,
        tokenizer: &Map<String, Value>,
        config: &mut Option<Map<String, Value>>,
    ) {
        let has_config = config.as_ref().is_some_and(|c| !c.is_empty());
        let mut special_bos = entry(config, "bos_token");
        let mut special_cls = entry(config, "cls_token");
        let mut special_eos = entry(config, "eos_token");
        let mut special_sep = entry(config, "sep_token");
        if !present(&special_bos) && present(&special_cls) && has_config {
            config_set(config, "bos_token", &special_cls);
            special_bos = special_cls.clone();
        }
        if !present(&special_eos) && present(&special_sep) && has_config {
            config_set(config, "eos_token", &special_sep);
            special_eos = special_sep.clone();
        }
        let Some(pp) = tokenizer.get("post_processor").filter(|p| truthy(p)) else {
            return;
        };
        let single = [pp.clone()];
        let processors: &[Value] = match pp.get("processors") {
            Some(Value::Array(a)) => a,
            _ => &single,
        };
        for processor in processors {
            match processor.get("type").and_then(Value::as_str) {
                Some("ByteLevel") => {
                    set_default(&mut self.add_special_token, "bos", false);
                    set_default(&mut self.add_special_token, "eos", false);
                }
                Some("RobertaProcessing") => {
                    for t in ["bos", "eos", "sep"] {
                        set_flag(&mut self.add_special_token, t, true);
                    }
                    if !present(&special_cls) && has_config {
                        special_cls = match processor.get("cls") {
                            Some(c) => c.get(0).cloned().filter(|v| !v.is_null()),
                            None => special_bos.clone(),
                        };
                        config_set(config, "cls_token", &special_cls);
                    }
                    if !present(&special_sep) && has_config {
                        special_sep = match processor.get("sep") {
                            Some(c) => c.get(0).cloned().filter(|v| !v.is_null()),
                            None => special_eos.clone(),
                        };
                        config_set(config, "sep_token", &special_sep);
                    }
                }
                Some("TemplateProcessing") => {
                    let empty = Vec::new();
                    let tmpl_single = processor
                        .get("single")
                        .and_then(Value::as_array)
                        .unwrap_or(&empty);
                    let tmpl_pair = processor
                        .get("pair")
                        .and_then(Value::as_array)
                        .unwrap_or(&empty);
                    let mut special_first = None;
                    let mut special_last = None;
                    if tmpl_single.len() > 1 {
                        special_first = special_id(tmpl_single.first());
                        if let Some(first) = &special_first {
                            let known = is(&special_bos, first) || is(&special_cls, first);
                            if !has_config {
                                special_bos = id_entry(first);
                            } else if !known {
                                if !present(&special_bos) {
                                    special_bos = id_entry(first);
                                    config_set(config, "bos_token", &special_bos);
                                }
                                if !present(&special_cls) {
                                    special_cls = id_entry(first);
                                    config_set(config, "cls_token", &special_cls);
                                }
                            }
                            let is_bos = is(&special_bos, first) || is(&special_cls, first);
                            set_flag(&mut self.add_special_token, "bos", is_bos);
                        }
                        special_last = special_id(tmpl_single.last());
                        if let Some(last) = &special_last {
                            if !has_config {
                                special_eos = id_entry(last);
                            } else if !is(&special_eos, last) {
                                if !self.types.iter().any(|t| t == "eot") {
                                    self.types.push("eot".into());
                                    config_set(config, "eot_token", &special_eos);
                                } else if !self.types.iter().any(|t| t == "eom") {
                                    self.types.push("eom".into());
                                    config_set(config, "eom_token", &special_eos);
                                }
                                special_eos = id_entry(last);
                                config_set(config, "eos_token", &special_eos);
                            }
                            let is_eos = is(&special_eos, last);
                            set_flag(&mut self.add_special_token, "eos", is_eos);
                        }
                    }
                    if !tmpl_pair.is_empty() {
                        let start = usize::from(
                            special_first.is_some()
                                && special_id(tmpl_pair.first()) == special_first,
                        );
                        let stop_trim =
                            special_last.is_some() && special_id(tmpl_pair.last()) == special_last;
                        let end = tmpl_pair.len() - usize::from(stop_trim);
                        let inner = if start < end {
                            &tmpl_pair[start..end]
                        } else {
                            &[][..]
                        };
                        let a = sequence_id(inner.first());
                        let b = sequence_id(inner.last());
                        if a == Some("A") && b == Some("B") && inner.len() > 2 {
                            let mid = &inner[1..inner.len() - 1];
                            let sep_or_eos = |e: &Option<String>| {
                                e.as_deref()
                                    .is_some_and(|e| is(&special_sep, e) || is(&special_eos, e))
                            };
                            let e0 = special_id(mid.first());
                            let mut add_sep = sep_or_eos(&e0) && special_last.is_none();
                            if mid.len() == 2 && sep_or_eos(&special_id(mid.get(1))) {
                                add_sep = true;
                            }
                            set_flag(&mut self.add_special_token, "sep", add_sep);
                            if add_sep && !present(&special_sep) && has_config {
                                config_set(config, "sep_token", &special_eos);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn read_config_json(&mut self, folder: &Path) -> Result<(), ConvertError> {
        let path = folder.join("config.json");
        let Some(config) = read_json_object(&path)? else {
            return Ok(());
        };
        let types = self.types.clone();
        for typ in &types {
            let key = format!("{typ}_token_id");
            let mut id = config.get(&key).filter(|v| !v.is_null());
            if id.is_none() {
                if let Some(tc) = config.get("text_config").filter(|v| v.is_object()) {
                    id = tc.get(&key);
                }
            }
            self.set_special_token(&path, typ, id)?;
        }
        Ok(())
    }

    fn read_merges_txt(&mut self, folder: &Path) -> Result<(), ConvertError> {
        let path = folder.join("merges.txt");
        let Some(text) = read_text(&path)? else {
            return Ok(());
        };
        let mut lines = text.lines().peekable();
        // a first line starting with '#' is a version header
        if lines.peek().is_some_and(|l| l.trim().starts_with('#')) {
            lines.next();
        }
        let mut merges = Vec::new();
        for line in lines {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let parts: Vec<&str> = line.split_whitespace().take(3).collect();
            // malformed lines are skipped, as the script warns and skips them
            if parts.len() == 2 {
                merges.push(format!("{} {}", parts[0], parts[1]));
            }
        }
        self.merges = merges;
        Ok(())
    }

    /// The pairs `add_to_gguf` writes, in its order.
    pub fn to_kvs(&self) -> Vec<Kv> {
        let mut kvs: Vec<Kv> = Vec::new();
        if !self.merges.is_empty() {
            kvs.push((
                "tokenizer.ggml.merges".into(),
                OwnedValue::Array(OwnedArray::of_strings(self.merges.iter().cloned())),
            ));
        }
        for (typ, id) in &self.special_token_ids {
            let key = match typ.as_str() {
                "bos" => "bos_token_id",
                "eos" => "eos_token_id",
                "unk" => "unknown_token_id",
                "sep" => "seperator_token_id",
                "pad" => "padding_token_id",
                "mask" => "mask_token_id",
                "eot" => "eot_token_id",
                "eom" => "eom_token_id",
                // the writer has no handler for the others (cls): the script skips them
                _ => continue,
            };
            kvs.push((format!("tokenizer.ggml.{key}"), OwnedValue::U32(*id)));
        }
        for (typ, v) in &self.add_special_token {
            if matches!(typ.as_str(), "bos" | "eos" | "sep") {
                kvs.push((
                    format!("tokenizer.ggml.add_{typ}_token"),
                    OwnedValue::Bool(*v),
                ));
            }
        }
        if let Some(t) = &self.chat_template {
            kvs.extend(t.to_kvs());
        }
        if let Some(v) = self.normalizer_lowercase {
            kvs.push((
                "tokenizer.ggml.normalizer.lowercase".into(),
                OwnedValue::Bool(v),
            ));
        }
        if let Some(v) = self.normalizer_strip_accents {
            kvs.push((
                "tokenizer.ggml.normalizer.strip_accents".into(),
                OwnedValue::Bool(v),
            ));
        }
        kvs
    }
}

/// Python's truthiness of a JSON value.
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
