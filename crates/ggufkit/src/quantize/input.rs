//! The model a quantization reads: one file, every shard of a split model (as llama.cpp's loader
//! reads a split model when given its first shard: metadata and hyperparameters from the first,
//! tensors from all of them), or a model produced on demand ([`Produced`]: metadata and tensor
//! infos known up front, each tensor's bytes made when the executor reaches it, a run of rows at
//! a time, as a conversion from a Hugging Face checkpoint makes them), so that no intermediate
//! file is written and no tensor is ever held whole.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;

use crate::endian::Endian;
use crate::error::{Missing, Result};
use crate::read::{Gguf, TensorInfo};
use crate::shard::ShardedModel;
use crate::types::GgmlType;
use crate::write::{GgufBuilder, OwnedValue};

use super::model::ModelInfo;
use super::plan::TensorDesc;

/// One tensor of a [`Produced`] model, as its GGUF would declare it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProducedTensor {
    /// Name.
    pub name: String,
    /// Type of the bytes [`Produced::produce`] gives.
    pub ty: GgmlType,
    /// Shape, ne0 first.
    pub shape: Vec<u64>,
}

/// A model whose GGUF is never written: what the file would hold, the pairs and tensor infos
/// known up front and each tensor's bytes made on demand, a run of rows at a time. The
/// quantization of it is the quantization of that file, byte for byte.
pub trait Produced: Sync {
    /// Every metadata pair, in the order the file would hold them.
    fn metadata(&self) -> &[(String, OwnedValue)];
    /// Every tensor, in the order the file would hold them.
    fn tensors(&self) -> &[ProducedTensor];
    /// The maker of tensor `index`'s bytes, which the executor asks for its rows in order.
    fn produce(&self, index: usize) -> Result<Box<dyn ProducedRows + '_>>;
    /// The files read, which an output may not replace.
    fn paths(&self) -> Vec<&Path>;
}

/// One tensor of a [`Produced`] model being made.
pub trait ProducedRows: Send {
    /// The bytes (little-endian, in the tensor's declared type) of its rows `rows`: rows of
    /// `ne0` elements counted through the whole tensor, asked for in increasing order. Valid
    /// until the next call, so that only a run of rows is ever held.
    fn rows(&mut self, rows: Range<u64>) -> Result<&[u8]>;
}

#[derive(Clone, Copy)]
enum Source<'a, 'g> {
    Files(&'a [Gguf<'g>]),
    Produced(&'a dyn Produced),
}

/// The input of [`plan`](super::plan) and [`quantize_file`](super::quantize_file): a file
/// (`&Gguf`), a split model opened as one (`&ShardedModel`, whose shards are known to belong
/// together), or a model made on demand (`&dyn Produced`, one shard).
#[derive(Clone, Copy)]
pub struct Input<'a, 'g> {
    source: Source<'a, 'g>,
}

impl std::fmt::Debug for Input<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.source {
            Source::Files(s) => f.debug_struct("Input").field("shards", &s.len()).finish(),
            Source::Produced(p) => f
                .debug_struct("Input")
                .field("produced_tensors", &p.tensors().len())
                .finish(),
        }
    }
}

impl<'a, 'g> From<&'a Gguf<'g>> for Input<'a, 'g> {
    fn from(g: &'a Gguf<'g>) -> Self {
        Input {
            source: Source::Files(std::slice::from_ref(g)),
        }
    }
}

impl<'a> From<&'a ShardedModel> for Input<'a, 'static> {
    fn from(m: &'a ShardedModel) -> Self {
        Input {
            source: Source::Files(m.shards()),
        }
    }
}

impl<'a> From<&'a dyn Produced> for Input<'a, 'static> {
    fn from(p: &'a dyn Produced) -> Self {
        Input {
            source: Source::Produced(p),
        }
    }
}

