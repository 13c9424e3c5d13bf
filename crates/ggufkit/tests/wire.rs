//! The wire format's one definition (`ggufkit::wire`) agrees with the parser on every corpus
//! file: each pair's value walks to the end the parser found for it, and the spans of each pair
//! and tensor info tile the header from the fixed fields to the tensor data.

use ggufkit::wire::{Piece, ValueSpans, ValueWalk, FIXED_HEADER_LEN};
use ggufkit::{Gguf, ReadOptions, Value};
use ggufkit_testkit::shared;

fn check(name: &str, g: &Gguf<'_>) {
    let mut next = FIXED_HEADER_LEN;
    for kv in g.metadata() {
        let s = kv.spans();
        assert_eq!(s.key_len.offset, next, "{name}: pair {} starts", kv.key());
        assert_eq!(
            s.value.whole().end(),
            kv.offset + kv.raw.len() as u64,
            "{name}: pair {} ends",
            kv.key()
        );
        // the walk of the value's bytes ends where the parser's pair ends
        let at = (s.value.whole().offset - kv.offset) as usize;
        let walk = ValueWalk::value(kv.value_type(), at, g.endian());
        assert_eq!(walk.end(kv.raw), Ok(kv.raw.len()), "{name}: {}", kv.key());
        // its first piece is the value's first field
        let first = ValueWalk::value(kv.value_type(), at, g.endian()).next(kv.raw);
        let offset = |at: usize| kv.offset + at as u64;
        match (s.value, first) {
            (ValueSpans::String { len, bytes }, Ok(Some(Piece::String { at, len: n }))) => {
                assert_eq!((len.offset, bytes.len), (offset(at), n), "{name}");
            }
            (ValueSpans::Array { elem_type, .. }, Ok(Some(Piece::ArrayHead { at, count, .. }))) => {
                assert_eq!(elem_type.offset, offset(at), "{name}");
                let Value::Array(a) = kv.value else {
                    panic!("{name}: not an array")
                };
                assert_eq!(a.len(), count, "{name}");
            }
            (ValueSpans::Scalar(span), Ok(Some(Piece::Scalars { at, count: 1, .. }))) => {
                assert_eq!(span.offset, offset(at), "{name}");
            }
            (s, p) => panic!("{name}: {} has spans {s:?} but walks to {p:?}", kv.key()),
        }
        next = s.value.whole().end();
    }
    for t in g.tensors() {
        let s = t.spans();
        assert_eq!(s.name_len.offset, next, "{name}: info {} starts", t.name());
        assert_eq!(s.dims().len(), t.shape().len(), "{name}");
        next = s.whole().end();
    }
    if g.tensor_count() > 0 {
        let align = u64::from(g.alignment());
        assert_eq!(
            next.div_ceil(align) * align,
            g.data_offset(),
            "{name}: padding"
        );
        let first = g.tensors().next().map(|t| t.data_span());
        assert_eq!(
            first.map(|s| s.offset),
            Some(g.data_offset()),
            "{name}: data"
        );
    } else {
        assert_eq!(next, g.data_offset(), "{name}: header end");
    }
}

#[test]
fn the_wire_definition_agrees_with_the_parser_on_the_corpus() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let mut checked = 0;
    for f in shared::gguf_files(&dir) {
        let Ok(g) = Gguf::open_with(&f, &ReadOptions::permissive()) else {
            continue;
        };
        check(&f.display().to_string(), &g);
        checked += 1;
    }
    assert!(checked > 20, "only {checked} corpus files opened");
}

#[test]
fn the_wire_definition_agrees_with_the_parser_on_the_sample() {
    let sample =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    let g = Gguf::open(&sample).unwrap_or_else(|e| panic!("{}: {e}", sample.display()));
    check("tiny-llama.gguf", &g);
}
