//! The memory tests of `convert` and of the one-step quantize: a Llama checkpoint of a chosen
//! depth written directly as safetensors (no torch), and the peak resident set of a child test
//! process that converts it (`VmHWM`, which a process can only read of itself, hence a child).
//! No timing: the tests compare peaks.

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Writes into `dir` a bf16 Llama checkpoint of `layers` blocks (hidden 512, feed-forward
/// 1536, 32000 tokens: the largest tensors are the 32.8 MB embedding and output whatever the
/// depth) with `tokenizer`'s tokenizer files, and returns the largest tensor's size in bytes.
pub fn llama_checkpoint(dir: &Path, layers: usize, tokenizer: &Path) -> u64 {
    let (hidden, ff, vocab) = (512u64, 1536u64, 32000u64);
    let mut tensors: Vec<(String, Vec<u64>)> = vec![
        ("model.embed_tokens.weight".into(), vec![vocab, hidden]),
        ("model.norm.weight".into(), vec![hidden]),
        ("lm_head.weight".into(), vec![vocab, hidden]),
    ];
    for b in 0..layers {
        let p = format!("model.layers.{b}");
        for (n, s) in [
            ("self_attn.q_proj", vec![hidden, hidden]),
            ("self_attn.k_proj", vec![hidden / 2, hidden]),
            ("self_attn.v_proj", vec![hidden / 2, hidden]),
            ("self_attn.o_proj", vec![hidden, hidden]),
            ("mlp.gate_proj", vec![ff, hidden]),
            ("mlp.up_proj", vec![ff, hidden]),
            ("mlp.down_proj", vec![hidden, ff]),
            ("input_layernorm", vec![hidden]),
            ("post_attention_layernorm", vec![hidden]),
        ] {
            tensors.push((format!("{p}.{n}.weight"), s));
        }
    }
    tensors.sort();
    let mut header = serde_json::Map::new();
    let mut offset = 0u64;
    for (name, shape) in &tensors {
        let n = shape.iter().product::<u64>() * 2;
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + n]}),
        );
        offset += n;
    }
    let json = serde_json::to_vec(&header).expect("a JSON header");
    let file = std::fs::File::create(dir.join("model.safetensors")).expect("model.safetensors");
    let mut f = std::io::BufWriter::new(file);
    f.write_all(&(json.len() as u64).to_le_bytes()).unwrap();
    f.write_all(&json).unwrap();
    // small bf16 values from a linear congruential sequence
    let mut x = 0x2545_f491_u32;
    let mut chunk = vec![0u8; 1 << 16];
    let mut left = offset;
    while left > 0 {
        for c in chunk.chunks_exact_mut(2) {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let v = ((x >> 16) as f32 / 65536.0 - 0.5) * 0.1;
            c.copy_from_slice(&((v.to_bits() >> 16) as u16).to_le_bytes());
        }
        let k = left.min(chunk.len() as u64) as usize;
        f.write_all(&chunk[..k]).unwrap();
        left -= k as u64;
    }
    f.flush().unwrap();
    let config = serde_json::json!({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": hidden,
        "intermediate_size": ff, "num_hidden_layers": layers, "num_attention_heads": 8,
        "num_key_value_heads": 4, "max_position_embeddings": 2048, "rms_norm_eps": 1e-5,
        "vocab_size": vocab, "torch_dtype": "bfloat16",
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    for name in ["tokenizer.model", "tokenizer.json", "tokenizer_config.json"] {
        if tokenizer.join(name).is_file() {
            std::fs::copy(tokenizer.join(name), dir.join(name)).unwrap();
        }
    }
    vocab * hidden * 2
}

/// This process's peak resident set (`VmHWM`), in KiB.
pub fn own_peak_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status")
}

/// Prints this process's peak for [`child_peak`] to read, on a line of its own (libtest has
/// written "test NAME ... " before it).
pub fn print_own_peak() {
    println!("\nVMHWM={}", own_peak_kib());
}

