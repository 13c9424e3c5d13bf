//! The scan as a library: rows go to the sink as they come, a sink that fails ends the scan
//! (without leaving the workers blocked), parts roll over at `files_per_part`, and a folder with
//! complete parts is resumed.

use std::path::Path;

use ggufkit::scan::{
    self, Collect, FileRows, Format, NoScanProgress, ScanOptions, ScanOutput, Sink, Target,
};
use ggufkit::{GgmlType, GgufBuilder, Location};

fn model(n: u32) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set("general.name", format!("m{n}").as_str()).unwrap();
    b.add_tensor_with_data("w", GgmlType::F32, &[2, 2], &[0u8; 16])
        .unwrap();
    b.to_vec().unwrap()
}

fn folder(dir: &Path, n: u32) {
    for i in 0..n {
        std::fs::write(dir.join(format!("f{i:03}.gguf")), model(i)).unwrap();
    }
    std::fs::write(dir.join("bad.gguf"), b"GGUF\x03\x00").unwrap();
}

fn options(jobs: usize) -> ScanOptions {
    ScanOptions {
        jobs,
        ..ScanOptions::default()
    }
}

#[test]
fn every_location_gives_rows_whatever_its_state() {
    let d = tempfile::tempdir().unwrap();
    folder(d.path(), 20);
    let mut locations = scan::expand(&[d.path().to_str().unwrap()]);
    locations.push(Target::File(Location::Path(d.path().join("absent.gguf"))));
    assert_eq!(locations.len(), 22);
    let mut sink = Collect::default();
    let stats = scan::scan(
        &locations,
        &Default::default(),
        &options(4),
        &mut sink,
        &NoScanProgress,
    )
    .unwrap();
    assert_eq!((stats.scanned, stats.invalid, stats.unreadable), (22, 1, 1));
    assert_eq!(sink.rows.len(), 22);
    for r in &sink.rows {
        let f = &r.file;
        if f.location.ends_with("absent.gguf") {
            assert!(f.read_error.is_some());
        } else if f.location.ends_with("bad.gguf") {
            assert_eq!(f.valid, Some(false));
            assert_eq!(r.findings[0].severity, "error");
            assert_eq!(f.error_rule.as_deref(), Some(r.findings[0].rule.as_str()));
        } else {
            assert_eq!(f.valid, Some(true), "{f:?}");
            assert_eq!(r.metadata.len(), 2);
            assert_eq!(r.tensors.len(), 1);
            assert_eq!(r.tensors[0].shape, vec![2, 2]);
        }
    }
}

/// A sink that fails at its third row.
struct Failing(usize);

impl Sink for Failing {
    fn write(&mut self, _rows: FileRows) -> ggufkit::Result<()> {
        self.0 += 1;
        if self.0 == 3 {
            return Err(ggufkit::Error::Io {
                context: "disk full".into(),
                location: None,
                source: std::io::Error::other("no space"),
            });
        }
        Ok(())
    }
    fn finish(&mut self) -> ggufkit::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_sink_ends_the_scan() {
    let d = tempfile::tempdir().unwrap();
    folder(d.path(), 40);
    let locations = scan::expand(&[d.path().to_str().unwrap()]);
    let mut sink = Failing(0);
    let r = scan::scan(
        &locations,
        &Default::default(),
        &options(2),
        &mut sink,
        &NoScanProgress,
    );
    assert!(r.is_err());
    assert_eq!(sink.0, 3, "no row after the failure");
}

#[test]
fn parts_roll_over_and_a_folder_resumes() {
    let d = tempfile::tempdir().unwrap();
    folder(d.path(), 7);
    let locations = scan::expand(&[d.path().to_str().unwrap()]);
    let out = tempfile::tempdir().unwrap();
    let mut o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
    o.files_per_part = 3;
    // the first five only: two parts, one complete of three and one of two
    scan::scan(
        &locations[..5],
        &Default::default(),
        &options(2),
        &mut o,
        &NoScanProgress,
    )
    .unwrap();
    let parts = |t: &str| std::fs::read_dir(out.path().join(t)).unwrap().count();
    assert_eq!(parts("files"), 2);
    assert_eq!(parts("metadata"), 2);
    let mut o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
    assert_eq!(o.done().len(), 5);
    let done = o.done().clone();
    let stats = scan::scan(&locations, &done, &options(2), &mut o, &NoScanProgress).unwrap();
    assert_eq!((stats.scanned, stats.skipped), (3, 5));
    assert_eq!(parts("files"), 3);
    let o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
    assert_eq!(o.done().len(), 8);
}

/// URLs resume by ETag: a rescan asks each object for its ETag with one `HEAD` (no body) and
/// skips it when unchanged; once the server's objects have a new ETag, all are read again.
#[cfg(feature = "remote")]
#[test]
fn urls_resume_by_etag() {
    use ggufkit_testkit::server::{Faults, Object, Server};
    let objects: std::collections::HashMap<String, Object> = (0..3)
        .map(|i| (format!("/m{i}.gguf"), Object::new(model(i))))
        .collect();
    // 3 reads of one request each, then 3 HEADs; the ETags change from the 7th request on
    let srv = Server::start(
        objects,
        Faults {
            change_etag_after: Some(6),
            ..Faults::default()
        },
    );
    let urls: Vec<Target> = (0..3)
        .map(|i| Target::File(Location::Url(srv.url(&format!("/m{i}.gguf")))))
        .collect();
    let out = tempfile::tempdir().unwrap();
    let run = || {
        let mut o = ScanOutput::open(out.path(), Format::Jsonl).unwrap();
        let done = o.take_done();
        scan::scan(&urls, &done, &options(2), &mut o, &NoScanProgress).unwrap()
    };
    assert_eq!(run().scanned, 3);
    assert_eq!(srv.log().len(), 3);
    let again = run();
    assert_eq!((again.scanned, again.skipped), (0, 3));
    let log = srv.log();
    assert_eq!(log.len(), 6);
    assert!(
        log[3..].iter().all(|l| l.method == "HEAD" && l.sent == 0),
        "{log:?}"
    );
    let changed = run();
    assert_eq!((changed.scanned, changed.skipped), (3, 0));
}
