//! Files with tensor types from forks of ggml (ik_llama.cpp's 139 and 142, unsloth's 66) and an
//! id no table has: the read-only commands show every tensor with its id and, where the forks'
//! table has it, its name and origin, and exit 1 (the file is invalid: `tensor.type`); the
//! commands that decode or write refuse them naming the tensor and the id, exit 2.

mod common;

use std::path::Path;

use common::run;
use ggufkit_testkit::encode::{Model, V};

const FILE: &str = "forks.gguf";

/// f32 `a`, iq4_k `ik` (139), f32 `b`, iq2_tn or pq2_0 `prism` (142), iq1_xxxs `unsloth` (66),
/// `nobody` (1000).
fn write_model(dir: &Path) {
    let m = Model {
        pad_last: false,
        ..Model::new()
    }
    .kv("general.architecture", V::str("llama"))
    .kv("general.name", V::str("forks"))
    .f32("a", &[8], &[1.0; 8])
    .raw("ik", &[256], 139, vec![7; 144])
    .f32("b", &[4], &[1.0, 2.0, 3.0, 4.0])
    .raw("prism", &[128], 142, vec![8; 40])
    .raw("unsloth", &[32], 66, vec![9; 8])
    .raw("nobody", &[16], 1000, vec![5; 50]);
    m.write(dir, FILE);
}

fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    dir
}

/// The first problem as `validate` and every command word it.
const FIRST: &str = "at byte 161: tensor 'ik' has type 139 (iq4_k of ik_llama.cpp), which ggml does not read; expected a type id below 43 [tensor.type]";

