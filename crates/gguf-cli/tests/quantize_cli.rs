//! `gguf quantize` end to end: the plan of `--dry-run`, outputs byte-identical with
//! llama-quantize's on the corpus's tiny llama, the options, and the refusals (nothing written).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{gguf, run};
use ggufkit::{GgmlType, Gguf, GgufBuilder, OwnedValue};
use ggufkit_testkit::shared;
use sha2::{Digest, Sha256};

/// A small llama in f16: 8 layers 256 wide, GQA 4, feed-forward 384 wide (so ffn_down rows do
/// not fit 256-blocks and fall back), untied output.
fn model(dir: &Path) -> PathBuf {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", OwnedValue::String("llama".into()))
        .unwrap();
    b.set("general.file_type", OwnedValue::U32(1)).unwrap();
    b.set("llama.block_count", OwnedValue::U32(8)).unwrap();
    b.set("llama.attention.head_count", OwnedValue::U32(8))
        .unwrap();
    b.set("llama.attention.head_count_kv", OwnedValue::U32(2))
        .unwrap();
    let mut shapes: Vec<(String, Vec<u64>)> = vec![
        ("token_embd.weight".into(), vec![256, 64]),
        ("output_norm.weight".into(), vec![256]),
        ("output.weight".into(), vec![256, 64]),
    ];
    for l in 0..8 {
        for (n, s) in [
            ("attn_norm", vec![256]),
            ("attn_q", vec![256, 256]),
            ("attn_k", vec![256, 64]),
            ("attn_v", vec![256, 64]),
            ("attn_output", vec![256, 256]),
            ("ffn_norm", vec![256]),
            ("ffn_gate", vec![256, 384]),
            ("ffn_up", vec![256, 384]),
            ("ffn_down", vec![384, 256]),
        ] {
            shapes.push((format!("blk.{l}.{n}.weight"), s));
        }
    }
    let mut seed = 12345u32;
    let data: Vec<Vec<u8>> = shapes
        .iter()
        .map(|(_, s)| {
            let n: u64 = s.iter().product();
            let mut out = Vec::new();
            for _ in 0..n {
                seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
                let v = (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
                if s.len() == 1 {
                    out.extend(v.to_le_bytes());
                } else {
                    out.extend(ggufkit::quant::f32_to_f16(v).to_le_bytes());
                }
            }
            out
        })
        .collect();
    for ((n, s), d) in shapes.iter().zip(&data) {
        let ty = if s.len() == 1 {
            GgmlType::F32
        } else {
            GgmlType::F16
        };
        b.add_tensor_with_data(n, ty, s, d).unwrap();
    }
    let p = dir.join("m-f16.gguf");
    fs::write(&p, b.to_vec().unwrap()).unwrap();
    p
}

fn types_of(p: &Path) -> Vec<(String, GgmlType)> {
    let g = Gguf::open(p).unwrap();
    g.tensors()
        .map(|t| (t.name().into_owned(), t.ggml_type().unwrap()))
        .collect()
}

fn type_of(p: &Path, name: &str) -> GgmlType {
    Gguf::open(p)
        .unwrap()
        .tensor(name)
        .unwrap()
        .ggml_type()
        .unwrap()
}

#[test]
fn dry_run_prints_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    let (code, out, err) = run(
        dir.path(),
        &["quantize", "--dry-run", "m-f16.gguf", "Q4_K_M"],
    );
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("quantize_dry_run_q4_k_m", out);
    // nothing written, not even the default output
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_run_writes_what_the_plan_says() {
    let dir = tempfile::tempdir().unwrap();
    let src = model(dir.path());
    let (code, plan, err) = run(
        dir.path(),
        &["quantize", "--dry-run", "m-f16.gguf", "q4_k_m"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(dir.path(), &["quantize", "m-f16.gguf", "q.gguf", "15", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("wrote q.gguf"), "{err}");
    let q = dir.path().join("q.gguf");
    let types = types_of(&q);
    // the output lists the tensors in the plan's order with the plan's types
    for ((name, ty), line) in types.iter().zip(plan.lines().skip(1)) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[0], name);
        assert!(cells.contains(&ty.name()), "{line} vs {ty}");
    }
    let g = Gguf::open(&q).unwrap();
    assert_eq!(g.get_u64("general.file_type"), Some(15));
    assert_eq!(g.get_u64("general.quantization_version"), Some(2));
    let last: Vec<String> = g.metadata().map(|k| k.key().into_owned()).collect();
    assert_eq!(
        &last[last.len() - 2..],
        ["general.quantization_version", "general.file_type"]
    );
    assert_eq!(type_of(&q, "output.weight"), GgmlType::Q6_K);
    assert_eq!(type_of(&q, "blk.1.attn_q.weight"), GgmlType::Q4_K);
    assert_eq!(
        type_of(&q, "blk.0.ffn_down.weight"),
        GgmlType::Q8_0,
        "q6_k falls back"
    );
    assert_eq!(
        type_of(&q, "blk.4.ffn_down.weight"),
        GgmlType::Q5_0,
        "q4_k falls back"
    );
    assert_eq!(type_of(&q, "blk.0.attn_norm.weight"), GgmlType::F32);
    // -j and NTHREADS give the same bytes as one thread
    let (code, _, err) = run(
        dir.path(),
        &["quantize", "-j", "1", "m-f16.gguf", "q1.gguf", "Q4_K_M"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        fs::read(&q).unwrap(),
        fs::read(dir.path().join("q1.gguf")).unwrap()
    );
    // without OUT: ggml-model-PRESET.gguf beside the input
    let (code, _, err) = run(dir.path(), &["quantize", "m-f16.gguf", "Q8_0"]);
    assert_eq!(code, 0, "{err}");
    assert!(types_of(&dir.path().join("ggml-model-Q8_0.gguf"))
        .iter()
        .any(|(_, t)| *t == GgmlType::Q8_0));
    // an existing output needs --force
    let (code, _, err) = run(dir.path(), &["quantize", "m-f16.gguf", "q.gguf", "Q8_0"]);
    assert_eq!(code, 2);
    assert!(err.contains("exists"), "{err}");
    assert_eq!(
        type_of(&q, "blk.1.attn_q.weight"),
        GgmlType::Q4_K,
        "left alone"
    );
    let _ = src;
}

#[test]
fn options_change_the_plan() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    fs::write(
        dir.path().join("types.txt"),
        "attn_k=q8_0\n blk\\.7\\.=f16\n",
    )
    .unwrap();
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "m-f16.gguf",
            "o.gguf",
            "Q4_K_M",
            "--tensor-type",
            "ATTN_Q=q5_k",
            "--tensor-type-file",
            "types.txt",
            "--output-tensor-type",
            "q8_0",
            "--token-embedding-type",
            "f16",
            "--override-kv",
            "general.name=str:tested",
            "--override-kv",
            "llama.block_count=int:8",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let o = dir.path().join("o.gguf");
    assert_eq!(type_of(&o, "blk.0.attn_q.weight"), GgmlType::Q5_K);
    assert_eq!(type_of(&o, "blk.0.attn_k.weight"), GgmlType::Q8_0);
    assert_eq!(
        type_of(&o, "blk.7.ffn_up.weight"),
        GgmlType::F16,
        "blk.7 pattern"
    );
    assert_eq!(type_of(&o, "output.weight"), GgmlType::Q8_0);
    assert_eq!(type_of(&o, "token_embd.weight"), GgmlType::F16);
    let g = Gguf::open(&o).unwrap();
    assert_eq!(g.get_str("general.name"), Some("tested"));
    let keys: Vec<String> = g.metadata().map(|k| k.key().into_owned()).collect();
    assert_eq!(
        keys.last().unwrap(),
        "llama.block_count",
        "overrides come last"
    );
    // --pure: one type (with the fallback); --leave-output-tensor
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--pure",
            "--leave-output-tensor",
            "m-f16.gguf",
            "p.gguf",
            "Q4_K_M",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let p = dir.path().join("p.gguf");
    assert_eq!(type_of(&p, "output.weight"), GgmlType::F16);
    assert_eq!(type_of(&p, "blk.0.attn_v.weight"), GgmlType::Q4_K);
    assert_eq!(type_of(&p, "blk.0.ffn_down.weight"), GgmlType::Q5_0);
    // COPY keeps every type and the file type
    let (code, _, err) = run(dir.path(), &["quantize", "m-f16.gguf", "c.gguf", "COPY"]);
    assert_eq!(code, 0, "{err}");
    let c = dir.path().join("c.gguf");
    assert!(types_of(&c)
        .iter()
        .all(|(_, t)| matches!(t, GgmlType::F16 | GgmlType::F32)));
    assert_eq!(
        Gguf::open(&c).unwrap().get_u64("general.file_type"),
        Some(1)
    );
}

#[test]
fn refusals_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    assert_eq!(
        run(dir.path(), &["quantize", "m-f16.gguf", "q.gguf", "Q8_0"]).0,
        0
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["quantize", "q.gguf", "r.gguf", "Q4_0"],
            "--allow-requantize",
        ),
        (
            &["quantize", "m-f16.gguf", "r.gguf", "Q9_9"],
            "not a llama-quantize preset",
        ),
        (
            &[
                "quantize",
                "m-f16.gguf",
                "r.gguf",
                "Q4_0",
                "--tensor-type",
                "attn_q",
            ],
            "PATTERN=TYPE",
        ),
        (
            &[
                "quantize",
                "m-f16.gguf",
                "r.gguf",
                "Q4_0",
                "--tensor-type",
                "attn_q=q9",
            ],
            "not a ggml tensor type",
        ),
        (
            &[
                "quantize",
                "m-f16.gguf",
                "r.gguf",
                "Q4_0",
                "--output-tensor-type",
                "x",
            ],
            "--output-tensor-type",
        ),
        (
            &[
                "quantize",
                "m-f16.gguf",
                "r.gguf",
                "Q4_0",
                "--override-kv",
                "a=int:x",
            ],
            "--override-kv",
        ),
        (
            &["quantize", "m-f16.gguf", "r.gguf", "IQ2_XXS"],
            "importance matrix",
        ),
        (
            &["quantize", "m-f16.gguf", "m-f16.gguf", "Q4_0", "--force"],
            "is the input file",
        ),
        (
            &["quantize", "missing.gguf", "r.gguf", "Q4_0"],
            "missing.gguf",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err) = run(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(!dir.path().join("r.gguf").exists(), "{args:?}");
    }
    // a truncated input: refused before anything is written
    let bytes = fs::read(dir.path().join("m-f16.gguf")).unwrap();
    fs::write(dir.path().join("cut.gguf"), &bytes[..bytes.len() - 1000]).unwrap();
    let (code, _, err) = run(dir.path(), &["quantize", "cut.gguf", "r.gguf", "Q4_0"]);
    assert_eq!(code, 2, "{err}");
    assert!(!dir.path().join("r.gguf").exists());
    let left: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 3, "no temporary files left: {left:?}");
}

