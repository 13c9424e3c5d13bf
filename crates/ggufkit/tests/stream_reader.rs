//! `Gguf::read_header` over streams that are not buffered: it reads in chunks (a read call per
//! 32 KiB, not one per field) and gives the same header as `Gguf::open`; `read_header_with`
//! still stops exactly at the tensor data.

use std::io::Read;
use std::path::{Path, PathBuf};

use ggufkit::{Gguf, ReadOptions};

/// A reader that counts its read calls and hands out at most `max` bytes per call (as a pipe
/// or a socket may).
struct Counting<R> {
    inner: R,
    calls: usize,
    max: usize,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        let n = buf.len().min(self.max);
        self.inner.read(&mut buf[..n])
    }
}

fn files() -> Vec<PathBuf> {
    let mut v = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf")];
    // without ../shared, the sample only (the finder logs the skip of the vocabulary)
    v.extend(ggufkit_testkit::shared::find(
        "corpus/vocab/ggml-vocab-gemma-4.gguf",
    ));
    v
}

#[test]
fn read_header_reads_in_chunks_and_agrees_with_open() {
    for path in files() {
        let mapped = Gguf::open(&path).unwrap();
        let header = mapped.data_offset() as usize;
        for max in [usize::MAX, 4096, 7] {
            let mut r = Counting {
                inner: std::fs::File::open(&path).unwrap(),
                calls: 0,
                max,
            };
            let g = Gguf::read_header(&mut r).unwrap();
            assert_eq!(g.header_bytes(), mapped.header_bytes(), "{path:?}");
            assert_eq!(g.kv_count(), mapped.kv_count());
            assert_eq!(g.tensor_count(), mapped.tensor_count());
            assert_eq!(g.report().valid(), mapped.report().valid());
            // a read per chunk (or per `max` bytes when the reader gives less), not per field;
            // a long array body is read to its end, so each one may add a short read
            let chunks = header / max.min(32 * 1024) + 16;
            assert!(
                r.calls <= chunks,
                "{path:?}: {} read calls of at most {max} for {header} bytes",
                r.calls
            );
        }
        // the exact reader stops at the data, however the stream hands its bytes out
        let bytes = std::fs::read(&path).unwrap();
        let (g, rest) = Gguf::read_header_with(&bytes[..], &ReadOptions::default()).unwrap();
        assert_eq!(g.header_bytes(), mapped.header_bytes());
        assert_eq!(rest.len(), bytes.len() - header);
    }
}

#[test]
fn a_stream_cut_short_fails_at_the_same_offset_as_a_slice() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    let bytes = std::fs::read(path).unwrap();
    let header = Gguf::from_bytes(&bytes).unwrap().data_offset() as usize;
    for cut in [0, 3, 20, 100, header / 2, header - 1] {
        let a = Gguf::from_bytes(&bytes[..cut]).unwrap_err();
        let b = Gguf::read_header(&bytes[..cut]).unwrap_err();
        assert_eq!(
            (a.rule(), a.offset()),
            (b.rule(), b.offset()),
            "cut at {cut}"
        );
    }
}
