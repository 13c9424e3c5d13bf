//! `ggufkit::open` and its siblings over every kind of location: a local path, an HTTP URL (a
//! server on 127.0.0.1), the object-store schemes told apart from paths, and a split model from
//! its first shard or any other; every error names the location. (S3 itself: `remote_s3.rs`.)
#![cfg(feature = "remote")]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ggufkit::error::{LocationProblem, Missing, RemoteError, ShardError, WriteError};
use ggufkit::location::is_remote;
use ggufkit::open::{
    first_shard, header_bytes, open_checked, open_model_from_first, open_with, validate,
    ModelShards, OpenOptions,
};
use ggufkit::remote::RemoteOptions;
use ggufkit::shard::{split, SplitLimit, SplitOptions};
use ggufkit::{open, open_model, Error, Gguf, Location, ReadOptions, Rule};
use ggufkit_testkit::server::{Faults, Object, Server};
use ggufkit_testkit::Encoder;

/// Remote options that keep fault tests short.
fn quick() -> OpenOptions {
    OpenOptions {
        read: ReadOptions::default(),
        remote: Some(RemoteOptions {
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            max_retries: 1,
            retry_backoff: Duration::from_millis(10),
            retry_timeout: Duration::from_secs(5),
            ..RemoteOptions::default()
        }),
    }
}

/// A valid GGUF with f32 tensors `a` (64 values) and `b` (8), their data distinct.
fn model() -> Vec<u8> {
    let mut c = Encoder::header(3, 2, 1);
    c.kv_str("general.architecture", "llama");
    c.tensor("a", &[64], 0, 0);
    c.tensor("b", &[8], 0, 256);
    c.pad(32);
    let mut bytes = c.build();
    bytes.extend((0..288u32).map(|i| (i % 251) as u8));
    bytes
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf")
}

#[test]
fn locations_are_told_apart_by_one_rule() {
    for url in [
        "http://host/m.gguf",
        "https://host/m.gguf?x=1",
        "s3://bucket/models/m.gguf",
        "S3A://bucket/m.gguf",
        "gs://bucket/m.gguf",
        "az://container/m.gguf",
        "abfss://container@account.dfs.core.windows.net/m.gguf",
    ] {
        assert!(is_remote(url), "{url}");
        assert_eq!(Location::parse(url), Location::Url(url.to_string()));
        assert_eq!(
            Location::from_path(Path::new(url)),
            Location::Url(url.into())
        );
        assert!(Location::parse(url).is_remote());
    }
    for path in [
        "model.gguf",
        "C:/models/m.gguf",
        "./s3://x",
        "ftp://host/m.gguf",
        "https://",
    ] {
        assert!(!is_remote(path), "{path}");
        assert_eq!(Location::parse(path), Location::Path(path.into()));
        assert_eq!(Location::parse(path).path(), Some(Path::new(path)));
    }
    assert_eq!(
        Location::parse("s3://b/k.gguf").to_string(),
        "s3://b/k.gguf"
    );
    assert_eq!(Location::parse("dir/m.gguf").to_string(), "dir/m.gguf");
}

#[test]
fn a_local_path_is_mapped_and_costs_nothing() {
    let loc = Location::from(sample());
    let o = open(&loc, false).unwrap();
    let g = Gguf::open(sample()).unwrap();
    assert_eq!(o.location(), &loc);
    assert!(o.holds_data());
    assert_eq!(o.cost(), None);
    assert_eq!(o.gguf().header_bytes(), g.header_bytes());
    assert_eq!(o.gguf().path(), Some(sample().as_path()));
    for t in o.gguf().tensors() {
        let data = o.tensor_data(&t).unwrap();
        assert!(matches!(data, std::borrow::Cow::Borrowed(_)));
        assert_eq!(&*data, g.tensor(&t.name()).unwrap().data().unwrap());
    }
    let (report, cost) = validate(&loc).unwrap();
    assert_eq!(report, ggufkit::validate_file(sample()).unwrap());
    assert_eq!(cost, None);
    let h = header_bytes(&loc).unwrap();
    assert_eq!(h.cost(), None);
    let bytes = std::fs::read(sample()).unwrap();
    assert_eq!(
        h.layout().fields.len(),
        ggufkit::layout::ByteLayout::of(&bytes).fields.len()
    );
}

#[test]
fn a_url_is_read_by_ranges_and_says_what_it_cost() {
    let bytes = model();
    let srv = Server::one("/m.gguf", bytes.clone());
    let loc = Location::parse(&srv.url("/m.gguf"));
    let o = open_with(&loc, &quick()).unwrap();
    let local = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(o.location(), &loc);
    assert!(!o.holds_data());
    assert!(o.remote().is_some());
    assert_eq!(o.gguf().header_bytes(), local.header_bytes());
    assert_eq!(o.gguf().report(), local.report());
    let before = o.cost().unwrap();
    assert_eq!((before.requests, before.bytes), (1, bytes.len() as u64));
    let b = o.gguf().tensor("b").unwrap();
    let data = o.tensor_data(&b).unwrap();
    assert_eq!(&*data, local.tensor("b").unwrap().data().unwrap());
    let after = o.cost().unwrap();
    assert_eq!(after.requests, 2);
    assert_eq!(after.bytes, before.bytes + 32);

    let (report, cost) = validate(&loc).unwrap();
    assert_eq!(report, ggufkit::validate_bytes(&bytes));
    assert_eq!(cost.unwrap().requests, 1);
    let h = header_bytes(&loc).unwrap();
    assert_eq!(h.cost().unwrap().requests, 1);
    assert_eq!(
        h.layout().fields,
        ggufkit::layout::ByteLayout::of(&bytes).fields
    );
}