#[test]
fn convert_says_what_it_skipped() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    let (code, _, err) = run(
        dir.path(),
        &["convert", "m-f16.gguf", "-o", "c.gguf", "--type", "q4_k"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("re-quantized 50 of 75 tensors to q4_k"),
        "{err}"
    );
    assert!(
        err.contains("8 (rows not a multiple of the block size): blk.0.ffn_down.weight"),
        "{err}"
    );
    assert!(
        err.contains("17 (one dimension, as norms and biases)"),
        "{err}"
    );
    assert!(err.contains("gguf quantize"), "{err}");
    // a removed type id is refused by its name, with the reason the type table gives
    let (code, _, err) = run(
        dir.path(),
        &[
            "convert",
            "m-f16.gguf",
            "-o",
            "d.gguf",
            "--type",
            "Q4_0_8_8",
        ],
    );
    assert_ne!(code, 0, "{err}");
    assert!(
        err.contains("--type: 'Q4_0_8_8' is ggml type 33 (q4_0_8_8), which tensors can no longer have: removed from ggml in December 2024"),
        "{err}"
    );
    assert!(!dir.path().join("d.gguf").exists());
}

fn sha256(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

#[test]
fn tiny_llama_as_llama_quantize_writes_it() {
    let Some(src) = shared::find("corpus/models/llama-2-tiny-random.gguf") else {
        return;
    };
    let Some(manifests) = shared::find("vectors/quantize/manifests") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for preset in ["Q8_0", "Q4_0", "Q4_K_M", "Q2_K", "IQ4_NL"] {
        let m: serde_json::Value = serde_json::from_slice(
            &fs::read(manifests.join(format!("tiny.{preset}.json"))).unwrap(),
        )
        .unwrap();
        let out = dir.path().join(format!("{preset}.gguf"));
        gguf(dir.path())
            .arg("quantize")
            .arg(&src)
            .arg(&out)
            .args([preset, "2"])
            .assert()
            .success();
        assert_eq!(
            sha256(&fs::read(&out).unwrap()),
            m["sha256"].as_str().unwrap(),
            "{preset}"
        );
    }
}

/// A legacy (.dat) importance matrix with `entries` (name, values), 8 chunks of "calib.txt".
fn legacy_imatrix(entries: &[(&str, Vec<f32>)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend((entries.len() as i32).to_le_bytes());
    for (name, v) in entries {
        b.extend((name.len() as i32).to_le_bytes());
        b.extend(name.as_bytes());
        b.extend(1i32.to_le_bytes());
        b.extend((v.len() as i32).to_le_bytes());
        for x in v {
            b.extend(x.to_le_bytes());
        }
    }
    b.extend(8i32.to_le_bytes());
    b.extend(9i32.to_le_bytes());
    b.extend(b"calib.txt");
    b
}

#[test]
fn importance_matrices() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    let ones = |n: usize| vec![1.0f32; n];
    let entries: Vec<(String, Vec<f32>)> = (0..8)
        .flat_map(|l| {
            [
                (format!("blk.{l}.ffn_down.weight"), ones(384)),
                (format!("blk.{l}.attn_q.weight"), ones(256)),
            ]
        })
        .collect();
    let e: Vec<(&str, Vec<f32>)> = entries
        .iter()
        .map(|(n, v)| (n.as_str(), v.clone()))
        .collect();
    fs::write(dir.path().join("im.dat"), legacy_imatrix(&e)).unwrap();
    // with a matrix, Q4_0 gives the first eighth's ffn_down q4_1; the dry run shows it
    let (code, out, err) = run(
        dir.path(),
        &[
            "quantize",
            "--dry-run",
            "--imatrix",
            "im.dat",
            "m-f16.gguf",
            "Q4_0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("blk.0.ffn_down.weight"))
        .unwrap();
    assert!(line.contains("q4_1"), "{line}");
    let (_, out, _) = run(dir.path(), &["quantize", "--dry-run", "m-f16.gguf", "Q4_0"]);
    let line = out
        .lines()
        .find(|l| l.starts_with("blk.0.ffn_down.weight"))
        .unwrap();
    assert!(line.contains("q4_0"), "{line}");
    // --exclude-weights that removes every entry: the plan is the one without a matrix
    let (code, out2, err) = run(
        dir.path(),
        &[
            "quantize",
            "--dry-run",
            "--imatrix",
            "im.dat",
            "--exclude-weights",
            "blk.",
            "m-f16.gguf",
            "Q4_0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(out2, out);
    // quantized with the matrix: written, with llama-quantize's quantize.imatrix.* keys
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--imatrix",
            "im.dat",
            "m-f16.gguf",
            "q.gguf",
            "Q4_0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let q = fs::read(dir.path().join("q.gguf")).unwrap();
    assert!(
        q.windows(21).any(|w| w == b"quantize.imatrix.file"),
        "no quantize.imatrix.file key"
    );
    fs::remove_file(dir.path().join("q.gguf")).unwrap();
    // another model's matrix, a non-finite value, a wrong length, a truncated file
    let bad: &[(&str, Vec<u8>, &str)] = &[
        (
            "other.dat",
            legacy_imatrix(&[("blk.0.attn_qkv.weight", ones(256))]),
            "another model",
        ),
        (
            "nan.dat",
            legacy_imatrix(&[("blk.0.attn_q.weight", vec![f32::NAN; 256])]),
            "non-finite",
        ),
        (
            "len.dat",
            legacy_imatrix(&[("blk.0.attn_q.weight", ones(100))]),
            "100 importance values",
        ),
        (
            "cut.dat",
            legacy_imatrix(&e)[..2000].to_vec(),
            "the file ends in",
        ),
    ];
    for (file, bytes, want) in bad {
        fs::write(dir.path().join(file), bytes).unwrap();
        let (code, _, err) = run(
            dir.path(),
            &[
                "quantize",
                "--imatrix",
                file,
                "m-f16.gguf",
                "q.gguf",
                "Q4_K_M",
            ],
        );
        assert_eq!(code, 2, "{file}: {err}");
        assert!(err.contains(want), "{file}: {err}");
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
        assert!(!dir.path().join("q.gguf").exists(), "{file}");
    }
    // --include-weights and --exclude-weights exclude each other
    let (code, _, _) = run(
        dir.path(),
        &[
            "quantize",
            "--imatrix",
            "im.dat",
            "--include-weights",
            "a",
            "--exclude-weights",
            "b",
            "m-f16.gguf",
            "q.gguf",
            "Q4_0",
        ],
    );
    assert_eq!(code, 2);
}

#[test]
fn pruned_layers() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--prune-layers",
            "2,1",
            "m-f16.gguf",
            "p.gguf",
            "Q8_0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let g = Gguf::open(dir.path().join("p.gguf")).unwrap();
    assert_eq!(g.tensor_count(), 75 - 2 * 9);
    assert!(g.tensor("blk.5.attn_q.weight").is_some());
    assert!(g.tensor("blk.6.attn_q.weight").is_none());
    assert_eq!(g.get_u64("llama.block_count"), Some(6));
    let keys: Vec<String> = g.metadata().map(|k| k.key().into_owned()).collect();
    assert_eq!(keys.last().unwrap(), "llama.block_count");
    // blk.1 of the output is blk.3 of the input, converted alike
    let src = Gguf::open(dir.path().join("m-f16.gguf")).unwrap();
    let a = g.tensor("blk.1.ffn_up.weight").unwrap();
    let b = src.tensor("blk.3.ffn_up.weight").unwrap();
    let floats = |t: &ggufkit::TensorInfo<'_>| {
        ggufkit::quant::dequantize_to_vec(t.ggml_type().unwrap(), t.data().unwrap(), t.endian())
            .unwrap()
    };
    let (x, y) = (floats(&a), floats(&b));
    assert!(x.iter().zip(&y).all(|(p, q)| (p - q).abs() < 0.01));
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--prune-layers",
            "1,x",
            "m-f16.gguf",
            "r.gguf",
            "Q8_0",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("invalid layer id 'x'"), "{err}");
}

/// Every tensor's name, type and bytes.
fn tensor_bytes(p: &Path) -> Vec<(String, GgmlType, Vec<u8>)> {
    let g = Gguf::open(p).unwrap();
    let mut v: Vec<_> = g
        .tensors()
        .map(|t| {
            (
                t.name().into_owned(),
                t.ggml_type().unwrap(),
                t.data().unwrap().to_vec(),
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

#[test]
fn recipes_reproduce_the_tensors() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    // a preset's output: the recipe names the preset
    let (code, _, err) = run(dir.path(), &["quantize", "m-f16.gguf", "p.gguf", "Q4_K_M"]);
    assert_eq!(code, 0, "{err}");
    let (code, recipe, err) = run(dir.path(), &["recipe", "p.gguf"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("matches preset Q4_K_M"), "{err}");
    assert!(
        err.contains("gguf quantize SOURCE OUT Q4_K_M --tensor-type-file"),
        "{err}"
    );
    // 8 layers x 7 weights, the embeddings and the output; not the norms
    assert_eq!(recipe.lines().count(), 58, "{recipe}");
    assert!(
        recipe.contains("^blk\\.0\\.ffn_down\\.weight$=q8_0\n"),
        "{recipe}"
    );
    // a mix no preset gives, fed back under another preset, gives the same tensors
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--tensor-type",
            "attn_q=q8_0",
            "--tensor-type",
            "ffn_up=iq4_nl",
            "--tensor-type",
            "blk\\.[25]\\.attn_output=q5_1",
            "m-f16.gguf",
            "mix.gguf",
            "Q4_K_M",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, recipe, err) = run(dir.path(), &["recipe", "mix.gguf"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("matches no preset"), "{err}");
    assert!(err.contains(" Q4_K_M --tensor-type-file"), "{err}");
    fs::write(dir.path().join("mix.txt"), &recipe).unwrap();
    for preset in ["Q4_K_M", "Q2_K", "Q8_0"] {
        let out = format!("again-{preset}.gguf");
        let (code, _, err) = run(
            dir.path(),
            &[
                "quantize",
                "--tensor-type-file",
                "mix.txt",
                "m-f16.gguf",
                &out,
                preset,
            ],
        );
        assert_eq!(code, 0, "{err}");
        assert!(
            tensor_bytes(&dir.path().join("mix.gguf")) == tensor_bytes(&dir.path().join(&out)),
            "{preset}: the tensors differ"
        );
    }
    // with the preset it names, the whole file is the same
    assert_eq!(
        fs::read(dir.path().join("mix.gguf")).unwrap(),
        fs::read(dir.path().join("again-Q4_K_M.gguf")).unwrap()
    );
    // --json: the same recipe, the counts, the preset
    let (code, out, err) = run(dir.path(), &["recipe", "--json", "mix.gguf"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["tensor_type_file"].as_str(), Some(recipe.as_str()));
    assert_eq!(j["preset"].as_str(), Some("Q4_K_M"));
    assert_eq!(j["file_type"].as_u64(), Some(15));
    assert!(j["matches"].as_array().unwrap().is_empty());
    let q8 = recipe.lines().filter(|l| l.ends_with("=q8_0")).count();
    assert!(q8 >= 8, "{recipe}");
    assert_eq!(j["type_counts"]["q8_0"].as_u64(), Some(q8 as u64));
    assert_eq!(j["type_counts"]["iq4_nl"].as_u64(), Some(8));
    assert_eq!(j["tensors"].as_array().unwrap().len(), 58);
    // a file that is not a GGUF: one line, exit 2
    fs::write(dir.path().join("x.gguf"), b"not a gguf").unwrap();
    let (code, _, err) = run(dir.path(), &["recipe", "x.gguf"]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn the_recipe_of_one_shard_of_a_split_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    ggufkit_testkit::fixtures::tiny_model().write(dir.path(), "m.gguf");
    let (code, _, err) = run(
        dir.path(),
        &["split", "m.gguf", "--max-tensors", "3", "-o", "s"],
    );
    assert_eq!(code, 0, "{err}");
    let first = "s-00001-of-00003.gguf";
    for file in [first, "s-00002-of-00003.gguf"] {
        let (code, out, err) = run(dir.path(), &["recipe", file]);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(out.is_empty(), "{file}: {out}");
        assert!(err.contains("of 3 of a split model"), "{file}: {err}");
        assert!(err.contains("gguf merge"), "{file}: {err}");
    }
    // merged, it has a recipe
    let (code, _, err) = run(dir.path(), &["merge", first, "-o", "whole.gguf"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(dir.path(), &["recipe", "whole.gguf"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_file_without_quantizable_tensors_tells_no_preset() {
    let dir = tempfile::tempdir().unwrap();
    ggufkit_testkit::encode::Model::new()
        .kv("general.architecture", ggufkit_testkit::V::str("llama"))
        .f32("output_norm.weight", &[4], &[1.0; 4])
        .write(dir.path(), "vocab.gguf");
    let (code, recipe, err) = run(dir.path(), &["recipe", "vocab.gguf"]);
    assert_eq!(code, 0, "{err}");
    assert!(recipe.is_empty(), "{recipe}");
    assert!(err.contains("0 tensors quantizable: none"), "{err}");
    assert!(err.contains("the file tells no preset"), "{err}");
    assert!(!err.contains("matches preset"), "{err}");
    let (_, out, _) = run(dir.path(), &["recipe", "--json", "vocab.gguf"]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(j["matches"].as_array().unwrap().is_empty(), "{out}");
    assert!(j["preset"].is_null(), "{out}");
}

/// llama-quantize as `../shared/tools/llama-quantize.sh` builds it, or `None` after a skip.
fn llama_quantize() -> Option<PathBuf> {
    ggufkit_testkit::reference::llama_quantize()
}

/// The F16 Gemma 3 llama-quantize started from (sha256 2fc5918b...): `gemma-3-270m-f16.gguf`
/// beside the Q4_K_M original (`ggufkit_testkit::reference::gemma`), or the one ggufkit's
/// `quantize_vectors` test makes in the temporary folder. Not made here: the tests that use it
/// quantize the whole model, minutes in a debug build, so they run where it was made on purpose.
fn gemma_f16() -> Option<PathBuf> {
    let orig = ggufkit_testkit::reference::gemma()?;
    let candidates = [
        orig.with_file_name("gemma-3-270m-f16.gguf"),
        std::env::temp_dir().join("ggufkit-quantize-gemma-3-270m-f16.gguf"),
    ];
    let found = candidates.iter().find(|p| p.exists()).cloned();
    if found.is_none() {
        ggufkit_testkit::skip::skip(
            ggufkit_testkit::skip::Need::GemmaF16,
            format!(
                "neither {} nor {} exists (ggufkit's quantize_vectors test makes the second)",
                candidates[0].display(),
                candidates[1].display()
            ),
        );
    }
    found
}

/// [`model`] with the hyperparameters llama.cpp's loader wants besides those the rules read, so
/// that llama-quantize loads it too.
fn loadable_model(dir: &Path) -> PathBuf {
    let p = model(dir);
    for (key, ty, value) in [
        ("llama.context_length", "uint32", "512"),
        ("llama.embedding_length", "uint32", "256"),
        ("llama.feed_forward_length", "uint32", "384"),
        ("llama.rope.dimension_count", "uint32", "32"),
        (
            "llama.attention.layer_norm_rms_epsilon",
            "float32",
            "0.00001",
        ),
        ("llama.vocab_size", "uint32", "64"),
    ] {
        let (code, _, err) = run(
            dir,
            &[
                "meta",
                "set",
                "m-f16.gguf",
                key,
                value,
                "--type",
                ty,
                "--in-place",
            ],
        );
        assert_eq!(code, 0, "{key}: {err}");
    }
    p
}

/// The recipe of llama-quantize's own output, given back to `gguf quantize` under another
/// preset, gives its tensors byte for byte; and llama-quantize reads the recipe too.
#[test]
fn recipes_of_llama_quantize_outputs() {
    let Some(lq) = llama_quantize() else { return };
    let dir = tempfile::tempdir().unwrap();
    loadable_model(dir.path());
    let ok = std::process::Command::new(&lq)
        .current_dir(dir.path())
        .args(["m-f16.gguf", "lq.gguf", "Q3_K_M", "2"])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
            .lines()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let (code, recipe, err) = run(dir.path(), &["recipe", "lq.gguf"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("matches preset Q3_K_M"), "{err}");
    fs::write(dir.path().join("r.txt"), &recipe).unwrap();
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--tensor-type-file",
            "r.txt",
            "m-f16.gguf",
            "ours.gguf",
            "Q5_K_S",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        tensor_bytes(&dir.path().join("lq.gguf")) == tensor_bytes(&dir.path().join("ours.gguf")),
        "the tensors differ from llama-quantize's"
    );
    let ok = std::process::Command::new(&lq)
        .current_dir(dir.path())
        .args([
            "--tensor-type-file",
            "r.txt",
            "m-f16.gguf",
            "lq2.gguf",
            "Q5_K_S",
            "2",
        ])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
            .lines()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        tensor_bytes(&dir.path().join("lq2.gguf")) == tensor_bytes(&dir.path().join("ours.gguf")),
        "llama-quantize with the recipe gives other tensors"
    );
}

/// Gemma 3 with llama-quantize's importance matrix, run as the vectors' command is (in a folder
/// holding the inputs under its names, since the output records the matrix's path as given):
/// the whole file is llama-quantize's. The F16 source is [`gemma_f16`]'s.
#[test]
fn gemma_with_an_imatrix_as_llama_quantize_writes_it() {
    let Some(src) = gemma_f16() else { return };
    let Some(vectors) = shared::find("vectors/quantize") else {
        return;
    };
    let case = "gemma3-f16.imatrix.Q4_K_M";
    let m: serde_json::Value =
        serde_json::from_slice(&fs::read(vectors.join(format!("manifests/{case}.json"))).unwrap())
            .unwrap();
    let command: Vec<&str> = m["command"].as_str().unwrap().split(' ').collect();
    assert_eq!(command[0], "llama-quantize");
    let dir = tempfile::tempdir().unwrap();
    let link = |from: &Path, name: &str| {
        #[cfg(unix)]
        std::os::unix::fs::symlink(from, dir.path().join(name)).unwrap();
        #[cfg(not(unix))]
        fs::copy(from, dir.path().join(name)).unwrap();
    };
    link(&src, "gemma-3-270m-f16.gguf");
    link(
        &vectors.join("gemma-3-270m-f16.imatrix.gguf"),
        "gemma-3-270m-f16.imatrix.gguf",
    );
    let mut args = vec!["quantize"];
    args.extend(&command[1..]);
    let (code, _, err) = run(dir.path(), &args);
    assert_eq!(code, 0, "{err}");
    let out = dir.path().join(command[command.len() - 3]);
    assert_eq!(
        sha256(&fs::read(out).unwrap()),
        m["sha256"].as_str().unwrap(),
        "{case}: whole file"
    );
}

/// The bad inputs not covered above: a type a tensor cannot take (rows of 96 in q1_0's
/// 128-blocks, and no fallback for q1_0), and a matrix without the tensors a 2-bit preset needs
/// it for: one line, exit 2, nothing written.
#[test]
fn types_a_tensor_cannot_take_and_partial_matrices() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    let mut b = GgufBuilder::new();
    b.set("general.architecture", OwnedValue::String("llama".into()))
        .unwrap();
    b.set("llama.block_count", OwnedValue::U32(1)).unwrap();
    let data: Vec<u8> = (0..96 * 4)
        .flat_map(|i| ggufkit::quant::f32_to_f16(i as f32 / 400.0).to_le_bytes())
        .collect();
    b.add_tensor_with_data("blk.0.attn_q.weight", GgmlType::F16, &[96, 4], &data)
        .unwrap();
    fs::write(dir.path().join("narrow.gguf"), b.to_vec().unwrap()).unwrap();
    let attn_q_only: Vec<(String, Vec<f32>)> = (0..8)
        .map(|l| (format!("blk.{l}.attn_q.weight"), vec![1.0f32; 256]))
        .collect();
    let e: Vec<(&str, Vec<f32>)> = attn_q_only
        .iter()
        .map(|(n, v)| (n.as_str(), v.clone()))
        .collect();
    fs::write(dir.path().join("part.dat"), legacy_imatrix(&e)).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "quantize",
                "--tensor-type",
                "attn_q=q1_0",
                "narrow.gguf",
                "r.gguf",
                "Q4_0",
            ],
            "blk.0.attn_q.weight",
        ),
        (
            &[
                "quantize",
                "--imatrix",
                "part.dat",
                "m-f16.gguf",
                "r.gguf",
                "IQ2_XXS",
            ],
            "needs an importance matrix",
        ),
    ];
    for (args, want) in cases {
        let (code, _, err) = run(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(!dir.path().join("r.gguf").exists(), "{args:?}");
    }
    let left = fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(left, 3, "no temporary files left");
}

/// The metadata keys of a file, in order.
fn keys_of(p: &Path) -> Vec<String> {
    Gguf::open(p)
        .unwrap()
        .metadata()
        .map(|k| k.key().into_owned())
        .collect()
}

/// The corpus's split of the tiny llama (three shards by llama.cpp's gguf-split), given by its
/// first shard, is read whole: the output is llama-quantize's output of the unsplit model (the
/// vectors' sha256). With `--keep-split`, one shard per input shard, each with its input shard's
/// tensors in file order and the split keys last, in llama-quantize's order; an input that is
/// not split gives one `-00001-of-00001` file without split keys.
#[test]
fn split_inputs_are_read_whole_and_kept_split() {
    let Some(split) = shared::find("corpus/split") else {
        return;
    };
    let Some(manifests) = shared::find("vectors/quantize/manifests") else {
        return;
    };
    let first = split.join("llama-2-tiny-random-00001-of-00003.gguf");
    let dir = tempfile::tempdir().unwrap();
    for preset in ["Q8_0", "Q4_K_M"] {
        let m: serde_json::Value = serde_json::from_slice(
            &fs::read(manifests.join(format!("tiny.{preset}.json"))).unwrap(),
        )
        .unwrap();
        let out = dir.path().join(format!("{preset}.gguf"));
        gguf(dir.path())
            .arg("quantize")
            .arg(&first)
            .arg(&out)
            .args([preset, "2"])
            .assert()
            .success();
        assert_eq!(
            sha256(&fs::read(&out).unwrap()),
            m["sha256"].as_str().unwrap(),
            "{preset} of the split model"
        );
    }
    // a later shard is refused, as llama.cpp's loader refuses it
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            split
                .join("llama-2-tiny-random-00002-of-00003.gguf")
                .to_str()
                .unwrap(),
            "x.gguf",
            "Q8_0",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(!dir.path().join("x.gguf").exists());

    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--keep-split",
            first.to_str().unwrap(),
            "k.gguf",
            "Q8_0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    for i in 1..=3 {
        let name = format!("k-0000{i}-of-00003.gguf");
        assert!(err.contains(&format!("wrote {name}")), "{err}");
        let input = split.join(format!("llama-2-tiny-random-0000{i}-of-00003.gguf"));
        let out = dir.path().join(&name);
        let names = |p: &Path| -> Vec<String> { types_of(p).into_iter().map(|(n, _)| n).collect() };
        assert_eq!(names(&out), names(&input), "{name}: tensors in file order");
        let keys = keys_of(&out);
        assert_eq!(
            &keys[keys.len() - 3..],
            ["split.no", "split.count", "split.tensors.count"],
            "{name}"
        );
        let g = Gguf::open(&out).unwrap();
        assert_eq!(g.get_u64("split.no"), Some(i - 1));
        assert_eq!(g.get_u64("split.count"), Some(3));
        assert_eq!(g.get_u64("split.tensors.count"), Some(12));
        if i == 1 {
            assert_eq!(g.get_u64("general.file_type"), Some(7));
        } else {
            assert_eq!(keys.len(), 3, "{name}: the split keys only");
        }
    }
    // the plan says how many files
    let (code, out, err) = run(
        dir.path(),
        &[
            "quantize",
            "--dry-run",
            "--keep-split",
            first.to_str().unwrap(),
            "Q8_0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("--keep-split: 3 output shards"), "{out}");
    // the shards open as one model again
    let (code, out, err) = run(dir.path(), &["info", "k-00001-of-00003.gguf"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty());
    // an existing shard stops the run before anything is written
    fs::remove_file(dir.path().join("k-00001-of-00003.gguf")).unwrap();
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--keep-split",
            first.to_str().unwrap(),
            "k.gguf",
            "Q8_0",
        ],
    );
    assert_eq!(code, 2);
    assert!(err.contains("exists"), "{err}");
    assert!(!dir.path().join("k-00001-of-00003.gguf").exists());

    // an input that is not split: one shard, no split keys
    model(dir.path());
    let (code, _, err) = run(
        dir.path(),
        &["quantize", "--keep-split", "m-f16.gguf", "one", "Q8_0"],
    );
    assert_eq!(code, 0, "{err}");
    let one = dir.path().join("one-00001-of-00001.gguf");
    assert!(!keys_of(&one).iter().any(|k| k.starts_with("split.")));
    assert_eq!(types_of(&one).len(), 75);
}

/// `--keep-split` with `--prune-layers` that leave a shard without tensors: one line, nothing
/// written (llama-quantize cannot write that shard either).
#[test]
fn keep_split_refuses_an_emptied_shard() {
    let dir = tempfile::tempdir().unwrap();
    model(dir.path());
    // shards of 12 tensors: the second holds blk.1 and three tensors of blk.2
    let (code, _, err) = run(
        dir.path(),
        &["split", "m-f16.gguf", "--max-tensors", "12", "-o", "sp"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--keep-split",
            "--prune-layers",
            "1",
            "sp-00001-of-00007.gguf",
            "q.gguf",
            "Q8_0",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(
        dir.path(),
        &[
            "quantize",
            "--keep-split",
            "--prune-layers",
            "0,1,2",
            "sp-00001-of-00007.gguf",
            "r.gguf",
            "Q8_0",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("would hold no tensors"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!fs::read_dir(dir.path()).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with('r')));
}

/// Split models, quantized by llama-quantize and by `gguf quantize`, whole and with
/// `--keep-split`, under several presets and with pruned layers: every output file is
/// llama-quantize's, byte for byte. The splits: `gguf split` of the test model (one with a first
/// shard holding the metadata only), and of the corpus's tiny llama, and the corpus's split of it
/// by llama.cpp's gguf-split.
#[test]
fn split_models_as_llama_quantize_writes_them() {
    let Some(lq) = llama_quantize() else { return };
    let dir = tempfile::tempdir().unwrap();
    loadable_model(dir.path());
    for args in [
        &["split", "m-f16.gguf", "--max-tensors", "30", "-o", "sp"][..],
        &[
            "split",
            "m-f16.gguf",
            "--max-tensors",
            "40",
            "--no-tensor-first-split",
            "-o",
            "sp0",
        ][..],
    ] {
        let (code, _, err) = run(dir.path(), args);
        assert_eq!(code, 0, "{err}");
    }
    // (input, options and preset, files written)
    let mut cases: Vec<(String, &[&str], usize)> = vec![
        ("sp-00001-of-00003.gguf", &["Q4_K_M"][..], 1),
        ("sp-00001-of-00003.gguf", &["--keep-split", "Q4_K_M"], 3),
        ("sp-00001-of-00003.gguf", &["--keep-split", "IQ4_NL"], 3),
        (
            "sp-00001-of-00003.gguf",
            &["--keep-split", "--prune-layers", "1,6", "Q3_K_S"],
            3,
        ),
        ("sp0-00001-of-00003.gguf", &["Q5_K_M"], 1),
        ("sp0-00001-of-00003.gguf", &["--keep-split", "Q5_K_M"], 3),
        ("m-f16.gguf", &["--keep-split", "Q8_0"], 1),
    ]
    .into_iter()
    .map(|(i, a, n)| (i.to_string(), a, n))
    .collect();
    // the corpus's tiny llama, split by llama.cpp's gguf-split and by `gguf split`
    if let Some(corpus) = shared::find("corpus") {
        let tiny = corpus.join("models/llama-2-tiny-random.gguf");
        let (code, _, err) = run(
            dir.path(),
            &[
                "split",
                tiny.to_str().unwrap(),
                "--max-tensors",
                "5",
                "-o",
                "tiny",
            ],
        );
        assert_eq!(code, 0, "{err}");
        let theirs = corpus.join("split/llama-2-tiny-random-00001-of-00003.gguf");
        for input in [theirs.to_str().unwrap(), "tiny-00001-of-00003.gguf"] {
            cases.push((input.to_string(), &["Q4_K_M"], 1));
            cases.push((input.to_string(), &["--keep-split", "Q8_0"], 3));
        }
    }
    for (n, (input, args, count)) in cases.iter().enumerate() {
        let input = input.as_str();
        let (opts, preset) = args.split_at(args.len() - 1);
        let ours = format!("ours{n}_.gguf");
        let theirs = format!("lq{n}_.gguf");
        let mut a = vec!["quantize"];
        a.extend(opts);
        a.extend([input, ours.as_str(), preset[0], "2"]);
        let (code, _, err) = run(dir.path(), &a);
        assert_eq!(code, 0, "{input} {args:?}: {err}");
        let ok = std::process::Command::new(&lq)
            .current_dir(dir.path())
            .args(opts)
            .args([input, &theirs, preset[0], "2"])
            .output()
            .unwrap();
        assert!(
            ok.status.success(),
            "{input} {args:?}: {}",
            String::from_utf8_lossy(&ok.stderr)
                .lines()
                .rev()
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        );
        let files = |prefix: &str| -> Vec<String> {
            let mut v: Vec<String> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|f| f.starts_with(&format!("{prefix}{n}_")))
                .map(|f| f[prefix.len()..].to_string())
                .collect();
            v.sort();
            v
        };
        let (a, b) = (files("ours"), files("lq"));
        assert_eq!(a, b, "{input} {args:?}: the files written");
        assert_eq!(a.len(), *count, "{input} {args:?}: {a:?}");
        if opts.contains(&"--keep-split") {
            assert!(a.iter().all(|f| f.contains("-of-")), "{a:?}");
        }
        for f in &a {
            assert!(
                fs::read(dir.path().join(format!("ours{f}"))).unwrap()
                    == fs::read(dir.path().join(format!("lq{f}"))).unwrap(),
                "{input} {args:?}: {f} differs from llama-quantize's"
            );
        }
    }
}

/// Gemma 3 in F16, split in four by `gguf split`, quantized to Q4_K_M with llama-quantize's
/// importance matrix and `--keep-split` by both tools: each of the four output shards is
/// llama-quantize's. The F16 source is [`gemma_f16`]'s.
#[test]
fn gemma_split_in_four_as_llama_quantize_writes_it() {
    let Some(lq) = llama_quantize() else { return };
    let Some(vectors) = shared::find("vectors/quantize") else {
        return;
    };
    let Some(src) = gemma_f16() else { return };
    let dir = tempfile::tempdir().unwrap();
    fs::copy(
        vectors.join("gemma-3-270m-f16.imatrix.gguf"),
        dir.path().join("im.gguf"),
    )
    .unwrap();
    let (code, _, err) = run(
        dir.path(),
        &[
            "split",
            src.to_str().unwrap(),
            "--max-size",
            "200M",
            "-o",
            "g",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let args = [
        "--keep-split",
        "--imatrix",
        "im.gguf",
        "g-00001-of-00004.gguf",
    ];
    let (code, _, err) = run(
        dir.path(),
        &[&["quantize"][..], &args, &["ours.gguf", "Q4_K_M", "2"]].concat(),
    );
    assert_eq!(code, 0, "{err}");
    let ok = std::process::Command::new(&lq)
        .current_dir(dir.path())
        .args(args)
        .args(["lq.gguf", "Q4_K_M", "2"])
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    for i in 1..=4 {
        let name = |p: &str| dir.path().join(format!("{p}-0000{i}-of-00004.gguf"));
        assert!(
            fs::read(name("ours")).unwrap() == fs::read(name("lq")).unwrap(),
            "shard {i} differs from llama-quantize's"
        );
    }
}
