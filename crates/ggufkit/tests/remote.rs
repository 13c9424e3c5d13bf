//! The remote reader against real HTTP servers on 127.0.0.1: request counts and bytes, verdicts
//! identical to local reading, tensor data with one request, split models, and every fault the
//! contract names ending in an error or a correct answer.
#![cfg(feature = "remote")]

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ggufkit::error::{Location, LocationProblem, Missing, RemoteError, ShardError};
use ggufkit::remote::{validate_url, RemoteGguf, RemoteModel, RemoteOptions};
use ggufkit::{Gguf, ReadOptions, Rule};
use ggufkit_testkit::server::{Faults, Object, Server};
use ggufkit_testkit::shared;
use ggufkit_testkit::Encoder;

/// Settings for the tests: fast backoff, and timeouts short enough to keep fault tests quick but
/// long enough that a loaded CI machine never turns a slow answer into a retry (which would change
/// the request counts the tests assert). The stall test sets its own short read timeout.
fn quick() -> RemoteOptions {
    RemoteOptions {
        connect_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_secs(5),
        request_timeout: Duration::from_secs(30),
        max_retries: 3,
        retry_backoff: Duration::from_millis(10),
        retry_timeout: Duration::from_secs(30),
        ..RemoteOptions::default()
    }
}

/// A valid GGUF: a vocabulary of `vocab` tokens (so the header can be made large) and f32
/// tensors of the given element counts, with their data.
fn model(vocab: u64, tensors: &[(&str, u64)]) -> Vec<u8> {
    let mut c = Encoder::header(3, tensors.len() as u64, 2);
    c.kv_str("general.architecture", "llama");
    c.key("tokenizer.ggml.tokens", 9).u32(8).u64(vocab);
    for i in 0..vocab {
        c.str(format!("token-{i:08}").as_bytes());
    }
    let mut off = 0u64;
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

fn open(url: &str) -> RemoteGguf {
    RemoteGguf::open_with(url, &quick(), &ReadOptions::default()).expect("opens")
}

#[test]
fn small_file_is_one_request_and_matches_the_local_reading() {
    let bytes = model(10, &[("a", 64), ("b", 8)]);
    let srv = Server::one("/m.gguf", bytes.clone());
    let r = open(&srv.url("/m.gguf"));
    let local = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(r.gguf().header_bytes(), local.header_bytes());
    assert_eq!(r.gguf().report(), local.report());
    assert_eq!(r.gguf().actual_len(), Some(bytes.len() as u64));
    assert_eq!(r.gguf().expected_len(), local.expected_len());
    let s = r.stats();
    assert_eq!((s.requests, s.bytes), (1, bytes.len() as u64));
    let log = srv.log();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].range.as_deref(), Some("bytes=0-1048575"));
    assert_eq!(log[0].status, 206);
}

