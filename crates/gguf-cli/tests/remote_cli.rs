//! `gguf` commands given `http://` locations served on 127.0.0.1: the same answers as for the
//! local file, plus the `"remote"` member in JSON output; errors as one line, exit 2.

use std::collections::HashMap;

use assert_cmd::Command;
use ggufkit_testkit::server::{Faults, Object, Server};
use serde_json::Value;

fn gguf() -> Command {
    let mut c = Command::cargo_bin("gguf").unwrap();
    c.env("NO_COLOR", "1")
        .env("GGUF_REMOTE_TIMEOUT", "2")
        .env("GGUF_REMOTE_RETRIES", "2");
    c
}

/// A GGUF with a key, a q8_0 tensor and an f32 tensor, data included.
fn model() -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(2u64.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    let s = |b: &mut Vec<u8>, t: &str| {
        b.extend((t.len() as u64).to_le_bytes());
        b.extend(t.as_bytes());
    };
    s(&mut b, "general.architecture");
    b.extend(8u32.to_le_bytes());
    s(&mut b, "llama");
    // q8_0, 64 elements: 2 blocks of 34 bytes = 68, padded to 96
    s(&mut b, "q");
    b.extend(1u32.to_le_bytes());
    b.extend(64u64.to_le_bytes());
    b.extend(8u32.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    s(&mut b, "f");
    b.extend(2u32.to_le_bytes());
    b.extend(3u64.to_le_bytes());
    b.extend(2u64.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend(96u64.to_le_bytes());
    while b.len() % 32 != 0 {
        b.push(0);
    }
    for blk in 0..2u8 {
        b.extend(0x3c00u16.to_le_bytes()); // scale 1.0
        b.extend((0..32u8).map(|i| i.wrapping_mul(3).wrapping_add(blk)));
    }
    b.extend([0u8; 28]);
    for v in [1.0f32, -2.0, 3.5, 0.25, 8.0, -0.5] {
        b.extend(v.to_le_bytes());
    }
    b.extend([0u8; 8]);
    b
}

fn serve(bytes: &[u8]) -> (Server, tempfile::TempDir, std::path::PathBuf) {
    let srv = Server::one("/m.gguf", bytes.to_vec());
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("m.gguf");
    std::fs::write(&local, bytes).unwrap();
    (srv, dir, local)
}

fn json(out: &[u8]) -> Value {
    serde_json::from_slice(out).unwrap()
}

#[test]
fn dump_json_is_the_local_dump_plus_what_it_cost() {
    let bytes = model();
    let (srv, _d, local) = serve(&bytes);
    let url = srv.url("/m.gguf");
    let r = gguf().args(["dump", &url, "--json"]).assert().success();
    let mut remote = json(&r.get_output().stdout);
    let l = gguf()
        .args(["dump", local.to_str().unwrap(), "--json"])
        .assert()
        .success();
    let local = json(&l.get_output().stdout);
    let cost = remote.as_object_mut().unwrap().remove("remote").unwrap();
    assert_eq!(remote, local);
    assert_eq!(cost["requests"], 1);
    assert_eq!(cost["bytes"], bytes.len() as u64);
    assert_eq!(srv.log().len(), 1);
}

#[test]
fn validate_json_is_the_local_verdict_plus_what_it_cost() {
    let mut bytes = model();
    bytes.truncate(bytes.len() - 10); // tensor data cut short: invalid, exit 1
    let (srv, _d, local) = serve(&bytes);
    let url = srv.url("/m.gguf");
    let r = gguf().args(["validate", &url, "--json"]).assert().code(1);
    let mut remote = json(&r.get_output().stdout);
    let l = gguf()
        .args(["validate", local.to_str().unwrap(), "--json"])
        .assert()
        .code(1);
    let mut local_v = json(&l.get_output().stdout);
    let cost = remote.as_object_mut().unwrap().remove("remote").unwrap();
    remote.as_object_mut().unwrap().remove("file");
    local_v.as_object_mut().unwrap().remove("file");
    assert_eq!(remote, local_v);
    assert_eq!(remote["errors"][0]["rule"], "truncated");
    assert_eq!(cost["requests"], 1);
}

#[test]
fn info_reads_a_url() {
    let bytes = model();
    let (srv, _d, _local) = serve(&bytes);
    let r = gguf()
        .args(["info", &srv.url("/m.gguf")])
        .assert()
        .success();
    let out = String::from_utf8_lossy(&r.get_output().stdout).into_owned();
    assert!(out.contains("valid"), "{out}");
    assert!(out.contains("fetched"), "{out}");
    assert!(out.contains("in 1 request\n"), "{out}");
}

#[test]
fn info_json_ends_in_what_it_cost_after_the_context_figure() {
    let bytes = model();
    let (srv, _d, local) = serve(&bytes);
    let url = srv.url("/m.gguf");
    let r = gguf()
        .args(["info", "--json", "--context", "4096", &url])
        .assert()
        .success();
    let line = String::from_utf8(r.get_output().stdout.clone()).unwrap();
    let l = gguf()
        .args([
            "info",
            "--json",
            "--context",
            "4096",
            local.to_str().unwrap(),
        ])
        .assert()
        .success();
    let local_line = String::from_utf8(l.get_output().stdout.clone()).unwrap();
    // the remote object is the local one with its name, then the "remote" member last
    let cost = format!(
        ",\"remote\":{{\"bytes\":{},\"requests\":1}}}}\n",
        bytes.len()
    );
    assert!(line.ends_with(&cost), "{line}");
    let body = line.strip_suffix(&cost).unwrap();
    let local_body = local_line.strip_suffix("}\n").unwrap();
    assert_eq!(
        body.replacen(&url, "M", 1),
        local_body.replacen(local.to_str().unwrap(), "M", 1)
    );
    assert!(
        body.contains(",\"kv_cache_at\":{\"tokens\":4096,"),
        "{body}"
    );
    let v = json(line.as_bytes());
    assert_eq!(v["remote"]["requests"], 1);
}

#[test]
fn export_one_tensor_fetches_that_tensor_only() {
    let bytes = model();
    let (srv, dir, local) = serve(&bytes);
    let url = srv.url("/m.gguf");
    for name in ["q", "f"] {
        let a = dir.path().join(format!("remote-{name}.npy"));
        let b = dir.path().join(format!("local-{name}.npy"));
        gguf()
            .args(["export", &url, "--tensor", name, "-o", a.to_str().unwrap()])
            .assert()
            .success();
        gguf()
            .args([
                "export",
                local.to_str().unwrap(),
                "--tensor",
                name,
                "-o",
                b.to_str().unwrap(),
            ])
            .assert()
            .success();
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    }
    // per export: the header (one request, the whole small file here), then the tensor's range
    let log = srv.log();
    assert_eq!(log.len(), 4);
    let g = ggufkit::Gguf::from_bytes(&bytes).unwrap();
    let range = |n: &str| {
        let t = g.tensor(n).unwrap();
        let a = t.absolute_offset();
        format!("bytes={a}-{}", a + t.size() - 1)
    };
    assert_eq!(log[1].range.as_deref(), Some(range("q").as_str()));
    assert_eq!(log[3].range.as_deref(), Some(range("f").as_str()));
    // every tensor of a remote file: refused plainly
    let out = dir.path().join("all.safetensors");
    let r = gguf()
        .args(["export", &url, "-o", out.to_str().unwrap()])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&r.get_output().stderr).into_owned();
    assert!(
        err.contains("--tensor") && err.lines().count() == 1,
        "{err}"
    );
}

#[test]
fn unreadable_locations_fail_with_one_line_and_exit_2() {
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(model()))]),
        Faults {
            fail_first: usize::MAX,
            ..Faults::default()
        },
    );
    for cmd in [
        vec!["info".to_string(), srv.url("/m.gguf")],
        vec!["dump".to_string(), srv.url("/m.gguf")],
        vec!["validate".to_string(), srv.url("/m.gguf")],
        vec!["dump".to_string(), srv.url("/missing.gguf")],
    ] {
        let r = gguf().args(&cmd).assert().code(2);
        let err = String::from_utf8_lossy(&r.get_output().stderr).into_owned();
        assert_eq!(err.lines().count(), 1, "{cmd:?}: {err}");
        assert!(err.starts_with("gguf: http://127.0.0.1:"), "{err}");
    }
}

