//! `gguf tensors --stats [--tensor GLOB]`: value statistics over the dequantized tensors.

mod common;

use common::run;
use ggufkit_testkit::{shared, Model};
use serde_json::Value;

/// A fixture with special values and a q8_0 tensor.
fn fixture() -> Model {
    // q8_0, one block: d = 0.5 (f16 0x3800), quants -64..-33 → values -32.0 .. -16.5.
    let mut q8 = vec![0x00, 0x38];
    q8.extend((0..32).map(|i| (i as i8 - 64) as u8));
    Model::new()
        .f32(
            "special.weight",
            &[8],
            &[1.0, 2.0, 3.0, 4.0, f32::NAN, f32::INFINITY, 0.0, -0.0],
        )
        .f32(
            "ramp.weight",
            &[100],
            &(0..100).map(|i| i as f32).collect::<Vec<_>>(),
        )
        .raw("q.weight", &[32], 8, q8)
}

fn stats_json(dir: &std::path::Path, args: &[&str]) -> (i32, Vec<Value>, String) {
    let (code, out, err) = run(dir, args);
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    (code, v["tensors"].as_array().unwrap().clone(), err)
}

fn close(a: &Value, b: f64) -> bool {
    (a.as_f64().unwrap() - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn stats_of_special_values_ramp_and_q8_0() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture().write(dir.path(), "s.gguf");
    let (code, t, err) = stats_json(dir.path(), &["tensors", &f, "--stats", "--json"]);
    assert_eq!(code, 0, "{err}");
    // Not a terminal: no progress bar on stderr.
    assert!(err.is_empty(), "{err}");
    assert_eq!(t.len(), 3);

    let s = &t[0];
    assert_eq!(s["name"], "special.weight");
    assert_eq!(s["nan"], 1);
    assert_eq!(s["inf"], 1);
    assert_eq!(s["zeros"], 2);
    assert_eq!(s["finite"], 6);
    assert!(close(&s["min"], 0.0) && close(&s["max"], 4.0));
    assert!(close(&s["mean"], 10.0 / 6.0));
    let var = [1.0f64, 2.0, 3.0, 4.0, 0.0, 0.0]
        .iter()
        .map(|x| (x - 10.0 / 6.0).powi(2))
        .sum::<f64>()
        / 6.0;
    assert!(close(&s["std"], var.sqrt()));
    let h: Vec<u64> = s["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    // Bins of width 0.4 over [0, 4]: 0,0 | 1 | 2 | 3 | 4 (the max lands in the last bin).
    assert_eq!(h, [2, 0, 1, 0, 0, 1, 0, 1, 0, 1]);

    let r = &t[1];
    assert!(close(&r["min"], 0.0) && close(&r["max"], 99.0));
    assert!(close(&r["mean"], 49.5));
    assert!(close(&r["std"], (9999.0f64 / 12.0).sqrt()));
    assert_eq!(r["zeros"], 1);
    assert_eq!(r["histogram"], serde_json::to_value([10u64; 10]).unwrap());

    let q = &t[2];
    assert_eq!(q["type"], "q8_0");
    assert!(close(&q["min"], -32.0) && close(&q["max"], -16.5));
    assert!(close(&q["mean"], (-32.0 - 16.5) / 2.0));
    assert_eq!(q["nan"], 0);
}

#[test]
fn tensor_glob_selects_and_human_table_shows_a_histogram() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture().write(dir.path(), "s.gguf");
    let (code, t, _) = stats_json(
        dir.path(),
        &["tensors", &f, "--stats", "--tensor", "r*", "--json"],
    );
    assert_eq!(code, 0);
    assert_eq!(t.len(), 1);
    assert_eq!(t[0]["name"], "ramp.weight");

    let (code, out, err) = run(dir.path(), &["tensors", &f, "--stats"]);
    assert_eq!(code, 0, "{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("ramp.weight"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("[██████████]"), "{line}");
    assert!(line.contains("49.5"), "{line}");
    assert!(out.contains("3 tensors"), "{out}");
    let special = out.lines().find(|l| l.starts_with("special")).unwrap();
    let cols: Vec<&str> = special.split_whitespace().collect();
    // name type elements min max mean std nan inf zeros histogram
    assert_eq!(&cols[7..10], ["1", "1", "2"], "{special}");

    // --tensor needs --stats.
    let (code, _, err) = run(dir.path(), &["tensors", &f, "--tensor", "r*"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn a_cut_file_reports_the_unreadable_tensor_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = fixture().encode();
    // Cut into the last tensor's data (34 bytes, then at most 30 of padding).
    std::fs::write(dir.path().join("cut.gguf"), &bytes[..bytes.len() - 40]).unwrap();
    let (code, out, _) = run(dir.path(), &["tensors", "cut.gguf", "--stats", "--json"]);
    assert_ne!(code, 0);
    let v: Value = serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{e}: {out}"));
    let t = v["tensors"].as_array().unwrap();
    let q = t.iter().find(|x| x["name"] == "q.weight").unwrap();
    assert!(q["error"].is_string(), "{q}");
    assert!(t
        .iter()
        .any(|x| x["name"] == "ramp.weight" && x["finite"] == 100));
}

#[test]
fn stats_of_the_corpus_model() {
    let Some(c) = shared::corpus() else { return };
    let model = c.join("models/llama-2-tiny-random.gguf");
    let m = model.to_str().unwrap();
    let (code, t, err) = stats_json(&c, &["tensors", m, "--stats", "--json"]);
    assert_eq!(code, 0, "{err}");
    let g = ggufkit::Gguf::open(&model).unwrap();
    assert_eq!(t.len(), g.tensor_count());
    for (s, ti) in t.iter().zip(g.tensors()) {
        assert_eq!(s["name"], ti.name().as_ref());
        assert!(s.get("error").is_none(), "{s}");
        let finite = s["finite"].as_u64().unwrap();
        let total = finite + s["nan"].as_u64().unwrap() + s["inf"].as_u64().unwrap();
        assert_eq!(total, ti.n_elements());
        let hist: u64 = s["histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(hist, finite);
    }
}