/// A tensor's bytes as the input holds them: borrowed from a file, or made a run of rows at a
/// time.
pub(crate) enum TensorBytes<'a> {
    /// A file's bytes, in its byte order.
    Held { data: &'a [u8], endian: Endian },
    /// A made model's tensor (little-endian).
    Made(Box<dyn ProducedRows + 'a>),
}

impl TensorBytes<'_> {
    /// The byte order of the bytes.
    pub(crate) fn endian(&self) -> Endian {
        match self {
            TensorBytes::Held { endian, .. } => *endian,
            TensorBytes::Made(_) => Endian::Little,
        }
    }

    /// The bytes of rows `rows`, each `row_bytes` long, of tensor `name`.
    pub(crate) fn rows(&mut self, rows: Range<u64>, row_bytes: usize, name: &str) -> Result<&[u8]> {
        match self {
            TensorBytes::Held { data, .. } => {
                let span = |r: u64| usize::try_from(r).ok()?.checked_mul(row_bytes);
                let held = data.len() as u64;
                span(rows.start)
                    .zip(span(rows.end))
                    .and_then(|(a, b)| data.get(a..b))
                    .ok_or_else(|| {
                        crate::error::WriteError::TensorDataSize {
                            name: name.to_string(),
                            expected: held,
                            given: rows.end.saturating_mul(row_bytes as u64),
                        }
                        .into()
                    })
            }
            TensorBytes::Made(m) => m.rows(rows),
        }
    }
}

impl<'a, 'g> Input<'a, 'g> {
    /// The input as a made model.
    pub fn produced(p: &'a dyn Produced) -> Self {
        Input {
            source: Source::Produced(p),
        }
    }