#[test]
fn large_header_takes_few_requests_and_stops_after_it() {
    // ~2.6 MB header in front of 200 MB of tensor data that must never be fetched
    let head = model(120_000, &[("w", 8)]);
    let local = Gguf::from_bytes(&head).unwrap();
    let header_len = local.data_offset();
    let mut objects = HashMap::new();
    // the same header, followed by data the header declares (zeros made on the fly)
    let mut c = Encoder::header(3, 1, 2);
    c.kv_str("general.architecture", "llama");
    c.key("tokenizer.ggml.tokens", 9).u32(8).u64(120_000);
    for i in 0..120_000u64 {
        c.str(format!("token-{i:08}").as_bytes());
    }
    c.tensor("w", &[50_000_000], 0, 0).pad(32);
    let h = c.build();
    let header_len2 = h.len() as u64;
    objects.insert(
        "/big.gguf".to_string(),
        Object {
            bytes: std::sync::Arc::new(h),
            zeros: 200_000_000,
        },
    );
    let srv = Server::start(objects, Faults::default());
    let r = open(&srv.url("/big.gguf"));
    assert_eq!(r.gguf().data_offset(), header_len2);
    assert!(r.gguf().report().valid());
    assert_eq!(r.gguf().tensor("w").unwrap().size(), 200_000_000);
    let s = r.stats();
    // 1 MiB first, then at least doubling what is held (more when the parser guesses the header
    // goes further, from the vocabulary): logarithmic in the header size
    let log = srv.log();
    assert_eq!(s.requests as usize, log.len());
    assert_eq!(log[0].range.as_deref(), Some("bytes=0-1048575"));
    let mut held = 0u64;
    for l in &log {
        assert_eq!(l.status, 206);
        assert!(
            l.sent >= held,
            "each request at least doubles what is held: {log:?}"
        );
        held += l.sent;
    }
    assert_eq!(s.bytes, held);
    let log2 = (header_len2 as f64 / 1048576.0).log2().ceil() as u64;
    assert!(s.requests <= log2 + 1, "{} requests", s.requests);
    // at most the header plus one chunk (the last request's)
    assert!(s.bytes - header_len2 < log.last().unwrap().sent);
    assert_eq!(srv.sent(), held);
    assert!(header_len > 2_000_000);
}

#[test]
fn verdicts_are_those_of_local_reading_for_damaged_files() {
    let good = model(3, &[("a", 64), ("b", 8)]);
    let mut trailing = good.clone();
    trailing.extend_from_slice(&[1, 2, 3]);
    let cut = good[..good.len() - 40].to_vec();
    // a file without tensors: zero padding to the alignment is not trailing data; more is
    let mut no_tensors = Encoder::header(3, 0, 1);
    no_tensors.kv_str("general.architecture", "llama");
    let bare = no_tensors.build();
    let mut padded = bare.clone();
    while padded.len() % 32 != 0 {
        padded.push(0);
    }
    let mut padded_more = padded.clone();
    padded_more.push(0);
    let mut bad_version = good.clone();
    bad_version[4] = 9;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("good", good.clone()),
        ("trailing", trailing),
        ("cut", cut),
        ("bare", bare),
        ("padded", padded),
        ("padded_more", padded_more),
        ("bad_version", bad_version),
        ("magic", b"GGUX....".to_vec()),
        ("short", b"GGU".to_vec()),
        ("header_cut", good[..30].to_vec()),
    ];
    let objects = cases
        .iter()
        .map(|(n, b)| (format!("/{n}.gguf"), Object::new(b.clone())))
        .collect();
    let srv = Server::start(objects, Faults::default());
    for (name, bytes) in &cases {
        let local = ggufkit::validate_bytes(bytes);
        let (remote, _) = validate_url(&srv.url(&format!("/{name}.gguf")), &quick()).unwrap();
        assert_eq!(remote, local, "{name}");
    }
    // the strict open fails exactly as locally
    let e = RemoteGguf::open_with(&srv.url("/cut.gguf"), &quick(), &ReadOptions::default())
        .unwrap_err();
    assert_eq!(e.rule(), Some(Rule::Truncated));
    assert_eq!(
        e.diagnostic(),
        Gguf::from_bytes(&cases[2].1).unwrap_err().diagnostic()
    );
}

#[test]
fn empty_object_is_a_truncated_file_not_an_io_error() {
    let srv = Server::one("/empty.gguf", Vec::new());
    let (r, _) = validate_url(&srv.url("/empty.gguf"), &quick()).unwrap();
    assert_eq!(r, ggufkit::validate_bytes(&[]));
    assert_eq!(r.errors[0].rule, Rule::Truncated);
}

