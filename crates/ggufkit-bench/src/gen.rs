//! Generated benchmark files: the stress headers and the tiny smoke file.
//!
//! - `stress_vocab_1m.gguf`: a 1M-token vocabulary (tokens, scores, token types) with 1M merges
//!   and 10,000 small tensors: a header of about 50 MB, larger than any real vocabulary today.
//! - `stress_tensors_100k.gguf`: 100,000 tensor infos and a handful of keys.
//! - `smoke.gguf`: a few kilobytes with every scalar type, arrays of several types, a 1,000-token
//!   vocabulary and 16 tensors of five types, which every parser compared should read.
//!
//! They are written by the library's own writer ([`ggufkit::write::GgufBuilder`]). The content
//! is deterministic (a fixed-seed generator), so the same command makes the same
//! bytes on every machine. Tokens look like byte-level BPE tokens: mostly ASCII, some with a
//! leading `Ġ` or `▁`, some with multi-byte characters, so UTF-8 checking does real work.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use ggufkit::write::GgufBuilder;
use ggufkit::{GgmlType, Result};

/// One of the generated files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generated {
    /// 1M tokens + 1M merges + 10k tensors.
    StressVocab,
    /// 100k tensors.
    StressTensors,
    /// The tiny file of `--smoke`.
    Smoke,
}

impl Generated {
    /// The two stress files.
    pub const STRESS: [Generated; 2] = [Generated::StressVocab, Generated::StressTensors];

    /// The file name.
    pub fn file_name(self) -> &'static str {
        match self {
            Generated::StressVocab => "stress_vocab_1m.gguf",
            Generated::StressTensors => "stress_tensors_100k.gguf",
            Generated::Smoke => "smoke.gguf",
        }
    }

    fn spec(self) -> Spec {
        match self {
            Generated::StressVocab => Spec {
                tokens: 1_000_000,
                merges: 1_000_000,
                tensors: 10_000,
                all_types: false,
            },
            Generated::StressTensors => Spec {
                tokens: 0,
                merges: 0,
                tensors: 100_000,
                all_types: false,
            },
            Generated::Smoke => Spec {
                tokens: 1_000,
                merges: 1_000,
                tensors: 16,
                all_types: true,
            },
        }
    }

    /// Writes the file into `dir` unless a file of that name is already there; returns its path.
    pub fn ensure(self, dir: &Path) -> std::io::Result<PathBuf> {
        let path = dir.join(self.file_name());
        if !path.exists() {
            std::fs::create_dir_all(dir)?;
            let tmp = dir.join(format!(".{}.tmp", self.file_name()));
            write_file(&tmp, &self.spec())?;
            std::fs::rename(&tmp, &path)?;
        }
        Ok(path)
    }
}

/// What a generated file holds.
#[derive(Clone, Copy, Debug)]
struct Spec {
    tokens: usize,
    merges: usize,
    tensors: usize,
    /// Every scalar type and arrays of several types (the smoke file).
    all_types: bool,
}

/// splitmix64: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const ALPHABET: &[&str] = &[
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "k", "l", "m", "n", "o", "p", "r", "s", "t", "u",
    "v", "w", "y", "z", "0", "1", "_", "-", ".", "é", "ß", "ж", "я", "中", "文", "ん", "😀",
];

fn token(rng: &mut Rng, i: usize) -> String {
    let mut s = String::new();
    match rng.below(10) {
        0..=3 => s.push('Ġ'),
        4 => s.push('▁'),
        _ => {}
    }
    let len = 1 + rng.below(9) as usize;
    for _ in 0..len {
        // mostly ASCII letters, now and then a multi-byte character
        let pick = if rng.below(8) == 0 {
            rng.below(ALPHABET.len() as u64)
        } else {
            rng.below(23)
        };
        s.push_str(ALPHABET[pick as usize]);
    }
    // unique: real vocabularies have no repeated token
    s.push_str(&i.to_string());
    s
}

const SUFFIXES: &[&str] = &[
    "attn_q.weight",
    "attn_k.weight",
    "attn_v.weight",
    "attn_output.weight",
    "ffn_gate.weight",
    "ffn_up.weight",
    "ffn_down.weight",
    "attn_norm.weight",
    "ffn_norm.weight",
    "attn_q_norm.weight",
];

/// Small tensors of five common types: (type, elements).
const TENSOR_KINDS: &[(GgmlType, u64)] = &[
    (GgmlType::F32, 64),
    (GgmlType::F16, 128),
    (GgmlType::Q8_0, 256),
    (GgmlType::Q4_K, 256),
    (GgmlType::Q6_K, 256),
];

