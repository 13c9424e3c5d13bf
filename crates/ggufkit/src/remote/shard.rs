//! Split models over remote locations: from the first shard's URL
//! (`…-00001-of-00003.gguf`), the other shards are named the same way and their headers are read
//! concurrently; the model is presented as one (metadata from the first shard, tensors across all),
//! with the same surface as the local `ShardedModel`.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use super::{ReadCost, RemoteGguf, RemoteOptions};
use crate::error::{Error, Location, Missing, RemoteError, Result, ShardError};
use crate::read::{Kv, ReadOptions, TensorInfo};
use crate::shard::{SPLIT_COUNT, SPLIT_NO, SPLIT_TENSORS_COUNT};
use crate::value::Value;

/// At most this many shard headers are read at once.
const CONCURRENCY: usize = 8;

/// The URL stem, shard number (from 0) and count of a URL named like a `gguf-split` shard:
/// `STEM-0000K-of-0000N.gguf`, optionally followed by a query string.
pub fn parse_shard_url(url: &str) -> Option<(String, String, u32, u32)> {
    let (path, query) = match url.find('?') {
        Some(q) => url.split_at(q),
        None => (url, ""),
    };
    let rest = path.strip_suffix(".gguf")?;
    let cut = rest.len().checked_sub(15)?;
    if !rest.is_char_boundary(cut) {
        return None;
    }
    let (stem, tail) = rest.split_at(cut);
    let (no, count) = tail.strip_prefix('-')?.split_once("-of-")?;
    if no.len() != 5 || count.len() != 5 {
        return None;
    }
    let no: u32 = no.parse().ok()?;
    let count: u32 = count.parse().ok()?;
    (no >= 1 && no <= count).then(|| (stem.to_string(), query.to_string(), no - 1, count))
}

/// The URL of shard `i` (from 0) of `n`.
pub(crate) fn shard_url(stem: &str, query: &str, i: u32, n: u32) -> String {
    format!("{stem}-{:05}-of-{n:05}.gguf{query}", i + 1)
}

/// One tensor of a split model, and the shard (from 0) that holds it.
#[derive(Clone, Copy, Debug)]
pub struct ShardTensor<'a> {
    /// The shard holding the tensor.
    pub shard: usize,
    /// The tensor's info, from that shard's header.
    pub info: TensorInfo<'a>,
}

/// A model split over remote shards, read as one.
pub struct RemoteModel {
    shards: Vec<RemoteGguf>,
    order: Vec<(usize, usize)>,
    by_name: HashMap<Vec<u8>, usize>,
}

impl std::fmt::Debug for RemoteModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteModel")
            .field("urls", &self.urls())
            .field("tensors", &self.order.len())
            .finish()
    }
}

fn split_u64(g: &RemoteGguf, key: &'static str) -> Result<Option<u64>> {
    match g.gguf().get_kv(key) {
        None => Ok(None),
        Some(kv) => kv.value.as_u64().map(Some).ok_or_else(|| {
            ShardError::SplitKeyType {
                file: url(g.url()),
                key,
                offset: kv.offset,
            }
            .into()
        }),
    }
}

fn url(u: &str) -> Location {
    Location::Url(u.to_string())
}

impl RemoteModel {
    /// Opens the first shard, then every other shard its name and `split.count` imply
    /// (concurrently), checking they belong together. A file without split keys is a model of
    /// one shard.
    pub fn open(first: &str) -> Result<Self> {
        Self::open_with(first, &RemoteOptions::from_env(), &ReadOptions::default())
    }

