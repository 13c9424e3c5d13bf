//! `ggufkit::hash`: tensor and data-section digests against one-shot hashes of the same bytes and
//! against the corpus's own SHA-256 manifest, a manifest written, read back and checked, and a
//! remote file hashed to the same digests.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use ggufkit::hash::{self, Digest, HashAlgo, Manifest, Problem};
use ggufkit::progress::{NoProgress, Progress};
use ggufkit::{Error, Gguf, ReadOptions};
use sha2::Digest as _;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf")
}

/// Counts what the library reports.
#[derive(Default)]
struct Counted {
    total: AtomicU64,
    done: AtomicU64,
}

impl Progress for Counted {
    fn total(&self, bytes: u64) {
        self.total.store(bytes, Ordering::Relaxed);
    }
    fn advance(&self, bytes: u64) {
        self.done.fetch_add(bytes, Ordering::Relaxed);
    }
}

fn one_shot(algo: HashAlgo, bytes: &[u8]) -> Digest {
    match algo {
        HashAlgo::Xxh64 => Digest::Xxh64(xxhash_rust::xxh64::xxh64(bytes, 0)),
        HashAlgo::Sha256 => Digest::Sha256(sha2::Sha256::digest(bytes).into()),
    }
}

#[test]
fn every_tensor_and_the_data_section_hash_as_their_bytes() {
    let g = Gguf::open(sample()).unwrap();
    let section = &g.as_bytes()[g.data_offset() as usize..g.expected_len() as usize];
    for algo in [HashAlgo::Xxh64, HashAlgo::Sha256] {
        let seen = Counted::default();
        let h = hash::hash_gguf(&g, algo, &seen).unwrap();
        assert_eq!(h.algo, algo);
        assert_eq!(h.tensors.len(), g.tensor_count());
        for (th, t) in h.tensors.iter().zip(g.tensors()) {
            assert_eq!(th.name, t.name());
            assert_eq!(th.digest, one_shot(algo, t.data().unwrap()), "{}", th.name);
        }
        assert_eq!(h.data, one_shot(algo, section));
        assert_eq!(seen.total.into_inner(), section.len() as u64);
        assert_eq!(seen.done.into_inner(), section.len() as u64);
    }
}

/// Tensors that straddle the pass's 4 MiB chunks hash as their bytes too.
#[test]
fn tensors_across_chunks_hash_as_their_bytes() {
    let mut b = ggufkit::GgufBuilder::new();
    let sizes = [1_500_000usize, 7, 2_100_000, 300_001];
    let data: Vec<Vec<u8>> = sizes
        .iter()
        .enumerate()
        .map(|(k, &n)| (0..n * 4).map(|i| (i * 31 + k * 7) as u8).collect())
        .collect();
    for (k, d) in data.iter().enumerate() {
        b.add_tensor_with_data(
            &format!("t{k}"),
            ggufkit::GgmlType::F32,
            &[sizes[k] as u64],
            d,
        )
        .unwrap();
    }
    let bytes = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    let h = hash::hash_gguf(&g, HashAlgo::Xxh64, &NoProgress).unwrap();
    for (th, d) in h.tensors.iter().zip(&data) {
        assert_eq!(th.digest, one_shot(HashAlgo::Xxh64, d), "{}", th.name);
    }
    assert_eq!(
        h.data,
        one_shot(HashAlgo::Xxh64, &bytes[g.data_offset() as usize..])
    );
}

#[test]
fn a_manifest_checks_back_and_names_a_flipped_tensor() {
    let bytes = std::fs::read(sample()).unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    let h = hash::hash_gguf(&g, HashAlgo::Sha256, &NoProgress).unwrap();
    let text = hash::manifest_section("samples/tiny-llama.gguf", &h);
    assert_eq!(text.lines().count(), g.tensor_count() + 2);
    let m = Manifest::parse(&text).unwrap();
    let section = m
        .section_for(Path::new("elsewhere/tiny-llama.gguf"))
        .unwrap();
    assert_eq!(section.algo, Some(HashAlgo::Sha256));
    let ok = section.check(&h);
    assert!(ok.passed());
    assert_eq!(ok.matching.len(), g.tensor_count());

    // flip one byte of the second tensor's data
    let t = g.tensor_at(1).unwrap();
    let name = t.name().into_owned();
    let mut bad = bytes.clone();
    bad[t.absolute_offset() as usize + 1] ^= 0x10;
    let gb = Gguf::from_bytes(&bad).unwrap();
    let hb = hash::hash_gguf(&gb, HashAlgo::Sha256, &NoProgress).unwrap();
    let c = section.check(&hb);
    assert_eq!(c.matching.len(), g.tensor_count() - 1);
    assert_eq!(
        c.problems,
        vec![
            Problem::TensorDiffers {
                name,
                expected: h.tensors[1].digest,
                found: hb.tensors[1].digest,
            },
            Problem::DataDiffers {
                expected: h.data,
                found: hb.data,
            },
        ]
    );
}

