//! `gguf scan`: its tables say of each file what `dump --json` and `validate --json` say; a
//! broken or missing file is a row and the scan goes on; an interrupted scan resumes to the same
//! tables; Parquet reads back as the same rows as JSON Lines; URLs give the rows of the bytes.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use arrow_array::{
    Array, BooleanArray, Float64Array, Int64Array, ListArray, StringArray, UInt64Array,
};
use ggufkit::{GgmlType, GgufBuilder, OwnedValue};
use ggufkit_testkit::server::{Faults, Object, Server};
use serde_json::{json, Value};

const TABLES: [&str; 4] = ["files", "metadata", "tensors", "findings"];

/// Every row of `table` in the output folder `out`, part by part, in order.
fn jsonl_rows(out: &Path, table: &str) -> Vec<Value> {
    let mut parts: Vec<PathBuf> = std::fs::read_dir(out.join(table))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    parts.sort();
    parts
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Every row of `table` read from its Parquet parts with the parquet crate's reader, as JSON.
fn parquet_rows(out: &Path, table: &str) -> Vec<Value> {
    let mut parts: Vec<PathBuf> = std::fs::read_dir(out.join(table))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    parts.sort();
    let mut rows = Vec::new();
    for p in parts {
        let f = std::fs::File::open(&p).unwrap();
        let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(f)
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            let batch = batch.unwrap();
            let schema = batch.schema();
            for i in 0..batch.num_rows() {
                let mut row = serde_json::Map::new();
                for (c, field) in batch.columns().iter().zip(schema.fields()) {
                    let any = c.as_any();
                    let v = if c.is_null(i) {
                        Value::Null
                    } else if let Some(a) = any.downcast_ref::<StringArray>() {
                        Value::from(a.value(i))
                    } else if let Some(a) = any.downcast_ref::<UInt64Array>() {
                        Value::from(a.value(i))
                    } else if let Some(a) = any.downcast_ref::<Int64Array>() {
                        Value::from(a.value(i))
                    } else if let Some(a) = any.downcast_ref::<Float64Array>() {
                        Value::from(a.value(i))
                    } else if let Some(a) = any.downcast_ref::<BooleanArray>() {
                        Value::from(a.value(i))
                    } else if let Some(a) = any.downcast_ref::<ListArray>() {
                        let inner = a.value(i);
                        let inner = inner.as_any().downcast_ref::<UInt64Array>().unwrap();
                        Value::from(inner.values().to_vec())
                    } else {
                        panic!("unexpected column type of {}", field.name());
                    };
                    row.insert(field.name().clone(), v);
                }
                rows.push(Value::Object(row));
            }
        }
    }
    rows
}

fn sorted(mut rows: Vec<Value>) -> Vec<String> {
    let mut s: Vec<String> = rows.drain(..).map(|r| r.to_string()).collect();
    s.sort();
    s
}

/// Runs `gguf scan ARGS` and returns its stdout (asserting exit 0).
fn scan(args: &[&str]) -> String {
    let dir = std::env::temp_dir();
    let (code, out, err) = common::run(&dir, &[&["scan"], args].concat());
    assert_eq!(code, 0, "gguf scan {args:?}: {err}");
    out
}

/// Rows grouped by their `location`, each group in table order.
fn by_location(rows: Vec<Value>) -> HashMap<String, Vec<Value>> {
    let mut m: HashMap<String, Vec<Value>> = HashMap::new();
    for r in rows {
        let loc = r["location"].as_str().unwrap().to_string();
        m.entry(loc).or_default().push(r);
    }
    m
}

/// Text as the tables hold it: JSON text of `dump --json` (`{"hex": ..}` for bytes that are
/// not UTF-8) with invalid UTF-8 replaced.
fn lossy(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Object(o) => {
            let hex = o["hex"].as_str().unwrap();
            let bytes: Vec<u8> = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        }
        other => panic!("not text: {other}"),
    }
}

