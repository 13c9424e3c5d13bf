//! `gguf hash` (manifest, --check) and `gguf diff`.

mod common;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::{shared, Model, V};

#[test]
fn hash_manifest_checks_back_and_catches_a_flipped_byte() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    for algo in ["xxh64", "sha256"] {
        let (code, manifest, err) = run(dir.path(), &["hash", &f, "--algo", algo]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(manifest.lines().count(), 1 + 7 + 1);
        assert!(manifest.starts_with("# gguf hash: tiny.gguf\n"));
        assert!(manifest
            .lines()
            .nth(1)
            .unwrap()
            .starts_with(&format!("{algo}  ")));
        assert!(manifest.lines().last().unwrap().ends_with("  data"));
        std::fs::write(dir.path().join("m.txt"), &manifest).unwrap();
        let (code, out, _) = run(dir.path(), &["hash", &f, "--check", "m.txt"]);
        assert_eq!(code, 0);
        assert_eq!(
            out,
            format!("tiny.gguf: OK (7 tensors and the data section match, {algo})\n")
        );
    }
    // flip one byte of blk.1.attn_q.weight's data
    let mut bytes = tiny_model().encode();
    let at = bytes.len() - 32 * 4 - 128 - 256 + 3;
    bytes[at] ^= 0x40;
    std::fs::write(dir.path().join("bad.gguf"), &bytes).unwrap();
    let (code, out, _) = run(dir.path(), &["hash", "bad.gguf", "--check", "m.txt"]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with("bad.gguf: MISMATCH  tensor  "),
        "{out}"
    );
    assert!(lines[1].starts_with("bad.gguf: MISMATCH  data  (expected "));
    assert_eq!(lines[2], "bad.gguf: FAILED (2 problems)");
}

#[test]
fn hash_is_the_same_for_the_same_tensors_and_known_for_one() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (_, out, _) = run(dir.path(), &["hash", &f]);
    // token_embd.weight is 0.0, 0.5, ..., 15.5 as little-endian f32
    let data: Vec<u8> = (0..32)
        .flat_map(|i| (i as f32 * 0.5).to_le_bytes())
        .collect();
    let want = format!("{:016x}", xxhash_rust_free_xxh64(&data));
    assert_eq!(
        out.lines().nth(1).unwrap(),
        format!("xxh64  {want}  tensor  token_embd.weight")
    );
}

