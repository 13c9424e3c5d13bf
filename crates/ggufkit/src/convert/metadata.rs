//! `general.*` as gguf-py's `metadata.py` derives them (`Metadata.load`, then the script's
//! `prepare_metadata`): the README's YAML front matter (the model card), config.json's
//! `_name_or_path`, the folder's name, generation_config.json's sampling settings, then the
//! `--metadata FILE` overrides and `--model-name`; the name falls back to the folder's name and
//! the size label to the parameter count. Written in `set_gguf_meta_model`'s order.
//!
//! The model card is read by a small reader of the YAML that model cards use (`key: scalar`,
//! `key: [a, b]`, `key:` with `- item` lines, quoted or plain scalars); a key whose value is a
//! nested mapping is skipped, as are entries of a list that are mappings.
#![forbid(unsafe_code)]

use std::path::Path;

use serde_json::{Map, Value};

use super::plan::ParamCounts;
use super::vocab::files::{read_json_object, read_text};
use super::Kv;
use crate::error::ConvertError;
use crate::write::{OwnedArray, OwnedValue};

/// What the conversion was asked for beyond the folder.
#[derive(Clone, Debug, Default)]
pub struct MetadataOptions<'a> {
    /// `--model-name`: the name, over everything else.
    pub model_name: Option<&'a str>,
    /// `--metadata FILE`: a JSON object of `general.*` keys that override what was derived.
    pub metadata_override: Option<&'a Path>,
    /// The folder the model card (README.md) is read from (the model's folder unless told).
    pub model_card_dir: Option<&'a Path>,
}

/// The derived metadata, each field `None` when nothing gave it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// Sampling settings from generation_config.json and the overrides: (key suffix, value).
    pub sampling: Vec<(&'static str, Value)>,
    pub name: Option<String>,
    pub author: Option<String>,
    pub version: Option<String>,
    pub organization: Option<String>,
    pub finetune: Option<String>,
    pub basename: Option<String>,
    pub description: Option<String>,
    pub quantized_by: Option<String>,
    pub size_label: Option<String>,
    pub url: Option<String>,
    pub doi: Option<String>,
    pub uuid: Option<String>,
    pub repo_url: Option<String>,
    pub source_url: Option<String>,
    pub source_doi: Option<String>,
    pub source_uuid: Option<String>,
    pub source_repo_url: Option<String>,
    pub license: Option<Value>,
    pub license_name: Option<String>,
    pub license_link: Option<String>,
    pub base_models: Option<Vec<Map<String, Value>>>,
    pub datasets: Option<Vec<Map<String, Value>>>,
    pub tags: Option<Vec<String>>,
    pub languages: Option<Vec<String>>,
}

/// The sampling keys: (generation_config.json key, `general.sampling.*` suffix, GGUF type).
const SAMPLING: [(&str, &str, Sampling); 12] = [
    ("sequence", "sequence", Sampling::Str),
    ("top_k", "top_k", Sampling::I32),
    ("top_p", "top_p", Sampling::F32),
    ("min_p", "min_p", Sampling::F32),
    ("xtc_probability", "xtc_probability", Sampling::F32),
    ("xtc_threshold", "xtc_threshold", Sampling::F32),
    ("temperature", "temp", Sampling::F32),
    ("penalty_last_n", "penalty_last_n", Sampling::I32),
    ("penalty_repeat", "penalty_repeat", Sampling::F32),
    ("mirostat", "mirostat", Sampling::I32),
    ("mirostat_tau", "mirostat_tau", Sampling::F32),
    ("mirostat_eta", "mirostat_eta", Sampling::F32),
];

#[derive(Clone, Copy)]
enum Sampling {
    Str,
    I32,
    F32,
}