#[test]
fn corpus_verdicts_match_local_ones() {
    let Some(shared) = shared::find("") else {
        return;
    };
    let root = shared.join("corpus");
    let mut objects = HashMap::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "gguf") {
                let rel = p.strip_prefix(&root).unwrap().to_str().unwrap().to_string();
                objects.insert(format!("/{rel}"), Object::new(std::fs::read(&p).unwrap()));
            }
        }
    }
    assert!(objects.len() > 10);
    let paths: Vec<String> = objects.keys().cloned().collect();
    let srv = Server::start(objects, Faults::default());
    for path in paths {
        let local = ggufkit::validate_file(root.join(&path[1..])).unwrap();
        let (remote, stats) = validate_url(&srv.url(&path), &quick()).unwrap();
        assert_eq!(remote, local, "{path}");
        assert!(stats.requests >= 1);
    }
}

#[test]
fn tensor_data_is_one_range_request() {
    let bytes = model(5, &[("a", 1000), ("b", 300), ("c", 7)]);
    let local = Gguf::from_bytes(&bytes).unwrap();
    let srv = Server::one("/m.gguf", bytes.clone());
    let r = open(&srv.url("/m.gguf"));
    let before = r.stats();
    let got = r.tensor_bytes("b").unwrap();
    assert_eq!(got, local.tensor("b").unwrap().data().unwrap());
    let after = r.stats();
    assert_eq!(after.requests - before.requests, 1);
    assert_eq!(after.bytes - before.bytes, 1200);
    let t = local.tensor("b").unwrap();
    let last = srv.log().last().unwrap().clone();
    assert_eq!(
        last.range.as_deref(),
        Some(
            format!(
                "bytes={}-{}",
                t.absolute_offset(),
                t.absolute_offset() + 1199
            )
            .as_str()
        )
    );
    assert!(matches!(
        r.tensor_bytes("nope"),
        Err(ggufkit::Error::NotFound(Missing::Tensor { name })) if name == "nope"
    ));
    // the whole object, streamed in one request
    let mut seen = Vec::new();
    let n = r
        .stream_range(0..r.len(), &mut |c| {
            seen.extend_from_slice(c);
            Ok(())
        })
        .unwrap();
    assert_eq!((n, seen), (bytes.len() as u64, bytes));
}

#[test]
fn a_server_ignoring_range_is_read_only_as_far_as_the_header() {
    let mut c = Encoder::header(3, 1, 1);
    c.kv_str("general.architecture", "llama");
    c.tensor("w", &[64_000_000], 0, 0).pad(32);
    let head = c.build();
    let objects = HashMap::from([(
        "/m.gguf".to_string(),
        Object {
            bytes: std::sync::Arc::new(head.clone()),
            zeros: 256_000_000,
        },
    )]);
    let srv = Server::start(
        objects,
        Faults {
            ignore_range: true,
            ..Faults::default()
        },
    );
    let t0 = Instant::now();
    let r = open(&srv.url("/m.gguf"));
    assert_eq!(r.gguf().header_bytes(), &head[..]);
    assert!(r.gguf().report().valid());
    assert_eq!(r.len(), head.len() as u64 + 256_000_000);
    // the client stopped reading: far less than the 256 MB body went over the wire
    drop(r);
    std::thread::sleep(Duration::from_millis(200));
    assert!(srv.sent() < 32_000_000, "server wrote {} bytes", srv.sent());
    assert!(t0.elapsed() < Duration::from_secs(10));
    // tensor data would need the whole prefix: a clear error, no download
    let r = open(&srv.url("/m.gguf"));
    let e = r.tensor_bytes("w").unwrap_err().to_string();
    assert!(e.contains("ignores Range"), "{e}");
}

#[test]
fn server_errors_are_retried_with_backoff() {
    let bytes = model(3, &[("a", 16)]);
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(bytes.clone()))]),
        Faults {
            fail_first: 2,
            ..Faults::default()
        },
    );
    let r = open(&srv.url("/m.gguf"));
    assert_eq!(
        r.gguf().header_bytes(),
        Gguf::from_bytes(&bytes).unwrap().header_bytes()
    );
    let statuses: Vec<u16> = srv.log().iter().map(|l| l.status).collect();
    assert_eq!(statuses, [503, 503, 206]);
    assert_eq!(r.stats().requests, 3);
    // a server that keeps failing: an error after the configured retries, not a hang
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(bytes))]),
        Faults {
            fail_first: usize::MAX,
            ..Faults::default()
        },
    );
    let e = RemoteGguf::open_with(&srv.url("/m.gguf"), &quick(), &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("503"), "{e}");
    assert_eq!(srv.log().len(), 1 + quick().max_retries);
}