/// The builder of `spec`'s file, written by the library's own writer.
fn build(spec: &Spec) -> Result<GgufBuilder<'static>> {
    let mut rng = Rng(0x6767_7566_6b69_7400);
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama")?;
    b.set("general.name", "ggufkit-bench generated")?;
    b.set("general.file_type", 15u32)?;
    b.set("llama.context_length", 8192u32)?;
    b.set("llama.embedding_length", 4096u32)?;
    b.set("llama.block_count", 32u32)?;
    b.set("llama.attention.head_count", 32u32)?;
    b.set("llama.attention.layer_norm_rms_epsilon", 1e-5f32)?;
    if spec.all_types {
        b.set("bench.u8", 200u8)?;
        b.set("bench.i8", i8::MIN)?;
        b.set("bench.u16", u16::MAX)?;
        b.set("bench.i16", -2i16)?;
        b.set("bench.i32", -3i32)?;
        b.set("bench.u64", u64::MAX)?;
        b.set("bench.i64", i64::MIN)?;
        b.set("bench.f64", std::f64::consts::PI)?;
        b.set("bench.bool", true)?;
        b.set("bench.unicode", "ggufkit — 中文 — 😀")?;
        b.set("bench.u8_array", (0u8..16).collect::<Vec<_>>())?;
        b.set("bench.i64_array", vec![-1i64, 0, 1, i64::MAX])?;
        b.set("bench.bool_array", vec![false, true, false])?;
        b.set("bench.f64_array", vec![0.5f64, -0.25])?;
    }
    if spec.tokens > 0 {
        b.set("tokenizer.ggml.model", "gpt2")?;
        let toks: Vec<String> = (0..spec.tokens).map(|i| token(&mut rng, i)).collect();
        let scores: Vec<f32> = (0..spec.tokens).map(|i| -(i as f32)).collect();
        let types: Vec<i32> = (0..spec.tokens)
            .map(|i| if i < 3 { 3 } else { 1 })
            .collect();
        let pool = toks.len().min(4096) as u64;
        let merges: Vec<String> = (0..spec.merges)
            .map(|_| {
                let a = &toks[rng.below(pool) as usize];
                let c = &toks[rng.below(pool) as usize];
                format!("{a} {c}")
            })
            .collect();
        b.set("tokenizer.ggml.tokens", toks)?;
        b.set("tokenizer.ggml.scores", scores)?;
        b.set("tokenizer.ggml.token_type", types)?;
        if spec.merges > 0 {
            b.set("tokenizer.ggml.merges", merges)?;
        }
        b.set("tokenizer.ggml.bos_token_id", 1u32)?;
        b.set("tokenizer.ggml.eos_token_id", 2u32)?;
        b.set(
            "tokenizer.chat_template",
            "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}",
        )?;
    }
    for i in 0..spec.tensors {
        let (ty, n) = TENSOR_KINDS[i % TENSOR_KINDS.len()];
        let name = format!(
            "blk.{}.{}",
            i / SUFFIXES.len(),
            SUFFIXES[i % SUFFIXES.len()]
        );
        b.add_tensor(&name, ty, &[n])?;
    }
    Ok(b)
}

fn write_file(path: &Path, spec: &Spec) -> std::io::Result<()> {
    let b = build(spec).map_err(std::io::Error::other)?;
    let sizes: Vec<u64> = b.tensors().iter().map(|t| t.size()).collect();
    let w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    let mut dw = b.write_header(w).map_err(std::io::Error::other)?;
    let zeros = [0u8; 512];
    for s in sizes {
        // zero blocks are valid data for every type used (scales of 0)
        dw.write_tensor(&zeros[..s as usize])
            .map_err(std::io::Error::other)?;
    }
    let w = dw.finish().map_err(std::io::Error::other)?;
    w.into_inner().map_err(|e| e.into_error())?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke_file_is_valid_and_deterministic() {
        let spec = Generated::Smoke.spec();
        let a = build(&spec).unwrap().header().unwrap().0;
        let b = build(&spec).unwrap().header().unwrap().0;
        assert_eq!(a, b);
        let dir = std::env::temp_dir().join(format!("ggufkit-bench-gen-{}", std::process::id()));
        let path = Generated::Smoke.ensure(&dir).unwrap();
        let g = ggufkit::Gguf::open(&path).unwrap();
        assert_eq!(g.tensor_count(), 16);
        assert_eq!(
            g.get_array("tokenizer.ggml.tokens").map(|a| a.len()),
            Some(1000)
        );
        assert!(g.report().warnings.is_empty(), "{:?}", g.report());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
