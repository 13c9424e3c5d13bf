//! Quantized (FP8) and fused-expert checkpoints: the differential test against
//! convert_hf_to_gguf.py on the tiny checkpoints of scripts/hf_reference/make_fp8_checkpoints.py
//! (whole files byte-identical, or both refusing), and the hostile folders each refused in one
//! line naming the file and the tensor, before anything is written.
#![cfg(feature = "convert")]

use std::path::Path;

use ggufkit::convert::execute::convert_folder;
use ggufkit::convert::plan::ConvertOptions;
use ggufkit::convert::{HfFolder, OutType};
use ggufkit::read::Gguf;
use ggufkit_testkit::compare::first_difference;
use ggufkit_testkit::reference;

#[test]
fn quantized_and_fused_conversions_match_the_script() {
    let Some(dir) = reference::hf_fp8_checkpoints() else {
        return;
    };
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json"))
            .expect("cases.json parses");
    let tmp = tempfile::tempdir().unwrap();
    let outtypes: Vec<&str> = cases["outtypes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let jobs: Vec<(&str, &str)> = cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| outtypes.iter().map(move |t| (c.as_str().unwrap(), *t)))
        .collect();
    // two workers: the conversions are independent and the tokenizer work is single-threaded
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Outcome> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&(case, t)) = jobs.get(i) else {
                            return done;
                        };
                        done.push(check(&dir, tmp.path(), case, t));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    let (mut failures, mut compared, mut refused) = (Vec::new(), 0, 0);
    for r in results {
        match r {
            Outcome::Same => compared += 1,
            Outcome::BothRefuse(line) => {
                refused += 1;
                eprintln!("{line}");
            }
            Outcome::Differs(f) => failures.push(f),
        }
    }
    failures.sort();
    eprintln!("compared {compared} conversions byte for byte, {refused} refused by both");
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// What one conversion gave beside the script's.
enum Outcome {
    Same,
    BothRefuse(String),
    Differs(String),
}

/// Converts `case` at `outtype t` and compares it with the script's output (or refusal).
fn check(dir: &Path, tmp: &Path, case: &str, t: &str) -> Outcome {
    let folder = dir.join("models").join(case);
    if !folder.is_dir() {
        return Outcome::Differs(format!("{case}: the generator could not make it"));
    }
    let reference = dir.join("ref").join(format!("{case}.{t}.gguf"));
    let refusal = dir.join("ref").join(format!("{case}.{t}.error.txt"));
    let opts = ConvertOptions {
        outtype: t.parse::<OutType>().unwrap(),
        ..Default::default()
    };
    let out = tmp.join(format!("{case}.{t}.gguf"));
    let ours = convert_folder(&folder, &out, &opts, true, None);
    if refusal.is_file() {
        let theirs = std::fs::read_to_string(&refusal).unwrap_or_default();
        let theirs = theirs.lines().last().unwrap_or("").to_string();
        return match ours {
            Ok(_) => Outcome::Differs(format!(
                "{case} --outtype {t}: converts, where the script refuses: {theirs}"
            )),
            Err(e) => Outcome::BothRefuse(format!(
                "{case} --outtype {t}: refused as the script does: ours: {e}; the script's: {theirs}"
            )),
        };
    }
    if !reference.is_file() {
        return Outcome::Differs(format!("{case} --outtype {t}: no reference made"));
    }
    if let Err(e) = ours {
        return Outcome::Differs(format!("{case} --outtype {t}: {e}"));
    }
    let (a, b) = (
        std::fs::read(&out).unwrap(),
        std::fs::read(&reference).unwrap(),
    );
    let _ = std::fs::remove_file(&out);
    if a == b {
        return Outcome::Same;
    }
    let d = first_difference(
        &Gguf::from_bytes(&a).unwrap(),
        &Gguf::from_bytes(&b).unwrap(),
    )
    .unwrap_or_else(|| "the bytes differ (header padding)".into());
    Outcome::Differs(format!("{case} --outtype {t}: {d}"))
}

/// A safetensors file of `tensors` (name, dtype, shape), every byte `fill`.
fn safetensors(path: &Path, tensors: &[(&str, &str, &[u64])], fill: u8) {
    let size = |d: &str| match d {
        "F32" => 4,
        "BF16" | "F16" => 2,
        _ => 1,
    };
    let mut header = serde_json::Map::new();
    let mut offset = 0u64;
    for (name, dtype, shape) in tensors {
        let n = shape.iter().product::<u64>() * size(dtype);
        header.insert(
            name.to_string(),
            serde_json::json!({"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}),
        );
        offset += n;
    }
    let json = serde_json::to_vec(&header).unwrap();
    let mut bytes = (json.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(&json);
    bytes.resize(bytes.len() + offset as usize, fill);
    std::fs::write(path, bytes).unwrap();
}

/// A folder holding a Qwen3-MoE config with `quantization` and `tensors`; what converting it
/// says.
fn refusal(quantization: serde_json::Value, tensors: &[(&str, &str, &[u64])]) -> String {
    refusal_of("Qwen3MoeForCausalLM", quantization, tensors)
}

/// A folder holding a config of `class` with `quantization` and `tensors`; what converting it
/// says (one line, nothing written).
fn refusal_of(
    class: &str,
    quantization: serde_json::Value,
    tensors: &[(&str, &str, &[u64])],
) -> String {
    let dir = tempfile::tempdir().unwrap();
    let config = serde_json::json!({
        "architectures": [class], "num_local_experts": 2,
        "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
        "num_key_value_heads": 2, "num_experts": 2, "vocab_size": 8,
        "quantization_config": quantization,
    });
    std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
    safetensors(&dir.path().join("model.safetensors"), tensors, 0x38);
    let out = dir.path().join("out.gguf");
    let e = match HfFolder::open(dir.path()) {
        Err(e) => e.to_string(),
        Ok(_) => match convert_folder(dir.path(), &out, &ConvertOptions::default(), true, None) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("converted"),
        },
    };
    assert!(!out.exists(), "nothing is written: {e}");
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

#[test]
fn hostile_quantized_folders_are_refused_naming_file_and_tensor() {
    let fp8 = serde_json::json!({"quant_method": "fp8", "weight_block_size": [32, 32]});
    let w = "model.layers.0.self_attn.q_proj.weight";
    let s = "model.layers.0.self_attn.q_proj.weight_scale_inv";
    // a scale of the wrong shape: three blocks of 32 do not cover 128 rows
    let e = refusal(
        fp8.clone(),
        &[(w, "F8_E4M3", &[128, 64]), (s, "F32", &[3, 2])],
    );
    assert!(
        e.contains("model.safetensors")
            && e.contains(&format!("tensor '{s}'"))
            && e.contains("does not scale weight"),
        "{e}"
    );
    // a scale of the wrong rank
    let e = refusal(fp8.clone(), &[(w, "F8_E4M3", &[128, 64]), (s, "F32", &[8])]);
    assert!(e.contains(&format!("tensor '{s}'")), "{e}");
    // a missing scale
    let e = refusal(fp8.clone(), &[(w, "F8_E4M3", &[128, 64])]);
    assert!(
        e.contains("model.safetensors")
            && e.contains(&format!("tensor '{w}'"))
            && e.contains("without its scale"),
        "{e}"
    );
    // a scale without its weight
    let e = refusal(fp8.clone(), &[(s, "F32", &[4, 2])]);
    assert!(
        e.contains(&format!("tensor '{s}'")) && e.contains("absent"),
        "{e}"
    );
    // an FP8 dtype the format does not name
    let e = refusal(
        fp8.clone(),
        &[(w, "F8_E4M3FNUZ", &[128, 64]), (s, "F32", &[4, 2])],
    );
    assert!(
        e.contains("model.safetensors")
            && e.contains(&format!("tensor '{w}'"))
            && e.contains("unknown dtype 'F8_E4M3FNUZ'"),
        "{e}"
    );
    // a scale of a dtype not read
    let e = refusal(
        fp8.clone(),
        &[(w, "F8_E4M3", &[128, 64]), (s, "F8_E4M3", &[4, 2])],
    );
    assert!(
        e.contains(&format!("tensor '{s}'")) && e.contains("F8_E4M3"),
        "{e}"
    );
    // a block size that is not one
    let e = refusal(
        serde_json::json!({"quant_method": "fp8", "weight_block_size": [0, 32]}),
        &[(w, "F8_E4M3", &[128, 64]), (s, "F32", &[4, 2])],
    );
    assert!(
        e.contains("config.json") && e.contains("weight_block_size"),
        "{e}"
    );
    // a method not converted
    let e = refusal(
        serde_json::json!({"quant_method": "gptq", "bits": 4}),
        &[(w, "F16", &[128, 64])],
    );
    assert!(e.contains("config.json") && e.contains("'gptq'"), "{e}");
    // a fused gate_up_proj whose rows do not halve
    let g = "model.layers.0.mlp.experts.gate_up_proj";
    let e = refusal(serde_json::Value::Null, &[(g, "BF16", &[2, 63, 64])]);
    assert!(
        e.contains(&format!("tensor '{g}'")) && e.contains("[2, 63, 64]"),
        "{e}"
    );
    // Mixtral's fused experts, which the pinned script cannot map either
    let e = refusal_of(
        "MixtralForCausalLM",
        serde_json::Value::Null,
        &[
            ("model.layers.0.mlp.experts.down_proj", "BF16", &[2, 64, 32]),
            (g, "BF16", &[2, 64, 64]),
        ],
    );
    assert!(
        e.contains(&format!("tensor '{g}'")) && e.contains("fused experts"),
        "{e}"
    );
}