/// XXH64 with seed 0, written from the reference algorithm so the test does not trust the crate.
fn xxhash_rust_free_xxh64(input: &[u8]) -> u64 {
    const P1: u64 = 0x9E3779B185EBCA87;
    const P2: u64 = 0xC2B2AE3D27D4EB4F;
    const P3: u64 = 0x165667B19E3779F9;
    const P4: u64 = 0x85EBCA77C2B2AE63;
    const P5: u64 = 0x27D4EB2F165667C5;
    let round = |acc: u64, lane: u64| {
        acc.wrapping_add(lane.wrapping_mul(P2))
            .rotate_left(31)
            .wrapping_mul(P1)
    };
    let merge = |acc: u64, v: u64| (acc ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4);
    let rd64 = |b: &[u8]| u64::from_le_bytes(b[..8].try_into().unwrap());
    let mut p = input;
    let mut h = if input.len() >= 32 {
        let mut v = [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)];
        while p.len() >= 32 {
            for (k, vk) in v.iter_mut().enumerate() {
                *vk = round(*vk, rd64(&p[8 * k..]));
            }
            p = &p[32..];
        }
        let mut h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        for vk in v {
            h = merge(h, vk);
        }
        h
    } else {
        P5
    };
    h = h.wrapping_add(input.len() as u64);
    while p.len() >= 8 {
        h = (h ^ round(0, rd64(p)))
            .rotate_left(27)
            .wrapping_mul(P1)
            .wrapping_add(P4);
        p = &p[8..];
    }
    if p.len() >= 4 {
        let v = u32::from_le_bytes(p[..4].try_into().unwrap()) as u64;
        h = (h ^ v.wrapping_mul(P1))
            .rotate_left(23)
            .wrapping_mul(P2)
            .wrapping_add(P3);
        p = &p[4..];
    }
    for &b in p {
        h = (h ^ (b as u64).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

#[test]
fn hash_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.txt"), "xxh64  nothex  data\n").unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, out, err) = run(dir.path(), &["hash", &f, "--check", "m.txt"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(
        err,
        "gguf: m.txt: at byte 0: line 1: 'nothex' is not a xxh64 digest (16 hex digits)\n"
    );
    // tensor data cut short: the header parses (permissively), the hash cannot be computed
    let mut bytes = tiny_model().encode();
    bytes.truncate(bytes.len() - 40);
    std::fs::write(dir.path().join("short.gguf"), &bytes).unwrap();
    let (code, out, err) = run(dir.path(), &["hash", "short.gguf"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(
        err.lines()
            .all(|l| l.starts_with("gguf: short.gguf: at byte ")),
        "{err}"
    );
}

#[test]
fn diff_of_equal_files_is_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let a = tiny_model().write(dir.path(), "a.gguf");
    let b = tiny_model().write(dir.path(), "b.gguf");
    let (code, out, _) = run(dir.path(), &["diff", &a, &b]);
    assert_eq!(code, 0);
    assert!(out.contains("no differences"));
    let (code, out, _) = run(dir.path(), &["diff", &a, &b, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["equal"], true);
}

#[test]
fn diff_names_every_kind_of_difference() {
    let dir = tempfile::tempdir().unwrap();
    let a = tiny_model()
        .kv("only.in.a", V::I32(-5))
        .kv("arr", V::i32s(&[1, 2, 3, 4]))
        .kv("f", V::F32(f32::NAN))
        .write(dir.path(), "a.gguf");
    let mut b = tiny_model()
        .kv("arr", V::i32s(&[1, 2, 9, 4, 5]))
        .kv("f", V::F32(f32::NAN))
        .kv("only.in.b", V::bool(true))
        .f32("extra.weight", &[8], &[1.0; 8])
        .encode();
    // change one value of output.weight (the last tensor before extra.weight)
    let at = b.len() - 32 - 128 + 4;
    b[at] ^= 1;
    std::fs::write(dir.path().join("b.gguf"), &b).unwrap();
    let (code, out, err) = run(dir.path(), &["diff", &a, "b.gguf"]);
    assert_eq!(code, 1, "{err}");
    insta::assert_snapshot!("diff_fixture", out);
    let (code, out, _) = run(dir.path(), &["diff", &a, "b.gguf", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["equal"], false);
    assert_eq!(v["metadata"]["removed"][0]["key"], "only.in.a");
    assert_eq!(v["metadata"]["added"][0]["key"], "only.in.b");
    let changed = &v["metadata"]["changed"];
    assert_eq!(
        changed.as_array().unwrap().len(),
        1,
        "NaN equals the same NaN"
    );
    assert_eq!(changed[0]["key"], "arr");
    assert_eq!(changed[0]["first_difference"], 2);
    assert_eq!(changed[0]["a"]["value"], serde_json::json!([1, 2, 3, 4]));
    assert_eq!(changed[0]["b"]["value"], serde_json::json!([1, 2, 9, 4, 5]));
    assert_eq!(v["tensors"]["added"][0]["name"], "extra.weight");
    let tc = &v["tensors"]["changed"][0];
    assert_eq!(tc["name"], "output.weight");
    assert_eq!(tc["changes"], serde_json::json!(["data"]));
    assert_ne!(tc["a"]["xxh64"], tc["b"]["xxh64"]);
}

#[test]
fn diff_type_and_shape_changes() {
    let dir = tempfile::tempdir().unwrap();
    let a = Model::new()
        .f32("t", &[4], &[1.0, 2.0, 3.0, 4.0])
        .f32("u", &[4], &[1.0, 2.0, 3.0, 4.0])
        .write(dir.path(), "a.gguf");
    let b = Model::new()
        .raw("t", &[8], 1, vec![0; 16]) // f16
        .f32("u", &[2, 2], &[1.0, 2.0, 3.0, 4.0])
        .write(dir.path(), "b.gguf");
    let (code, out, _) = run(dir.path(), &["diff", &a, &b, "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ch = v["tensors"]["changed"].as_array().unwrap();
    assert_eq!(ch[0]["changes"], serde_json::json!(["type", "shape"]));
    assert_eq!(ch[1]["changes"], serde_json::json!(["shape"]));
    assert!(ch[1]["a"].get("xxh64").is_none());
}

#[test]
fn diff_on_corpus() {
    let Some(c) = shared::corpus() else { return };
    let (code, out, _) = run(
        &c,
        &[
            "diff",
            "models/llama-2-tiny-random.gguf",
            "big-endian/llama-2-tiny-random.BE.gguf",
        ],
    );
    assert_eq!(code, 1);
    assert!(out.contains("~ endian: little -> big"));
    let (code, out, _) = run(
        &c,
        &[
            "diff",
            "vocab/ggml-vocab-llama-spm.gguf",
            "vocab/ggml-vocab-llama-bpe.gguf",
        ],
    );
    assert_eq!(code, 1);
    insta::assert_snapshot!("diff_vocab_spm_bpe", out);
    let (code, _, err) = run(&c, &["diff", "models/superpoint.gguf", "nope.gguf"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("gguf: nope.gguf: "), "{err}");
}

#[test]
fn hash_several_files_into_one_manifest_and_check_each() {
    let dir = tempfile::tempdir().unwrap();
    let a = tiny_model().write(dir.path(), "a.gguf");
    let b = tiny_model()
        .f32("extra", &[4], &[1.0, 2.0, 3.0, 4.0])
        .write(dir.path(), "b.gguf");
    let (code, manifest, _) = run(dir.path(), &["hash", &a, &b]);
    assert_eq!(code, 0);
    assert_eq!(manifest.matches("# gguf hash: ").count(), 2);
    std::fs::write(dir.path().join("m.txt"), &manifest).unwrap();
    let (code, out, _) = run(dir.path(), &["hash", &b, &a, "--check", "m.txt"]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        out,
        "b.gguf: OK (8 tensors and the data section match, xxh64)\na.gguf: OK (7 tensors and the data section match, xxh64)\n"
    );
    // a copy under another name is matched by neither path nor name: two sections, no pick
    std::fs::copy(dir.path().join(&a), dir.path().join("c.gguf")).unwrap();
    let (code, _, err) = run(dir.path(), &["hash", "c.gguf", "--check", "m.txt"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        "gguf: m.txt: no section for c.gguf (its sections: a.gguf, b.gguf)\n"
    );
    // checked against the other file's section: the extra tensor and the data differ
    std::fs::write(
        dir.path().join("only_b.txt"),
        manifest
            .split("# gguf hash: b.gguf")
            .nth(1)
            .map(|s| format!("# gguf hash: b.gguf{s}"))
            .unwrap(),
    )
    .unwrap();
    let (code, out, _) = run(dir.path(), &["hash", &a, "--check", "only_b.txt"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("a.gguf: MISSING   tensor  extra  (in the manifest, not in the file)\n"),
        "{out}"
    );
    assert!(out.ends_with("a.gguf: FAILED (2 problems)\n"), "{out}");
}

#[test]
fn tensor_sha256_matches_the_corpus_manifest() {
    let Some(c) = shared::corpus() else { return };
    let syn = c.join("synthetic");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(syn.join("manifest.json")).unwrap()).unwrap();
    let mut compared = 0;
    for (file, entry) in m["files"].as_object().unwrap() {
        let (code, out, _) = run(&syn, &["hash", file, "--algo", "sha256"]);
        if code != 0 {
            continue; // malformed files: no data to hash
        }
        let got: std::collections::HashMap<&str, &str> = out
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.splitn(4, "  ").collect();
                (f.len() == 4 && f[2] == "tensor").then(|| (f[3], f[1]))
            })
            .collect();
        for t in entry["tensors"].as_array().unwrap() {
            // the manifest lists a split model's tensors under its first shard only
            let Some(h) = got.get(t["name"].as_str().unwrap()) else {
                assert!(file.starts_with("split"), "{file}: {} missing", t["name"]);
                continue;
            };
            assert_eq!(*h, t["sha256"].as_str().unwrap(), "{file}: {}", t["name"]);
            compared += 1;
        }
    }
    assert!(compared > 50, "only {compared} tensors compared");
}

#[test]
fn check_without_file_uses_the_manifests_files() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("models");
    std::fs::create_dir(&sub).unwrap();
    let f = ggufkit_testkit::fixtures::tiny_model().write(&sub, "tiny.gguf");
    let (code, manifest, err) = common::run(&sub, &["hash", &f]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(sub.join("tiny.manifest"), &manifest).unwrap();
    // in the manifest's folder, and from elsewhere: the file is found beside the manifest
    for (cwd, m) in [
        (&sub, "tiny.manifest"),
        (&dir.path().to_path_buf(), "models/tiny.manifest"),
    ] {
        let (code, out, err) = common::run(cwd, &["hash", "--check", m]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("OK (7 tensors and the data section match"),
            "{out}"
        );
    }
    // the help says what is covered
    let (_, help, _) = common::run(dir.path(), &["hash", "--help"]);
    assert!(help.contains("Metadata is not hashed"), "{help}");
}
