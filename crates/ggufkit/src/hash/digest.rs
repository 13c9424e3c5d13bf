//! The two hash algorithms, their digests, and hashing byte slices with progress reports.
#![forbid(unsafe_code)]

use std::fmt;

use rayon::prelude::*;
use sha2::Digest as _;

use crate::progress::Progress;

/// Bytes hashed between two progress reports, and the step of the two-core pass over a file.
pub(crate) const CHUNK: usize = 4 << 20;

/// A hash algorithm of the manifest format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HashAlgo {
    /// XXH64, seed 0: fast, not cryptographic (the default, as in llama.cpp's gguf-hash).
    Xxh64,
    /// SHA-256.
    Sha256,
}

impl HashAlgo {
    /// The name a manifest line starts with: `xxh64`, `sha256`.
    pub fn name(self) -> &'static str {
        match self {
            HashAlgo::Xxh64 => "xxh64",
            HashAlgo::Sha256 => "sha256",
        }
    }

    /// The algorithm of that name.
    pub fn from_name(s: &str) -> Option<HashAlgo> {
        match s {
            "xxh64" => Some(HashAlgo::Xxh64),
            "sha256" => Some(HashAlgo::Sha256),
            _ => None,
        }
    }

    /// The hex digits of one digest.
    pub fn hex_digits(self) -> usize {
        match self {
            HashAlgo::Xxh64 => 16,
            HashAlgo::Sha256 => 64,
        }
    }
}

impl fmt::Display for HashAlgo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A digest; shown as lowercase hex (XXH64 as the 16 digits of its big-endian value, like
/// `xxhsum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Digest {
    /// An XXH64 value.
    Xxh64(u64),
    /// A SHA-256 digest.
    Sha256([u8; 32]),
}

impl Digest {
    /// The algorithm that made it.
    pub fn algo(&self) -> HashAlgo {
        match self {
            Digest::Xxh64(_) => HashAlgo::Xxh64,
            Digest::Sha256(_) => HashAlgo::Sha256,
        }
    }

    /// Reads a digest of `algo` written as hex (either case); `None` unless it has exactly the
    /// algorithm's number of hex digits.
    pub fn from_hex(algo: HashAlgo, hex: &str) -> Option<Digest> {
        if hex.len() != algo.hex_digits() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        match algo {
            HashAlgo::Xxh64 => u64::from_str_radix(hex, 16).ok().map(Digest::Xxh64),
            HashAlgo::Sha256 => {
                let mut out = [0u8; 32];
                for (o, pair) in out.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
                    let pair = std::str::from_utf8(pair).ok()?;
                    *o = u8::from_str_radix(pair, 16).ok()?;
                }
                Some(Digest::Sha256(out))
            }
        }
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Digest::Xxh64(v) => write!(f, "{v:016x}"),
            Digest::Sha256(b) => b.iter().try_for_each(|x| write!(f, "{x:02x}")),
        }
    }
}

/// A running hash of one algorithm.
pub struct Hasher(State);

/// The state behind a box, so that a file's many running hashes stay small in their vector.
enum State {
    Xxh64(Box<xxhash_rust::xxh64::Xxh64>),
    Sha256(Box<sha2::Sha256>),
}

impl Hasher {
    /// A hash of nothing yet.
    pub fn new(algo: HashAlgo) -> Hasher {
        Hasher(match algo {
            HashAlgo::Xxh64 => State::Xxh64(Box::new(xxhash_rust::xxh64::Xxh64::new(0))),
            HashAlgo::Sha256 => State::Sha256(Box::default()),
        })
    }

    /// Feeds the next bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        match &mut self.0 {
            State::Xxh64(h) => h.update(bytes),
            State::Sha256(h) => h.update(bytes),
        }
    }

    /// The digest of everything fed.
    pub fn finish(self) -> Digest {
        match self.0 {
            State::Xxh64(h) => Digest::Xxh64(h.digest()),
            State::Sha256(h) => Digest::Sha256(h.finalize().into()),
        }
    }
}

/// The digest of `data`, telling `progress` the bytes done after each chunk (only
/// [`Progress::advance`]: the caller knows the total).
pub fn digest(algo: HashAlgo, data: &[u8], progress: &dyn Progress) -> Digest {
    let mut h = Hasher::new(algo);
    for c in data.chunks(CHUNK) {
        h.update(c);
        progress.advance(c.len() as u64);
    }
    h.finish()
}

/// Digests of many byte ranges at once, in their order, each one a job for rayon's pool (largest
/// first, so one big range does not end up last on a busy core).
pub fn digest_many(algo: HashAlgo, parts: &[&[u8]], progress: &dyn Progress) -> Vec<Digest> {
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(parts[i].len()));
    let mut done: Vec<(usize, Digest)> = order
        .par_iter()
        .map(|&i| (i, digest(algo, parts[i], progress)))
        .collect();
    done.sort_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    #[test]
    fn known_digests() {
        assert_eq!(
            digest(HashAlgo::Xxh64, b"", &NoProgress).to_string(),
            "ef46db3751d8e999"
        );
        assert_eq!(
            digest(HashAlgo::Sha256, b"abc", &NoProgress).to_string(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let big = vec![7u8; CHUNK * 2 + 5];
        let seen = std::sync::atomic::AtomicU64::new(0);
        let count = |n: u64| {
            seen.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        };
        let a = digest(HashAlgo::Xxh64, &big, &count);
        assert_eq!(seen.into_inner(), big.len() as u64);
        assert_eq!(a, Digest::Xxh64(xxhash_rust::xxh64::xxh64(&big, 0)));
    }

    #[test]
    fn hex_round_trips_and_is_strict() {
        for d in [
            digest(HashAlgo::Xxh64, b"x", &NoProgress),
            digest(HashAlgo::Sha256, b"x", &NoProgress),
        ] {
            let hex = d.to_string();
            assert_eq!(hex.len(), d.algo().hex_digits());
            assert_eq!(Digest::from_hex(d.algo(), &hex), Some(d));
            assert_eq!(Digest::from_hex(d.algo(), &hex.to_uppercase()), Some(d));
        }
        assert_eq!(Digest::from_hex(HashAlgo::Xxh64, "123"), None);
        assert_eq!(Digest::from_hex(HashAlgo::Xxh64, "+123456789abcdef"), None);
        assert_eq!(Digest::from_hex(HashAlgo::Sha256, "0123456789abcdef"), None);
    }

    #[test]
    fn many_digests_keep_their_order() {
        let parts: Vec<&[u8]> = vec![b"a", &[1u8; 100], b"", b"abc"];
        let got = digest_many(HashAlgo::Sha256, &parts, &NoProgress);
        let want: Vec<Digest> = parts
            .iter()
            .map(|p| digest(HashAlgo::Sha256, p, &NoProgress))
            .collect();
        assert_eq!(got, want);
    }
}
