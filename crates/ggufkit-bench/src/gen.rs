//! Generated benchmark files: the stress headers and the tiny smoke file.
//!
//! - `stress_vocab_1m.gguf`: a 1M-token vocabulary (tokens, scores, token types) with 1M merges
//!   and 10,000 small tensors: a header of about 50 MB, larger than any real vocabulary today.
//! - `stress_tensors_100k.gguf`: 100,000 tensor infos and a handful of keys.
//! - `smoke.gguf`: a few kilobytes with every scalar type, arrays of several types, a 1,000-token
//!   vocabulary and 16 tensors of five types, which every parser compared should read.
//!
//! The content is deterministic (a fixed-seed generator), so the same command makes the same
//! bytes on every machine. Tokens look like byte-level BPE tokens: mostly ASCII, some with a
//! leading `Ġ` or `▁`, some with multi-byte characters, so UTF-8 checking does real work.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use ggufkit::GgmlType;

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

/// A little-endian GGUF v3 header under construction.
struct Header {
    buf: Vec<u8>,
    kvs: u64,
    tensors: u64,
}

const T_U8: u32 = 0;
const T_I8: u32 = 1;
const T_U16: u32 = 2;
const T_I16: u32 = 3;
const T_U32: u32 = 4;
const T_I32: u32 = 5;
const T_F32: u32 = 6;
const T_BOOL: u32 = 7;
const T_STRING: u32 = 8;
const T_ARRAY: u32 = 9;
const T_U64: u32 = 10;
const T_I64: u32 = 11;
const T_F64: u32 = 12;

impl Header {
    fn new() -> Self {
        let mut buf = b"GGUF".to_vec();
        buf.extend(3u32.to_le_bytes());
        buf.extend([0u8; 16]); // counts, patched by `finish`
        Header {
            buf,
            kvs: 0,
            tensors: 0,
        }
    }

    fn str(&mut self, s: &str) {
        self.buf.extend((s.len() as u64).to_le_bytes());
        self.buf.extend(s.as_bytes());
    }

    fn key(&mut self, k: &str, ty: u32) {
        self.kvs += 1;
        self.str(k);
        self.buf.extend(ty.to_le_bytes());
    }

    fn kv_raw(&mut self, k: &str, ty: u32, le_bytes: &[u8]) {
        self.key(k, ty);
        self.buf.extend(le_bytes);
    }

    fn kv_str(&mut self, k: &str, v: &str) {
        self.key(k, T_STRING);
        self.str(v);
    }

    fn array_head(&mut self, k: &str, elem: u32, n: usize) {
        self.key(k, T_ARRAY);
        self.buf.extend(elem.to_le_bytes());
        self.buf.extend((n as u64).to_le_bytes());
    }

    fn tensor(&mut self, name: &str, dims: &[u64], ty: GgmlType, offset: u64) {
        self.tensors += 1;
        self.str(name);
        self.buf.extend((dims.len() as u32).to_le_bytes());
        for d in dims {
            self.buf.extend(d.to_le_bytes());
        }
        self.buf.extend(ty.id().to_le_bytes());
        self.buf.extend(offset.to_le_bytes());
    }

    fn finish(mut self) -> Vec<u8> {
        self.buf[8..16].copy_from_slice(&self.tensors.to_le_bytes());
        self.buf[16..24].copy_from_slice(&self.kvs.to_le_bytes());
        self.buf
    }
}

const ALIGNMENT: u64 = 32;

fn pad(n: u64) -> u64 {
    n.div_ceil(ALIGNMENT) * ALIGNMENT
}