    /// [`RemoteModel::open`] with options.
    pub fn open_with(first: &str, remote: &RemoteOptions, read: &ReadOptions) -> Result<Self> {
        let g0 = RemoteGguf::open_with(first, remote, read)?;
        let Some(count) = split_u64(&g0, SPLIT_COUNT)? else {
            return Self::from_shards(vec![g0], None);
        };
        let count = u32::try_from(count)
            .ok()
            .filter(|&c| (1..=u32::from(u16::MAX)).contains(&c))
            .ok_or_else(|| ShardError::SplitCount {
                file: url(first),
                count,
            })?;
        let no = split_u64(&g0, SPLIT_NO)?.unwrap_or(0);
        if no != 0 {
            return Err(ShardError::NotFirst {
                file: url(first),
                no,
            }
            .into());
        }
        if count == 1 {
            let declared = split_u64(&g0, SPLIT_TENSORS_COUNT)?;
            return Self::from_shards(vec![g0], declared);
        }
        let (stem, query, name_no, name_count) =
            parse_shard_url(first).ok_or_else(|| ShardError::FirstShardName {
                file: url(first),
                count,
            })?;
        if name_no != 0 || name_count != count {
            return Err(ShardError::NameMismatch {
                file: url(first),
                name_no,
                name_count,
                count,
            }
            .into());
        }
        let urls: Vec<String> = (1..count)
            .map(|i| shard_url(&stem, &query, i, count))
            .collect();
        let mut shards = vec![g0];
        for batch in urls.chunks(CONCURRENCY) {
            let opened: Vec<Result<RemoteGguf>> = std::thread::scope(|s| {
                let handles: Vec<_> = batch
                    .iter()
                    .map(|u| s.spawn(move || RemoteGguf::open_with(u, remote, read)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(RemoteError::ShardReaderPanicked.into()))
                    })
                    .collect()
            });
            for (u, g) in batch.iter().zip(opened) {
                let g = g.map_err(|e| match e {
                    Error::Format(diagnostic) => ShardError::Format {
                        file: url(u),
                        diagnostic,
                    }
                    .into(),
                    Error::Io {
                        context,
                        location,
                        source,
                    } => Error::Io {
                        context: format!("{u}: {context}"),
                        location,
                        source,
                    },
                    other => other,
                })?;
                shards.push(g);
            }
        }
        for (i, g) in shards.iter().enumerate().skip(1) {
            let no = split_u64(g, SPLIT_NO)?;
            let c = split_u64(g, SPLIT_COUNT)?;
            if no != Some(i as u64) || c != Some(u64::from(count)) {
                return Err(ShardError::Numbering {
                    file: url(g.url()),
                    no,
                    count: c,
                    expected_no: i as u32,
                    expected_count: count,
                }
                .into());
            }
        }
        let declared = split_u64(&shards[0], SPLIT_TENSORS_COUNT)?;
        Self::from_shards(shards, declared)
    }

    fn from_shards(shards: Vec<RemoteGguf>, declared: Option<u64>) -> Result<Self> {
        let named: Vec<(&crate::read::Gguf<'_>, Location)> =
            shards.iter().map(|r| (r.gguf(), url(r.url()))).collect();
        let (order, by_name) = crate::shard::index_shards(&named, declared, |s| {
            split_u64(&shards[s], SPLIT_TENSORS_COUNT)
        })?;
        Ok(RemoteModel {
            shards,
            order,
            by_name,
        })
    }

    /// Number of shards.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// The shards, in order.
    pub fn shards(&self) -> &[RemoteGguf] {
        &self.shards
    }

    /// The shards' URLs, in order.
    pub fn urls(&self) -> Vec<&str> {
        self.shards.iter().map(|s| s.url()).collect()
    }

    /// The model's metadata: the first shard's pairs, split keys included.
    pub fn metadata(&self) -> impl ExactSizeIterator<Item = Kv<'_>> + '_ {
        self.shards[0].gguf().metadata()
    }

    /// A metadata value of the model.
    pub fn get(&self, key: &str) -> Option<Value<'_>> {
        self.shards[0].gguf().get(key)
    }

    /// Number of tensors in the whole model.
    pub fn tensor_count(&self) -> usize {
        self.order.len()
    }

    /// Every tensor in model order, with its shard.
    pub fn tensors(&self) -> impl Iterator<Item = ShardTensor<'_>> + '_ {
        self.order.iter().filter_map(|&(s, i)| {
            self.shards[s]
                .gguf()
                .tensor_at(i)
                .map(|info| ShardTensor { shard: s, info })
        })
    }

    /// The tensor with this name, from whichever shard holds it.
    pub fn tensor(&self, name: &str) -> Option<ShardTensor<'_>> {
        let &k = self.by_name.get(name.as_bytes())?;
        let (s, i) = self.order[k];
        self.shards[s]
            .gguf()
            .tensor_at(i)
            .map(|info| ShardTensor { shard: s, info })
    }

    /// The data of tensor `name`, with one range request to the shard that holds it.
    pub fn tensor_bytes(&self, name: &str) -> Result<Vec<u8>> {
        let t = self
            .tensor(name)
            .ok_or_else(|| Missing::Tensor { name: name.into() })?;
        self.shards[t.shard].tensor_bytes(name)
    }

    /// What reading the model cost so far, over all shards.
    pub fn stats(&self) -> ReadCost {
        self.shards
            .iter()
            .fold(ReadCost::default(), |a, s| a + s.stats())
    }
}

#[cfg(test)]
mod tests {
    use super::parse_shard_url;

    #[test]
    fn shard_names() {
        let (stem, q, no, n) =
            parse_shard_url("https://h/m/model-00001-of-00003.gguf?download=1").unwrap();
        assert_eq!(
            (stem.as_str(), q.as_str(), no, n),
            ("https://h/m/model", "?download=1", 0, 3)
        );
        assert_eq!(
            super::shard_url(&stem, &q, 2, 3),
            "https://h/m/model-00003-of-00003.gguf?download=1"
        );
        assert!(parse_shard_url("s3://b/model.gguf").is_none());
        assert!(parse_shard_url("s3://b/model-00004-of-00003.gguf").is_none());
        assert!(parse_shard_url("s3://b/model-0001-of-00003.gguf").is_none());
    }
}
