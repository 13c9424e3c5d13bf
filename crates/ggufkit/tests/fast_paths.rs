//! The parser's fast paths (runs of tensor infos, string-array elements) read exactly what its
//! field-by-field path reads: on every corpus file, the fuzz seeds and corpora, every prefix and
//! many one-byte mutations of small files, and crafted cases at the fast paths' edges (batches of
//! names, repeats within and across them, names with NUL or non-ASCII bytes, bad strings before
//! a cut, both byte orders).

use std::path::{Path, PathBuf};

use ggufkit::validate::check_fast_paths;
use ggufkit::Endian;
use ggufkit_testkit::shared;
use ggufkit_testkit::Encoder;

fn agree(what: &str, bytes: &[u8]) {
    if let Err(e) = check_fast_paths(bytes) {
        panic!("{what}: the fast paths and the field-by-field path differ: {e}");
    }
}

/// Every prefix, and one-byte mutations of every byte to a few telling values.
fn agree_mutated(what: &str, bytes: &[u8]) {
    for n in 0..bytes.len() {
        agree(&format!("{what}, first {n} bytes"), &bytes[..n]);
    }
    let mut b = bytes.to_vec();
    for i in 0..b.len() {
        let orig = b[i];
        for v in [0u8, 1, 0x3f, 0x7f, 0x80, 0xff, orig.wrapping_add(1)] {
            b[i] = v;
            agree(&format!("{what}, byte {i} = {v:#x}"), &b);
        }
        b[i] = orig;
    }
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn corpus_files() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let files = shared::gguf_files(&dir);
    assert!(!files.is_empty(), "no corpus files in {}", dir.display());
    for f in files {
        let bytes = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        agree(&f.display().to_string(), &bytes);
    }
}

#[test]
fn fuzz_seeds_and_corpora() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let seeds = files_in(&fuzz.join("seeds"));
    assert!(seeds.len() >= 10, "the committed fuzz seeds are missing");
    for f in &seeds {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        agree(&f.display().to_string(), &bytes);
        if bytes.len() <= 4096 {
            agree_mutated(&f.display().to_string(), &bytes);
        }
    }
    // what the fuzzers found, when they have run on this machine
    let mut corpora = 0;
    for dir in std::fs::read_dir(fuzz.join("corpus"))
        .into_iter()
        .flatten()
        .flatten()
    {
        for f in files_in(&dir.path()) {
            if let Ok(bytes) = std::fs::read(&f) {
                agree(&f.display().to_string(), &bytes);
                corpora += 1;
            }
        }
    }
    if corpora == 0 {
        ggufkit_testkit::skip::skip(
            ggufkit_testkit::skip::Need::FuzzCorpus,
            "the fuzz corpora: fuzz/corpus is empty here (fuzz/run.sh fills it)",
        );
    }
}

/// A header of `names.len()` tensor infos of shape [32] f32 named as given, each at its right
/// offset, and the data; `big` for big-endian.
fn model(big: bool, names: &[Vec<u8>]) -> Vec<u8> {
    let mut c = Encoder::header_in(
        if big { Endian::Big } else { Endian::Little },
        3,
        names.len() as u64,
        1,
    );
    c.kv_str("general.architecture", "llama");
    for (i, n) in names.iter().enumerate() {
        c.str(n).u32(1).u64(32).u32(0).u64(128 * i as u64);
    }
    c.pad(32).data(128 * names.len());
    c.build()
}

fn names(n: usize) -> Vec<Vec<u8>> {
    (0..n).map(|i| format!("blk.{i}.w").into_bytes()).collect()
}

#[test]
fn tensor_infos_at_the_fast_paths_edges() {
    for big in [false, true] {
        let e = if big { "big-endian" } else { "little-endian" };
        for n in [1, 63, 64, 65, 128, 130, 200] {
            agree(&format!("{e}: {n} plain infos"), &model(big, &names(n)));
        }
        // repeats within a batch, across batches, of the last info of a batch
        for (i, j) in [(3, 7), (10, 70), (63, 64), (0, 129), (64, 128)] {
            let mut ns = names(130);
            ns[j] = ns[i].clone();
            agree(&format!("{e}: info {j} repeats {i}"), &model(big, &ns));
        }
        // names the fast path leaves to the field-by-field path
        for (at, name) in [
            (5, b"with\0nul".to_vec()),
            (66, b"blk.3.w\0tail".to_vec()),
            (70, "caf\u{e9}".as_bytes().to_vec()),
            (71, vec![b'x'; 64]),
            (72, vec![b'y'; 63]),
            (73, vec![]),
            (74, vec![0xff, 0xfe]),
        ] {
            let mut ns = names(130);
            ns[at] = name;
            agree(
                &format!("{e}: info {at} with an unusual name"),
                &model(big, &ns),
            );
        }
        // every prefix of a file of 70 infos: cuts inside the fast path's run
        let m = model(big, &names(70));
        let header_end = m.len() - 128 * 70;
        for n in (0..header_end + 64).step_by(3) {
            agree(&format!("{e}: 70 infos cut at {n}"), &m[..n]);
        }
    }
}

#[test]
fn tensor_fields_that_break_rules_inside_a_run() {
    for big in [false, true] {
        let base = model(big, &names(100));
        // the fields of info 80: find its name, then the fields after it
        let name = b"blk.80.w";
        let at = base
            .windows(name.len())
            .position(|w| w == name)
            .expect("info 80");
        let fields = at + name.len();
        let put = |off: usize, raw: &[u8]| {
            let mut b = base.clone();
            b[fields + off..fields + off + raw.len()].copy_from_slice(raw);
            agree(&format!("info 80, {} bytes at {off}", raw.len()), &b);
        };
        let word = |v: u64| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let half = |v: u32| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        put(0, &half(5)); // tensor.dims
        put(0, &half(0)); // no dimensions: the rest shifts
        put(4, &word(u64::MAX)); // tensor.dim
        put(4, &word(33)); // tensor.block for q4_0 below, and a wrong offset after
        put(4, &word(0)); // an empty tensor
        put(12, &half(2)); // q4_0: 32 elements, one block
        put(12, &half(4)); // a removed type
        put(12, &half(99)); // an unknown type
        put(16, &word(7)); // tensor.offset
        put(16, &word(u64::MAX - 3)); // tensor.offset near the top
    }
}

#[test]
fn string_arrays_at_the_fast_paths_edges() {
    for big in [false, true] {
        let tokens = |bad: Option<usize>, long: Option<usize>| {
            let mut c = Encoder::header_in(if big { Endian::Big } else { Endian::Little }, 3, 0, 1);
            c.key("tokenizer.ggml.tokens", 9).u32(8).u64(3000);
            for i in 0..3000 {
                let mut s = format!("tok{i}").into_bytes();
                if Some(i) == bad {
                    s.push(0xc3);
                }
                if Some(i) == long {
                    s = vec![b'z'; 300];
                }
                c.str(&s);
            }
            c.build()
        };
        for (bad, long) in [
            (None, None),
            (Some(0), None),
            (Some(1500), None),
            (Some(2999), None),
            (None, Some(10)),
            (Some(11), Some(10)),
            (Some(9), Some(10)),
        ] {
            let b = tokens(bad, long);
            agree(&format!("3000 tokens, bad {bad:?}, long {long:?}"), &b);
            // a bad string, then a cut further on: both are found, in file order
            for cut in [b.len() - 1, b.len() / 2, b.len() / 3 + 5, 100] {
                agree(
                    &format!("3000 tokens, bad {bad:?}, long {long:?}, cut at {cut}"),
                    &b[..cut],
                );
            }
        }
    }
}