#[test]
fn tensors_json_is_the_local_table_plus_what_it_cost() {
    let bytes = model();
    let (srv, _d, local) = serve(&bytes);
    let url = srv.url("/m.gguf");
    let r = gguf().args(["tensors", &url, "--json"]).assert().success();
    let mut remote = json(&r.get_output().stdout);
    let l = gguf()
        .args(["tensors", local.to_str().unwrap(), "--json"])
        .assert()
        .success();
    let mut local_v = json(&l.get_output().stdout);
    let cost = remote.as_object_mut().unwrap().remove("remote").unwrap();
    remote.as_object_mut().unwrap().remove("file");
    local_v.as_object_mut().unwrap().remove("file");
    assert_eq!(remote, local_v);
    assert_eq!(cost["requests"], 1);
}

#[test]
fn hash_streams_the_data_and_matches_the_local_hashes() {
    let bytes = model();
    let (srv, _d, local) = serve(&bytes);
    let url = srv.url("/m.gguf");
    let local = local.to_str().unwrap();
    for algo in ["xxh64", "sha256"] {
        let r = gguf()
            .args(["hash", &url, "--algo", algo])
            .assert()
            .success();
        let l = gguf()
            .args(["hash", local, "--algo", algo])
            .assert()
            .success();
        let remote = String::from_utf8_lossy(&r.get_output().stdout).replace(&url, "F");
        let local_out = String::from_utf8_lossy(&l.get_output().stdout).replace(local, "F");
        assert_eq!(remote, local_out);
        assert!(remote.lines().count() >= 3, "{remote}");
    }
    // per hash: the header, then the data section in one request
    let log = srv.log();
    assert_eq!(log.len(), 4);
    let g = ggufkit::Gguf::from_bytes(&bytes).unwrap();
    let want = format!("bytes={}-{}", g.data_offset(), g.expected_len() - 1);
    assert_eq!(log[1].range.as_deref(), Some(want.as_str()));
}

