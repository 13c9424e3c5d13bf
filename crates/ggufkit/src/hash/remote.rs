//! A remote file's hashes: the data section streamed in one request, each byte fed to the
//! whole-section digest and to its tensor's as it arrives, never held.
#![forbid(unsafe_code)]

use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::remote::RemoteGguf;

use super::digest::{HashAlgo, Hasher};
use super::file::{FileHashes, TensorHash};

/// [`hash_gguf`](super::hash_gguf) of a remote file, with one request for the whole data section
/// after the header's. Tensors whose data overlap cannot be fed in one pass:
/// [`Error::OverlappingTensors`]. `progress` gets the section's length as its total.
pub fn hash_remote(r: &RemoteGguf, algo: HashAlgo, progress: &dyn Progress) -> Result<FileHashes> {
    let g = r.gguf();
    let (start, end) = (g.data_offset(), g.expected_len());
    if r.len() < end {
        return Err(Error::DataCutShort {
            actual: r.len(),
            needed: end,
        });
    }
    // tensor ranges in data order, with their index in file order
    let mut spans: Vec<(u64, u64, usize)> = g
        .tensors()
        .enumerate()
        .map(|(i, t)| {
            let a = t.absolute_offset();
            (a, a.saturating_add(t.size()), i)
        })
        .collect();
    spans.sort_unstable();
    if let Some(w) = spans.windows(2).find(|w| w[1].0 < w[0].1) {
        let t = g.tensor_at(w[1].2);
        return Err(Error::OverlappingTensors {
            tensor: t.map(|t| t.name().into_owned()).unwrap_or_default(),
            offset: w[1].0,
        });
    }
    let mut hashers: Vec<Hasher> = (0..spans.len()).map(|_| Hasher::new(algo)).collect();
    let mut whole = Hasher::new(algo);
    let mut pos = start;
    let mut next = 0usize;
    progress.total(end - start);
    r.stream_range(start..end, &mut |chunk: &[u8]| {
        whole.update(chunk);
        let chunk_end = pos + chunk.len() as u64;
        while next < spans.len() && spans[next].1 <= pos {
            next += 1;
        }
        let mut k = next;
        while k < spans.len() && spans[k].0 < chunk_end {
            let (a, b, i) = spans[k];
            let (lo, hi) = (a.max(pos), b.min(chunk_end));
            if lo < hi {
                hashers[i].update(&chunk[(lo - pos) as usize..(hi - pos) as usize]);
            }
            k += 1;
        }
        pos = chunk_end;
        progress.advance(chunk.len() as u64);
        Ok(())
    })?;
    let tensors = g
        .tensors()
        .zip(hashers)
        .map(|(t, h)| TensorHash {
            name: t.name().into_owned(),
            digest: h.finish(),
        })
        .collect();
    Ok(FileHashes {
        algo,
        tensors,
        data: whole.finish(),
    })
}
