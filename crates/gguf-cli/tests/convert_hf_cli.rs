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