#[test]
fn validate_reports_one_type_error_per_tensor() {
    let dir = setup();
    let (code, out, err) = run(dir.path(), &["validate", FILE]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(out.matches("[tensor.type]").count(), 4, "{out}");
    assert!(!out.contains("[tensor.offset]"), "{out}");
    assert!(out.contains(FIRST), "{out}");
}

#[test]
fn read_only_commands_show_every_tensor_with_its_type() {
    let dir = setup();
    for cmd in ["info", "dump", "tensors", "layout"] {
        let (code, out, err) = run(dir.path(), &[cmd, FILE]);
        assert_eq!(code, 1, "{cmd}: {err}");
        // info says it in its status line, the others on stderr
        assert!(err.contains(FIRST) || out.contains(FIRST), "{cmd}: {err}");
        assert!(!err.contains("panicked"), "{cmd}: {err}");
        assert!(out.contains("iq4_k (ik_llama.cpp, id 139)"), "{cmd}: {out}");
        if cmd != "layout" {
            // layout shows the fields of the first infos; the tables show every tensor
            for t in [
                "iq2_tn or pq2_0 (ik_llama.cpp, withdrawn, or Prism, id 142)",
                "iq1_xxxs (unsloth's experiments, id 66)",
                "unknown (id 1000)",
            ] {
                assert!(out.contains(t), "{cmd}: {t} missing in {out}");
            }
        }
    }
    // the table's sizes: up to the next tensor's data, the last one to the end of the file
    let (_, out, _) = run(dir.path(), &["tensors", FILE]);
    let ik = out.lines().find(|l| l.starts_with("ik ")).expect("ik row");
    assert!(ik.split_whitespace().any(|w| w == "160"), "{ik}");
    let nobody = out.lines().find(|l| l.starts_with("nobody ")).expect("row");
    assert!(nobody.split_whitespace().any(|w| w == "50"), "{nobody}");
    // the metadata is whole
    let (_, out, _) = run(dir.path(), &["dump", FILE]);
    assert!(out.contains("\"forks\""), "{out}");
}

#[test]
fn json_gives_the_id_and_the_name() {
    let dir = setup();
    let (code, out, err) = run(dir.path(), &["tensors", "--json", FILE]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    let t = &v["tensors"];
    assert_eq!(t[0]["type"], "f32");
    assert!(t[0].get("type_id").is_none(), "{}", t[0]);
    assert_eq!(
        (t[1]["type"].as_str(), t[1]["type_id"].as_u64()),
        (Some("iq4_k"), Some(139))
    );
    assert_eq!(
        (t[3]["type"].as_str(), t[3]["type_id"].as_u64()),
        (Some("iq2_tn or pq2_0"), Some(142))
    );
    assert_eq!(
        (t[4]["type"].as_str(), t[4]["type_id"].as_u64()),
        (Some("iq1_xxxs"), Some(66))
    );
    assert_eq!(t[1]["size"], 160);
    let (code, out, _) = run(dir.path(), &["dump", "--json", FILE]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["tensors"][5]["type_id"], 1000);
    assert_eq!(v["metadata"].as_array().map(Vec::len), Some(2));
    let (code, out, _) = run(dir.path(), &["info", "--json", FILE]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    assert_eq!(v["valid"], false);
    assert_eq!(v["ggml_compatible"], false);
    let types = v["types"].as_array().expect("types");
    assert!(
        types
            .iter()
            .any(|t| t["type"] == "iq4_k" && t["type_id"] == 139),
        "{types:?}"
    );
}

#[test]
fn report_shows_them() {
    let dir = setup();
    let (code, _, err) = run(dir.path(), &["report", FILE, "-o", "r.html"]);
    assert_eq!(code, 1, "{err}");
    let html = std::fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(html.contains("iq4_k (ik_llama.cpp, id 139)"));
    assert!(html.contains("unknown (id 1000)"));
}

#[test]
fn decoding_and_writing_refuse_them_by_name_and_id() {
    let dir = setup();
    let refused = "tensor 'ik' has type iq4_k (ik_llama.cpp, id 139), which this build cannot decode or write";
    for args in [
        vec!["export", FILE, "--tensor", "ik", "-o", "ik.npy"],
        vec!["export", FILE, "-o", "all.safetensors"],
    ] {
        let (code, _, err) = run(dir.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains(&format!("{FILE}: {refused}")),
            "{args:?}: {err}"
        );
        assert!(!dir.path().join(args[args.len() - 1]).exists());
    }
    // a tensor of a known type still exports, from an invalid file: exit 1
    let (code, _, err) = run(
        dir.path(),
        &["export", FILE, "--tensor", "b", "-o", "b.npy"],
    );
    assert_eq!(code, 1, "{err}");
    // the writing commands read strictly: the first problem, exit 2
    for args in [
        vec!["convert", FILE, "-o", "c.gguf"],
        vec!["quantize", FILE, "q.gguf", "Q8_0"],
        vec!["meta", "set", FILE, "general.name", "x", "-o", "m.gguf"],
    ] {
        let (code, _, err) = run(dir.path(), &args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("type 139 (iq4_k of ik_llama.cpp)"),
            "{args:?}: {err}"
        );
    }
}

/// A TurboQuant fork's file: `tq` has ggml's id 41 (q1_0) but 112 bytes where q1_0 would take
/// 36, and the next tensor starts where those 112 bytes end.
fn write_turboquant(dir: &Path) {
    let mut m = Model::new()
        .kv("general.architecture", V::str("llama"))
        .f32("a", &[8], &[1.0; 8])
        .raw("tq", &[256], 41, vec![7; 112])
        .f32("b", &[4], &[1.0, 2.0, 3.0, 4.0]);
    let mut next = 0;
    for t in &mut m.tensors {
        t.offset = Some(next);
        next = (next + t.data.len() as u64).div_ceil(32) * 32;
    }
    m.write(dir, "turbo.gguf");
}

#[test]
fn a_turboquant_file_under_ggmls_ids_opens_in_the_read_only_commands() {
    let dir = tempfile::tempdir().unwrap();
    write_turboquant(dir.path());
    let (code, out, err) = run(dir.path(), &["validate", "turbo.gguf"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("[tensor.offset]"), "{out}");
    assert!(out.contains("TurboQuant forks reuse ids 41-47"), "{out}");
    for cmd in ["info", "dump", "tensors", "layout"] {
        let (code, out, err) = run(dir.path(), &[cmd, "turbo.gguf"]);
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(!err.contains("panicked"), "{cmd}: {err}");
        if cmd == "tensors" {
            assert!(out.contains("not q1_0, whose size does not fit"), "{out}");
        }
    }
    let (code, out, _) = run(dir.path(), &["tensors", "--json", "turbo.gguf"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("json");
    let t = v
        .as_array()
        .or_else(|| v["tensors"].as_array())
        .expect("tensors");
    assert_eq!(
        (t[1]["type_id"].as_u64(), t[1]["size"].as_u64()),
        (Some(41), Some(128))
    );
    let (code, _, err) = run(
        dir.path(),
        &["export", "turbo.gguf", "--tensor", "tq", "-o", "tq.npy"],
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("tensor 'tq'") && err.contains("id 41"),
        "{err}"
    );
}

#[test]
fn scan_keeps_each_tensors_type_id() {
    let dir = setup();
    let (code, _, err) = run(
        dir.path(),
        &["scan", FILE, "-o", "out", "--format", "jsonl"],
    );
    assert_eq!(code, 0, "{err}");
    let part = std::fs::read_dir(dir.path().join("out/tensors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .expect("a tensors part");
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(part)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<u64> = rows.iter().filter_map(|r| r["type_id"].as_u64()).collect();
    assert_eq!(ids, [0, 139, 0, 142, 66, 1000]);
    let names: Vec<&str> = rows.iter().filter_map(|r| r["type"].as_str()).collect();
    assert_eq!(names[1], "iq4_k");
    assert_eq!(names[5], "unknown");
}
