//! What a person (or a program) wants to know about a model beyond its bytes: its size in
//! parameters and bits per weight, where the bytes go by tensor type and by layer, the memory to
//! load it, the KV cache it needs per token of context, its tokenizer and its llama.cpp file type.
//!
//! One typed model, [`Summary`], built by [`Summary::of`]; `gguf info`, `gguf dump --markdown` and
//! `gguf report` render it, and so can any other program. Nothing in it is formatted for display but its
//! contract JSON form, [`summary_json`], shared by `gguf info --json` and the Python package.
#![forbid(unsafe_code)]

mod json;
mod kv_cache;
mod layers;
mod tokenizer;

pub use crate::file_type::FileType;
pub use json::{summary_json, summary_members};
pub use kv_cache::KvCache;
pub use layers::{LayerBytes, PrefixBytes};
pub use tokenizer::{SpecialToken, TokenRole, Tokenizer};

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::shard::{ShardedModel, SPLIT_COUNT, SPLIT_NO};
use crate::{Endian, Gguf, TensorInfo, TensorType, Value, ValueType};

/// The summary of one GGUF: see the [module documentation](self).
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Version, byte order, alignment, sizes and counts.
    pub format: Format,
    /// `general.architecture`.
    pub architecture: Option<String>,
    /// `general.name`.
    pub name: Option<String>,
    /// `general.file_type`, the llama.cpp file type the file declares.
    pub file_type: Option<FileType>,
    /// Set when `general.file_type` contradicts the tensors (the audit's `model.file-type`): what
    /// the declared type gives them against what they are.
    pub file_type_mismatch: Option<String>,
    /// Elements over all tensors.
    pub parameters: u64,
    /// Bytes of tensor data over all tensors, without padding.
    pub tensor_data_bytes: u64,
    /// One entry per tensor type present, the largest share of the data first (ties in the order
    /// of the type ids).
    pub types: Vec<TypeShare>,
    /// The architecture's size hyperparameters, as far as the file has them.
    pub hyperparameters: Hyperparameters,
    /// The KV-cache estimate, when the architecture's keys allow one.
    pub kv_cache: Option<KvCache>,
    /// The tokenizer, when the file has one.
    pub tokenizer: Option<Tokenizer>,
    /// `tokenizer.chat_template`, when present.
    pub chat_template: Option<ChatTemplate>,
    /// Tensor data of the repeated blocks (`blk.N.*`), by layer in layer order.
    pub layers: Vec<LayerBytes>,
    /// Tensor data outside the blocks, by the first component of the tensor names, the largest
    /// first (ties in the order of the prefixes).
    pub outside_layers: Vec<PrefixBytes>,
    /// Set when the file is a shard of a split model (it has `split.count` above 1).
    pub split: Option<Split>,
}

/// A file that is one shard of a model split by gguf-split (or `gguf split`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// `split.no` of the file summarised (0 for the first shard).
    pub no: u64,
    /// `split.count`.
    pub count: u64,
    /// Every shard, in order, when the summary is the whole model's ([`Summary::of_model`]);
    /// empty when it is this file's alone.
    pub shards: Vec<ShardFacts>,
}

/// One shard of a split model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardFacts {
    pub path: PathBuf,
    pub tensors: u64,
    /// The bytes of the shard file.
    pub file_size: u64,
}

/// The container's facts: how the file is laid out, not what model it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub version: u32,
    pub endian: Endian,
    pub alignment: u32,
    /// Bytes before the tensor data: the header with its padding.
    pub header_bytes: u64,
    pub kv_count: u64,
    pub tensor_count: u64,
    /// The length the header implies (the spec's `len_file`).
    pub file_size: u64,
    /// The bytes actually present (file, slice or remote object); `None` for a header read from a
    /// stream.
    pub bytes_present: Option<u64>,
    /// Trailing data by the contract's definition ([`Gguf::trailing_data`]): 0 when there is
    /// none, as for the zero padding of a file without tensors.
    pub trailing_bytes: u64,
}

/// The tensors of one type and their share of the tensor data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TypeShare {
    /// The type (an id this build cannot size, in a file read permissively, included).
    pub ggml_type: TensorType,
    pub tensors: u64,
    pub elements: u64,
    pub bytes: u64,
    /// `bytes` as a percentage of all tensor data (0 when there is none).
    pub percent: f64,
}

/// `{arch}.context_length`, `.embedding_length`, `.block_count`, `.attention.head_count` and
/// `.attention.head_count_kv` (the first entry of a per-layer array).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Hyperparameters {
    pub context_length: Option<u64>,
    pub embedding_length: Option<u64>,
    pub block_count: Option<u64>,
    pub head_count: Option<u64>,
    pub head_count_kv: Option<u64>,
}

/// `tokenizer.chat_template`: its length when it is a string, as the key is meant to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatTemplate {
    /// A string of this many bytes.
    Text { bytes: u64 },
    /// A value of another type.
    NotText { value_type: ValueType },
}

