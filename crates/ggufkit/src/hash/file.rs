//! Every tensor's digest and the whole data section's, in one sequential pass over a local file.
#![forbid(unsafe_code)]

use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::read::Gguf;

use super::digest::{Digest, HashAlgo, Hasher, CHUNK};

/// One tensor's digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorHash {
    /// The tensor's name (lossy when it is not UTF-8).
    pub name: String,
    /// The digest of its data, without padding.
    pub digest: Digest,
}

/// A file's hashes: each tensor's in file order, and the whole tensor data section's (from its
/// start to the length the header implies, padding included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileHashes {
    /// The algorithm of every digest.
    pub algo: HashAlgo,
    /// Each tensor, in file order.
    pub tensors: Vec<TensorHash>,
    /// The whole data section.
    pub data: Digest,
}

/// The tensor data section: from the data offset to the length the header implies, or
/// [`Error::DataCutShort`] when the bytes held end before that.
pub fn data_section<'g>(g: &'g Gguf<'_>) -> Result<&'g [u8]> {
    let cut = || Error::DataCutShort {
        actual: g.actual_len().unwrap_or(0),
        needed: g.expected_len(),
    };
    let start = usize::try_from(g.data_offset()).map_err(|_| cut())?;
    let end = usize::try_from(g.expected_len()).map_err(|_| cut())?;
    g.as_bytes().get(start..end).ok_or_else(cut)
}

/// Hashes every tensor and the whole data section of `g` in one sequential pass over the data, a
/// chunk at a time: one core feeds the chunk to the data-section hash while the other feeds it to
/// the hashes of the tensors it holds. So each byte is read once, in file order (kind to a file
/// larger than memory, and the map is told so), and two cores share the hashing. `progress` gets
/// the section's length as its total.
pub fn hash_gguf(g: &Gguf<'_>, algo: HashAlgo, progress: &dyn Progress) -> Result<FileHashes> {
    let section = data_section(g)?;
    g.advise_sequential();
    let base = g.data_offset();
    // each tensor's byte range within the section (the parser checked that they follow each
    // other in file order and end within the length the header implies)
    let mut spans: Vec<(String, usize, usize)> = Vec::with_capacity(g.tensor_count());
    for t in g.tensors() {
        let missing = || Error::TensorDataMissing {
            tensor: t.name().into_owned(),
            offset: t.absolute_offset(),
        };
        let start = t
            .absolute_offset()
            .checked_sub(base)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or_else(missing)?;
        let end = usize::try_from(t.size())
            .ok()
            .and_then(|n| start.checked_add(n))
            .filter(|&e| e <= section.len())
            .ok_or_else(missing)?;
        spans.push((t.name().into_owned(), start, end));
    }
    let mut whole = Hasher::new(algo);
    let mut states: Vec<Hasher> = spans.iter().map(|_| Hasher::new(algo)).collect();
    progress.total(section.len() as u64);
    let mut first_open = 0usize;
    for (ci, chunk) in section.chunks(CHUNK).enumerate() {
        let (c0, c1) = (ci * CHUNK, ci * CHUNK + chunk.len());
        let (spans, states_ref) = (&spans, &mut states);
        rayon::join(
            || whole.update(chunk),
            || {
                let mut k = first_open;
                while k < spans.len() && spans[k].1 < c1 {
                    let (s, e) = (spans[k].1.max(c0), spans[k].2.min(c1));
                    if s < e {
                        states_ref[k].update(&section[s..e]);
                    }
                    k += 1;
                }
            },
        );
        while first_open < spans.len() && spans[first_open].2 <= c1 {
            first_open += 1;
        }
        progress.advance(chunk.len() as u64);
    }
    let tensors = spans
        .into_iter()
        .zip(states)
        .map(|((name, _, _), h)| TensorHash {
            name,
            digest: h.finish(),
        })
        .collect();
    Ok(FileHashes {
        algo,
        tensors,
        data: whole.finish(),
    })
}
