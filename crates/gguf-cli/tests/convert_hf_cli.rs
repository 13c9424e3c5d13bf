//! `gguf convert HF_DIR`: checkpoint folders it cannot convert are refused with one line naming
//! the file and what is wrong, and nothing is written. (Conversions themselves are compared with
//! convert_hf_to_gguf.py by the library's `convert_hf` test.)

use std::path::Path;

use assert_cmd::Command;

fn safetensors(json: &str, data: usize) -> Vec<u8> {
    let mut v = (json.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(json.as_bytes());
    v.resize(v.len() + data, 0);
    v
}

fn folder(dir: &Path, config: &str, weights: &[u8]) {
    std::fs::write(dir.join("config.json"), config).unwrap();
    std::fs::write(dir.join("model.safetensors"), weights).unwrap();
}

fn refused(dir: &Path) -> String {
    let out = dir.join("out.gguf");
    let o = Command::cargo_bin("gguf")
        .unwrap()
        .args([
            "convert",
            dir.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(!out.exists(), "nothing is written");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn unknown_architecture_is_refused_naming_the_class_and_the_supported() {
    let d = tempfile::tempdir().unwrap();
    folder(
        d.path(),
        r#"{"architectures":["FooForCausalLM"]}"#,
        &safetensors("{}", 0),
    );
    let e = refused(d.path());
    assert!(
        e.contains("architecture 'FooForCausalLM' is not supported"),
        "{e}"
    );
    assert!(
        e.contains("LlamaForCausalLM") && e.contains("Gemma3ForCausalLM"),
        "{e}"
    );
}

#[test]
fn hostile_safetensors_are_refused_naming_file_and_tensor() {
    let d = tempfile::tempdir().unwrap();
    let cfg = r#"{"architectures":["LlamaForCausalLM"]}"#;
    folder(d.path(), cfg, &(1u64 << 40).to_le_bytes());
    let e = refused(d.path());
    assert!(
        e.contains("model.safetensors") && e.contains("over the"),
        "{e}"
    );
    let w = safetensors(
        r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#,
        8,
    );
    folder(d.path(), cfg, &w);
    let e = refused(d.path());
    assert!(
        e.contains("tensor 'w'") && e.contains("past the data section"),
        "{e}"
    );
}

#[test]
fn an_index_naming_an_absent_shard_is_refused() {
    let d = tempfile::tempdir().unwrap();
    folder(
        d.path(),
        r#"{"architectures":["LlamaForCausalLM"]}"#,
        &safetensors("{}", 0),
    );
    std::fs::write(
        d.path().join("model.safetensors.index.json"),
        r#"{"weight_map":{"a":"model-00002-of-00002.safetensors"}}"#,
    )
    .unwrap();
    let e = refused(d.path());
    assert!(
        e.contains("model-00002-of-00002.safetensors") && e.contains("absent"),
        "{e}"
    );
}

/// `--split-max-tensors` on a checkpoint of the split reference: `--dry-run -o` lists the shards
/// and writes nothing; the run writes the script's shards byte for byte and says so; a size the
/// script would not read is refused naming the option.
#[test]
fn split_options_write_the_scripts_shards() {
    let Some(dir) = ggufkit_testkit::reference::hf_split_reference() else {
        return;
    };
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    let case = "llama2-spm-f16.tensors8";
    let folder = cases[case]["folder"].as_str().expect("the tensors8 case");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("model.gguf");
    let gguf = |extra: &[&str]| {
        let mut args = vec![
            "convert",
            folder,
            "-o",
            out.to_str().unwrap(),
            "--outtype",
            "f16",
        ];
        args.extend_from_slice(extra);
        Command::cargo_bin("gguf")
            .unwrap()
            .args(args)
            .output()
            .unwrap()
    };
    let plan = gguf(&["--split-max-tensors", "8", "--dry-run"]);
    assert!(plan.status.success());
    let text = String::from_utf8_lossy(&plan.stdout);
    assert!(text.contains("files: 3\n"), "{text}");
    for i in 1..=3 {
        assert!(
            text.contains(&format!("model-0000{i}-of-00003.gguf: ")),
            "{text}"
        );
    }
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);

    let bad = gguf(&["--split-max-size", "2MB"]);
    assert!(!bad.status.success());
    let why = String::from_utf8_lossy(&bad.stderr);
    assert!(why.contains("--split-max-size '2MB'"), "{why}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);

    let run = gguf(&["--split-max-tensors", "8"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let said = String::from_utf8_lossy(&run.stderr);
    assert!(said.contains("(3 shards)"), "{said}");
    for i in 1..=3 {
        let name = format!("model-0000{i}-of-00003.gguf");
        assert!(
            std::fs::read(tmp.path().join(&name)).unwrap()
                == std::fs::read(dir.join(case).join(&name)).unwrap(),
            "{name} differs from the script's"
        );
    }
}

/// Ctrl-C while a split conversion is writing its second shard (the first complete but not
/// renamed): no shard and no temporary file is left. The checkpoint is a Llama of one block at
/// hidden size 2048 whose weights are a sparse file of zeros (about 600 MB of f32, converted to
/// f16, one tensor a shard), with the tokenizer of the reference's llama2-spm-f16.
#[cfg(unix)]
#[test]
fn ctrl_c_during_a_split_conversion_leaves_nothing() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};

    let Some(reference) = ggufkit_testkit::reference::hf_checkpoints() else {
        return;
    };
    let tokenizer = reference.join("models/llama2-spm-f16");
    let d = tempfile::tempdir().unwrap();
    let ck = d.path().join("ck");
    std::fs::create_dir(&ck).unwrap();
    for name in ["tokenizer.model", "tokenizer.json", "tokenizer_config.json"] {
        std::fs::copy(tokenizer.join(name), ck.join(name)).unwrap();
    }
    let (hidden, ff, vocab) = (2048u64, 256u64, 32000u64);
    let mut tensors: Vec<(String, Vec<u64>)> = vec![
        ("lm_head.weight".into(), vec![vocab, hidden]),
        ("model.embed_tokens.weight".into(), vec![vocab, hidden]),
        ("model.norm.weight".into(), vec![hidden]),
    ];
    for (n, s) in [
        ("input_layernorm", vec![hidden]),
        ("mlp.down_proj", vec![hidden, ff]),
        ("mlp.gate_proj", vec![ff, hidden]),
        ("mlp.up_proj", vec![ff, hidden]),
        ("post_attention_layernorm", vec![hidden]),
        ("self_attn.k_proj", vec![hidden, hidden]),
        ("self_attn.o_proj", vec![hidden, hidden]),
        ("self_attn.q_proj", vec![hidden, hidden]),
        ("self_attn.v_proj", vec![hidden, hidden]),
    ] {
        tensors.push((format!("model.layers.0.{n}.weight"), s));
    }
    let mut header = serde_json::Map::new();
    let mut offset = 0u64;
    for (name, shape) in &tensors {
        let n = shape.iter().product::<u64>() * 4;
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + n]}),
        );
        offset += n;
    }
    let json = serde_json::to_vec(&header).unwrap();
    let mut bytes = (json.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(&json);
    let weights = ck.join("model.safetensors");
    std::fs::write(&weights, &bytes).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&weights)
        .unwrap()
        .set_len(bytes.len() as u64 + offset)
        .unwrap();
    let config = serde_json::json!({
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": hidden,
        "intermediate_size": ff, "num_hidden_layers": 1, "num_attention_heads": 16,
        "num_key_value_heads": 16, "max_position_embeddings": 256, "rms_norm_eps": 1e-5,
        "vocab_size": vocab, "torch_dtype": "float32",
    });
    std::fs::write(ck.join("config.json"), config.to_string()).unwrap();

    let out_dir = d.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gguf"))
        .args(["convert", ck.to_str().unwrap(), "-o"])
        .arg(out_dir.join("model.gguf"))
        .args(["--outtype", "f16", "--split-max-tensors", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // every shard's temporary file exists from the start; wait until the second holds data
    let second = |dir: &Path| {
        std::fs::read_dir(dir).unwrap().any(|e| {
            let e = e.unwrap();
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with(".model-00002-of-")
                && e.metadata().map(|m| m.len() > 1 << 20).unwrap_or(false)
        })
    };
    let start = Instant::now();
    let started = loop {
        if second(&out_dir) {
            break true;
        }
        if start.elapsed() > Duration::from_secs(120) || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if !started {
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "the conversion ended or stalled before its second shard: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    let left: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left {left:?}");
}
