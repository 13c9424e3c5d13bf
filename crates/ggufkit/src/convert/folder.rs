//! A Hugging Face checkpoint folder as the conversion reads it: `config.json` (with a
//! `text_config` lifted to the top, as the script's text models do), the weights
//! (`model*.safetensors`, or the shards `model.safetensors.index.json` names, checked against
//! it), and which tokenizer files are present. The tensors are listed in the script's order:
//! shard by shard in file-name order, each shard's tensors by name, multimodal tensors left out,
//! the scales of a quantized checkpoint attached to their weights (`fp8.rs`).
#![forbid(unsafe_code)]

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::convert::fp8::{self, Scale};
use crate::convert::safetensors::{Dtype, SafetensorsFile, TensorEntry};
use crate::error::CheckpointError;

/// The tokenizer files a folder may hold (the vocabulary builders read them).
pub const TOKENIZER_FILES: [&str; 7] = [
    "tokenizer.json",
    "tokenizer.model",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "chat_template.jinja",
    "generation_config.json",
];

/// One tensor of the checkpoint: its (filtered) name, and where it is.
#[derive(Clone, Debug)]
pub struct SourceTensor {
    /// The name the conversion maps (after the script's renames such as `language_model.`).
    pub name: String,
    /// The shard holding it (an index into [`HfFolder::shards`]).
    pub shard: usize,
    /// Its entry in that shard.
    pub entry: TensorEntry,
    /// Its scale, when the checkpoint is quantized (FP8): the tensor is dequantized by it.
    pub scale: Option<Box<Scale>>,
}

/// A checkpoint folder, read and checked.
#[derive(Debug)]
pub struct HfFolder {
    dir: PathBuf,
    config: Map<String, Value>,
    shards: Vec<SafetensorsFile>,
    tensors: Vec<SourceTensor>,
    tokenizer_files: Vec<&'static str>,
    first_16bit_matrix: Option<Dtype>,
}

impl HfFolder {
    /// Reads `dir`: its config.json and every shard's header (the data stays mapped, unread).
    pub fn open(dir: &Path) -> Result<Self, CheckpointError> {
        if !dir.is_dir() {
            return Err(CheckpointError::Folder {
                path: dir.to_path_buf(),
                problem: "not a folder".into(),
            });
        }
        let config_path = dir.join("config.json");
        if !config_path.is_file() {
            return Err(CheckpointError::Folder {
                path: dir.to_path_buf(),
                problem: "no config.json: not a Hugging Face checkpoint folder".into(),
            });
        }
        let mut config = read_json_object(&config_path)?;
        if let Some(Value::Object(text)) = config.get("text_config").cloned() {
            for (k, v) in text {
                config.insert(k, v);
            }
        }
        let shard_names = shard_names(dir)?;
        let mut shards = Vec::with_capacity(shard_names.len());
        for name in &shard_names {
            shards.push(SafetensorsFile::open(&dir.join(name))?);
        }
        let mut tensors: Vec<SourceTensor> = Vec::new();
        let mut position: HashMap<String, usize> = HashMap::new();
        for (i, shard) in shards.iter().enumerate() {
            for e in shard.tensors() {
                let Some(name) = filter_name(&e.name) else {
                    continue;
                };
                let t = SourceTensor {
                    name: name.clone(),
                    shard: i,
                    entry: e.clone(),
                    scale: None,
                };
                // a name seen again replaces the earlier tensor in its place (a dict's update)
                match position.get(&name) {
                    Some(&p) => tensors[p] = t,
                    None => {
                        position.insert(name, tensors.len());
                        tensors.push(t);
                    }
                }
            }
        }
        check_index(dir, &shards)?;
        // the script guesses `--outtype auto` before it dequantizes: from the first tensor of two
        // or more dimensions that is bf16 or f16, scales and FP8 weights passed over
        let first_16bit_matrix = tensors
            .iter()
            .find(|t| t.entry.shape.len() >= 2 && matches!(t.entry.dtype, Dtype::BF16 | Dtype::F16))
            .map(|t| t.entry.dtype);
        if let Some(scheme) = fp8::scheme(dir, &config)? {
            tensors = fp8::attach_scales(&scheme, tensors, &shards)?;
        }
        let tokenizer_files = TOKENIZER_FILES
            .into_iter()
            .filter(|f| dir.join(f).is_file())
            .collect();
        Ok(HfFolder {
            dir: dir.to_path_buf(),
            config,
            shards,
            tensors,
            tokenizer_files,
            first_16bit_matrix,
        })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of config.json (for errors).
    pub fn config_path(&self) -> PathBuf {
        self.dir.join("config.json")
    }

    /// config.json, with `text_config`'s keys lifted to the top.
    pub fn config(&self) -> &Map<String, Value> {
        &self.config
    }

    /// The `architectures[0]` class of config.json.
    pub fn architecture(&self) -> Result<&str, CheckpointError> {
        self.config
            .get("architectures")
            .and_then(|a| a.as_array())
            .and_then(|a| a.first())
            .and_then(|a| a.as_str())
            .ok_or_else(|| CheckpointError::Json {
                path: self.config_path(),
                problem: "key 'architectures': no list of class names".into(),
            })
    }

    /// The weight files, in the order they are read.
    pub fn shards(&self) -> &[SafetensorsFile] {
        &self.shards
    }

    /// Every tensor, in the order the script adds them.
    pub fn tensors(&self) -> &[SourceTensor] {
        &self.tensors
    }

    /// The bytes of `t`.
    pub fn data(&self, t: &SourceTensor) -> &[u8] {
        self.shards[t.shard].data(&t.entry)
    }

    /// The bytes of scale `s`.
    pub fn scale_data(&self, s: &Scale) -> &[u8] {
        self.shards[s.shard].data(&s.entry)
    }

    /// The dtype of the first tensor of two or more dimensions that is bf16 or f16, as the
    /// script's `--outtype auto` looks for it (before any dequantization).
    pub fn first_16bit_matrix(&self) -> Option<Dtype> {
        self.first_16bit_matrix
    }

    /// Gives back the memory pages of `within` (a range of `t`'s bytes) once they were read: a
    /// conversion's resident memory then follows what it is converting, not the checkpoint.
    pub fn release(&self, t: &SourceTensor, within: std::ops::Range<usize>) {
        self.shards[t.shard].release(&t.entry, within);
    }

    /// The tokenizer files present, of [`TOKENIZER_FILES`].
    pub fn tokenizer_files(&self) -> &[&'static str] {
        &self.tokenizer_files
    }
}

/// The script's renames and skips of tensor names (`filter_tensors` of its base and text
/// models, and llama's `text_model.`): `None` for a multimodal tensor.
fn filter_name(name: &str) -> Option<String> {
    const SKIP_PREFIXES: [&str; 10] = [
        "mlp",
        "vit.",
        "vpm.",
        "siglip2.",
        "conformer.",
        "merger.",
        "resampler.",
        "sound_encoder.",
        "sound_projection.",
        "speech_embeddings.",
    ];
    const SKIP_PARTS: [&str; 17] = [
        "visual.",
        "vision.",
        "audio.",
        "talker.",
        "vision_",
        "audio_",
        "token2wav.",
        "code2wav.",
        "projector.",
        "pre_mm_projector_norm",
        "image_newline",
        "view_seperator",
        "patch_embed",
        "patch_embedding",
        "patch_merger.",
        "patch_merge_mlp.",
        "model.connector.",
    ];
    let name = name.replace("text_model.", "");
    if SKIP_PREFIXES.iter().any(|p| name.starts_with(p))
        || SKIP_PARTS.iter().any(|p| name.contains(p))
    {
        return None;
    }
    let mut name = name;
    if name.ends_with("e_score_correction_bias") {
        name = name.replace("e_score_correction_bias", "e_score_correction.bias");
    }
    Some(name.replace("language_model.", ""))
}

fn read_json_object(path: &Path) -> Result<Map<String, Value>, CheckpointError> {
    let text = std::fs::read(path).map_err(|e| CheckpointError::io(path, e))?;
    match serde_json::from_slice(&text) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(CheckpointError::Json {
            path: path.to_path_buf(),
            problem: "not a JSON object".into(),
        }),
        Err(e) => Err(CheckpointError::Json {
            path: path.to_path_buf(),
            problem: format!("line {}, column {}: {e}", e.line(), e.column()),
        }),
    }
}

