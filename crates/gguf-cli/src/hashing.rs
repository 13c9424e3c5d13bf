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

/// Bytes hashed between two progress updates.
const CHUNK: usize = 4 << 20;

/// The hex digest of `data` (XXH64 as 16 hex digits of the big-endian value, like `xxhsum`),
/// calling `progress` with the bytes done after each chunk.
pub fn digest(algo: Algo, data: &[u8], progress: &(dyn Fn(u64) + Sync)) -> String {
    match algo {
        Algo::Xxh64 => {
            let mut h = xxhash_rust::xxh64::Xxh64::new(0);
            for c in data.chunks(CHUNK) {
                h.update(c);
                progress(c.len() as u64);
            }
            format!("{:016x}", h.digest())
        }
        Algo::Sha256 => {
            let mut h = sha2::Sha256::new();
            for c in data.chunks(CHUNK) {
                h.update(c);
                progress(c.len() as u64);
            }
            let out = h.finalize();
            out.iter().map(|b| format!("{b:02x}")).collect()
        }
    }
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

/// Hashes every tensor and the whole data section of `g`: the data section on one core while the
/// tensors share the others (so with two cores each reads the data once, in parallel).
/// `None` when the data is not all there.
pub fn hash_file(g: &Gguf<'_>, algo: Algo, label: &str) -> Option<FileHashes> {
    let section = data_section(g)?;
    let tensors: Vec<(String, &[u8])> = g
        .tensors()
        .map(|t| t.data().map(|d| (t.name().into_owned(), d)))
        .collect::<Option<_>>()?;
    let total: u64 = section.len() as u64 + tensors.iter().map(|t| t.1.len() as u64).sum::<u64>();
    let bar = Progress::bytes(total, label);
    let add = |n: u64| bar.add(n);
    let (data, tensors) = rayon::join(
        || digest(algo, section, &add),
        || {
            tensors
                .par_iter()
                .map(|(name, d)| (name.clone(), digest(algo, d, &add)))
                .collect::<Vec<_>>()
        },
    );
    bar.finish();
    Some(FileHashes { tensors, data })
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
