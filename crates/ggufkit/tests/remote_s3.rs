//! The remote reader against S3: moto's S3-compatible server on 127.0.0.1 (a random free port),
//! started and stopped by this test, configured the way S3 users configure it (`AWS_ENDPOINT`,
//! `AWS_ALLOW_HTTP`, dummy credentials). Skipped, saying so, when moto is not installed
//! (`scripts/setup-moto.sh` installs it).
#![cfg(feature = "remote")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ggufkit::json::Json;
use ggufkit::remote::{validate_url, RemoteGguf, RemoteModel, RemoteOptions};
use ggufkit::scan::{
    self, Collect, FileRows, Format, NoScanProgress, Row, ScanOptions, ScanOutput, Target,
};
use ggufkit::{Gguf, ReadOptions, Rule};
use ggufkit_testkit::skip::{skip, Need};
use ggufkit_testkit::Encoder;

/// moto_server from `GGUF_MOTO_SERVER`, the venv `scripts/setup-moto.sh` makes, or `PATH`.
fn moto_server() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("GGUF_MOTO_SERVER") {
        return Some(PathBuf::from(p));
    }
    let venv = std::env::var("GGUF_MOTO_VENV").unwrap_or_else(|_| "/tmp/ggufkit-moto-venv".into());
    let p = PathBuf::from(venv).join("bin/moto_server");
    if p.exists() {
        return Some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("moto_server"))
        .find(|p| p.exists())
}