#[test]
fn reset_connections_are_retried() {
    let bytes = model(3, &[("a", 16)]);
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(bytes.clone()))]),
        Faults {
            reset_first: 2,
            ..Faults::default()
        },
    );
    let r = open(&srv.url("/m.gguf"));
    assert_eq!(
        r.gguf().header_bytes(),
        Gguf::from_bytes(&bytes).unwrap().header_bytes()
    );
    assert!(r.stats().requests >= 2, "{:?}", r.stats());
}

#[test]
fn a_stalled_server_times_out() {
    let bytes = model(3, &[("a", 16)]);
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(bytes))]),
        Faults {
            stall: Some(Duration::from_secs(30)),
            ..Faults::default()
        },
    );
    let opts = RemoteOptions {
        max_retries: 1,
        read_timeout: Duration::from_millis(500),
        request_timeout: Duration::from_secs(5),
        ..quick()
    };
    let t0 = Instant::now();
    let e = RemoteGguf::open_with(&srv.url("/m.gguf"), &opts, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(t0.elapsed() < Duration::from_secs(8), "{:?}", t0.elapsed());
    assert!(
        e.to_lowercase().contains("timed out") || e.contains("timeout"),
        "{e}"
    );
}

#[test]
fn a_body_shorter_than_announced_is_an_error_or_retried() {
    let bytes = model(2000, &[("a", 16)]);
    // every body cut: an error, never a short header taken as the file
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(bytes.clone()))]),
        Faults {
            truncate_at: Some(1000),
            ..Faults::default()
        },
    );
    let t0 = Instant::now();
    let e = RemoteGguf::open_with(&srv.url("/m.gguf"), &quick(), &ReadOptions::default());
    assert!(e.is_err());
    assert!(t0.elapsed() < Duration::from_secs(10));
    // one body cut: the rest is fetched again and the answer is right
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(bytes.clone()))]),
        Faults {
            truncate_at: Some(1000),
            truncate_times: 1,
            ..Faults::default()
        },
    );
    let r = open(&srv.url("/m.gguf"));
    assert_eq!(
        r.gguf().header_bytes(),
        Gguf::from_bytes(&bytes).unwrap().header_bytes()
    );
}

#[test]
fn an_object_that_changes_between_requests_is_an_error() {
    // a header larger than the first chunk, so reading it takes several requests
    let bytes = model(60_000, &[("a", 16)]);
    assert!(bytes.len() as u64 > ggufkit::remote::FIRST_CHUNK);
    for honour_if_match in [true, false] {
        let srv = Server::start(
            HashMap::from([("/m.gguf".to_string(), Object::new(bytes.clone()))]),
            Faults {
                change_etag_after: Some(1),
                honour_if_match,
                ..Faults::default()
            },
        );
        let e = RemoteGguf::open_with(&srv.url("/m.gguf"), &quick(), &ReadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("changed"), "{e}");
        if honour_if_match {
            assert_eq!(srv.log()[1].status, 412);
        }
    }
    // no ETag at all, but the length changes
    let srv = Server::start(
        HashMap::from([("/m.gguf".to_string(), Object::new(bytes))]),
        Faults {
            grow_after: Some(1),
            no_etag: true,
            ..Faults::default()
        },
    );
    let e = RemoteGguf::open_with(&srv.url("/m.gguf"), &quick(), &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("changed") && e.contains("length"), "{e}");
}

