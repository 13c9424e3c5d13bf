//! Hashes of tensor data, streamed over the memory map and spread across cores: what `hash` and
//! `diff` share. A progress bar shows on a terminal (stderr) for large inputs.

use ggufkit::Gguf;
use rayon::prelude::*;
use sha2::Digest as _;

pub use crate::output::progress::Progress;

/// A hash algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Algo {
    /// XXH64, seed 0: fast, not cryptographic (the default, as in llama.cpp's gguf-hash).
    Xxh64,
    /// SHA-256.
    Sha256,
}

impl Algo {
    pub fn name(self) -> &'static str {
        match self {
            Algo::Xxh64 => "xxh64",
            Algo::Sha256 => "sha256",
        }
    }

    pub fn from_name(s: &str) -> Option<Algo> {
        match s {
            "xxh64" => Some(Algo::Xxh64),
            "sha256" => Some(Algo::Sha256),
            _ => None,
        }
    }
}

/// Bytes hashed between two progress updates, and the step of the two-core pass in [`hash_file`].
const CHUNK: usize = 4 << 20;

/// A running hash.
enum State {
    Xxh64(Box<xxhash_rust::xxh64::Xxh64>),
    Sha256(Box<sha2::Sha256>),
}

impl State {
    fn new(algo: Algo) -> State {
        match algo {
            Algo::Xxh64 => State::Xxh64(Box::new(xxhash_rust::xxh64::Xxh64::new(0))),
            Algo::Sha256 => State::Sha256(Box::default()),
        }
    }

    fn update(&mut self, b: &[u8]) {
        match self {
            State::Xxh64(h) => h.update(b),
            State::Sha256(h) => h.update(b),
        }
    }

    /// The hex digest (XXH64 as 16 hex digits of the big-endian value, like `xxhsum`).
    fn finish(self) -> String {
        match self {
            State::Xxh64(h) => format!("{:016x}", h.digest()),
            State::Sha256(h) => h.finalize().iter().map(|b| format!("{b:02x}")).collect(),
        }
    }
}

/// The hex digest of `data`, calling `progress` with the bytes done after each chunk.
pub fn digest(algo: Algo, data: &[u8], progress: &(dyn Fn(u64) + Sync)) -> String {
    let mut h = State::new(algo);
    for c in data.chunks(CHUNK) {
        h.update(c);
        progress(c.len() as u64);
    }
    h.finish()
}

/// The tensor data section: from the data offset to the length the header implies, or `None` when
/// the file is shorter than that.
pub fn data_section<'g>(g: &'g Gguf<'_>) -> Option<&'g [u8]> {
    let bytes = g.as_bytes();
    let start = usize::try_from(g.data_offset()).ok()?;
    let end = usize::try_from(g.expected_len()).ok()?;
    bytes.get(start..end)
}

/// Everything `gguf hash` prints for one file: each tensor's digest in file order and the digest
/// of the whole data section.
pub struct FileHashes {
    pub tensors: Vec<(String, String)>,
    pub data: String,
}

/// Hashes every tensor and the whole data section of `g` in one sequential pass over the data, a
/// chunk at a time: one core feeds the chunk to the data-section hash while the other feeds it to
/// the hashes of the tensors it holds. So each byte is read once, in file order (kind to a file
/// larger than memory), and two cores share the hashing. `None` when the data is not all there.
pub fn hash_file(g: &Gguf<'_>, algo: Algo, label: &str) -> Option<FileHashes> {
    let section = data_section(g)?;
    let base = g.data_offset();
    // each tensor's byte range within the section (the parser checked that they follow each
    // other in file order and end within `file_size`)
    let mut spans: Vec<(String, usize, usize)> = Vec::with_capacity(g.tensor_count());
    for t in g.tensors() {
        let start = usize::try_from(t.absolute_offset() - base).ok()?;
        let end = start.checked_add(usize::try_from(t.size()).ok()?)?;
        if end > section.len() {
            return None;
        }
        spans.push((t.name().into_owned(), start, end));
    }
    let mut whole = State::new(algo);
    let mut states: Vec<State> = spans.iter().map(|_| State::new(algo)).collect();
    let bar = Progress::bytes(section.len() as u64, label);
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
        bar.add(chunk.len() as u64);
    }
    bar.finish();
    let tensors = spans
        .into_iter()
        .zip(states)
        .map(|((name, _, _), st)| (name, st.finish()))
        .collect();
    Some(FileHashes {
        tensors,
        data: whole.finish(),
    })
}

/// Digests of many byte ranges at once, each one a job for the pool (largest first, so one big
/// tensor does not end up last on a busy core).
pub fn digest_all(algo: Algo, parts: &[&[u8]], bar: &Progress) -> Vec<String> {
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(parts[i].len()));
    let add = |n: u64| bar.add(n);
    let mut done: Vec<(usize, String)> = order
        .par_iter()
        .map(|&i| (i, digest(algo, parts[i], &add)))
        .collect();
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        let none = |_: u64| {};
        assert_eq!(digest(Algo::Xxh64, b"", &none), "ef46db3751d8e999");
        assert_eq!(
            digest(Algo::Sha256, b"abc", &none),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let big = vec![7u8; CHUNK * 2 + 5];
        let seen = std::sync::atomic::AtomicU64::new(0);
        let count = |n: u64| {
            seen.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        };
        let a = digest(Algo::Xxh64, &big, &count);
        assert_eq!(seen.into_inner(), big.len() as u64);
        assert_eq!(a, format!("{:016x}", xxhash_rust::xxh64::xxh64(&big, 0)));
    }
}