#[test]
fn a_file_cut_short_has_no_data_hash() {
    let mut bytes = std::fs::read(sample()).unwrap();
    bytes.truncate(bytes.len() - 40);
    let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
    match hash::hash_gguf(&g, HashAlgo::Xxh64, &NoProgress) {
        Err(Error::DataCutShort { actual, needed }) => {
            assert_eq!(actual, bytes.len() as u64);
            assert_eq!(needed, bytes.len() as u64 + 40);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn manifest_read_names_the_file_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.txt");
    match Manifest::read(&missing) {
        Err(Error::Io {
            context,
            location: Some(ggufkit::error::Location::Path(p)),
            ..
        }) => {
            assert_eq!(context, missing.display().to_string());
            assert_eq!(p, missing);
        }
        other => panic!("{other:?}"),
    }
    let p = dir.path().join("m.txt");
    std::fs::write(
        &p,
        "# gguf hash: a.gguf\nxxh64  0123456789abcdef  data\nbad\n",
    )
    .unwrap();
    match Manifest::read(&p) {
        Err(Error::ManifestLine { line, offset, .. }) => assert_eq!((line, offset), (3, 50)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn tensor_sha256_matches_the_corpus_manifest() {
    let Some(c) = ggufkit_testkit::shared::corpus() else {
        return;
    };
    let syn = c.join("synthetic");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(syn.join("manifest.json")).unwrap()).unwrap();
    let mut compared = 0;
    for (file, entry) in m["files"].as_object().unwrap() {
        let Ok(g) = Gguf::open_with(syn.join(file), &ReadOptions::permissive()) else {
            continue;
        };
        let Ok(h) = hash::hash_gguf(&g, HashAlgo::Sha256, &NoProgress) else {
            continue; // data cut short: nothing to hash
        };
        for t in entry["tensors"].as_array().unwrap() {
            let name = t["name"].as_str().unwrap();
            // the manifest lists a split model's tensors under its first shard only
            let Some(got) = h.tensors.iter().find(|x| x.name == name) else {
                assert!(file.starts_with("split"), "{file}: {name} missing");
                continue;
            };
            assert_eq!(got.digest.to_string(), t["sha256"].as_str().unwrap());
            compared += 1;
        }
    }
    assert!(compared > 50, "only {compared} tensors compared");
}

#[cfg(feature = "remote")]
mod remote {
    use super::*;
    use ggufkit::remote::{RemoteGguf, RemoteOptions};

    fn open(url: &str) -> RemoteGguf {
        RemoteGguf::open_with(url, &RemoteOptions::default(), &ReadOptions::permissive()).unwrap()
    }

    #[test]
    fn a_remote_file_hashes_as_the_local_one() {
        let bytes = std::fs::read(sample()).unwrap();
        let srv = ggufkit_testkit::server::Server::one("/m.gguf", bytes.clone());
        let g = Gguf::from_bytes(&bytes).unwrap();
        for algo in [HashAlgo::Xxh64, HashAlgo::Sha256] {
            let r = open(&srv.url("/m.gguf"));
            let seen = Counted::default();
            let remote = hash::hash_remote(&r, algo, &seen).unwrap();
            assert_eq!(remote, hash::hash_gguf(&g, algo, &NoProgress).unwrap());
            let section = g.expected_len() - g.data_offset();
            assert_eq!(seen.total.into_inner(), section);
            assert_eq!(seen.done.into_inner(), section);
        }
    }

    #[test]
    fn a_remote_file_cut_short_has_no_data_hash() {
        let mut bytes = std::fs::read(sample()).unwrap();
        bytes.truncate(bytes.len() - 40);
        let len = bytes.len() as u64;
        let srv = ggufkit_testkit::server::Server::one("/m.gguf", bytes);
        let r = open(&srv.url("/m.gguf"));
        match hash::hash_remote(&r, HashAlgo::Xxh64, &NoProgress) {
            Err(Error::DataCutShort { actual, needed }) => {
                assert_eq!((actual, needed), (len, len + 40));
            }
            other => panic!("{other:?}"),
        }
    }
}