#[test]
fn the_corpus_scan_says_what_dump_and_validate_say() {
    let Some(corpus) = ggufkit_testkit::shared::corpus() else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    scan(&[
        corpus.to_str().unwrap(),
        "-o",
        o,
        "--format",
        "jsonl",
        "--full-arrays",
        "--full-audit",
    ]);
    let files = jsonl_rows(out.path(), "files");
    let expected = ggufkit_testkit::shared::gguf_files(&corpus);
    assert_eq!(files.len(), expected.len(), "one row per file");
    let mut metadata = by_location(jsonl_rows(out.path(), "metadata"));
    let mut tensors = by_location(jsonl_rows(out.path(), "tensors"));
    let mut findings = by_location(jsonl_rows(out.path(), "findings"));
    let here = std::env::temp_dir();
    for f in &files {
        let loc = f["location"].as_str().unwrap();
        let (vcode, vout, _) = common::run(&here, &["validate", "--json", loc]);
        let found = findings.remove(loc).unwrap_or_default();
        if vcode == 2 {
            assert!(
                f["read_error"].is_string(),
                "{loc}: validate could not read it: {f}"
            );
            continue;
        }
        let v: Value = serde_json::from_str(&vout).unwrap();
        assert_eq!(f["valid"], v["valid"], "{loc}");
        assert_eq!(f["ggml_compatible"], v["ggml_compatible"], "{loc}");
        let errors = v["errors"].as_array().unwrap();
        let warnings = v["warnings"].as_array().unwrap();
        match errors.first() {
            Some(e) => {
                assert_eq!(f["error_rule"], e["rule"], "{loc}");
                assert_eq!(f["error_offset"], e["offset"], "{loc}");
                assert_eq!(f["error_message"], e["message"], "{loc}");
            }
            None => assert!(f["error_rule"].is_null(), "{loc}"),
        }
        // then the audit's findings, as `gguf audit --json` gives them, for a file that breaks
        // the spec too (its `spec.violation` findings are validate's errors, the rows above)
        let (acode, aout, _) = common::run(&here, &["audit", "--json", "--severity", "note", loc]);
        let audited: Value = match acode {
            2 => json!({"findings": []}),
            _ => serde_json::from_str(&aout).unwrap(),
        };
        let audit_findings: Vec<&Value> = audited["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["rule"] != "spec.violation")
            .collect();
        if acode != 2 && !errors.is_empty() {
            let violations = audited["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["rule"] == "spec.violation")
                .map(|d| (&d["subject"], &d["offset"]))
                .collect::<Vec<_>>();
            let validated = errors
                .iter()
                .map(|d| (&d["rule"], &d["offset"]))
                .collect::<Vec<_>>();
            assert_eq!(violations, validated, "{loc}: spec violations");
        }
        let want: Vec<(String, &Value, &Value, &Value)> = errors
            .iter()
            .map(|d| ("error".to_string(), d))
            .chain(warnings.iter().map(|d| ("warning".to_string(), d)))
            .chain(
                audit_findings
                    .iter()
                    .map(|d| (d["severity"].as_str().unwrap().to_string(), *d)),
            )
            .map(|(s, d)| (s, &d["rule"], &d["offset"], &d["message"]))
            .collect();
        let got: Vec<(String, &Value, &Value, &Value)> = found
            .iter()
            .map(|r| {
                (
                    r["severity"].as_str().unwrap().to_string(),
                    &r["rule"],
                    &r["offset"],
                    &r["message"],
                )
            })
            .collect();
        assert_eq!(got, want, "{loc}: findings");

        let (dcode, dout, _) = common::run(&here, &["dump", "--json", loc]);
        let kvs = metadata.remove(loc).unwrap_or_default();
        let infos = tensors.remove(loc).unwrap_or_default();
        if dcode == 2 {
            // not readable even permissively: no contents, the verdicts only
            assert!(kvs.is_empty() && infos.is_empty(), "{loc}");
            assert!(f["kv_count"].is_null(), "{loc}");
            continue;
        }
        let d: Value = serde_json::from_str(&dout).unwrap();
        assert_eq!(f["version"], d["version"], "{loc}");
        assert_eq!(f["byte_order"], d["endian"], "{loc}");
        assert_eq!(f["alignment"], d["alignment"], "{loc}");
        assert_eq!(f["header_length"], d["tensor_data_offset"], "{loc}");
        let dm = d["metadata"].as_array().unwrap();
        let dt = d["tensors"].as_array().unwrap();
        assert_eq!(f["kv_count"], Value::from(dm.len()), "{loc}");
        assert_eq!(f["tensor_count"], Value::from(dt.len()), "{loc}");
        assert_eq!(kvs.len(), dm.len(), "{loc}: metadata rows");
        for (row, kv) in kvs.iter().zip(dm) {
            assert_eq!(row["key"].as_str().unwrap(), lossy(&kv["key"]), "{loc}");
            assert_eq!(row["type"], kv["type"], "{loc}");
            let et = kv.get("element_type").cloned().unwrap_or(Value::Null);
            assert_eq!(row["element_type"], et, "{loc}");
            let value: Value = serde_json::from_str(row["value"].as_str().unwrap()).unwrap();
            assert_eq!(value, kv["value"], "{loc}: {}", row["key"]);
            assert_eq!(row["truncated"], Value::Bool(false));
        }
        assert_eq!(infos.len(), dt.len(), "{loc}: tensor rows");
        for (row, t) in infos.iter().zip(dt) {
            assert_eq!(row["name"].as_str().unwrap(), lossy(&t["name"]), "{loc}");
            assert_eq!(row["type"], t["type"], "{loc}");
            // dump gives the id only for types ggml does not read
            if let Some(id) = t.get("type_id") {
                assert_eq!(&row["type_id"], id, "{loc}");
            }
            assert!(row["type_id"].is_u64(), "{loc}");
            assert_eq!(row["shape"], t["shape"], "{loc}");
            assert_eq!(row["offset"], t["offset"], "{loc}");
            assert_eq!(row["bytes"], t["size"], "{loc}");
        }
    }
}

/// A small valid model of our writer: `n` distinguishes files.
fn model(n: u32) -> Vec<u8> {
    static ZEROS: [u8; 4096] = [0; 4096];
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set("general.name", format!("tiny-{n}").as_str()).unwrap();
    b.set("general.file_type", 1u32).unwrap();
    b.set("llama.context_length", 1024u32 * (n + 1)).unwrap();
    b.set("llama.embedding_length", 8u32).unwrap();
    b.set("llama.block_count", 1u32).unwrap();
    b.set("tokenizer.ggml.model", "gpt2").unwrap();
    let tokens: Vec<String> = (0..100 + n).map(|i| format!("t{i}")).collect();
    let tokens: Vec<&str> = tokens.iter().map(String::as_str).collect();
    b.set("tokenizer.ggml.tokens", OwnedValue::from(tokens))
        .unwrap();
    b.set("tokenizer.chat_template", "{{ messages }}").unwrap();
    b.set("general.ratio", 0.1f32).unwrap();
    b.add_tensor_with_data("token_embd.weight", GgmlType::F32, &[8, 4], &ZEROS[..128])
        .unwrap();
    b.add_tensor_with_data("blk.0.attn_q.weight", GgmlType::F16, &[8, 8], &ZEROS[..128])
        .unwrap();
    b.to_vec().unwrap()
}

/// A folder of fixtures: valid models, a truncated one, one that is not GGUF, an empty file.
fn fixtures(dir: &Path, models: u32) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for n in 0..models {
        let p = dir.join(format!("m{n:02}.gguf"));
        std::fs::write(&p, model(n)).unwrap();
        out.push(p);
    }
    let whole = model(99);
    let bad = [
        ("cut.gguf", whole[..whole.len() / 3].to_vec()),
        ("text.gguf", b"this is not a GGUF file at all".to_vec()),
        ("empty.gguf", Vec::new()),
        ("short_data.gguf", whole[..whole.len() - 10].to_vec()),
    ];
    for (name, bytes) in bad {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        out.push(p);
    }
    std::fs::write(dir.join("notes.txt"), "not scanned").unwrap();
    out.sort();
    out
}

#[test]
fn broken_and_missing_files_are_rows_and_the_scan_goes_on() {
    let d = tempfile::tempdir().unwrap();
    let files = fixtures(d.path(), 3);
    let out = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing.gguf");
    let stdout = scan(&[
        d.path().to_str().unwrap(),
        missing.to_str().unwrap(),
        "-o",
        out.path().to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    assert!(stdout.starts_with("scanned 8 files"), "{stdout}");
    let rows: BTreeMap<String, Value> = jsonl_rows(out.path(), "files")
        .into_iter()
        .map(|r| (r["location"].as_str().unwrap().to_string(), r))
        .collect();
    assert_eq!(rows.len(), files.len() + 1);
    let row = |name: &str| &rows[d.path().join(name).to_str().unwrap()];
    let good = row("m01.gguf");
    assert_eq!(good["valid"], true);
    assert_eq!(good["architecture"], "llama");
    assert_eq!(good["name"], "tiny-1");
    assert_eq!(good["context_length"], 2048);
    assert_eq!(good["vocab_size"], 101);
    assert_eq!(good["file_type"], "F16");
    assert_eq!(good["file_type_id"], 1);
    assert_eq!(good["parameters"], 96);
    assert_eq!(good["tensor_count"], 2);
    let sha = ggufkit_testkit_sha(b"{{ messages }}");
    assert_eq!(good["chat_template_sha256"], sha.as_str());
    for name in ["cut.gguf", "text.gguf", "empty.gguf", "short_data.gguf"] {
        let r = row(name);
        assert_eq!(r["valid"], false, "{name}: {r}");
        assert!(r["error_rule"].is_string(), "{name}: {r}");
        assert!(r["read_error"].is_null(), "{name}: {r}");
    }
    assert_eq!(row("short_data.gguf")["error_rule"], "truncated");
    let gone = &rows[missing.to_str().unwrap()];
    assert!(
        gone["read_error"].is_string() && gone["valid"].is_null(),
        "{gone}"
    );
    // the truncated-data file still has its metadata and tensors in the tables
    let meta = by_location(jsonl_rows(out.path(), "metadata"));
    assert_eq!(
        meta[d.path().join("short_data.gguf").to_str().unwrap()].len(),
        10
    );
    // arrays are cut to 64 elements without --full-arrays, and say so
    let tokens = meta[d.path().join("m00.gguf").to_str().unwrap()]
        .iter()
        .find(|r| r["key"] == "tokenizer.ggml.tokens")
        .unwrap()
        .clone();
    assert_eq!(tokens["truncated"], true);
    assert_eq!(tokens["element_count"], 100);
    let v: Value = serde_json::from_str(tokens["value"].as_str().unwrap()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 64);
    assert_eq!(v[63], "t63");
}

fn ggufkit_testkit_sha(b: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(b)
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

#[test]
fn an_interrupted_scan_resumes_to_the_same_tables() {
    let d = tempfile::tempdir().unwrap();
    let files = fixtures(d.path(), 6);
    let dir = d.path().to_str().unwrap();
    let whole = tempfile::tempdir().unwrap();
    scan(&[
        dir,
        "-o",
        whole.path().to_str().unwrap(),
        "--format",
        "jsonl",
    ]);

    let resumed = tempfile::tempdir().unwrap();
    let r = resumed.path();
    let half: Vec<&str> = files[..4].iter().map(|p| p.to_str().unwrap()).collect();
    scan(&[&half[..], &["-o", r.to_str().unwrap(), "--format", "jsonl"]].concat());
    // what a kill leaves: parts of other tables whose `files` part never landed, a temporary file
    std::fs::copy(
        r.join("metadata/part-00000.jsonl"),
        r.join("metadata/part-00003.jsonl"),
    )
    .unwrap();
    std::fs::write(r.join("tensors/.part-00004.jsonl.x1.tmp"), "{").unwrap();
    let stdout = scan(&[
        dir,
        "-o",
        r.to_str().unwrap(),
        "--format",
        "jsonl",
        "--jobs",
        "3",
    ]);
    assert!(
        stdout.starts_with(&format!("scanned {} files", files.len() - 4))
            && stdout.contains("4 skipped"),
        "{stdout}"
    );
    for t in TABLES {
        assert_eq!(
            sorted(jsonl_rows(r, t)),
            sorted(jsonl_rows(whole.path(), t)),
            "table {t}"
        );
    }
    assert!(!r.join("tensors/.part-00004.jsonl.x1.tmp").exists());
    // a file that changed is scanned again
    std::fs::write(&files[0], model(42)).unwrap();
    let stdout = scan(&[dir, "-o", r.to_str().unwrap(), "--format", "jsonl"]);
    assert!(stdout.starts_with("scanned 1 file "), "{stdout}");
}

#[test]
fn parquet_reads_back_as_the_jsonl_rows() {
    let d = tempfile::tempdir().unwrap();
    fixtures(d.path(), 4);
    let dir = d.path().to_str().unwrap();
    let j = tempfile::tempdir().unwrap();
    let p = tempfile::tempdir().unwrap();
    scan(&[dir, "-o", j.path().to_str().unwrap(), "--format", "jsonl"]);
    scan(&[dir, "-o", p.path().to_str().unwrap()]);
    for t in TABLES {
        let from_parquet = parquet_rows(p.path(), t);
        assert!(!from_parquet.is_empty(), "{t}");
        assert_eq!(sorted(from_parquet), sorted(jsonl_rows(j.path(), t)), "{t}");
    }
}

#[test]
fn urls_give_the_rows_of_their_bytes() {
    let d = tempfile::tempdir().unwrap();
    let files = fixtures(d.path(), 3);
    let objects: HashMap<String, Object> = files
        .iter()
        .map(|p| {
            let name = format!("/{}", p.file_name().unwrap().to_str().unwrap());
            (name, Object::new(std::fs::read(p).unwrap()))
        })
        .collect();
    let srv = Server::start(objects, Faults::default());
    let urls: Vec<String> = files
        .iter()
        .map(|p| srv.url(&format!("/{}", p.file_name().unwrap().to_str().unwrap())))
        .collect();
    let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
    let local = tempfile::tempdir().unwrap();
    let remote = tempfile::tempdir().unwrap();
    scan(&[
        d.path().to_str().unwrap(),
        "-o",
        local.path().to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    scan(
        &[
            &urls[..],
            &[
                "-o",
                remote.path().to_str().unwrap(),
                "--format",
                "jsonl",
                "--jobs",
                "4",
            ],
        ]
        .concat(),
    );
    // the same rows once the location (and what only a local file or a URL has) is set aside
    let strip = |rows: Vec<Value>| -> Vec<Value> {
        rows.into_iter()
            .map(|mut r| {
                let o = r.as_object_mut().unwrap();
                let loc = o["location"].as_str().unwrap();
                let name = loc.rsplit('/').next().unwrap().to_string();
                o.insert("location".into(), Value::from(name));
                for k in ["mtime_ns", "etag", "bytes_fetched", "requests"] {
                    o.remove(k);
                }
                r
            })
            .collect()
    };
    for t in TABLES {
        assert_eq!(
            sorted(strip(jsonl_rows(remote.path(), t))),
            sorted(strip(jsonl_rows(local.path(), t))),
            "table {t}"
        );
    }
    for f in jsonl_rows(remote.path(), "files") {
        let requests = f["requests"].as_u64().unwrap();
        assert!((1..=2).contains(&requests), "{f}");
        assert!(
            f["bytes_fetched"].as_u64().unwrap() > 0 || f["size"] == 0,
            "{f}"
        );
    }
}

/// A real `gguf scan` killed by a signal once its first part has landed (SIGKILL: nothing
/// cleaned up; SIGINT: the interrupt handler's exit), then run again on the same folder, ends
/// with the tables of a scan that was never interrupted.
#[test]
fn a_scan_killed_by_a_signal_resumes_to_the_same_tables() {
    let d = tempfile::tempdir().unwrap();
    let n = 2600u32;
    for i in 0..n {
        std::fs::write(d.path().join(format!("f{i:05}.gguf")), model(i % 20)).unwrap();
    }
    std::fs::write(d.path().join("cut.gguf"), &model(1)[..100]).unwrap();
    let dir = d.path().to_str().unwrap();
    let whole = tempfile::tempdir().unwrap();
    let w = whole.path().to_str().unwrap();
    scan(&[dir, "-o", w, "--format", "jsonl", "--jobs", "1"]);
    let total = n as usize + 1;
    assert_eq!(jsonl_rows(whole.path(), "files").len(), total);

    for signal in ["KILL", "INT"] {
        let out = tempfile::tempdir().unwrap();
        let o = out.path().to_str().unwrap();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gguf"))
            .args(["scan", dir, "-o", o, "--format", "jsonl", "--jobs", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let first = out.path().join("files/part-00000.jsonl");
        let t0 = std::time::Instant::now();
        while !first.exists() {
            assert!(t0.elapsed().as_secs() < 120, "no part after 2 minutes");
            assert!(child.try_wait().unwrap().is_none(), "the scan ended early");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let sent = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status();
        match sent {
            Ok(s) => assert!(s.success(), "kill -{signal}"),
            // no kill(1) here: std's kill is SIGKILL, and SIGINT cannot be sent
            Err(_) if signal == "KILL" => child.kill().unwrap(),
            Err(e) => {
                child.kill().unwrap();
                let _ = child.wait();
                ggufkit_testkit::skip::skip(
                    ggufkit_testkit::skip::Need::Platform,
                    format!("SIGINT: kill(1) could not run ({e})"),
                );
                continue;
            }
        }
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "{signal}: the scan finished before the signal"
        );
        let done_before = jsonl_rows(out.path(), "files").len();
        assert!(
            (1000..total).contains(&done_before),
            "{signal}: {done_before} files scanned before the signal"
        );
        let stdout = scan(&[dir, "-o", o, "--format", "jsonl", "--jobs", "2"]);
        assert!(
            stdout.contains(&format!("{} skipped", grouped(done_before))),
            "{signal}: {stdout}"
        );
        for t in TABLES {
            assert_eq!(
                sorted(jsonl_rows(out.path(), t)),
                sorted(jsonl_rows(whole.path(), t)),
                "{signal}: table {t}"
            );
        }
    }
}

/// A count as the summary line prints it, with thousands separators: `1,000`.
fn grouped(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// By default the findings table has every audit rule but the per-token lookups
/// (`tokenizer.duplicate`, `tokenizer.merge-unknown`); `--full-audit` adds them, as `gguf audit`
/// reports them.
#[test]
fn the_per_token_rules_join_the_findings_with_full_audit() {
    let d = tempfile::tempdir().unwrap();
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set(
        "tokenizer.ggml.tokens",
        OwnedValue::from(vec!["a", "b", "a", "ab"]),
    )
    .unwrap();
    b.set(
        "tokenizer.ggml.merges",
        OwnedValue::from(vec!["a b", "a zz"]),
    )
    .unwrap();
    b.set("tokenizer.ggml.eos_token_id", 9u32).unwrap();
    let p = d.path().join("dup.gguf");
    std::fs::write(&p, b.to_vec().unwrap()).unwrap();
    let rules = |extra: &[&str]| {
        let out = tempfile::tempdir().unwrap();
        let o = out.path().to_str().unwrap();
        let args = [&[p.to_str().unwrap(), "-o", o, "--format", "jsonl"], extra].concat();
        scan(&args);
        let mut r: Vec<String> = jsonl_rows(out.path(), "findings")
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .collect();
        r.sort();
        r
    };
    let default = rules(&[]);
    let full = rules(&["--full-audit"]);
    assert!(
        default.contains(&"tokenizer.special-id".to_string()),
        "{default:?}"
    );
    for per_token in ["tokenizer.duplicate", "tokenizer.merge-unknown"] {
        assert!(!default.iter().any(|r| r == per_token), "{default:?}");
        assert!(full.iter().any(|r| r == per_token), "{full:?}");
    }
    let (_, aout, _) = common::run(
        d.path(),
        &["audit", "--json", "--severity", "note", p.to_str().unwrap()],
    );
    let audited: Value = serde_json::from_str(&aout).unwrap();
    let mut want: Vec<String> = audited["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect();
    want.sort();
    assert_eq!(full, want);
}
