//! The model a quantization reads: one file, or every shard of a split model, as llama.cpp's
//! loader reads a split model when given its first shard (metadata and hyperparameters from the
//! first, tensors from all of them).
#![forbid(unsafe_code)]

use std::path::Path;

use crate::error::{Missing, Result};
use crate::read::{Gguf, TensorInfo};
use crate::shard::ShardedModel;

/// The input of [`plan`](super::plan) and [`quantize_file`](super::quantize_file): a file
/// (`&Gguf`) or a split model opened as one (`&ShardedModel`, whose shards are known to belong
/// together).
#[derive(Clone, Copy, Debug)]
pub struct Input<'a, 'g> {
    shards: &'a [Gguf<'g>],
}

impl<'a, 'g> From<&'a Gguf<'g>> for Input<'a, 'g> {
    fn from(g: &'a Gguf<'g>) -> Self {
        Input {
            shards: std::slice::from_ref(g),
        }
    }
}

impl<'a> From<&'a ShardedModel> for Input<'a, 'static> {
    fn from(m: &'a ShardedModel) -> Self {
        Input { shards: m.shards() }
    }
}

impl<'a, 'g> Input<'a, 'g> {
    /// The first shard (the file itself when it is not split): the model's metadata.
    pub fn first(&self) -> &'a Gguf<'g> {
        &self.shards[0]
    }

    /// Every shard, in order.
    pub fn shards(&self) -> &'a [Gguf<'g>] {
        self.shards
    }

    /// Tensor `index` of shard `shard`.
    pub fn tensor(&self, shard: usize, index: usize) -> Result<TensorInfo<'a>> {
        self.shards
            .get(shard)
            .and_then(|g| g.tensor_at(index))
            .ok_or_else(|| Missing::TensorIndex { index }.into())
    }

    /// Every tensor name of the model, shard by shard.
    pub fn tensor_names(&self) -> impl Iterator<Item = std::borrow::Cow<'a, str>> + 'a {
        self.shards
            .iter()
            .flat_map(|g| g.tensors().map(|t| t.name()))
    }

    /// The files read (those opened from a path), which an output may not replace.
    pub fn paths(&self) -> Vec<&'a Path> {
        self.shards.iter().filter_map(|g| g.path()).collect()
    }
}
