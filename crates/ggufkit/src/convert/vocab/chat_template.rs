//! The chat template of a folder, found where gguf-py's `SpecialVocab` looks: tokenizer_config.json's
//! `chat_template` (a string, or a list of `{name, template}`), else chat_template.jinja (with
//! `additional_chat_templates/*.jinja` beside it as named templates), else chat_template.json's
//! `chat_template`; and the pairs gguf-py's writer makes of it.
#![forbid(unsafe_code)]

use std::path::Path;

use serde_json::{Map, Value};

use super::files::{read_json_object, read_text};
use crate::convert::Kv;
use crate::error::ConvertError;
use crate::write::{OwnedArray, OwnedValue};

/// A chat template as the folder gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatTemplate {
    /// One template (`tokenizer.chat_template`).
    One(String),
    /// Named templates, `default` among them or not: `(name, template)` in the folder's order
    /// (a `None` template is skipped, as the writer skips it).
    Named(Vec<(String, Option<String>)>),
}

/// The chat template of `folder`, given tokenizer_config.json's object (`config`, read from
/// `config_path`).
pub(crate) fn from_folder(
    folder: &Path,
    config: &Map<String, Value>,
    config_path: &Path,
) -> Result<Option<ChatTemplate>, ConvertError> {
    let jinja = folder.join("chat_template.jinja");
    let json = folder.join("chat_template.json");
    let mut alt: Option<(Value, std::path::PathBuf)> = None;
    if let Some(text) = read_text(&jinja)? {
        let extra_dir = folder.join("additional_chat_templates");
        let mut extra: Vec<std::path::PathBuf> = match std::fs::read_dir(&extra_dir) {
            Ok(rd) => rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "jinja") && p.is_file())
                .collect(),
            Err(_) => Vec::new(),
        };
        if extra.is_empty() {
            alt = Some((Value::String(text), jinja));
        } else {
            extra.sort();
            let mut list = vec![named("default", text)];
            for p in &extra {
                let t = read_text(p)?.unwrap_or_default();
                let stem = p
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                list.push(named(&stem, t));
            }
            alt = Some((Value::Array(list), jinja));
        }
    } else if let Some(obj) = read_json_object(&json)? {
        alt = obj.get("chat_template").cloned().map(|v| (v, json));
    }
    let (value, path) = match config.get("chat_template") {
        Some(v) => (v.clone(), config_path.to_path_buf()),
        None => match alt {
            Some(a) => a,
            None => return Ok(None),
        },
    };
    parse(&value, &path)
}

fn named(name: &str, template: String) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), Value::String(name.into()));
    m.insert("template".into(), Value::String(template));
    Value::Object(m)
}

/// A `chat_template` value: a string, a list of `{name, template}`, or null. Any other type is
/// ignored, as the script ignores it with a warning.
fn parse(value: &Value, path: &Path) -> Result<Option<ChatTemplate>, ConvertError> {
    match value {
        Value::String(s) => Ok(Some(ChatTemplate::One(s.clone()))),
        Value::Array(list) => {
            let mut out = Vec::with_capacity(list.len());
            for (i, choice) in list.iter().enumerate() {
                let key = || format!("chat_template[{i}]");
                let obj = choice.as_object().ok_or_else(|| {
                    ConvertError::bad_key(path, key(), "an object with `name` and `template`")
                })?;
                let name = match obj.get("name") {
                    None => String::new(),
                    Some(Value::String(s)) => s.clone(),
                    Some(_) => return Err(ConvertError::bad_key(path, key(), "a string `name`")),
                };
                let template = match obj.get("template") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(_) => {
                        return Err(ConvertError::bad_key(path, key(), "a string `template`"))
                    }
                };
                out.push((name, template));
            }
            Ok(Some(ChatTemplate::Named(out)))
        }
        _ => Ok(None),
    }
}

impl ChatTemplate {
    /// The pairs gguf-py's `add_chat_template` writes: each named template as
    /// `tokenizer.chat_template.NAME` (the name's characters other than ASCII letters and digits
    /// made `_`), their names in `tokenizer.chat_templates`, then the default one.
    pub fn to_kvs(&self) -> Vec<Kv> {
        let mut kvs: Vec<Kv> = Vec::new();
        let default = match self {
            ChatTemplate::One(s) => Some(s.clone()),
            ChatTemplate::Named(list) => {
                let mut default = None;
                let mut names: Vec<String> = Vec::new();
                for (name, template) in list {
                    let name: String = name
                        .chars()
                        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                        .collect();
                    let Some(template) = template else { continue };
                    if name.is_empty() {
                        continue;
                    }
                    if name == "default" {
                        default = Some(template.clone());
                        continue;
                    }
                    let key = format!("tokenizer.chat_template.{name}");
                    let value = OwnedValue::String(template.clone());
                    // a name given twice keeps its first place and takes the later template
                    match kvs.iter_mut().find(|(k, _)| *k == key) {
                        Some(kv) => kv.1 = value,
                        None => kvs.push((key, value)),
                    }
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
                if !names.is_empty() {
                    kvs.push((
                        "tokenizer.chat_templates".into(),
                        OwnedValue::Array(OwnedArray::of_strings(names)),
                    ));
                }
                default
            }
        };
        if let Some(d) = default {
            kvs.push(("tokenizer.chat_template".into(), OwnedValue::String(d)));
        }
        kvs
    }
}