impl Summary {
    /// The summary of an opened file (opened permissively, a damaged file is summarised as far as
    /// it was read).
    pub fn of(g: &Gguf<'_>) -> Summary {
        let tensor_data_bytes = g.tensor_data_size();
        let (layers, outside_layers) = layers::bytes_by_layer(g.tensors());
        Summary {
            format: Format {
                version: g.version(),
                endian: g.endian(),
                alignment: g.alignment(),
                header_bytes: g.data_offset(),
                kv_count: g.kv_count() as u64,
                tensor_count: g.tensor_count() as u64,
                file_size: g.expected_len(),
                bytes_present: g.actual_len(),
                trailing_bytes: g.trailing_data().map_or(0, |(_, n)| n),
            },
            architecture: g.architecture().map(str::to_string),
            name: g.model_name().map(str::to_string),
            file_type: FileType::of(g),
            file_type_mismatch: crate::quantize::file_type_mismatch(g).map(|m| m.to_string()),
            parameters: g.parameter_count(),
            tensor_data_bytes,
            types: type_shares(g.tensors(), tensor_data_bytes),
            hyperparameters: Hyperparameters {
                context_length: g.context_length(),
                embedding_length: g.embedding_length(),
                block_count: g.block_count(),
                head_count: g.head_count(),
                head_count_kv: g.head_count_kv(),
            },
            kv_cache: KvCache::of(g),
            tokenizer: Tokenizer::of(g),
            chat_template: g.get("tokenizer.chat_template").map(|v| match v {
                Value::String(s) => ChatTemplate::Text {
                    bytes: s.len() as u64,
                },
                other => ChatTemplate::NotText {
                    value_type: other.value_type(),
                },
            }),
            layers,
            outside_layers,
            split: match (g.get_u64(SPLIT_COUNT), g.get_u64(SPLIT_NO)) {
                (Some(count), no) if count > 1 => Some(Split {
                    no: no.unwrap_or(0),
                    count,
                    shards: Vec::new(),
                }),
                _ => None,
            },
        }
    }

    /// The summary of a split model as llama.cpp loads it from its first shard: the first
    /// shard's format and metadata, every shard's tensors (parameters, bytes, types, layers), and
    /// the shards in [`Summary::split`].
    pub fn of_model(m: &ShardedModel) -> Summary {
        let first = &m.shards()[0];
        let mut s = Summary::of(first);
        let tensor_data_bytes = m.tensors().map(|t| t.size()).sum();
        s.parameters = m.tensors().map(|t| t.n_elements()).sum();
        s.tensor_data_bytes = tensor_data_bytes;
        s.types = type_shares(m.tensors(), tensor_data_bytes);
        (s.layers, s.outside_layers) = layers::bytes_by_layer(m.tensors());
        let shards = m
            .shards()
            .iter()
            .zip(m.paths())
            .map(|(g, p)| ShardFacts {
                path: p.clone(),
                tensors: g.tensor_count() as u64,
                file_size: g.actual_len().unwrap_or(0),
            })
            .collect();
        s.split = Some(Split {
            no: 0,
            count: m.shard_count() as u64,
            shards,
        });
        s
    }

    /// What `gguf info` shows for a file opened from a path: for the first shard of a split
    /// model, the whole model's ([`Summary::of_model`], the other shards opened beside it);
    /// otherwise this file's. When the other shards cannot be read, this shard's alone and the
    /// reason, so a caller can say it describes one shard.
    pub fn of_file(g: &Gguf<'_>) -> (Summary, Option<crate::Error>) {
        let alone = Summary::of(g);
        let first_of_many = alone.split.as_ref().is_some_and(|s| s.no == 0);
        let Some(path) = g.path().filter(|_| first_of_many) else {
            return (alone, None);
        };
        match ShardedModel::open(path) {
            Ok(m) => (Summary::of_model(&m), None),
            Err(e) => (alone, Some(e)),
        }
    }

    /// Tensors of the model: every shard's for a whole split model ([`Summary::of_model`]), else
    /// the file's.
    pub fn tensor_count(&self) -> u64 {
        match &self.split {
            Some(s) if !s.shards.is_empty() => s.shards.iter().map(|x| x.tensors).sum(),
            _ => self.format.tensor_count,
        }
    }

    /// Bits of tensor data per parameter, when there are parameters.
    pub fn bits_per_weight(&self) -> Option<f64> {
        (self.parameters > 0).then(|| self.tensor_data_bytes as f64 * 8.0 / self.parameters as f64)
    }

    /// Bytes to load the model for `context_tokens` tokens of context: the tensor data and the KV
    /// cache (when it can be estimated); compute buffers come on top.
    pub fn memory_to_load(&self, context_tokens: u64) -> u64 {
        let kv = self
            .kv_cache
            .as_ref()
            .map_or(0, |kv| kv.bytes_for(context_tokens));
        self.tensor_data_bytes.saturating_add(kv)
    }
}

/// Tensors, elements and bytes per type, the largest share first.
fn type_shares<'t>(tensors: impl Iterator<Item = TensorInfo<'t>>, total: u64) -> Vec<TypeShare> {
    let mut by_type: BTreeMap<TensorType, (u64, u64, u64)> = BTreeMap::new();
    for t in tensors {
        let e = by_type.entry(t.tensor_type()).or_default();
        e.0 += 1;
        e.1 = e.1.saturating_add(t.n_elements());
        e.2 = e.2.saturating_add(t.size());
    }
    let mut types: Vec<TypeShare> = by_type
        .into_iter()
        .map(|(ggml_type, (tensors, elements, bytes))| TypeShare {
            ggml_type,
            tensors,
            elements,
            bytes,
            percent: percent(bytes, total),
        })
        .collect();
    types.sort_by_key(|t| std::cmp::Reverse(t.bytes));
    types
}

/// `part` as a percentage of `total` (0 when the total is 0).
fn percent(part: u64, total: u64) -> f64 {
    if total > 0 {
        part as f64 * 100.0 / total as f64
    } else {
        0.0
    }
}
