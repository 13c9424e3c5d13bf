//! Loading files with llama.cpp itself: node-llama-cpp's prebuilt llama.cpp run by
//! `llama_load.mjs` (one `node` process for many files; a file llama.cpp aborts on is recorded
//! as such and the rest loaded by a new process). Each answer is cached in
//! `${XDG_CACHE_HOME:-~/.cache}/ggufkit/llama-load/`, keyed by the file's SHA-256 (every
//! shard's, for the first shard of a split model; and whether it was asked to generate), so that a second run of the differential tests costs no loads.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use ggufkit::hash::{digest, HashAlgo};

/// What llama.cpp made of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loaded {
    /// `loadModel` returned a model.
    pub ok: bool,
    /// Why not: node-llama-cpp's error, or `aborted` when llama.cpp ended the process.
    pub error: Option<String>,
    /// llama.cpp's log lines at warning and above (`llama_model_load: error loading model: ...`).
    pub logs: Vec<String>,
    /// The token ids generated after "hello world", when asked to generate.
    pub generated: Option<String>,
}

impl Loaded {
    /// llama.cpp's own reason for refusing (`missing tensor 'x'`, `key not found in model: k`...),
    /// from its log, or the assertion it aborted on (`GGML_ASSERT(...) failed`), else the error.
    pub fn reason(&self) -> Option<String> {
        const MARK: &str = "error loading model: ";
        self.logs
            .iter()
            .find_map(|l| l.split_once(MARK).map(|(_, r)| r.trim().to_string()))
            .or_else(|| {
                self.logs.iter().find_map(|l| {
                    l.find("GGML_ASSERT")
                        .map(|at| format!("aborted: {}", l[at..].trim()))
                })
            })
            .or_else(|| self.error.clone())
    }

    fn from_json(v: &serde_json::Value) -> Loaded {
        Loaded {
            ok: v["ok"].as_bool().unwrap_or(false),
            error: v["error"].as_str().map(str::to_string),
            logs: v["logs"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|l| l.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            generated: v["generated"].as_str().map(str::to_string),
        }
    }

    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "ok": self.ok, "error": self.error, "logs": self.logs, "generated": self.generated,
        })
    }
}

fn cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("ggufkit/llama-load"))
}

fn cache_key(bytes: &[u8], generate: bool) -> String {
    let d = digest(HashAlgo::Sha256, bytes, &ggufkit::progress::NoProgress);
    // the script's version: a change to what it records makes new answers
    format!("{d}-v1{}.json", if generate { "-gen" } else { "" })
}

/// The bytes a load reads: the file's, and for the first shard of a split model every shard's
/// after it (llama.cpp opens them all), so that the cached answer is the whole model's.
fn model_bytes(file: &Path) -> Option<Vec<u8>> {
    let mut bytes = std::fs::read(file).ok()?;
    if let Some((prefix, 0, n)) = ggufkit::shard::parse_shard_path(file) {
        for i in 1..n {
            bytes.extend(std::fs::read(ggufkit::shard::shard_path(&prefix, i, n)).ok()?);
        }
    }
    Some(bytes)
}

/// Loads every file with llama.cpp (`generate`: then a few tokens are generated), in order;
/// `None` (after a `SKIPPED` line) when node-llama-cpp is not set up.
pub fn load_all(files: &[PathBuf], generate: bool) -> Option<Vec<Loaded>> {
    let node_modules = crate::reference::node_modules()?;
    let cache = cache_dir();
    let keys: Vec<Option<String>> = files
        .iter()
        .map(|f| model_bytes(f).map(|b| cache_key(&b, generate)))
        .collect();
    let mut answers: Vec<Option<Loaded>> = keys
        .iter()
        .map(|k| {
            let p = cache.as_ref()?.join(k.as_ref()?);
            let text = std::fs::read_to_string(p).ok()?;
            serde_json::from_str(&text)
                .ok()
                .map(|v| Loaded::from_json(&v))
        })
        .collect();
    let script =
        std::env::temp_dir().join(format!("ggufkit-llama-load-{}.mjs", std::process::id()));
    std::fs::write(&script, include_str!("llama_load.mjs")).expect("write the loader script");
    loop {
        let todo: Vec<usize> = (0..files.len()).filter(|&i| answers[i].is_none()).collect();
        if todo.is_empty() {
            break;
        }
        let mut cmd = Command::new("node");
        cmd.arg(&script).arg(&node_modules);
        if generate {
            cmd.arg("--generate");
        }
        cmd.args(todo.iter().map(|&i| &files[i]));
        let out = cmd.output().expect("node runs");
        let mut answered = 0;
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            let Some(&i) = todo.get(answered) else { break };
            answers[i] = Some(Loaded::from_json(&v));
            answered += 1;
        }
        if answered < todo.len() {
            // llama.cpp ended the process on this file (an assertion)
            let stderr = String::from_utf8_lossy(&out.stderr);
            answers[todo[answered]] = Some(Loaded {
                ok: false,
                error: Some("aborted".into()),
                logs: stderr
                    .lines()
                    .filter(|l| l.contains("GGML_ASSERT") || l.contains("error"))
                    .map(str::to_string)
                    .collect(),
                generated: None,
            });
        }
    }
    let _ = std::fs::remove_file(&script);
    if let Some(dir) = &cache {
        let _ = std::fs::create_dir_all(dir);
        for (k, a) in keys.iter().zip(&answers) {
            if let (Some(k), Some(a)) = (k, a) {
                let _ = std::fs::write(dir.join(k), a.to_json().to_string());
            }
        }
    }
    Some(
        answers
            .into_iter()
            .map(|a| a.expect("every file answered"))
            .collect(),
    )
}

/// [`load_all`] of one file.
pub fn load(file: &Path, generate: bool) -> Option<Loaded> {
    load_all(&[file.to_path_buf()], generate).map(|mut v| v.remove(0))
}
