//! A split model opened from any of its shards ([`open_model`]): the first shard is found by the
//! shard's name (`…-0000K-of-0000N.gguf`), then every shard is opened and checked as
//! [`ShardedModel`] (local) or `RemoteModel` (remote, feature `remote`) does.
#![forbid(unsafe_code)]

use super::{OpenError, OpenOptions};
use crate::error::Error;
use crate::location::{Location, ReadCost};
#[cfg(feature = "remote")]
use crate::remote::RemoteModel;
use crate::shard::{parse_shard_path, shard_path, ShardedModel};
use crate::value::Value;

/// The location of the first shard of the split model `location` names by its shard name
/// (`PREFIX-0000K-of-0000N.gguf`, for a URL with any query string after it); any other name is
/// its own first shard (a file that is not split, or one whose keys must say more).
pub fn first_shard(location: &Location) -> Location {
    match location {
        Location::Path(p) => match parse_shard_path(p) {
            Some((prefix, no, count)) if no > 0 => Location::Path(shard_path(&prefix, 0, count)),
            _ => location.clone(),
        },
        #[cfg(feature = "remote")]
        Location::Url(u) => match crate::remote::parse_shard_url(u) {
            Some((stem, query, no, count)) if no > 0 => {
                Location::Url(crate::remote::shard_url(&stem, &query, 0, count))
            }
            _ => location.clone(),
        },
        #[cfg(not(feature = "remote"))]
        Location::Url(_) => location.clone(),
    }
}

/// The shards of an opened model, local or remote.
#[derive(Debug)]
pub enum ModelShards {
    /// Local files, each mapped.
    Local(ShardedModel),
    /// Remote objects, their headers held.
    #[cfg(feature = "remote")]
    Remote(RemoteModel),
}

/// A model opened from a [`Location`]: one file, or every shard of a split model.
#[derive(Debug)]
pub struct OpenedModel {
    first: Location,
    shards: ModelShards,
}

/// Opens the model `location` belongs to: the file itself when it is not split, else every shard
/// of the split model, found from any shard's name ([`first_shard`]), checked to belong together.
/// Errors name the shard that failed when it is not the first.
pub fn open_model(location: &Location, options: &OpenOptions) -> Result<OpenedModel, OpenError> {
    open_model_from_first(&first_shard(location), options)
}

/// Opens the model whose first shard (or only file) is `location`, as llama.cpp's tools
/// (`llama-quantize`, `llama-gguf-split --merge`) take a model: a later shard is refused
/// ([`ShardError::NotFirst`](crate::error::ShardError::NotFirst)) rather than found from its
/// name as [`open_model`] finds it.
pub fn open_model_from_first(
    location: &Location,
    options: &OpenOptions,
) -> Result<OpenedModel, OpenError> {
    let shards = match location {
        Location::Path(p) => open_local(p, options).map(ModelShards::Local),
        Location::Url(u) => open_remote(u, options),
    };
    shards
        .map(|shards| OpenedModel {
            first: location.clone(),
            shards,
        })
        .map_err(OpenError::at(location))
}

fn open_local(first: &std::path::Path, options: &OpenOptions) -> Result<ShardedModel, Error> {
    ShardedModel::open_with(first, &options.read)
}

#[cfg(feature = "remote")]
fn open_remote(url: &str, options: &OpenOptions) -> Result<ModelShards, Error> {
    RemoteModel::open_with(url, &options.remote(), &options.read).map(ModelShards::Remote)
}

#[cfg(not(feature = "remote"))]
fn open_remote(url: &str, _: &OpenOptions) -> Result<ModelShards, Error> {
    Err(super::no_remote(url))
}

impl OpenedModel {
    /// The first shard's location (the one given, when it is the first or the model is not
    /// split).
    pub fn location(&self) -> &Location {
        &self.first
    }

    /// The shards, local or remote.
    pub fn shards(&self) -> &ModelShards {
        &self.shards
    }

    /// Number of shards (1 for a file that is not split).
    pub fn shard_count(&self) -> usize {
        match &self.shards {
            ModelShards::Local(m) => m.shard_count(),
            #[cfg(feature = "remote")]
            ModelShards::Remote(m) => m.shard_count(),
        }
    }

    /// Tensors over every shard.
    pub fn tensor_count(&self) -> usize {
        match &self.shards {
            ModelShards::Local(m) => m.tensor_count(),
            #[cfg(feature = "remote")]
            ModelShards::Remote(m) => m.tensor_count(),
        }
    }

    /// A metadata value of the model (the first shard's metadata).
    pub fn get(&self, key: &str) -> Option<Value<'_>> {
        match &self.shards {
            ModelShards::Local(m) => m.get(key),
            #[cfg(feature = "remote")]
            ModelShards::Remote(m) => m.get(key),
        }
    }

    /// The local shards, which a command that writes copies tensor data from:
    /// [`WriteError::NotFromFile`](crate::error::WriteError::NotFromFile) for a remote model,
    /// whose data would all have to be fetched.
    pub fn local(&self) -> Result<&ShardedModel, Error> {
        match &self.shards {
            ModelShards::Local(m) => Ok(m),
            #[cfg(feature = "remote")]
            ModelShards::Remote(_) => Err(crate::error::WriteError::NotFromFile.into()),
        }
    }

    /// What reading it cost so far, over every shard: `None` for local files.
    pub fn cost(&self) -> Option<ReadCost> {
        match &self.shards {
            ModelShards::Local(_) => None,
            #[cfg(feature = "remote")]
            ModelShards::Remote(m) => Some(m.stats()),
        }
    }
}