/// Encodes the header of `spec` and the sizes of its tensors' data.
fn encode(spec: &Spec) -> (Vec<u8>, Vec<u64>) {
    let mut rng = Rng(0x6767_7566_6b69_7400);
    let mut h = Header::new();
    h.kv_str("general.architecture", "llama");
    h.kv_str("general.name", "ggufkit-bench generated");
    h.kv_raw("general.file_type", T_U32, &15u32.to_le_bytes());
    h.kv_raw("llama.context_length", T_U32, &8192u32.to_le_bytes());
    h.kv_raw("llama.embedding_length", T_U32, &4096u32.to_le_bytes());
    h.kv_raw("llama.block_count", T_U32, &32u32.to_le_bytes());
    h.kv_raw("llama.attention.head_count", T_U32, &32u32.to_le_bytes());
    h.kv_raw(
        "llama.attention.layer_norm_rms_epsilon",
        T_F32,
        &1e-5f32.to_le_bytes(),
    );
    if spec.all_types {
        h.kv_raw("bench.u8", T_U8, &[200]);
        h.kv_raw("bench.i8", T_I8, &[0x80]);
        h.kv_raw("bench.u16", T_U16, &65535u16.to_le_bytes());
        h.kv_raw("bench.i16", T_I16, &(-2i16).to_le_bytes());
        h.kv_raw("bench.i32", T_I32, &(-3i32).to_le_bytes());
        h.kv_raw("bench.u64", T_U64, &u64::MAX.to_le_bytes());
        h.kv_raw("bench.i64", T_I64, &i64::MIN.to_le_bytes());
        h.kv_raw("bench.f64", T_F64, &std::f64::consts::PI.to_le_bytes());
        h.kv_raw("bench.bool", T_BOOL, &[1]);
        h.kv_str("bench.unicode", "ggufkit — 中文 — 😀");
        h.array_head("bench.u8_array", T_U8, 16);
        h.buf.extend(0u8..16);
        h.array_head("bench.i64_array", T_I64, 4);
        for v in [-1i64, 0, 1, i64::MAX] {
            h.buf.extend(v.to_le_bytes());
        }
        h.array_head("bench.bool_array", T_BOOL, 3);
        h.buf.extend([0u8, 1, 0]);
        h.array_head("bench.f64_array", T_F64, 2);
        for v in [0.5f64, -0.25] {
            h.buf.extend(v.to_le_bytes());
        }
    }
    if spec.tokens > 0 {
        h.kv_str("tokenizer.ggml.model", "gpt2");
        h.array_head("tokenizer.ggml.tokens", T_STRING, spec.tokens);
        let mut toks = Vec::with_capacity(spec.tokens.min(4096));
        for i in 0..spec.tokens {
            let t = token(&mut rng, i);
            h.str(&t);
            if toks.len() < 4096 {
                toks.push(t);
            }
        }
        h.array_head("tokenizer.ggml.scores", T_F32, spec.tokens);
        for i in 0..spec.tokens {
            h.buf.extend((-(i as f32)).to_le_bytes());
        }
        h.array_head("tokenizer.ggml.token_type", T_I32, spec.tokens);
        for i in 0..spec.tokens {
            let ty: i32 = if i < 3 { 3 } else { 1 };
            h.buf.extend(ty.to_le_bytes());
        }
        if spec.merges > 0 {
            h.array_head("tokenizer.ggml.merges", T_STRING, spec.merges);
            for _ in 0..spec.merges {
                let a = &toks[rng.below(toks.len() as u64) as usize];
                let b = &toks[rng.below(toks.len() as u64) as usize];
                h.str(&format!("{a} {b}"));
            }
        }
        h.kv_raw("tokenizer.ggml.bos_token_id", T_U32, &1u32.to_le_bytes());
        h.kv_raw("tokenizer.ggml.eos_token_id", T_U32, &2u32.to_le_bytes());
        h.kv_str(
            "tokenizer.chat_template",
            "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}",
        );
    }
    let mut sizes = Vec::with_capacity(spec.tensors);
    let mut offset = 0u64;
    for i in 0..spec.tensors {
        let (ty, n) = TENSOR_KINDS[i % TENSOR_KINDS.len()];
        let name = format!("blk.{}.{}", i / SUFFIXES.len(), SUFFIXES[i % SUFFIXES.len()]);
        h.tensor(&name, &[n], ty, offset);
        let size = ty.bytes_for(n).expect("small tensor");
        sizes.push(size);
        offset += pad(size);
    }
    (h.finish(), sizes)
}

fn write_file(path: &Path, spec: &Spec) -> std::io::Result<()> {
    let (header, sizes) = encode(spec);
    let mut w = BufWriter::with_capacity(1 << 20, File::create(path)?);
    w.write_all(&header)?;
    if !sizes.is_empty() {
        let len = header.len() as u64;
        w.write_all(&vec![0u8; (pad(len) - len) as usize])?;
        let zeros = [0u8; 512];
        for s in sizes {
            // zero blocks are valid data for every type used (scales of 0)
            w.write_all(&zeros[..pad(s) as usize])?;
        }
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke_file_is_valid_and_deterministic() {
        let spec = Generated::Smoke.spec();
        let (a, sizes) = encode(&spec);
        let (b, _) = encode(&spec);
        assert_eq!(a, b);
        let dir = std::env::temp_dir().join(format!("ggufkit-bench-gen-{}", std::process::id()));
        let path = Generated::Smoke.ensure(&dir).unwrap();
        let g = ggufkit::Gguf::open(&path).unwrap();
        assert_eq!(g.tensor_count(), 16);
        assert_eq!(g.tensor_count(), sizes.len());
        assert_eq!(
            g.get_array("tokenizer.ggml.tokens").map(|a| a.len()),
            Some(1000)
        );
        assert!(g.report().warnings.is_empty(), "{:?}", g.report());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
