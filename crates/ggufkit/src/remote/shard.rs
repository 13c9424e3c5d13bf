//! Split models over remote locations: from the first shard's URL
//! (`…-00001-of-00003.gguf`), the other shards are named the same way and their headers are read
//! concurrently; the model is presented as one (metadata from the first shard, tensors across all),
//! with the same surface as the local `ShardedModel`.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use super::{RemoteGguf, RemoteOptions, RemoteStats};
use crate::error::{Error, Result};
use crate::read::{Kv, ReadOptions, TensorInfo};
use crate::value::Value;

const SPLIT_NO: &str = "split.no";
const SPLIT_COUNT: &str = "split.count";
const SPLIT_TENSORS_COUNT: &str = "split.tensors.count";

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
fn shard_url(stem: &str, query: &str, i: u32, n: u32) -> String {
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

fn split_u64(g: &RemoteGguf, key: &str) -> Result<Option<u64>> {
    match g.gguf().get_kv(key) {
        None => Ok(None),
        Some(kv) => kv.value.as_u64().map(Some).ok_or_else(|| {
            Error::Invalid(format!(
                "{}: {key} at byte {} is not a non-negative integer",
                g.url(),
                kv.offset
            ))
        }),
    }
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
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{first}: split.count is {count}, expected 1 to 65535"
                ))
            })?;
        let no = split_u64(&g0, SPLIT_NO)?.unwrap_or(0);
        if no != 0 {
            return Err(Error::Invalid(format!(
                "{first} is shard {} of the model (split.no = {no}), not the first",
                no + 1
            )));
        }
        if count == 1 {
            let declared = split_u64(&g0, SPLIT_TENSORS_COUNT)?;
            return Self::from_shards(vec![g0], declared);
        }
        let (stem, query, name_no, name_count) = parse_shard_url(first).ok_or_else(|| {
            Error::Invalid(format!(
                "{first} is not named like a first shard (STEM-00001-of-{count:05}.gguf)"
            ))
        })?;
        if name_no != 0 || name_count != count {
            return Err(Error::Invalid(format!(
                "{first} is named as shard {} of {name_count}, but its split keys say shard 1 of {count}",
                name_no + 1
            )));
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
                        h.join().unwrap_or_else(|_| {
                            Err(Error::Invalid("a shard reader panicked".into()))
                        })
                    })
                    .collect()
            });
            for (u, g) in batch.iter().zip(opened) {
                let g = g.map_err(|e| match e {
                    Error::Format(d) => {
                        Error::Invalid(format!("{u}: at byte {}: {}", d.offset, d.message))
                    }
                    Error::Io { context, source } => Error::Io {
                        context: format!("{u}: {context}"),
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
                return Err(Error::Invalid(format!(
                    "{}: its split keys say shard {} of {}, expected shard {} of {count}",
                    g.url(),
                    no.map_or("?".into(), |n| (n + 1).to_string()),
                    c.map_or("?".into(), |c| c.to_string()),
                    i + 1
                )));
            }
        }
        let declared = split_u64(&shards[0], SPLIT_TENSORS_COUNT)?;
        Self::from_shards(shards, declared)
    }

    fn from_shards(shards: Vec<RemoteGguf>, declared: Option<u64>) -> Result<Self> {
        let named: Vec<(&crate::read::Gguf<'_>, String)> = shards
            .iter()
            .map(|r| (r.gguf(), r.url().to_string()))
            .collect();
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
            .ok_or_else(|| Error::NotFound(format!("no tensor named '{name}'")))?;
        self.shards[t.shard].tensor_bytes(name)
    }

    /// What reading the model cost so far, over all shards.
    pub fn stats(&self) -> RemoteStats {
        self.shards.iter().fold(RemoteStats::default(), |a, s| {
            let b = s.stats();
            RemoteStats {
                bytes: a.bytes + b.bytes,
                requests: a.requests + b.requests,
            }
        })
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
