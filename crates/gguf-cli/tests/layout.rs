//! `gguf layout`: the byte map, on valid files (contiguous, complete) and broken ones (mapped up to
//! the failing field, which is marked).

mod common;

use std::path::Path;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::shared;
use serde_json::Value;

fn layout_json(dir: &Path, file: &str) -> (i32, Vec<Value>) {
    let (code, out, err) = run(dir, &["layout", file, "--json"]);
    assert!(code == 0 || code == 1, "{file}: {err}");
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{file}: {e}"));
    (code, v.as_array().unwrap().clone())
}

/// Fields follow each other with no gap or overlap from byte 0 to the end of the file.
fn assert_contiguous(file: &str, fields: &[Value], len: u64) {
    let mut pos = 0;
    for f in fields {
        let (o, l) = (f["offset"].as_u64().unwrap(), f["length"].as_u64().unwrap());
        assert_eq!(o, pos, "{file}: gap or overlap before {}", f["path"]);
        pos = o + l;
    }
    assert_eq!(
        pos, len,
        "{file}: the map does not reach the end of the file"
    );
}

#[test]
fn layout_of_a_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, out, _) = run(dir.path(), &["layout", &f]);
    assert_eq!(code, 0);
    insta::assert_snapshot!("layout_fixture", out);
    let (code, fields) = layout_json(dir.path(), &f);
    assert_eq!(code, 0);
    let len = std::fs::metadata(dir.path().join(&f)).unwrap().len();
    assert_contiguous(&f, &fields, len);
    assert_eq!(
        fields[0],
        serde_json::json!({"path": "magic", "offset": 0, "length": 4, "value": "GGUF"})
    );
    let find = |p: &str| fields.iter().find(|f| f["path"] == p).unwrap().clone();
    assert_eq!(find("num_kv_pairs")["value"], 13);
    assert_eq!(
        find("kv_pairs[0].key.value")["value"],
        "general.architecture"
    );
    assert_eq!(find("kv_pairs[0].type")["value"], "string");
    assert_eq!(find("kv_pairs[2].value")["value"], 2);
    assert_eq!(find("kv_pairs[8].value.num_elems")["value"], 4);
    assert_eq!(find("kv_pairs[8].value.elems")["value"], Value::Null);
    assert_eq!(find("tensor_infos[1].dims[1]")["value"], 8);
    assert_eq!(find("tensor_infos[1].type")["value"], "f32");
    assert_eq!(find("tensor_data[1]")["value"], "blk.0.attn_q.weight");
    assert_eq!(find("tensor_data[1]")["length"], 256);
    assert!(fields.iter().all(|f| f.get("errors").is_none()));
}

#[test]
fn layout_of_a_file_cut_inside_a_pair_marks_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = tiny_model().encode();
    // the file ends inside pair 3's key: the counts still fit (0 tensors claimed to keep going)
    bytes[8..16].copy_from_slice(&0u64.to_le_bytes());
    bytes[16..24].copy_from_slice(&4u64.to_le_bytes());
    let cut = 24 + (8 + 20 + 4 + 8 + 5) + (8 + 12 + 4 + 8 + 4) + (8 + 17 + 4 + 4) + 10;
    bytes.truncate(cut);
    std::fs::write(dir.path().join("cut.gguf"), &bytes).unwrap();
    let (code, fields) = layout_json(dir.path(), "cut.gguf");
    assert_eq!(code, 1);
    assert_contiguous("cut.gguf", &fields, cut as u64);
    let last = fields.last().unwrap();
    assert_eq!(last["path"], "kv_pairs[3]");
    assert_eq!(last["errors"][0]["rule"], "truncated");
    assert!(fields[..fields.len() - 1]
        .iter()
        .all(|f| f.get("errors").is_none()));
    let (_, out, _) = run(dir.path(), &["layout", "cut.gguf"]);
    assert!(out.contains("kv_pairs[3]\n    ^ error at byte "), "{out}");
}

#[test]
fn layout_maps_every_corpus_file() {
    let Some(c) = shared::corpus() else { return };
    let mut files = Vec::new();
    for sub in [
        "models",
        "vocab",
        "big-endian",
        "split",
        "synthetic",
        "synthetic/edge",
        "synthetic/malformed",
        "malformed",
    ] {
        for e in std::fs::read_dir(c.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "gguf") {
                files.push(format!(
                    "{sub}/{}",
                    p.file_name().unwrap().to_string_lossy()
                ));
            }
        }
    }
    files.sort();
    assert!(files.len() > 40);
    for f in &files {
        let (code, fields) = layout_json(&c, f);
        let len = std::fs::metadata(c.join(f)).unwrap().len();
        assert_contiguous(f, &fields, len);
        let marked = fields.iter().any(|x| x.get("errors").is_some());
        let (vcode, _, _) = run(&c, &["validate", f]);
        assert_eq!(code, vcode, "{f}: layout and validate disagree");
        if code == 1 {
            assert!(marked, "{f}: invalid but nothing marked");
        }
    }
    let (_, out, _) = run(
        &c,
        &["layout", "synthetic/malformed/tensor_type_99_unknown.gguf"],
    );
    insta::assert_snapshot!("layout_type_99", out);
}
