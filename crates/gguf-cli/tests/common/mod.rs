//! Shared by the CLI tests: the corpus location, a tiny GGUF builder for fixtures that do not
//! depend on the corpus, and a command runner with deterministic output.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// `../shared/corpus` beside the repository, when it is there.
pub fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if p.join("models/llama-2-tiny-random.gguf").exists() {
        Some(p.canonicalize().unwrap_or(p))
    } else {
        eprintln!(
            "SKIPPED: the shared corpus is not at {} (tests on real files skipped; fixture tests still run)",
            p.display()
        );
        None
    }
}

/// `gguf` with colour off, run in `dir` so that file names in the output are relative.
pub fn gguf(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("gguf").expect("the gguf binary");
    c.env("NO_COLOR", "1").current_dir(dir);
    c
}

/// Runs `gguf args` in `dir` and returns (exit code, stdout, stderr).
pub fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = gguf(dir).args(args).output().expect("run gguf");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A metadata value for the builder.
#[derive(Clone)]
pub enum V {
    U32(u32),
    I32(i32),
    F32(f32),
    U64(u64),
    Bool(bool),
    Str(String),
    ArrStr(Vec<String>),
    ArrI32(Vec<i32>),
    ArrF32(Vec<f32>),
}

/// A little-endian GGUF v3 builder: key-value pairs, then f32/f16/i8-shaped tensors with their
/// data, laid out at alignment 32 as the spec says.
#[derive(Default, Clone)]
pub struct Builder {
    kvs: Vec<(String, V)>,
    tensors: Vec<(String, Vec<u64>, u32, Vec<u8>)>,
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    b.extend((s.len() as u64).to_le_bytes());
    b.extend(s.as_bytes());
}

impl Builder {
    pub fn kv(mut self, k: &str, v: V) -> Self {
        self.kvs.push((k.to_string(), v));
        self
    }

    /// An f32 tensor with these values (shape ne0 first).
    pub fn f32(mut self, name: &str, shape: &[u64], values: &[f32]) -> Self {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.tensors
            .push((name.to_string(), shape.to_vec(), 0, data));
        self
    }

    /// A tensor of any type id with raw data bytes.
    pub fn raw(mut self, name: &str, shape: &[u64], ty: u32, data: Vec<u8>) -> Self {
        self.tensors
            .push((name.to_string(), shape.to_vec(), ty, data));
        self
    }

    pub fn build(&self) -> Vec<u8> {
        let mut b = b"GGUF".to_vec();
        b.extend(3u32.to_le_bytes());
        b.extend((self.tensors.len() as u64).to_le_bytes());
        b.extend((self.kvs.len() as u64).to_le_bytes());
        for (k, v) in &self.kvs {
            put_str(&mut b, k);
            match v {
                V::U32(x) => {
                    b.extend(4u32.to_le_bytes());
                    b.extend(x.to_le_bytes());
                }
                V::I32(x) => {
                    b.extend(5u32.to_le_bytes());
                    b.extend(x.to_le_bytes());
                }
                V::F32(x) => {
                    b.extend(6u32.to_le_bytes());
                    b.extend(x.to_le_bytes());
                }
                V::Bool(x) => {
                    b.extend(7u32.to_le_bytes());
                    b.push(*x as u8);
                }
                V::Str(s) => {
                    b.extend(8u32.to_le_bytes());
                    put_str(&mut b, s);
                }
                V::U64(x) => {
                    b.extend(10u32.to_le_bytes());
                    b.extend(x.to_le_bytes());
                }
                V::ArrStr(xs) => {
                    b.extend(9u32.to_le_bytes());
                    b.extend(8u32.to_le_bytes());
                    b.extend((xs.len() as u64).to_le_bytes());
                    for s in xs {
                        put_str(&mut b, s);
                    }
                }
                V::ArrI32(xs) => {
                    b.extend(9u32.to_le_bytes());
                    b.extend(5u32.to_le_bytes());
                    b.extend((xs.len() as u64).to_le_bytes());
                    for x in xs {
                        b.extend(x.to_le_bytes());
                    }
                }
                V::ArrF32(xs) => {
                    b.extend(9u32.to_le_bytes());
                    b.extend(6u32.to_le_bytes());
                    b.extend((xs.len() as u64).to_le_bytes());
                    for x in xs {
                        b.extend(x.to_le_bytes());
                    }
                }
            }
        }
        let pad = |n: u64| n.div_ceil(32) * 32;
        let mut off = 0u64;
        for (name, shape, ty, data) in &self.tensors {
            put_str(&mut b, name);
            b.extend((shape.len() as u32).to_le_bytes());
            for d in shape {
                b.extend(d.to_le_bytes());
            }
            b.extend(ty.to_le_bytes());
            b.extend(off.to_le_bytes());
            off = pad(off + data.len() as u64);
        }
        if !self.tensors.is_empty() {
            while b.len() % 32 != 0 {
                b.push(0);
            }
            for (_, _, _, data) in &self.tensors {
                b.extend(data);
                while b.len() % 32 != 0 {
                    b.push(0);
                }
            }
        }
        b
    }

    /// Writes the file into `dir` and returns its name.
    pub fn write(&self, dir: &Path, name: &str) -> String {
        std::fs::write(dir.join(name), self.build()).expect("write fixture");
        name.to_string()
    }
}

/// A small llama-shaped model: 2 blocks, tokenizer with special tokens, 7 f32 tensors.
pub fn tiny_model() -> Builder {
    let vals = |n: usize, k: f32| (0..n).map(|i| i as f32 * k).collect::<Vec<_>>();
    Builder::default()
        .kv("general.architecture", V::Str("llama".into()))
        .kv("general.name", V::Str("tiny".into()))
        .kv("llama.block_count", V::U32(2))
        .kv("llama.context_length", V::U32(256))
        .kv("llama.embedding_length", V::U32(8))
        .kv("llama.attention.head_count", V::U32(2))
        .kv("llama.attention.head_count_kv", V::U32(1))
        .kv("tokenizer.ggml.model", V::Str("llama".into()))
        .kv(
            "tokenizer.ggml.tokens",
            V::ArrStr(vec![
                "<unk>".into(),
                "<s>".into(),
                "</s>".into(),
                "a|b".into(),
            ]),
        )
        .kv(
            "tokenizer.ggml.scores",
            V::ArrF32(vec![0.0, 0.0, 0.0, -1.5]),
        )
        .kv("tokenizer.ggml.bos_token_id", V::U32(1))
        .kv("tokenizer.ggml.eos_token_id", V::U32(2))
        .kv("tokenizer.ggml.unknown_token_id", V::U32(0))
        .f32("token_embd.weight", &[8, 4], &vals(32, 0.5))
        .f32("blk.0.attn_q.weight", &[8, 8], &vals(64, 0.25))
        .f32("blk.0.attn_norm.weight", &[8], &vals(8, 1.0))
        .f32("blk.1.attn_q.weight", &[8, 8], &vals(64, -0.25))
        .f32("blk.1.attn_norm.weight", &[8], &vals(8, 2.0))
        .f32("output_norm.weight", &[8], &vals(8, 3.0))
        .f32("output.weight", &[8, 4], &vals(32, 0.125))
}