    /// The shards when the input is files.
    pub fn shards(&self) -> Option<&'a [Gguf<'g>]> {
        match self.source {
            Source::Files(s) => Some(s),
            Source::Produced(_) => None,
        }
    }

    /// File tensor `index` of shard `shard` (`None` for a made model).
    pub(crate) fn file_tensor(&self, shard: usize, index: usize) -> Result<Option<TensorInfo<'a>>> {
        match self.source {
            Source::Files(s) => s
                .get(shard)
                .and_then(|g| g.tensor_at(index))
                .map(Some)
                .ok_or_else(|| Missing::TensorIndex { index }.into()),
            Source::Produced(_) => Ok(None),
        }
    }

    /// Whether every part of the input is little-endian.
    pub fn is_little_endian(&self) -> bool {
        match self.source {
            Source::Files(s) => s.iter().all(|g| g.endian() == Endian::Little),
            Source::Produced(_) => true,
        }
    }

    /// Where the data of tensor `index` of shard `shard` would start, when it is missing (a
    /// file cut short); `None` when the input holds it (a made model always does).
    pub(crate) fn missing_data(&self, shard: usize, index: usize) -> Result<Option<u64>> {
        Ok(self
            .file_tensor(shard, index)?
            .filter(|t| t.data().is_none())
            .map(|t| t.absolute_offset()))
    }

    /// The bytes of tensor `index` of shard `shard`: borrowed from the file, or made as they are
    /// asked for.
    pub(crate) fn data(&self, shard: usize, index: usize, name: &str) -> Result<TensorBytes<'a>> {
        match self.source {
            Source::Files(_) => {
                let Some(info) = self.file_tensor(shard, index)? else {
                    return Err(Missing::TensorIndex { index }.into());
                };
                let data = info.data().ok_or_else(|| crate::Error::TensorDataMissing {
                    tensor: name.to_string(),
                    offset: info.absolute_offset(),
                })?;
                Ok(TensorBytes::Held {
                    data,
                    endian: info.endian(),
                })
            }
            Source::Produced(p) => {
                if shard != 0 || index >= p.tensors().len() {
                    return Err(Missing::TensorIndex { index }.into());
                }
                Ok(TensorBytes::Made(p.produce(index)?))
            }
        }
    }

    /// The name of tensor `index` of shard `shard` as stored (a file's raw bytes, which need
    /// not be UTF-8).
    pub(crate) fn name_bytes(&self, shard: usize, index: usize) -> Result<&'a [u8]> {
        match self.source {
            Source::Files(_) => match self.file_tensor(shard, index)? {
                Some(t) => Ok(t.name_bytes()),
                None => Err(Missing::TensorIndex { index }.into()),
            },
            Source::Produced(p) => p
                .tensors()
                .get(index)
                .filter(|_| shard == 0)
                .map(|t| t.name.as_bytes())
                .ok_or_else(|| Missing::TensorIndex { index }.into()),
        }
    }

    /// Every tensor name of the model, shard by shard.
    pub fn tensor_names(&self) -> Box<dyn Iterator<Item = Cow<'a, str>> + 'a> {
        match self.source {
            Source::Files(s) => Box::new(s.iter().flat_map(|g| g.tensors().map(|t| t.name()))),
            Source::Produced(p) => {
                Box::new(p.tensors().iter().map(|t| Cow::Borrowed(t.name.as_str())))
            }
        }
    }

    /// The descriptions of every tensor, shard by shard in file order (a made model's offsets
    /// are those its file would have: each tensor's bytes padded to 32).
    pub(crate) fn descs(&self) -> Result<Vec<TensorDesc>> {
        let mut descs = Vec::new();
        match self.source {
            Source::Files(s) => {
                for (shard, g) in s.iter().enumerate() {
                    for (index, t) in g.tensors().enumerate() {
                        descs.push(TensorDesc {
                            shard,
                            index,
                            offset: t.absolute_offset(),
                            name: t.name().into_owned(),
                            ty: t.ggml_type()?,
                            shape: t.shape().to_vec(),
                        });
                    }
                }
            }
            Source::Produced(p) => {
                let mut offset = 0u64;
                for (index, t) in p.tensors().iter().enumerate() {
                    descs.push(TensorDesc {
                        shard: 0,
                        index,
                        offset,
                        name: t.name.clone(),
                        ty: t.ty,
                        shape: t.shape.clone(),
                    });
                    let n: u64 = t.shape.iter().product();
                    let size = t.ty.bytes_for(n).unwrap_or(0);
                    offset =
                        offset.saturating_add(crate::wire::align_up(size, 32).unwrap_or(u64::MAX));
                }
            }
        }
        Ok(descs)
    }

    /// An integer metadata value of the model (its first shard's).
    fn get_u64(&self, key: &str) -> Option<u64> {
        match self.source {
            Source::Files(s) => s[0].get_u64(key),
            Source::Produced(p) => produced_value(p, key).and_then(owned_u64),
        }
    }

    /// `general.architecture`.
    pub fn architecture(&self) -> Option<&'a str> {
        match self.source {
            Source::Files(s) => s[0].architecture(),
            Source::Produced(p) => match produced_value(p, "general.architecture") {
                Some(OwnedValue::String(s)) => Some(s.as_str()),
                _ => None,
            },
        }
    }

    /// `general.file_type`.
    pub fn file_type(&self) -> Option<u32> {
        self.get_u64("general.file_type").map(|v| v as u32)
    }

    /// The hyperparameters the rules read.
    pub fn model_info(&self) -> ModelInfo {
        match self.source {
            Source::Files(s) => ModelInfo::of(&s[0]),
            Source::Produced(p) => {
                let arch = self.architecture().unwrap_or_default().to_string();
                let get = |suffix: &str| -> Option<u64> {
                    match produced_value(p, &format!("{arch}.{suffix}"))? {
                        OwnedValue::Array(a) => a.items().first().and_then(owned_u64),
                        v => owned_u64(v),
                    }
                };
                let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
                let n_head = get("attention.head_count").map_or(0, clamp);
                ModelInfo {
                    n_layer: get("block_count").map_or(0, clamp),
                    n_head,
                    n_head_kv: get("attention.head_count_kv").map_or(n_head, clamp),
                    n_expert: get("expert_count").map_or(0, clamp),
                    arch,
                }
            }
        }
    }

    /// A builder holding the model's metadata and tensor infos, as [`GgufBuilder::from_gguf`]
    /// gives them for the first shard (a made model's pairs as its file would hold them).
    pub(crate) fn builder(&self) -> Result<GgufBuilder<'a>> {
        match self.source {
            Source::Files(s) => GgufBuilder::from_gguf(&s[0]),
            Source::Produced(p) => {
                let mut b = GgufBuilder::new();
                for (k, v) in p.metadata() {
                    b.set(k, v.clone())?;
                }
                Ok(b)
            }
        }
    }

    /// The files read (those opened from a path), which an output may not replace.
    pub fn paths(&self) -> Vec<&'a Path> {
        match self.source {
            Source::Files(s) => s.iter().filter_map(|g| g.path()).collect(),
            Source::Produced(p) => p.paths(),
        }
    }
}

fn produced_value<'p>(p: &'p dyn Produced, key: &str) -> Option<&'p OwnedValue> {
    p.metadata().iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn owned_u64(v: &OwnedValue) -> Option<u64> {
    match *v {
        OwnedValue::U8(x) => Some(x.into()),
        OwnedValue::U16(x) => Some(x.into()),
        OwnedValue::U32(x) => Some(x.into()),
        OwnedValue::U64(x) => Some(x),
        OwnedValue::I8(x) => u64::try_from(x).ok(),
        OwnedValue::I16(x) => u64::try_from(x).ok(),
        OwnedValue::I32(x) => u64::try_from(x).ok(),
        OwnedValue::I64(x) => u64::try_from(x).ok(),
        _ => None,
    }
}