#[test]
fn layout_of_a_url_is_the_local_layout() {
    let mut bytes = model();
    // 2 MB of trailing data, beyond the first 1 MiB fetched: a field and a warning, judged
    // from the object's length
    bytes.extend(vec![7u8; 2_000_000]);
    let (srv, _d, local) = serve(&bytes);
    let url = srv.url("/m.gguf");
    let r = gguf().args(["layout", &url, "--json"]).assert().success();
    let l = gguf()
        .args(["layout", local.to_str().unwrap(), "--json"])
        .assert()
        .success();
    assert_eq!(json(&r.get_output().stdout), json(&l.get_output().stdout));
    assert_eq!(srv.log()[0].sent, ggufkit::remote::FIRST_CHUNK);
    let mut cut = model();
    cut.truncate(cut.len() - 30); // tensor data cut short: exit 1, as locally
    let (srv, _d, local) = serve(&cut);
    let r = gguf()
        .args(["layout", &srv.url("/m.gguf"), "--json"])
        .assert()
        .code(1);
    let l = gguf()
        .args(["layout", local.to_str().unwrap(), "--json"])
        .assert()
        .code(1);
    assert_eq!(json(&r.get_output().stdout), json(&l.get_output().stdout));
    // and what is wrong, on stderr, as for the local file
    let stderr = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let remote_err = stderr(r.get_output()).replace(&srv.url("/m.gguf"), "M");
    assert!(remote_err.contains("[truncated]"), "{remote_err}");
    // first, what reading it cost (the array has no place for it): what the server sent
    let log = srv.log();
    let sent: u64 = log.iter().map(|l| l.sent).sum();
    let (cost, rest) = remote_err.split_once('\n').unwrap();
    let plural = |n: u64, one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    assert_eq!(
        cost.replace(',', ""), // thousands separators
        format!(
            "gguf: M: fetched {} in {}",
            plural(sent, "byte"),
            plural(log.len() as u64, "request")
        )
    );
    assert_eq!(
        rest,
        stderr(l.get_output()).replace(local.to_str().unwrap(), "M")
    );
    let h = gguf()
        .args(["layout", &srv.url("/m.gguf")])
        .assert()
        .code(1);
    let out = String::from_utf8_lossy(&h.get_output().stdout).into_owned();
    assert!(out.contains("fetched"), "{out}");
}

#[test]
fn writers_refuse_a_remote_input_in_one_line() {
    let (srv, dir, _) = serve(&model());
    let url = srv.url("/m.gguf");
    let out = dir.path().join("out.gguf");
    let out = out.to_str().unwrap();
    for cmd in [
        vec!["convert", &url, "-o", out],
        vec!["split", &url, "--max-tensors", "1", "-o", out],
        vec!["meta", "set", &url, "general.name", "x", "-o", out],
        vec!["meta", "rm", &url, "general.architecture", "--in-place"],
        vec!["merge", &url, "-o", out],
        vec!["quantize", &url, out, "Q8_0"],
    ] {
        let r = gguf().args(&cmd).assert().code(2);
        let err = String::from_utf8_lossy(&r.get_output().stderr).into_owned();
        assert_eq!(
            err,
            format!(
                "gguf: {url}: the input was not opened from a local file (it came from memory, a \
                 stream or a remote location); edits, conversions and splits copy tensor data \
                 from the file\n"
            ),
            "{cmd:?}"
        );
    }
    assert!(!dir.path().join("out.gguf").exists());
}
