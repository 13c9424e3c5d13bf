//! `gguf meta set|rm`, `convert`, `split`, `merge` and `carve` as the contract fixes them: exit
//! codes, error lines, refusing to overwrite, and never damaging a file, even when killed.

mod common;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use assert_cmd::Command;
use ggufkit::write::{GgufBuilder, OwnedValue};
use ggufkit::{Endian, GgmlType, Gguf, Value};
use ggufkit_testkit::shared;

fn gguf() -> Command {
    let mut c = Command::cargo_bin("gguf").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// A model with a vocabulary and two tensors; `data` bytes in the i8 tensor.
fn model(data: usize) -> Vec<u8> {
    let w: Vec<u8> = (0..16u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let big: Vec<u8> = (0..data).map(|i| (i % 251) as u8).collect();
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set("general.name", "tiny").unwrap();
    b.set("llama.context_length", 4096u32).unwrap();
    b.set("tokenizer.ggml.tokens", vec!["a", "b"]).unwrap();
    b.add_tensor_with_data("w", GgmlType::F32, &[4, 4], &w)
        .unwrap();
    b.add_tensor_with_data("big", GgmlType::I8, &[data as u64], &big)
        .unwrap();
    b.to_vec().unwrap()
}

fn put(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn meta_set_every_type() {
    let dir = tempfile::tempdir().unwrap();
    let p = put(dir.path(), "m.gguf", &model(100));
    let cases: &[(&str, &str, OwnedValue)] = &[
        ("uint8", "200", OwnedValue::U8(200)),
        ("int8", "-100", OwnedValue::I8(-100)),
        ("uint16", "65535", OwnedValue::U16(65535)),
        ("int16", "-2", OwnedValue::I16(-2)),
        ("uint32", "7", OwnedValue::U32(7)),
        ("int32", "-7", OwnedValue::I32(-7)),
        ("float32", "0.1", OwnedValue::F32(0.1)),
        ("bool", "true", OwnedValue::Bool(true)),
        ("string", "12", OwnedValue::String("12".into())),
        ("uint64", "18446744073709551615", OwnedValue::U64(u64::MAX)),
        ("int64", "-9223372036854775808", OwnedValue::I64(i64::MIN)),
        ("float64", "-inf", OwnedValue::F64(f64::NEG_INFINITY)),
        (
            "array[uint16]",
            "[1, 2, 3]",
            OwnedValue::from(vec![1u16, 2, 3]),
        ),
        ("array", "[\"x\", \"y\"]", OwnedValue::from(vec!["x", "y"])),
    ];
    for (ty, text, want) in cases {
        gguf()
            .args(["meta", "set"])
            .arg(&p)
            .args(["test.key", text, "--type", ty, "--in-place"])
            .assert()
            .success();
        let bytes = fs::read(&p).unwrap();
        let g = Gguf::from_bytes(&bytes).unwrap();
        let got = OwnedValue::from_value(&g.get("test.key").unwrap()).unwrap();
        assert_eq!(&got, want, "--type {ty} {text}");
    }
    // nested arrays, as dump --json prints them
    gguf()
        .args(["meta", "set"])
        .arg(&p)
        .args([
            "test.nested",
            r#"[[1, 2], {"element_type": "string", "value": ["s"]}]"#,
            "--type",
            "array[array]",
            "--in-place",
        ])
        .assert()
        .success();
    let bytes = fs::read(&p).unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    let nested = OwnedValue::from_value(&g.get("test.nested").unwrap()).unwrap();
    assert_eq!(
        nested.to_string(),
        "[array; [int32; 1, 2], [string; \"s\"]]"
    );
}

#[test]
fn meta_set_keeps_an_existing_type_and_infers_new_ones() {
    let dir = tempfile::tempdir().unwrap();
    let p = put(dir.path(), "m.gguf", &model(100));
    let out = gguf()
        .args(["meta", "set"])
        .arg(&p)
        .args(["llama.context_length", "8192", "--in-place"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains("in place"), "{}", stderr_of(&out));
    gguf()
        .args(["meta", "set"])
        .arg(&p)
        .args(["new.count", "42", "--in-place"])
        .assert()
        .success();
    let bytes = fs::read(&p).unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(g.get("llama.context_length"), Some(Value::U32(8192)));
    assert_eq!(g.get("new.count"), Some(Value::I32(42)));
    // a value that does not fit the existing type
    let out = gguf()
        .args(["meta", "set"])
        .arg(&p)
        .args(["llama.context_length", "-1", "--in-place"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("not a uint32"),
        "{}",
        stderr_of(&out)
    );
}

#[test]
fn meta_rm_and_its_errors() {
    let dir = tempfile::tempdir().unwrap();
    let before = model(100);
    let p = put(dir.path(), "m.gguf", &before);
    let out = gguf()
        .args(["meta", "rm"])
        .arg(&p)
        .args(["general.name", "no.such.key", "--in-place"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_of(&out);
    assert!(
        err.starts_with("gguf: ") && err.contains("m.gguf: no key 'no.such.key'"),
        "{err}"
    );
    assert_eq!(fs::read(&p).unwrap(), before, "nothing was removed");
    let o = dir.path().join("out.gguf");
    gguf()
        .args(["meta", "rm"])
        .arg(&p)
        .args(["general.name", "tokenizer.ggml.tokens", "-o"])
        .arg(&o)
        .assert()
        .success();
    let bytes = fs::read(&o).unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(g.kv_count(), 2);
    assert_eq!(fs::read(&p).unwrap(), before, "-o leaves the source alone");
    // OUT exists: refused without --force
    let out = gguf()
        .args(["meta", "rm"])
        .arg(&p)
        .args(["general.name", "-o"])
        .arg(&o)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_of(&out).contains("--force"), "{}", stderr_of(&out));
    assert_eq!(fs::read(&o).unwrap(), bytes);
    gguf()
        .args(["meta", "rm"])
        .arg(&p)
        .args(["general.name", "--force", "-o"])
        .arg(&o)
        .assert()
        .success();
    // usage errors: both or neither of -o and --in-place
    for extra in [&["--in-place", "-o", "x.gguf"][..], &[][..]] {
        gguf()
            .args(["meta", "rm"])
            .arg(&p)
            .arg("general.name")
            .args(extra)
            .assert()
            .code(2);
    }
}

#[test]
fn invalid_files_get_the_contract_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = model(100);
    bytes.truncate(bytes.len() - 10);
    let p = put(dir.path(), "cut.gguf", &bytes);
    for args in [
        vec!["meta", "set", "-", "k", "v", "--in-place"],
        vec!["convert", "-", "-o", "x.gguf"],
        vec!["split", "-", "--max-tensors", "1", "-o", "x"],
        vec!["merge", "-", "-o", "x.gguf"],
    ] {
        let args: Vec<&std::ffi::OsStr> = args
            .iter()
            .map(|a| {
                if *a == "-" {
                    p.as_os_str()
                } else {
                    std::ffi::OsStr::new(a)
                }
            })
            .collect();
        let out = gguf().current_dir(dir.path()).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr_of(&out);
        assert!(
            err.contains("cut.gguf: at byte ") && err.contains("runs past the end"),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert_eq!(fs::read(&p).unwrap(), bytes);
    assert_eq!(names_in(dir.path()), ["cut.gguf"]);
}

#[test]
fn convert_round_trips_and_refuses_what_it_cannot_do() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = GgufBuilder::new();
    b.set("k", vec![1u32, 2]).unwrap();
    let w: Vec<u8> = (0..8u16).flat_map(|i| i.to_le_bytes()).collect();
    b.add_tensor_with_data("h", GgmlType::F16, &[8], &w)
        .unwrap();
    let le = b.to_vec().unwrap();
    let p = put(dir.path(), "le.gguf", &le);
    let be = dir.path().join("be.gguf");
    let back = dir.path().join("back.gguf");
    gguf()
        .arg("convert")
        .arg(&p)
        .args(["--endian", "big", "-o"])
        .arg(&be)
        .assert()
        .success();
    let bytes = fs::read(&be).unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(g.endian(), Endian::Big);
    assert_eq!(g.tensor("h").unwrap().data().unwrap()[..2], [0, 0]);
    assert_eq!(g.tensor("h").unwrap().data().unwrap()[2..4], [0, 1]);
    gguf()
        .arg("convert")
        .arg(&be)
        .args(["--endian", "little", "-o"])
        .arg(&back)
        .assert()
        .success();
    assert_eq!(fs::read(&back).unwrap(), le);
    // OUT exists
    gguf()
        .arg("convert")
        .arg(&be)
        .args(["-o"])
        .arg(&back)
        .assert()
        .code(2);
    // re-quantization says which tensors it converted
    let mut b = GgufBuilder::new();
    let w: Vec<u8> = (0..64u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    b.add_tensor_with_data("x.weight", GgmlType::F32, &[32, 2], &w)
        .unwrap();
    b.add_tensor_with_data("x.bias", GgmlType::F32, &[32], &w[..128])
        .unwrap();
    let p = put(dir.path(), "f.gguf", &b.to_vec().unwrap());
    let q = dir.path().join("q.gguf");
    let out = gguf()
        .arg("convert")
        .arg(&p)
        .args(["--type", "q8_0", "-o"])
        .arg(&q)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("re-quantized 1 of 2 tensors to q8_0: x.weight"),
        "{}",
        stderr_of(&out)
    );
    let bytes = fs::read(&q).unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(
        g.tensor("x.weight").unwrap().ggml_type().unwrap(),
        GgmlType::Q8_0
    );
    assert_eq!(
        g.tensor("x.bias").unwrap().ggml_type().unwrap(),
        GgmlType::F32
    );
    // unknown or unquantizable types
    for t in ["q9_9", "q4_2", "iq2_xxs"] {
        gguf()
            .arg("convert")
            .arg(&p)
            .args(["--type", t, "-o"])
            .arg(dir.path().join("bad.gguf"))
            .assert()
            .code(2);
    }
    assert!(!dir.path().join("bad.gguf").exists());
}

#[test]
fn split_dry_run_split_and_merge() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = model(1000);
    let p = put(dir.path(), "m.gguf", &bytes);
    let prefix = dir.path().join("part");
    let out = gguf()
        .arg("split")
        .arg(&p)
        .args(["--max-tensors", "1", "--dry-run", "-o"])
        .arg(&prefix)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("2 shards"), "{text}");
    assert!(text.contains("part-00002-of-00002.gguf"), "{text}");
    assert_eq!(names_in(dir.path()), ["m.gguf"], "a dry run writes nothing");
    gguf()
        .arg("split")
        .arg(&p)
        .args(["--max-size", "1M", "-o"])
        .arg(&prefix)
        .assert()
        .success();
    assert_eq!(names_in(dir.path()), ["m.gguf", "part-00001-of-00001.gguf"]);
    gguf()
        .arg("split")
        .arg(&p)
        .args(["--max-tensors", "1", "-o"])
        .arg(&prefix)
        .assert()
        .success();
    let merged = dir.path().join("merged.gguf");
    gguf()
        .arg("merge")
        .arg(dir.path().join("part-00001-of-00002.gguf"))
        .arg("-o")
        .arg(&merged)
        .assert()
        .success();
    assert_eq!(fs::read(&merged).unwrap(), bytes);
    // bad sizes and missing limits are usage errors
    for args in [
        &["--max-size", "1.5G"][..],
        &["--max-size", "10K"][..],
        &[][..],
    ] {
        gguf()
            .arg("split")
            .arg(&p)
            .args(args)
            .arg("-o")
            .arg(&prefix)
            .assert()
            .code(2);
    }
}

#[test]
fn merge_of_the_corpus_split() {
    let Some(c) = shared::corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.gguf");
    gguf()
        .arg("merge")
        .arg(c.join("split/llama-2-tiny-random-00001-of-00003.gguf"))
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    assert!(
        fs::read(&out).unwrap() == fs::read(c.join("models/llama-2-tiny-random.gguf")).unwrap()
    );
    let bad = gguf()
        .arg("merge")
        .arg(c.join("split/llama-2-tiny-random-00002-of-00003.gguf"))
        .arg("-o")
        .arg(dir.path().join("x.gguf"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr_of(&bad).contains("not the first"),
        "{}",
        stderr_of(&bad)
    );
}

#[test]
fn carve_finds_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let inner = model(300);
    let mut blob = b"some header GGUF\x03\x00\x00\x00 then junk".to_vec();
    blob.extend(&inner);
    blob.extend([0u8; 777]);
    let p = put(dir.path(), "blob.bin", &blob);
    let out = dir.path().join("found.gguf");
    let o = gguf()
        .arg("carve")
        .arg(&p)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr_of(&o));
    assert_eq!(fs::read(&out).unwrap(), inner);
    let none = put(dir.path(), "none.bin", b"no model in here");
    let o = gguf()
        .arg("carve")
        .arg(&none)
        .arg("-o")
        .arg(dir.path().join("n.gguf"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr_of(&o).contains("none.bin: no GGUF found"),
        "{}",
        stderr_of(&o)
    );
}

#[test]
fn no_progress_bar_when_not_on_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let p = put(dir.path(), "m.gguf", &model(1 << 20));
    let out = gguf()
        .arg("convert")
        .arg(&p)
        .args(["--endian", "big", "-o"])
        .arg(dir.path().join("be.gguf"))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(!stderr_of(&out).contains('\r'), "{}", stderr_of(&out));
    assert!(!stderr_of(&out).contains("eta"), "{}", stderr_of(&out));
}

/// The edit needs a rewrite (the header grows past its alignment block), and the rewrite fails
/// once the process has written 64 KiB: the original must be untouched and no temporary file left.
#[test]
fn a_write_that_fails_midway_leaves_the_original_intact() {
    let dir = tempfile::tempdir().unwrap();
    let before = model(1 << 20);
    let p = put(dir.path(), "m.gguf", &before);
    let bin = assert_cmd::cargo::cargo_bin("gguf");
    let long = "x".repeat(200);
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 64; exec \"$@\"")
        .arg("bash")
        .arg(&bin)
        .args(["meta", "set"])
        .arg(&p)
        .args(["general.name", &long, "--in-place"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("m.gguf:") && err.to_lowercase().contains("large"),
        "{err}"
    );
    assert!(fs::read(&p).unwrap() == before);
    assert_eq!(names_in(dir.path()), ["m.gguf"]);
}

/// Writes a model whose tensor data is `size` zero bytes (sparse) and returns its header.
fn big_sparse_model(path: &Path, size: u64) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.name", "big").unwrap();
    b.add_tensor("zeros", GgmlType::I8, &[size]).unwrap();
    let (header, layout) = b.header().unwrap();
    fs::write(path, &header).unwrap();
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_len(layout.total_len).unwrap();
    header
}

/// True when `path` holds exactly `header` followed by zeros up to `len` bytes.
fn is_header_then_zeros(path: &Path, header: &[u8], len: u64) -> bool {
    let Ok(mut f) = fs::File::open(path) else {
        return false;
    };
    if f.metadata().map(|m| m.len()).ok() != Some(len) {
        return false;
    }
    let mut h = vec![0u8; header.len()];
    if f.read_exact(&mut h).is_err() || h != header {
        return false;
    }
    let zeros = vec![0u8; 8 << 20];
    let mut buf = vec![0u8; 8 << 20];
    loop {
        let n = f.read(&mut buf).unwrap();
        if n == 0 {
            return true;
        }
        if buf[..n] != zeros[..n] {
            return false;
        }
    }
}

/// SIGKILL during the rewrite of a large file: whenever the kill lands, the file is either the
/// original, byte for byte, or the complete new file; never a mix.
#[test]
fn killing_a_rewrite_never_damages_the_original() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.gguf");
    let size = 512u64 << 20;
    let header = big_sparse_model(&p, size);
    let len = fs::metadata(&p).unwrap().len();
    let bin = assert_cmd::cargo::cargo_bin("gguf");
    let long = "y".repeat(300);
    let mut killed_midway = 0;
    for delay_ms in [30u64, 60, 120, 250, 500, 1000] {
        let mut child = std::process::Command::new(&bin)
            .args(["meta", "set"])
            .arg(&p)
            .args(["general.name", &long, "--in-place"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let finished = child.try_wait().unwrap().is_some();
        let _ = child.kill();
        let _ = child.wait();
        let leftovers: Vec<String> = names_in(dir.path())
            .into_iter()
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        if !finished && !leftovers.is_empty() {
            killed_midway += 1;
        }
        for l in &leftovers {
            fs::remove_file(dir.path().join(l)).unwrap();
        }
        if is_header_then_zeros(&p, &header, len) {
            continue;
        }
        // otherwise the rename happened: the new file must be complete and carry the edit
        let g = Gguf::open(&p).unwrap();
        assert_eq!(g.model_name(), Some(long.as_str()));
        assert_eq!(g.tensor("zeros").unwrap().size(), size);
        drop(g);
        // start again from the original for the next delay
        big_sparse_model(&p, size);
    }
    println!("killed in the middle of a rewrite {killed_midway} times");
    assert!(
        killed_midway > 0,
        "no kill landed during a write; the test proved nothing"
    );
}

#[test]
fn max_size_as_people_type_it_and_oversized_tensors_said() {
    let dir = tempfile::tempdir().unwrap();
    let f = ggufkit_testkit::fixtures::tiny_model().write(dir.path(), "tiny.gguf");
    // the tiny model's tensors take 128 or 256 bytes (32 bytes for the norms)
    for size in ["0.3K", "0.3KB", "300 b", "0.3kb"] {
        let (code, out, err) = common::run(
            dir.path(),
            &["split", &f, "--max-size", size, "-o", "s", "--dry-run"],
        );
        if size == "300 b" {
            assert_eq!(code, 2, "{size}: {err}");
            assert!(err.contains("for example 500M, 100MB, 1.5G"), "{err}");
            continue;
        }
        assert_eq!(code, 0, "{size}: {err}");
        assert!(out.contains(" shards\n"), "{out}");
        assert!(err.is_empty(), "{err}");
    }
    let (code, _, err) = common::run(
        dir.path(),
        &["split", &f, "--max-size", "0.2K", "-o", "s", "--dry-run"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "tensor 'blk.0.attn_q.weight' alone takes 256 bytes, more than --max-size 200 bytes"
        ),
        "{err}"
    );
}

#[test]
fn meta_uses_the_conventions_types_and_warns_of_needed_keys() {
    let dir = tempfile::tempdir().unwrap();
    let f = ggufkit_testkit::fixtures::tiny_model().write(dir.path(), "tiny.gguf");
    let typed = |file: &str, key: &str| {
        let (code, out, err) = common::run(dir.path(), &["meta", "get", file, key, "--json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        (
            v["type"].as_str().unwrap().to_string(),
            v["value"].to_string(),
        )
    };
    for (key, value, ty) in [
        ("general.alignment", "64", "uint32"),
        ("general.file_type", "7", "uint32"),
        ("llama.feed_forward_length", "32", "uint32"),
        ("llama.rope.freq_base", "10000", "float32"),
        ("tokenizer.ggml.add_bos_token", "true", "bool"),
        ("my.own.key", "5", "int32"),
    ] {
        let (code, _, err) = common::run(
            dir.path(),
            &["meta", "set", &f, key, value, "-o", "o.gguf", "--force"],
        );
        assert_eq!(code, 0, "{key}: {err}");
        assert_eq!(typed("o.gguf", key).0, ty, "{key}");
    }
    // removing a key the loaders need is said; an unneeded one is not
    let (code, _, err) = common::run(
        dir.path(),
        &[
            "meta",
            "rm",
            &f,
            "general.architecture",
            "-o",
            "o.gguf",
            "--force",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("warning: removed general.architecture: llama.cpp cannot load"),
        "{err}"
    );
    let (code, _, err) = common::run(
        dir.path(),
        &["meta", "rm", &f, "general.name", "-o", "o.gguf", "--force"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("warning"), "{err}");
    // an in-place removal that moves the data says why, not that the header "no longer fit"
    std::fs::copy(dir.path().join(&f), dir.path().join("e.gguf")).unwrap();
    let (_, _, err) = common::run(
        dir.path(),
        &["meta", "rm", "e.gguf", "general.name", "--in-place"],
    );
    assert!(!err.contains("no longer fit"), "{err}");
    assert!(
        err.contains("edited in place") || err.contains("another alignment block"),
        "{err}"
    );
}