#[test]
fn missing_objects_and_bad_locations_are_clear_errors() {
    let srv = Server::one("/m.gguf", model(1, &[]));
    let e = RemoteGguf::open_with(&srv.url("/nope.gguf"), &quick(), &ReadOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("no such object"), "{e}");
    let nope = srv.url("/nope.gguf");
    assert!(matches!(
        &e,
        ggufkit::Error::Io { source, location: Some(Location::Url(u)), .. }
            if source.kind() == std::io::ErrorKind::NotFound && *u == nope
    ));
    let e = RemoteGguf::open_with("http://127.0.0.1:1/", &quick(), &ReadOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("names no object"), "{e}");
    assert!(matches!(
        &e,
        ggufkit::Error::Remote(RemoteError::Location {
            problem: LocationProblem::NoObject,
            ..
        })
    ));
    let e =
        RemoteGguf::open_with("ftp://host/m.gguf", &quick(), &ReadOptions::default()).unwrap_err();
    assert!(
        matches!(
            &e,
            ggufkit::Error::Remote(RemoteError::Location {
                problem: LocationProblem::Scheme(s),
                url,
            }) if s == "ftp" && url == "ftp://host/m.gguf"
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "opening the location: unsupported URL scheme 'ftp'"
    );
    // tensor data cut short, read permissively: the tensor past the end is named
    let mut cut = model(1, &[("a", 8), ("b", 64)]);
    cut.truncate(cut.len() - 200);
    let srv = Server::one("/cut.gguf", cut.clone());
    let r =
        RemoteGguf::open_with(&srv.url("/cut.gguf"), &quick(), &ReadOptions::permissive()).unwrap();
    assert_eq!(r.tensor_bytes("a").unwrap().len(), 32);
    let e = r.tensor_bytes("b").unwrap_err();
    let b = Gguf::from_bytes_with(&cut, &ReadOptions::permissive())
        .unwrap()
        .tensor("b")
        .unwrap()
        .absolute_offset();
    assert!(
        matches!(
            &e,
            ggufkit::Error::Remote(RemoteError::TensorPastEnd { name, start, size: 256, object_size })
                if name == "b" && *start == b && *object_size == cut.len() as u64
        ),
        "{e}"
    );
    assert!(ggufkit::remote::is_remote("s3://b/k.gguf"));
    assert!(!ggufkit::remote::is_remote("model.gguf"));
    assert!(!ggufkit::remote::is_remote("C:/x.gguf"));
}

#[test]
fn split_models_are_read_as_one_with_shards_fetched_concurrently() {
    let names = ["a", "b", "c", "d", "e"];
    let mut objects = HashMap::new();
    for (i, chunk) in names.chunks(2).enumerate() {
        let n = chunk.len() as u64;
        let mut c = Encoder::header(3, n, 3);
        c.key("split.no", 2).u16(i as u16);
        c.key("split.count", 2).u16(3);
        c.key("split.tensors.count", 5).u32(5);
        let mut off = 0;
        for name in chunk {
            c.tensor(name, &[8], 0, off);
            off += 32;
        }
        c.pad(32);
        for _ in chunk {
            c.data(32);
        }
        objects.insert(
            format!("/m/model-{:05}-of-00003.gguf", i + 1),
            Object::new(c.build()),
        );
    }
    let srv = Server::start(objects, Faults::default());
    let m = RemoteModel::open_with(
        &srv.url("/m/model-00001-of-00003.gguf"),
        &quick(),
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(m.shard_count(), 3);
    assert_eq!(m.tensor_count(), 5);
    let order: Vec<(usize, String)> = m
        .tensors()
        .map(|t| (t.shard, t.info.name().into_owned()))
        .collect();
    assert_eq!(
        order,
        [(0, "a"), (0, "b"), (1, "c"), (1, "d"), (2, "e")].map(|(s, n)| (s, n.to_string()))
    );
    assert_eq!(m.tensor("e").unwrap().shard, 2);
    assert_eq!(m.tensor_bytes("d").unwrap().len(), 32);
    assert_eq!(m.stats().requests, 4);
    // a missing shard is named
    let mut objects = HashMap::new();
    let mut c = Encoder::header(3, 0, 2);
    c.key("split.no", 2).u16(0);
    c.key("split.count", 2).u16(2);
    objects.insert("/x-00001-of-00002.gguf".to_string(), Object::new(c.build()));
    let srv = Server::start(objects, Faults::default());
    let e = RemoteModel::open_with(
        &srv.url("/x-00001-of-00002.gguf"),
        &quick(),
        &ReadOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("x-00002-of-00002.gguf") && e.contains("no such object"),
        "{e}"
    );
    // a second shard that is not a GGUF, and a second shard given as the first
    let mut objects = HashMap::new();
    objects.insert("/y-00001-of-00002.gguf".to_string(), Object::new(c.build()));
    objects.insert(
        "/y-00002-of-00002.gguf".to_string(),
        Object::new(b"GGUX".repeat(8)),
    );
    let mut second = Encoder::header(3, 0, 2);
    second.key("split.no", 2).u16(1);
    second.key("split.count", 2).u16(2);
    objects.insert(
        "/z-00002-of-00002.gguf".to_string(),
        Object::new(second.build()),
    );
    let srv = Server::start(objects, Faults::default());
    let open_model = |path: &str| {
        RemoteModel::open_with(&srv.url(path), &quick(), &ReadOptions::default()).unwrap_err()
    };
    let bad = srv.url("/y-00002-of-00002.gguf");
    let e = open_model("/y-00001-of-00002.gguf");
    assert!(
        matches!(
            &e,
            ggufkit::Error::Shard(ShardError::Format { file: Location::Url(u), diagnostic })
                if *u == bad && diagnostic.rule == Rule::Magic && diagnostic.offset == 0
        ),
        "{e}"
    );
    assert!(
        e.to_string().starts_with(&format!("{bad}: at byte 0: ")),
        "{e}"
    );
    let e = open_model("/z-00002-of-00002.gguf");
    assert!(
        matches!(
            &e,
            ggufkit::Error::Shard(ShardError::NotFirst { no: 1, .. })
        ),
        "{e}"
    );
}

/// Gemma 3 270M (253 MB, 6.5 MB header) over loopback: the header plus at most one chunk, in a
/// handful of requests, in less than twice the time of reading the same bytes locally plus the
/// requests' round trips. Needs the model (`ggufkit_testkit::reference::gemma`); skipped
/// without it.
#[test]
fn gemma_header_costs_the_header_plus_one_chunk() {
    let Some(path) = ggufkit_testkit::reference::gemma() else {
        return;
    };
    let bytes = std::fs::read(&path).unwrap();
    let total = bytes.len() as u64;
    let header_len = Gguf::from_bytes(&bytes).unwrap().data_offset();
    let srv = Server::one("/gemma.gguf", bytes);
    let url = srv.url("/gemma.gguf");
    // warm the connection machinery once, then measure
    drop(open(&url));
    let t = Instant::now();
    let r = open(&url);
    let remote = t.elapsed();
    let s = r.stats();
    let last = srv.log().last().unwrap().sent;
    assert!(
        s.bytes <= header_len + last,
        "{} bytes for a {header_len}-byte header",
        s.bytes
    );
    assert!(s.bytes < header_len * 2);
    assert_eq!(r.len(), total);
    assert!(r.gguf().report().valid());
    // the same bytes read and parsed locally
    let t = Instant::now();
    let mut f = std::fs::File::open(&path).unwrap();
    let mut head = vec![0u8; s.bytes as usize];
    std::io::Read::read_exact(&mut f, &mut head).unwrap();
    let (local_report, _) = {
        let g = Gguf::read_header(&head[..]).unwrap();
        (g.report().clone(), g.tensor_count())
    };
    let local = t.elapsed();
    assert_eq!(&local_report, r.gguf().report());
    // one round trip: a one-byte range
    let t = Instant::now();
    for _ in 0..10 {
        r.read_range(0..1).unwrap();
    }
    let rtt = t.elapsed() / 10;
    let budget = 2 * (local + rtt * s.requests as u32);
    eprintln!(
        "gemma over loopback: header {header_len} B, fetched {} B in {} requests, {:?} remote vs \
         {:?} local + {} x {:?} round trip (budget {:?})",
        s.bytes, s.requests, remote, local, s.requests, rtt, budget
    );
    let ranges: Vec<String> = srv.log().iter().filter_map(|l| l.range.clone()).collect();
    eprintln!("gemma requests (last open, then the round trips): {ranges:?}");
    assert!(remote < budget, "{remote:?} over budget {budget:?}");
}

#[test]
fn outline_of_a_fetched_prefix_is_the_local_outline() {
    let big = model(5, &[("a", 1_000_000), ("b", 8)]);
    let cut = big[..big.len() - 1000].to_vec();
    let garbage = {
        let mut g = big.clone();
        g[30] = 0xff; // a key length far past the end: the parse stops
        g
    };
    for (name, bytes) in [("big", &big), ("cut", &cut), ("garbage", &garbage)] {
        let srv = Server::one("/m.gguf", bytes.clone());
        let (prefix, total, stats) =
            ggufkit::remote::header_prefix(&srv.url("/m.gguf"), &quick()).unwrap();
        assert_eq!(total, bytes.len() as u64);
        assert!(
            prefix.len() < bytes.len(),
            "{name}: the data is not fetched"
        );
        assert_eq!(stats.bytes, prefix.len() as u64);
        let remote = ggufkit::outline_sized(&prefix, total);
        let local = ggufkit::outline(bytes);
        assert_eq!(remote.report, local.report, "{name}");
        assert_eq!(remote.stopped, local.stopped, "{name}");
        assert_eq!(remote.data_offset, local.data_offset, "{name}");
        assert_eq!(remote.expected_len, local.expected_len, "{name}");
        let names = |o: &ggufkit::Outline<'_>| -> Vec<String> {
            o.tensors.iter().map(|t| t.name().into_owned()).collect()
        };
        assert_eq!(names(&remote), names(&local), "{name}");
        assert_eq!(remote.kvs().len(), local.kvs().len(), "{name}");
    }
}

/// The requests and bytes a header costs with the default first chunk, counted by the server:
/// Gemma 3's 6.5 MB header in at most 2 (the first range, then the rest as far as the parser
/// guesses the header goes), and every vocabulary of the corpus in at most 3, never more than
/// the header and the last request's bytes. Gemma as `ggufkit_testkit::reference::gemma` finds it.
#[test]
fn large_headers_cost_two_requests() {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    if let Some(gemma) = ggufkit_testkit::reference::gemma() {
        files.push(("gemma-3-270m".into(), std::fs::read(&gemma).unwrap()));
    }
    if let Some(vocab) = shared::find("corpus/vocab") {
        for p in shared::gguf_files(&vocab) {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            files.push((name, std::fs::read(&p).unwrap()));
        }
    }
    for (name, bytes) in files {
        let header = Gguf::from_bytes(&bytes).unwrap().data_offset();
        let srv = Server::one("/m.gguf", bytes);
        let r = open(&srv.url("/m.gguf"));
        let s = r.stats();
        let log = srv.log();
        assert_eq!(s.requests as usize, log.len(), "{name}");
        let last = log.last().unwrap().sent;
        eprintln!(
            "{name}: header {header} B, {} requests, {} B fetched",
            s.requests, s.bytes
        );
        assert!(s.bytes <= header + last, "{name}: {log:?}");
        let most = if name.starts_with("gemma-3") { 2 } else { 3 };
        assert!(
            s.requests <= most,
            "{name}: {} requests: {log:?}",
            s.requests
        );
    }
}