/// The moto process, killed (by its own handle) when dropped.
struct Moto {
    child: Child,
    port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_moto(bin: &PathBuf) -> Option<Moto> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .ok()?
        .local_addr()
        .ok()?
        .port();
    let child = Command::new(bin)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let moto = Moto { child, port };
    let t0 = Instant::now();
    while t0.elapsed() < Duration::from_secs(60) {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Some(moto);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// A plain HTTP request to moto (which does not check signatures): creating the bucket and
/// uploading objects needs nothing from the code under test.
fn put(port: u16, path: &str, body: &[u8]) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "PUT {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    s.write_all(body).unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "PUT {path}: {answer}");
}

fn model(tensors: &[(&str, u64)], extra: &[(&str, u16)]) -> Vec<u8> {
    let mut c = Encoder::header(3, tensors.len() as u64, 1 + extra.len() as u64);
    c.kv_str("general.architecture", "llama");
    for (k, v) in extra {
        c.key(k, 2).u16(*v);
    }
    let mut off = 0;
    for (name, n) in tensors {
        c.tensor(name, &[*n], 0, off);
        off += (n * 4).div_ceil(32) * 32;
    }
    c.pad(32);
    for (_, n) in tensors {
        c.data((n * 4) as usize).pad(32);
    }
    c.build()
}

#[test]
fn s3_objects_read_like_local_files() {
    let Some(bin) = moto_server() else {
        return skip(
            Need::Moto,
            "moto_server not found; run scripts/setup-moto.sh to test S3 (HTTP is tested in remote.rs)",
        );
    };
    let Some(moto) = start_moto(&bin) else {
        return skip(
            Need::Moto,
            format!("{} did not start; S3 untested", bin.display()),
        );
    };
    let port = moto.port;
    // configured as S3 users do; this test binary holds no other test, so no one else reads these
    std::env::set_var("AWS_ENDPOINT", format!("http://127.0.0.1:{port}"));
    std::env::set_var("AWS_ALLOW_HTTP", "true");
    std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
    std::env::set_var("AWS_REGION", "us-east-1");

    put(port, "/models", b"");
    let one = model(&[("a", 100), ("b", 9)], &[]);
    put(port, "/models/one.gguf", &one);
    let mut cut = one.clone();
    cut.truncate(one.len() - 8);
    put(port, "/models/cut.gguf", &cut);
    for i in 0..2u16 {
        let names: &[(&str, u64)] = if i == 0 { &[("x", 8)] } else { &[("y", 8)] };
        let mut c = Encoder::header(3, 1, 3);
        c.key("split.no", 2).u16(i);
        c.key("split.count", 2).u16(2);
        c.key("split.tensors.count", 5).u32(2);
        c.tensor(names[0].0, &[8], 0, 0).pad(32).data(32);
        put(
            port,
            &format!("/models/s-{:05}-of-00002.gguf", i + 1),
            &c.build(),
        );
    }

    let opts = RemoteOptions::default();
    let r = RemoteGguf::open_with("s3://models/one.gguf", &opts, &ReadOptions::default()).unwrap();
    let local = Gguf::from_bytes(&one).unwrap();
    assert_eq!(r.gguf().header_bytes(), local.header_bytes());
    assert_eq!(r.gguf().report(), local.report());
    assert_eq!(r.len(), one.len() as u64);
    assert_eq!(r.stats().requests, 1);
    assert_eq!(
        r.tensor_bytes("b").unwrap(),
        local.tensor("b").unwrap().data().unwrap()
    );
    assert_eq!(r.stats().requests, 2);

    let (report, _) = validate_url("s3://models/cut.gguf", &opts).unwrap();
    assert_eq!(report, ggufkit::validate_bytes(&cut));
    assert_eq!(report.errors[0].rule, Rule::Truncated);

    let m = RemoteModel::open_with(
        "s3://models/s-00001-of-00002.gguf",
        &opts,
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(m.tensor_count(), 2);
    assert_eq!(m.tensor("y").unwrap().shard, 1);
    assert_eq!(m.tensor_bytes("y").unwrap().len(), 32);

    // the one door for every location: an object-store key opens as a path does
    let key = ggufkit::Location::parse("s3://models/one.gguf");
    let o = ggufkit::open(&key, false).unwrap();
    assert_eq!(o.gguf().header_bytes(), local.header_bytes());
    assert_eq!(o.cost().unwrap().requests, 1);
    let b = o.gguf().tensor("b").unwrap();
    assert_eq!(
        &*o.tensor_data(&b).unwrap(),
        local.tensor("b").unwrap().data().unwrap()
    );
    let second = ggufkit::Location::parse("s3://models/s-00002-of-00002.gguf");
    let m = ggufkit::open_model(&second, &Default::default()).unwrap();
    assert_eq!((m.shard_count(), m.tensor_count()), (2, 2));
    let e = ggufkit::open(&ggufkit::Location::parse("s3://models/none.gguf"), false).unwrap_err();
    assert!(e.to_string().starts_with("s3://models/none.gguf: "), "{e}");

    let e = RemoteGguf::open_with("s3://models/none.gguf", &opts, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no such object"), "{e}");

    a_prefix_scans_like_a_local_folder(port);
    drop(moto);
}

/// A table's rows as JSON texts, with what only a local file or an object has set aside (the
/// location reduced to its file name; mtime, ETag, bytes fetched, requests removed), sorted.
fn comparable(rows: &[FileRows]) -> Vec<String> {
    fn one<R: Row>(r: &R) -> String {
        let mut j = Json::new();
        scan::row_json(r, &mut j);
        let mut v: serde_json::Value = serde_json::from_str(&j.out).unwrap();
        let o = v.as_object_mut().unwrap();
        let loc = o["location"].as_str().unwrap();
        let name = loc.rsplit('/').next().unwrap().to_string();
        o.insert("location".into(), name.into());
        for k in ["mtime_ns", "etag", "bytes_fetched", "requests"] {
            o.remove(k);
        }
        v.to_string()
    }
    let mut out: Vec<String> = Vec::new();
    for r in rows {
        out.push(one(&r.file));
        out.extend(r.metadata.iter().map(one));
        out.extend(r.tensors.iter().map(one));
        out.extend(r.findings.iter().map(one));
    }
    out.sort();
    out
}

fn scan_all(locations: &[Target]) -> Vec<FileRows> {
    let mut sink = Collect::default();
    scan::scan(
        locations,
        &Default::default(),
        &ScanOptions::default(),
        &mut sink,
        &NoScanProgress,
    )
    .unwrap();
    sink.rows
}

/// `s3://scan/` listed through object_store (only `*.gguf`, nested keys included) gives the
/// tables a local folder of the same files gives; a resumed scan skips the objects whose ETag
/// (from the listing) is the one recorded, and reads again the one that changed; the objects'
/// own URLs resume the same way with a HEAD each.
fn a_prefix_scans_like_a_local_folder(port: u16) {
    let dir = tempfile::tempdir().unwrap();
    put(port, "/scan", b"");
    let mut files: Vec<(String, Vec<u8>)> = (0..4u16)
        .map(|i| {
            let b = model(&[("w", 8 + u64::from(i))], &[("general.x", i)]);
            (format!("m{i}.gguf"), b)
        })
        .collect();
    let broken = files[0].1[..files[0].1.len() - 3].to_vec();
    files.push(("broken.gguf".into(), broken));
    files.push(("not-gguf.gguf".into(), b"hello".to_vec()));
    for (name, bytes) in &files {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        let key = if name.starts_with("m3") {
            format!("/scan/nested/{name}")
        } else {
            format!("/scan/{name}")
        };
        put(port, &key, bytes);
    }
    put(port, "/scan/readme.txt", b"not scanned");

    let remote = scan::expand(&["s3://scan/"]);
    assert_eq!(remote.len(), files.len(), "{remote:?}");
    assert!(remote
        .iter()
        .any(|l| l.name() == "s3://scan/nested/m3.gguf"));
    assert!(
        remote
            .iter()
            .all(|l| matches!(l, Target::Listed { etag: Some(_), .. })),
        "{remote:?}"
    );
    let local = scan::expand(&[dir.path().to_str().unwrap()]);
    let remote_rows = scan_all(&remote);
    assert_eq!(comparable(&remote_rows), comparable(&scan_all(&local)));
    assert!(remote_rows.iter().all(|r| r.file.etag.is_some()));

    // resume by ETag: nothing changed, nothing read again; then one object changes
    let out = tempfile::tempdir().unwrap();
    let mut o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
    scan::scan(
        &remote,
        &Default::default(),
        &ScanOptions::default(),
        &mut o,
        &NoScanProgress,
    )
    .unwrap();
    let mut o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
    let done = o.take_done();
    let stats = scan::scan(
        &remote,
        &done,
        &ScanOptions::default(),
        &mut o,
        &NoScanProgress,
    )
    .unwrap();
    assert_eq!((stats.scanned, stats.skipped), (0, files.len() as u64));
    // moto refuses to overwrite an object without a signature: make the recorded ETag the old
    // one instead, which is what a changed object looks like to the resumed scan
    let part = out.path().join("files/part-00000.jsonl");
    let text = std::fs::read_to_string(&part).unwrap();
    let stale: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if v["location"] == "s3://scan/m1.gguf" {
                v["etag"] = "\"an-older-version\"".into();
            }
            v.to_string()
        })
        .collect();
    std::fs::write(&part, stale.join("\n") + "\n").unwrap();
    let mut o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
    let done = o.take_done();
    let stats = scan::scan(
        &remote,
        &done,
        &ScanOptions::default(),
        &mut o,
        &NoScanProgress,
    )
    .unwrap();
    assert_eq!((stats.scanned, stats.skipped), (1, files.len() as u64 - 1));

    // the same objects named one by one: their ETags come from a HEAD each
    let urls: Vec<Target> = remote
        .iter()
        .map(|l| Target::File(ggufkit::Location::Url(l.name())))
        .collect();
    let mut o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
    let done = o.take_done();
    let stats = scan::scan(
        &urls,
        &done,
        &ScanOptions::default(),
        &mut o,
        &NoScanProgress,
    )
    .unwrap();
    assert_eq!((stats.scanned, stats.skipped), (0, files.len() as u64));

    // a bucket that does not exist: one row with the listing's error, not an empty scan
    let missing = scan::expand(&["s3://no-such-bucket/"]);
    assert!(
        matches!(&missing[..], [Target::Unlisted { .. }]),
        "{missing:?}"
    );
    let rows = scan_all(&missing);
    assert!(rows[0].file.read_error.is_some());
}