#[test]
fn errors_name_the_location() {
    // a missing local file
    let dir = tempfile::tempdir().unwrap();
    let missing = Location::from(dir.path().join("absent.gguf"));
    let e = open(&missing, false).unwrap_err();
    assert_eq!(e.location, missing);
    assert!(matches!(e.error, Error::Io { .. }), "{e:?}");
    assert!(e.to_string().starts_with(&format!("{missing}: ")), "{e}");
    assert!(validate(&missing)
        .unwrap_err()
        .to_string()
        .starts_with(&missing.to_string()));
    assert!(header_bytes(&missing).is_err_and(|e| e.location == missing));

    // a local file that breaks a rule: the rule and offset, after the location
    let bad = dir.path().join("bad.gguf");
    std::fs::write(&bad, b"GGUX\x03\x00\x00\x00").unwrap();
    let bad = Location::from(bad);
    let e = open(&bad, false).unwrap_err();
    assert_eq!(e.error.rule(), Some(Rule::Magic));
    assert!(
        e.to_string().starts_with(&format!("{bad}: at byte 0: "))
            && e.to_string().ends_with("[magic]"),
        "{e}"
    );

    // a URL the server does not have, and one that breaks a rule
    let mut objects = HashMap::new();
    objects.insert("/cut.gguf".to_string(), Object::new(model()[..40].to_vec()));
    let srv = Server::start(objects, Faults::default());
    let none = Location::parse(&srv.url("/none.gguf"));
    let e = open_with(&none, &quick()).unwrap_err();
    assert_eq!(e.location, none);
    assert!(e.to_string().starts_with(&srv.url("/none.gguf")), "{e}");
    let cut = Location::parse(&srv.url("/cut.gguf"));
    let e = open_with(&cut, &quick()).unwrap_err();
    assert_eq!(e.error.rule(), Some(Rule::Truncated));
    assert!(
        e.to_string().starts_with(&format!("{cut}: at byte ")),
        "{e}"
    );

    // an object store URL that names no object
    let bucket = Location::parse("s3://bucket");
    assert!(!is_remote("s3://"));
    let e = open_with(&Location::Url("s3://bucket/".into()), &quick()).unwrap_err();
    assert!(
        matches!(
            e.error,
            Error::Remote(RemoteError::Location {
                problem: LocationProblem::NoObject,
                ..
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("s3://bucket/: "), "{e}");
    assert_eq!(bucket, Location::Url("s3://bucket".into()));
}

/// A model split in three shards of one tensor each, in `dir`; their paths.
fn split_model(dir: &Path) -> Vec<PathBuf> {
    let mut c = Encoder::header(3, 3, 1);
    c.kv_str("general.architecture", "llama");
    for (i, name) in ["x", "y", "z"].iter().enumerate() {
        c.tensor(name, &[8], 0, 32 * i as u64);
    }
    c.pad(32);
    c.data(96);
    let whole = dir.join("whole.gguf");
    std::fs::write(&whole, c.build()).unwrap();
    let g = Gguf::open(&whole).unwrap();
    let opts = SplitOptions {
        limit: SplitLimit::MaxTensors(1),
        no_tensor_first_split: false,
        overwrite: false,
    };
    let plan = split(&g, &dir.join("m"), &opts, None).unwrap();
    plan.into_iter().map(|s| s.path).collect()
}

#[test]
fn a_split_model_opens_from_any_shard() {
    let dir = tempfile::tempdir().unwrap();
    let shards = split_model(dir.path());
    assert_eq!(shards.len(), 3);
    let first = Location::from(shards[0].clone());
    for given in &shards {
        let loc = Location::from(given.clone());
        assert_eq!(first_shard(&loc), first);
        let m = open_model(&loc, &OpenOptions::default()).unwrap();
        assert_eq!(m.location(), &first);
        assert_eq!(m.shard_count(), 3);
        assert_eq!(m.tensor_count(), 3);
        assert_eq!(
            m.get("general.architecture").unwrap().as_str(),
            Some("llama")
        );
        assert_eq!(m.cost(), None);
        assert!(matches!(m.shards(), ModelShards::Local(_)));
    }
    // a file that is not split is a model of one shard
    let one = open_model(&Location::from(sample()), &OpenOptions::default()).unwrap();
    assert_eq!(one.shard_count(), 1);

    // the same model over HTTP, from its second shard (the query string kept)
    let objects = shards
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            (format!("/m/{name}"), Object::new(std::fs::read(p).unwrap()))
        })
        .collect();
    let srv = Server::start(objects, Faults::default());
    let second = Location::parse(&format!("{}?v=1", srv.url("/m/m-00002-of-00003.gguf")));
    assert_eq!(
        first_shard(&second),
        Location::parse(&format!("{}?v=1", srv.url("/m/m-00001-of-00003.gguf")))
    );
    let m = open_model(&second, &quick()).unwrap();
    assert_eq!(m.shard_count(), 3);
    assert_eq!(m.tensor_count(), 3);
    assert!(matches!(m.shards(), ModelShards::Remote(_)));
    assert_eq!(m.cost().unwrap().requests, 3);

    // a missing shard is named; the error names the first shard, where the model was opened
    std::fs::remove_file(&shards[2]).unwrap();
    let e = open_model(&Location::from(shards[1].clone()), &OpenOptions::default()).unwrap_err();
    assert_eq!(e.location, first);
    assert!(
        matches!(
            e.error,
            Error::NotFound(Missing::Shard {
                shard: 3,
                count: 3,
                ..
            })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("m-00003-of-00003.gguf"), "{e}");
    assert!(e.to_string().starts_with(&first.to_string()), "{e}");

    // a remote first shard whose name and keys disagree is named
    let mut c = Encoder::header(3, 0, 2);
    c.key("split.no", 2).u16(1);
    c.key("split.count", 2).u16(2);
    let mut objects = HashMap::new();
    objects.insert("/y-00001-of-00002.gguf".to_string(), Object::new(c.build()));
    let srv = Server::start(objects, Faults::default());
    let e = open_model(
        &Location::parse(&srv.url("/y-00002-of-00002.gguf")),
        &quick(),
    )
    .unwrap_err();
    assert_eq!(
        e.location,
        Location::parse(&srv.url("/y-00001-of-00002.gguf"))
    );
    assert!(
        matches!(e.error, Error::Shard(ShardError::NotFirst { no: 1, .. })),
        "{e:?}"
    );
}

#[test]
fn a_shard_name_that_is_not_ascii_is_no_shard_name() {
    // the cut 15 bytes from the end falls inside a character: not a shard name, and no panic
    let loc = Location::from(PathBuf::from("€12345678901234.gguf"));
    assert_eq!(first_shard(&loc), loc);
}

#[test]
fn a_split_model_from_its_first_shard_only() {
    let dir = tempfile::tempdir().unwrap();
    let shards = split_model(dir.path());
    let first = Location::from(shards[0].clone());
    let m = open_model_from_first(&first, &OpenOptions::default()).unwrap();
    assert_eq!((m.location(), m.shard_count()), (&first, 3));
    assert_eq!(m.local().unwrap().tensor_count(), 3);
    // a later shard is refused, as llama.cpp's tools refuse it, naming it
    let second = Location::from(shards[1].clone());
    let e = open_model_from_first(&second, &OpenOptions::default()).unwrap_err();
    assert_eq!(e.location, second);
    assert!(
        matches!(e.error, Error::Shard(ShardError::NotFirst { no: 1, .. })),
        "{e:?}"
    );
    // a remote model opens, but has no local shards to copy data from
    let srv = Server::one("/m.gguf", model());
    let m = open_model_from_first(&Location::parse(&srv.url("/m.gguf")), &quick()).unwrap();
    assert!(matches!(
        m.local(),
        Err(Error::Write(WriteError::NotFromFile))
    ));
}

#[test]
fn a_checked_location_is_read_once_and_judged() {
    let bytes = model();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.gguf");
    std::fs::write(&path, &bytes).unwrap();
    let local = open_checked(&Location::from(path.clone()), &OpenOptions::default()).unwrap();
    assert_eq!(local.report, ggufkit::validate_bytes(&bytes));
    assert!(local.gguf.is_some());
    assert_eq!((local.size, local.cost), (None, None));

    let srv = Server::one("/m.gguf", bytes.clone());
    let remote = open_checked(&Location::parse(&srv.url("/m.gguf")), &quick()).unwrap();
    assert_eq!(remote.report, local.report);
    assert_eq!(
        remote.gguf.unwrap().header_bytes(),
        local.gguf.unwrap().header_bytes()
    );
    assert_eq!(remote.size, Some(bytes.len() as u64));
    let cost = remote.cost.unwrap();
    assert_eq!((cost.requests, cost.bytes), (1, bytes.len() as u64));

    // a header even a permissive reading stops in: no file, the verdicts say where
    let broken = &bytes[..30];
    std::fs::write(&path, broken).unwrap();
    let c = open_checked(&Location::from(path.clone()), &OpenOptions::default()).unwrap();
    assert!(c.gguf.is_none());
    assert_eq!(c.report, ggufkit::validate_bytes(broken));
    assert!(!c.report.valid());
    // a location that cannot be read is an error naming it
    let absent = Location::from(dir.path().join("absent.gguf"));
    let e = open_checked(&absent, &OpenOptions::default()).unwrap_err();
    assert_eq!(e.location, absent);
}