/// Title case as `id_to_title`: dashes become spaces, all-lowercase words are capitalized
/// unless they are versions or start with a digit.
pub fn id_to_title(s: &str) -> String {
    s.trim()
        .replace('-', " ")
        .split_whitespace()
        .map(|w| {
            let lower = w.chars().any(char::is_alphabetic)
                && w.chars().all(|c| !c.is_alphabetic() || c.is_lowercase());
            if lower && !is_version_or_number(w) {
                python_title(w)
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `^(v\d+(?:\.\d+)*|\d.*)$`
fn is_version_or_number(w: &str) -> bool {
    if w.starts_with(|c: char| c.is_ascii_digit()) {
        return true;
    }
    let Some(rest) = w.strip_prefix('v') else {
        return false;
    };
    !rest.is_empty()
        && rest
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Python's `str.title()`: a letter after a non-letter is upper case, other letters lower.
fn python_title(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    let mut prev_letter = false;
    for c in w.chars() {
        if c.is_alphabetic() {
            if prev_letter {
                out.extend(c.to_lowercase());
            } else {
                out.extend(c.to_uppercase());
            }
            prev_letter = true;
        } else {
            out.push(c);
            prev_letter = false;
        }
    }
    out
}

/// The parts `get_model_id_components` finds in a model id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdComponents {
    pub full_name: Option<String>,
    pub org: Option<String>,
    pub basename: Option<String>,
    pub finetune: Option<String>,
    pub version: Option<String>,
    pub size_label: Option<String>,
}

const BASENAME: u8 = 1;
const SIZE: u8 = 2;
const FINETUNE: u8 = 4;
const VERSION: u8 = 8;
const TYPE: u8 = 16;

fn is_version_part(p: &str) -> bool {
    let l = p.to_ascii_lowercase();
    let rest = l
        .strip_prefix("iter")
        .or_else(|| l.strip_prefix('v'))
        .unwrap_or(&l);
    !rest.is_empty()
        && rest
            .split('.')
            .all(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `i?q\d(_\w)*|b?fp?(16|32)`, case-insensitive.
fn is_quant_type(p: &str) -> bool {
    let l = p.to_ascii_lowercase();
    let q = l.strip_prefix('i').unwrap_or(&l);
    if let Some(r) = q.strip_prefix('q') {
        let mut cs = r.chars();
        if cs.next().is_some_and(|c| c.is_ascii_digit()) {
            let tail: String = cs.collect();
            // (_\w)*: pairs of '_' and one word character
            let b = tail.as_bytes();
            if b.len() % 2 == 0
                && b.chunks(2)
                    .all(|c| c[0] == b'_' && (c[1].is_ascii_alphanumeric() || c[1] == b'_'))
            {
                return true;
            }
        }
    }
    let f = l.strip_prefix('b').unwrap_or(&l);
    let Some(f) = f.strip_prefix('f') else {
        return false;
    };
    let f = f.strip_prefix('p').unwrap_or(f);
    f == "16" || f == "32"
}

/// `(([A]|\d+[x])?\d+([._]\d+)?[KMBT][\d]?|small|mini|medium|large|x?xl)`, case-insensitive.
fn is_size_part(p: &str) -> bool {
    let l = p.to_ascii_lowercase();
    if matches!(
        l.as_str(),
        "small" | "mini" | "medium" | "large" | "xl" | "xxl"
    ) {
        return true;
    }
    let b = l.as_bytes();
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    // try each optional prefix: none, "a", "\d+x"
    let mut starts = vec![0usize];
    if b.first() == Some(&b'a') {
        starts.push(1);
    }
    let mut j = 0;
    if digits(&mut j) && b.get(j) == Some(&b'x') {
        starts.push(j + 1);
    }
    starts.into_iter().any(|mut i| {
        if !digits(&mut i) {
            return false;
        }
        if matches!(b.get(i), Some(b'.') | Some(b'_')) {
            let mut k = i + 1;
            if digits(&mut k) {
                i = k;
            }
        }
        if !matches!(b.get(i), Some(b'k' | b'm' | b'b' | b't')) {
            return false;
        }
        i += 1;
        if b.get(i).is_some_and(|c| c.is_ascii_digit()) {
            i += 1;
        }
        i == b.len()
    })
}

/// `get_model_id_components`: the name, organization, basename, finetune, version and size
/// label a Hugging Face style id (`org/Name-7B-Instruct-v0.2`) gives.
pub fn get_model_id_components(model_id: Option<&str>, total_params: i64) -> IdComponents {
    let Some(id) = model_id else {
        return IdComponents::default();
    };
    if id.contains(' ') {
        return IdComponents {
            full_name: Some(id.to_string()),
            ..Default::default()
        };
    }
    let (mut org, full) = match id.split_once('/') {
        Some((o, n)) => (Some(o.to_string()), n.to_string()),
        None => (None, id.to_string()),
    };
    if org.as_deref().is_some_and(|o| o.starts_with('.')) {
        org = None;
    }
    let mut parts: Vec<String> = full
        .split('-')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect();
    let mut types = vec![0u8; parts.len()];
    for i in 0..parts.len() {
        let part = parts[i].clone();
        if is_version_part(&part) {
            types[i] |= VERSION;
        } else if is_quant_type(&part) {
            types[i] |= TYPE;
            parts[i] = part.to_uppercase();
        } else if i > 0 && is_size_part(&part) {
            let mut p: Vec<char> = part.replace('_', ".").chars().collect();
            if p.last().is_some_and(|c| c.is_ascii_digit()) && p.len() >= 2 {
                // bloom-7b1 -> 7.1b
                let n = p.len();
                let (a, b) = (p[n - 2], p[n - 1]);
                p.truncate(n - 2);
                p.push('.');
                p.push(b);
                p.push(a);
            }
            if p.len() > 1 && p[p.len() - 2].is_ascii_digit() {
                let last = p.len() - 1;
                if "kmbt".contains(p[last]) {
                    p[last] = p[last].to_ascii_uppercase();
                }
            }
            let mut s: String = p.iter().collect();
            if total_params != 0 {
                let (num, suffix) =
                    s.split_at(s.len() - s.chars().last().map_or(0, char::len_utf8));
                if let Ok(x) = num.parse::<f64>() {
                    let pos = " KMBT".find(suffix).map_or(-1, |i| i as i32);
                    let label = x * 1000f64.powi(pos);
                    let total = total_params as f64;
                    let far = (total_params < 0 && label < (total_params.abs() / 8) as f64)
                        || (total_params > 0
                            && (label - total).abs() > (7 * total_params / 8) as f64);
                    if far {
                        types[i] |= FINETUNE;
                        let mut cs: Vec<char> = s.chars().collect();
                        let last = cs.len() - 1;
                        cs[last] = cs[last].to_ascii_lowercase();
                        s = cs.into_iter().collect();
                    }
                }
            }
            if types[i] == 0 {
                types[i] |= SIZE;
            }
            parts[i] = s;
        } else if i > 0
            && matches!(
                part.to_ascii_lowercase().as_str(),
                "chat" | "instruct" | "vision" | "lora"
            )
        {
            if total_params < 0 && part.eq_ignore_ascii_case("lora") {
                types[i] |= TYPE;
            } else {
                types[i] |= FINETUNE;
            }
        }
    }
    let numeric_size = parts
        .iter()
        .zip(&types)
        .any(|(n, t)| t & SIZE != 0 && n.chars().any(|c| c.is_numeric()));
    if numeric_size {
        for (n, t) in parts.iter().zip(types.iter_mut()) {
            if *t & SIZE != 0 && n.chars().all(char::is_alphabetic) {
                *t &= !SIZE;
            }
        }
    }
    let mut at_start = true;
    for (p, t) in parts.iter().zip(types.iter_mut()) {
        let alpha_start = p.chars().next().is_some_and(char::is_alphabetic);
        if at_start && ((*t == 0 && alpha_start) || *t & VERSION != 0) {
            *t |= BASENAME;
        } else {
            at_start = false;
            if *t == 0 {
                *t |= FINETUNE;
            }
        }
    }
    for t in types.iter_mut().rev() {
        if *t & BASENAME != 0 && t.count_ones() > 1 {
            *t &= !BASENAME;
        } else {
            break;
        }
    }
    let join = |f: &dyn Fn(u8) -> bool, dedup: bool| {
        let mut out: Vec<&str> = Vec::new();
        for (p, t) in parts.iter().zip(&types) {
            if f(*t) && !(dedup && out.contains(&p.as_str())) {
                out.push(p);
            }
        }
        Some(out.join("-")).filter(|s| !s.is_empty())
    };
    let mut basename = join(&|t| t & BASENAME != 0, false);
    let size_label = join(&|t| t & SIZE != 0, true);
    let finetune = join(&|t| t & FINETUNE != 0, false);
    let version = join(&|t| t & VERSION != 0 && t & BASENAME == 0, false);
    if size_label.is_none() && finetune.is_none() && version.is_none() {
        basename = None;
    }
    IdComponents {
        full_name: Some(full),
        org,
        basename,
        finetune,
        version,
        size_label,
    }
}

/// `model_weight_count_rounded_notation`.
fn rounded_notation(count: u64, min_digits: usize) -> String {
    let c = count as f64;
    let (scaled, suffix) = if c > 1e12 {
        (c * 1e-12, "T")
    } else if c > 1e9 {
        (c * 1e-9, "B")
    } else if c > 1e6 {
        (c * 1e-6, "M")
    } else {
        (c * 1e-3, "K")
    };
    // Python's round() is round-half-even; len(str(...)) of the integer
    let rounded = scaled.round_ties_even() as u64;
    let digits = rounded.to_string().trim_start_matches('0').len();
    let fix = min_digits.saturating_sub(digits);
    format!("{scaled:.fix$}{suffix}")
}

/// gguf-py's `size_label`: `8x7.2B` for experts, else `7.2B`.
pub fn size_label(counts: &ParamCounts) -> String {
    if counts.expert_count > 0 {
        let pretty = rounded_notation(counts.shared + counts.expert, 2);
        format!("{}x{pretty}", counts.expert_count)
    } else {
        rounded_notation(counts.total, 2)
    }
}

/// The README's front matter as a JSON object (the subset of YAML model cards use).
fn load_model_card(dir: &Path) -> Result<Map<String, Value>, ConvertError> {
    let path = dir.join("README.md");
    let Some(text) = read_text(&path)? else {
        return Ok(Map::new());
    };
    let mut lines = text.lines();
    if lines.next() != Some("---") {
        return Ok(Map::new());
    }
    let mut body = String::new();
    for l in lines {
        if l == "---" {
            break;
        }
        body.push_str(l);
        body.push('\n');
    }
    // the script's fixes: the Norway problem, tabs as two spaces
    let body = body.replace("- no\n", "- \"no\"\n").replace('\t', "  ");
    Ok(front_matter(&body))
}

/// A YAML scalar as JSON: quoted strings unquoted, null, booleans and numbers typed.
fn yaml_scalar(s: &str) -> Value {
    let s = s.trim();
    let s = match s.find(" #") {
        Some(i) if !s.starts_with(['"', '\'']) => s[..i].trim_end(),
        _ => s,
    };
    if s.len() >= 2
        && ((s.starts_with('"') && s.ends_with('"')) || (s.starts_with('\'') && s.ends_with('\'')))
    {
        return Value::String(s[1..s.len() - 1].to_string());
    }
    match s {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => {
            if let Ok(i) = s.parse::<i64>() {
                Value::from(i)
            } else if let Some(f) = s
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite() && s.contains('.'))
            {
                Value::from(f)
            } else {
                Value::String(s.to_string())
            }
        }
    }
}

/// The top-level keys of a YAML mapping whose values are scalars or lists of scalars.
fn front_matter(body: &str) -> Map<String, Value> {
    let mut out = Map::new();
    let lines: Vec<&str> = body.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.trim().is_empty() || line.starts_with(' ') || line.trim_start().starts_with('#') {
            continue;
        }
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']).to_string();
        let rest = rest.trim();
        if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let items = inner
                .split(',')
                .map(yaml_scalar)
                .filter(|v| !v.is_null())
                .collect();
            out.insert(key, Value::Array(items));
        } else if !rest.is_empty() {
            out.insert(key, yaml_scalar(rest));
        } else {
            // a block: `- item` lines make a list; anything else is a nested mapping, skipped
            let mut items = Vec::new();
            let mut nested = false;
            while i < lines.len() && (lines[i].starts_with(' ') || lines[i].starts_with('-')) {
                let l = lines[i].trim_start();
                i += 1;
                if let Some(item) = l
                    .strip_prefix("- ")
                    .or(l.strip_prefix('-').filter(|r| r.is_empty()))
                {
                    if item.contains(": ") && !item.trim_start().starts_with(['"', '\'']) {
                        nested = true;
                    } else {
                        items.push(yaml_scalar(item));
                    }
                } else if !l.is_empty() {
                    nested = true;
                }
            }
            if !items.is_empty() {
                out.insert(key, Value::Array(items));
            } else if !nested {
                out.insert(key, Value::Null);
            }
        }
    }
    out
}

fn as_string(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// A base model or dataset entry from a Hugging Face id or URL.
fn id_entry(id: &str, total_params: i64) -> Map<String, Value> {
    let mut m = Map::new();
    let put = |m: &mut Map<String, Value>, c: &IdComponents, with_repo: bool| {
        if let Some(n) = &c.full_name {
            m.insert("name".into(), Value::String(id_to_title(n)));
        }
        if let Some(o) = &c.org {
            m.insert("organization".into(), Value::String(id_to_title(o)));
        }
        if let Some(v) = &c.version {
            m.insert("version".into(), Value::String(v.clone()));
        }
        if with_repo {
            if let (Some(o), Some(n)) = (&c.org, &c.full_name) {
                m.insert(
                    "repo_url".into(),
                    Value::String(format!("https://huggingface.co/{o}/{n}")),
                );
            }
        }
    };
    if id.starts_with("http://") || id.starts_with("https://") || id.starts_with("ssh://") {
        m.insert("repo_url".into(), Value::String(id.to_string()));
        if id.contains("huggingface.co") {
            let tail = id
                .strip_prefix("https://huggingface.co/")
                .or_else(|| id.strip_prefix("http://huggingface.co/"));
            if let Some(t) = tail {
                let parts: Vec<&str> = t.split('/').collect();
                if parts.len() == 2 && parts.iter().all(|p| !p.is_empty()) {
                    let c = get_model_id_components(Some(t), total_params);
                    put(&mut m, &c, false);
                }
            }
        }
    } else {
        let c = get_model_id_components(Some(id), total_params);
        put(&mut m, &c, true);
    }
    m
}

fn entries(
    card: &Map<String, Value>,
    keys: [&str; 3],
    total_params: i64,
) -> Option<Vec<Map<String, Value>>> {
    if !keys.iter().any(|k| card.contains_key(*k)) {
        return None;
    }
    let value = keys.iter().find_map(|k| card.get(*k));
    let ids: Vec<Value> = match value {
        Some(Value::String(s)) => vec![Value::String(s.clone())],
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    Some(
        ids.iter()
            .map(|v| match v {
                Value::String(s) => id_entry(s, total_params),
                Value::Object(o) => o.clone(),
                _ => Map::new(),
            })
            .collect(),
    )
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a.iter().filter_map(as_string).collect(),
        _ => Vec::new(),
    }
}

impl Metadata {
    /// `Metadata.load` and `prepare_metadata` over `folder`.
    pub fn load(
        folder: &Path,
        opts: &MetadataOptions<'_>,
        counts: &ParamCounts,
    ) -> Result<Self, ConvertError> {
        let total_params = i64::try_from(counts.total).unwrap_or(i64::MAX);
        let card = load_model_card(opts.model_card_dir.unwrap_or(folder))?;
        let config = read_json_object(&folder.join("config.json"))?.unwrap_or_default();
        // a generation_config.json that does not parse is ignored, as the script ignores it
        let gen = read_json_object(&folder.join("generation_config.json"))
            .ok()
            .flatten()
            .unwrap_or_default();
        let mut m = Metadata::default();
        m.apply_card(&card, total_params);
        if let Some(id) = config.get("_name_or_path").and_then(Value::as_str) {
            if id.matches('/').count() <= 1 {
                m.apply_id(&get_model_id_components(Some(id), total_params));
            }
        }
        let dir_name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        m.apply_id(&get_model_id_components(Some(&dir_name), total_params));
        for (from, to, _) in SAMPLING {
            let mut v = gen.get(from).cloned();
            if to == "penalty_repeat" && v.is_none() {
                v = gen.get("repetition_penalty").cloned();
            }
            if let Some(v) = v {
                m.set_sampling(to, v);
            }
        }
        if let Some(path) = opts.metadata_override.filter(|p| p.is_file()) {
            let over = read_json_object(path)?.unwrap_or_default();
            m.apply_override(&over);
        }
        if let Some(n) = opts.model_name {
            m.name = Some(n.to_string());
        }
        if m.name.is_none() {
            m.name = Some(dir_name);
        }
        if m.size_label.is_none() && counts.total > 0 {
            m.size_label = Some(size_label(counts));
        }
        Ok(m)
    }

    fn set_sampling(&mut self, key: &'static str, v: Value) {
        match self.sampling.iter_mut().find(|(k, _)| *k == key) {
            Some(e) => e.1 = v,
            None => self.sampling.push((key, v)),
        }
    }

    fn apply_card(&mut self, card: &Map<String, Value>, total_params: i64) {
        if card.is_empty() {
            return;
        }
        let fields: [(&str, &[&str]); 12] = [
            ("name", &["name", "model_name"]),
            ("author", &["author", "model_author", "model_creator"]),
            ("version", &["version", "model_version"]),
            ("organization", &["organization", "model_organization"]),
            ("description", &["description", "model_description"]),
            ("finetune", &["finetune", "model_finetune"]),
            ("basename", &["basename", "model_basename", "model_type"]),
            ("size_label", &["size_label", "model_size_label"]),
            ("source_url", &["url", "model_url"]),
            ("source_doi", &["doi", "model_doi"]),
            ("source_uuid", &["uuid", "model_uuid"]),
            ("source_repo_url", &["repo_url", "model_repo_url"]),
        ];
        for (field, keys) in fields {
            for k in keys {
                if let Some(v) = card.get(*k) {
                    let slot = self.field(field);
                    if slot.is_none() {
                        *slot = as_string(v);
                    }
                }
            }
        }
        if let Some(b) = entries(
            card,
            ["base_model", "base_models", "base_model_sources"],
            total_params,
        ) {
            self.base_models.get_or_insert_with(Vec::new).extend(b);
        }
        if let Some(d) = entries(
            card,
            ["datasets", "dataset", "dataset_sources"],
            total_params,
        ) {
            self.datasets.get_or_insert_with(Vec::new).extend(d);
        }
        if let Some(v) = card.get("license") {
            if self.license.is_none() && !v.is_null() {
                self.license = Some(v.clone());
            }
        }
        for (field, key) in [
            ("license_name", "license_name"),
            ("license_link", "license_link"),
        ] {
            if let Some(v) = card.get(key) {
                let slot = self.field(field);
                if slot.is_none() {
                    *slot = as_string(v);
                }
            }
        }
        for (key, langs) in [
            ("tags", false),
            ("pipeline_tag", false),
            ("languages", true),
            ("language", true),
        ] {
            let Some(v) = card.get(key).filter(|v| !v.is_null()) else {
                continue;
            };
            let list = if langs {
                &mut self.languages
            } else {
                &mut self.tags
            };
            list.get_or_insert_with(Vec::new)
                .extend(string_list(Some(v)));
        }
    }

    fn field(&mut self, name: &str) -> &mut Option<String> {
        match name {
            "name" => &mut self.name,
            "author" => &mut self.author,
            "version" => &mut self.version,
            "organization" => &mut self.organization,
            "description" => &mut self.description,
            "finetune" => &mut self.finetune,
            "basename" => &mut self.basename,
            "size_label" => &mut self.size_label,
            "quantized_by" => &mut self.quantized_by,
            "url" => &mut self.url,
            "doi" => &mut self.doi,
            "uuid" => &mut self.uuid,
            "repo_url" => &mut self.repo_url,
            "source_url" => &mut self.source_url,
            "source_doi" => &mut self.source_doi,
            "source_uuid" => &mut self.source_uuid,
            "source_repo_url" => &mut self.source_repo_url,
            "license_name" => &mut self.license_name,
            _ => &mut self.license_link,
        }
    }

    fn apply_id(&mut self, c: &IdComponents) {
        if self.name.is_none() {
            self.name = c.full_name.as_deref().map(id_to_title);
        }
        if self.organization.is_none() {
            self.organization = c.org.as_deref().map(id_to_title);
        }
        for (slot, v) in [
            (&mut self.basename, &c.basename),
            (&mut self.finetune, &c.finetune),
            (&mut self.version, &c.version),
            (&mut self.size_label, &c.size_label),
        ] {
            if slot.is_none() {
                slot.clone_from(v);
            }
        }
    }

    fn apply_override(&mut self, over: &Map<String, Value>) {
        for (_, to, _) in SAMPLING {
            if let Some(v) = over.get(&format!("general.sampling.{to}")) {
                self.set_sampling(to, v.clone());
            }
        }
        for field in [
            "name",
            "author",
            "version",
            "organization",
            "finetune",
            "basename",
            "description",
            "quantized_by",
            "size_label",
            "license_name",
            "license_link",
            "url",
            "doi",
            "uuid",
            "repo_url",
            "source_url",
            "source_doi",
            "source_uuid",
            "source_repo_url",
        ] {
            let key = match field {
                "source_url" => "general.source.url".to_string(),
                "source_doi" => "general.source.doi".to_string(),
                "source_uuid" => "general.source.uuid".to_string(),
                "source_repo_url" => "general.source.repo_url".to_string(),
                "license_name" => "general.license.name".to_string(),
                "license_link" => "general.license.link".to_string(),
                f => format!("general.{f}"),
            };
            if let Some(v) = over.get(&key) {
                *self.field(field) = as_string(v);
            }
        }
        let maps = |v: &Value| -> Option<Vec<Map<String, Value>>> {
            v.as_array().map(|a| {
                a.iter()
                    .map(|x| x.as_object().cloned().unwrap_or_default())
                    .collect()
            })
        };
        if let Some(v) = over.get("general.base_models") {
            self.base_models = maps(v);
        }
        if let Some(v) = over.get("general.datasets") {
            self.datasets = maps(v);
        }
        if let Some(v) = over.get("general.tags") {
            self.tags = Some(string_list(Some(v)));
        }
        if let Some(v) = over.get("general.languages") {
            self.languages = Some(string_list(Some(v)));
        }
    }

    /// The pairs `set_gguf_meta_model` writes, in its order.
    pub fn to_kvs(&self) -> Vec<Kv> {
        let mut kvs: Vec<Kv> = Vec::new();
        let s = |v: &str| OwnedValue::String(v.to_string());
        for (from_key, to, ty) in SAMPLING {
            let _ = from_key;
            let Some((_, v)) = self.sampling.iter().find(|(k, _)| *k == to) else {
                continue;
            };
            let value = match ty {
                Sampling::Str => v.as_str().map(s),
                Sampling::I32 => v
                    .as_i64()
                    .and_then(|i| i32::try_from(i).ok())
                    .map(OwnedValue::I32),
                Sampling::F32 => v.as_f64().map(|f| OwnedValue::F32(f as f32)),
            };
            if let Some(value) = value {
                kvs.push((format!("general.sampling.{to}"), value));
            }
        }
        let mut put = |k: &str, v: &Option<String>| {
            if let Some(v) = v {
                kvs.push((format!("general.{k}"), OwnedValue::String(v.clone())));
            }
        };
        put("name", &self.name);
        put("author", &self.author);
        put("version", &self.version);
        put("organization", &self.organization);
        put("finetune", &self.finetune);
        put("basename", &self.basename);
        put("description", &self.description);
        put("quantized_by", &self.quantized_by);
        put("size_label", &self.size_label);
        let license = self.license.as_ref().map(|l| match l {
            Value::Array(a) => a.iter().filter_map(as_string).collect::<Vec<_>>().join(","),
            other => as_string(other).unwrap_or_default(),
        });
        put("license", &license);
        put("license.name", &self.license_name);
        put("license.link", &self.license_link);
        put("url", &self.url);
        put("doi", &self.doi);
        put("uuid", &self.uuid);
        put("repo_url", &self.repo_url);
        put("source.url", &self.source_url);
        put("source.doi", &self.source_doi);
        put("source.uuid", &self.source_uuid);
        put("source.repo_url", &self.source_repo_url);
        for (list, prefix) in [
            (&self.base_models, "base_model"),
            (&self.datasets, "dataset"),
        ] {
            let Some(list) = list else { continue };
            kvs.push((
                format!("general.{prefix}.count"),
                OwnedValue::U32(list.len() as u32),
            ));
            for (i, e) in list.iter().enumerate() {
                for f in [
                    "name",
                    "author",
                    "version",
                    "organization",
                    "description",
                    "url",
                    "doi",
                    "uuid",
                    "repo_url",
                ] {
                    if let Some(v) = e.get(f).and_then(as_string) {
                        kvs.push((format!("general.{prefix}.{i}.{f}"), OwnedValue::String(v)));
                    }
                }
            }
        }
        if let Some(t) = &self.tags {
            kvs.push((
                "general.tags".into(),
                OwnedValue::Array(OwnedArray::of_strings(t.iter().cloned())),
            ));
        }
        if let Some(l) = &self.languages {
            kvs.push((
                "general.languages".into(),
                OwnedValue::Array(OwnedArray::of_strings(l.iter().cloned())),
            ));
        }
        kvs
    }
}

/// The `general.*` pairs of `folder` in the script's order (after `general.architecture` and
/// `general.type`, which the plan writes).
pub fn general_metadata(
    folder: &Path,
    opts: &MetadataOptions<'_>,
    counts: &ParamCounts,
) -> Result<Vec<Kv>, ConvertError> {
    Ok(Metadata::load(folder, opts, counts)?.to_kvs())
}

#[cfg(test)]
mod tests;