/// Runs test `name` of the current test binary alone in a child process with `env` (and two
/// rayon threads) and returns the peak resident set it printed with [`print_own_peak`], in
/// bytes. Panics with the child's output when it fails.
pub fn child_peak(name: &str, env: &[(&str, &OsStr)]) -> u64 {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"));
    child
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env("RAYON_NUM_THREADS", "2");
    for (k, v) in env {
        child.env(k, v);
    }
    let out = child.output().expect("the child test runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child {name}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kib = stdout
        .lines()
        .find_map(|l| l.split_once("VMHWM=").map(|(_, v)| v))
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no VMHWM line from child {name}: {stdout}"));
    kib * 1024
}

/// The three peaks of a memory test ([`flat_peaks`]), in bytes.
pub struct Peaks {
    /// The job's part that does not grow with the tensors (a plan, a vocabulary), 2 blocks.
    pub base: u64,
    /// The whole job on 2 blocks, and the checkpoint's size.
    pub small: u64,
    pub small_size: u64,
    /// The whole job on 16 blocks (the same largest tensor, twice the bytes), and its size.
    pub large: u64,
    pub large_size: u64,
    /// The largest tensor's bytes, the same in both checkpoints.
    pub largest: u64,
}

impl Peaks {
    /// How much the peak grew from 2 blocks to 16, and the checkpoint bytes added.
    pub fn growth(&self) -> (u64, u64) {
        (
            self.large.saturating_sub(self.small),
            self.large_size - self.small_size,
        )
    }

    /// What the tensors took at their peak: the 16 blocks' peak above the light run's.
    pub fn tensors(&self) -> u64 {
        self.large.saturating_sub(self.base)
    }

    /// One line of figures for the test's output (`what`: the job, e.g. "convert to f16").
    pub fn print(&self, what: &str, base: &str) {
        println!(
            "{what}: peak {} MB for {base}, {} MB for a {} MB checkpoint, {} MB for {} MB \
             (largest tensor {} MB)",
            self.base >> 20,
            self.small >> 20,
            self.small_size >> 20,
            self.large >> 20,
            self.large_size >> 20,
            self.largest >> 20
        );
    }
}

/// The reference's Llama SentencePiece tokenizer files that [`llama_checkpoint`] copies, or a
/// skip.
fn llama_tokenizer() -> Option<PathBuf> {
    let dir = crate::reference::hf_checkpoints()?;
    let tokenizer = dir.join("models").join("llama2-spm-f16");
    if !tokenizer.join("tokenizer.model").is_file() {
        crate::skip::skip(
            crate::skip::Need::RefPython,
            "the reference has no llama2-spm-f16 tokenizer".to_string(),
        );
        return None;
    }
    Some(tokenizer)
}

/// Runs child test `child` of the current test binary on three fresh checkpoints
/// ([`llama_checkpoint`], its folder in `$dir_var`): 2 blocks with `$light_var` set (the child
/// then does only the part that does not grow with the tensors), 2 blocks and 16 blocks; the
/// child ends with [`print_own_peak`]. `None` (a skip said) without the reference tokenizer.
pub fn flat_peaks(child: &str, dir_var: &str, light_var: &str) -> Option<Peaks> {
    let tokenizer = llama_tokenizer()?;
    let run = |layers: usize, light: bool| -> (u64, u64, u64) {
        let tmp = tempfile::tempdir().expect("a temporary folder");
        let largest = llama_checkpoint(tmp.path(), layers, &tokenizer);
        let size = std::fs::metadata(tmp.path().join("model.safetensors"))
            .expect("the checkpoint written")
            .len();
        let mut env = vec![(dir_var, tmp.path().as_os_str())];
        if light {
            env.push((light_var, OsStr::new("1")));
        }
        (child_peak(child, &env), size, largest)
    };
    let (base, _, _) = run(2, true);
    let (small, small_size, largest) = run(2, false);
    let (large, large_size, _) = run(16, false);
    Some(Peaks {
        base,
        small,
        small_size,
        large,
        large_size,
        largest,
    })
}