const INDEX: &str = "model.safetensors.index.json";

/// The shard files: those the index names (sorted), else every `model*.safetensors` (sorted).
fn shard_names(dir: &Path) -> Result<Vec<String>, CheckpointError> {
    let index = dir.join(INDEX);
    if index.is_file() {
        let map = weight_map(&index)?;
        let names: BTreeSet<String> = map.values().cloned().collect();
        for n in &names {
            if !dir.join(n).is_file() {
                return Err(CheckpointError::Index {
                    path: index,
                    problem: format!("names shard '{n}', which is absent"),
                });
            }
        }
        return Ok(names.into_iter().collect());
    }
    let mut names = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| CheckpointError::io(dir, e))? {
        let e = e.map_err(|e| CheckpointError::io(dir, e))?;
        let n = e.file_name().to_string_lossy().into_owned();
        if n.starts_with("model") && n.ends_with(".safetensors") {
            names.push(n);
        }
    }
    if names.is_empty() {
        return Err(CheckpointError::Folder {
            path: dir.to_path_buf(),
            problem: "no model*.safetensors weights (PyTorch .bin checkpoints are not read)".into(),
        });
    }
    names.sort();
    Ok(names)
}

fn weight_map(index: &Path) -> Result<HashMap<String, String>, CheckpointError> {
    let obj = read_json_object(index)?;
    let bad = || CheckpointError::Index {
        path: index.to_path_buf(),
        problem: "key 'weight_map': not an object of tensor name to file name".into(),
    };
    let map = obj
        .get("weight_map")
        .and_then(|m| m.as_object())
        .ok_or_else(bad)?;
    map.iter()
        .map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
        .collect::<Option<_>>()
        .ok_or_else(bad)
}

/// The index and the shards name the same tensors.
fn check_index(dir: &Path, shards: &[SafetensorsFile]) -> Result<(), CheckpointError> {
    let index = dir.join(INDEX);
    if !index.is_file() {
        return Ok(());
    }
    let map = weight_map(&index)?;
    let mut in_parts: HashMap<&str, &Path> = HashMap::new();
    for s in shards {
        for t in s.tensors() {
            in_parts.insert(&t.name, s.path());
        }
    }
    let mut missing: Vec<&String> = map
        .keys()
        .filter(|k| !in_parts.contains_key(k.as_str()))
        .collect();
    missing.sort();
    if let Some(m) = missing.first() {
        return Err(CheckpointError::Index {
            path: index.clone(),
            problem: format!(
                "tensor '{m}' is in the weight map (file '{}') but in no shard ({} missing)",
                map[*m],
                missing.len()
            ),
        });
    }
    let mut extra: Vec<&&str> = in_parts.keys().filter(|k| !map.contains_key(**k)).collect();
    extra.sort();
    if let Some(x) = extra.first() {
        return Err(CheckpointError::Index {
            path: index,
            problem: format!(
                "tensor '{x}' of {} is not in the weight map",
                in_parts[**x].display()
            ),
        });
    }
    Ok(())
}
