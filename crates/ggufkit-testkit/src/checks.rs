//! The agreement of the library's entry points on any bytes: the verdicts of strict opening,
//! permissive opening, `validate` and `outline`, and the stream reader against the slice parser. Each check
//! is an invariant the library promises for every input; a failed assertion is a bug.
#![forbid(unsafe_code)]

use ggufkit::{Gguf, ReadOptions, Rule};

use crate::chunked::Chunked;
use crate::walk::{walk, walk_value};

/// The three verdicts on a buffer, and their agreement: `from_bytes` succeeds iff `validate`
/// says valid, the strict error is validate's first error, validate is deterministic, and
/// permissive reading opens every valid file with the same header.
pub fn check_verdicts(data: &[u8]) {
    let report = ggufkit::validate_bytes(data);
    assert_eq!(
        report,
        ggufkit::validate_bytes(data),
        "validate is deterministic"
    );
    let strict = Gguf::from_bytes(data);
    let permissive = Gguf::from_bytes_with(data, &ReadOptions::permissive());
    match &strict {
        Ok(g) => {
            assert!(
                report.valid(),
                "from_bytes opened an invalid file: {report:?}"
            );
            assert!(g.report().errors.is_empty());
            assert_eq!(g.report(), &report);
            let p = permissive
                .as_ref()
                .expect("permissive opens what strict opens");
            assert_eq!(p.header_bytes(), g.header_bytes());
            assert_eq!(p.report(), g.report());
        }
        Err(e) => {
            assert!(!report.valid(), "from_bytes failed on a valid file: {e}");
            let d = e.diagnostic().expect("a slice never fails to read");
            assert_eq!(
                Some(d),
                report.first_error(),
                "strict error is validate's first"
            );
        }
    }
    if let Ok(p) = &permissive {
        assert_eq!(p.report().errors, report.errors);
        assert_eq!(p.report().warnings, report.warnings);
    }
    check_outline(data, &report, permissive.as_ref().ok());
    check_paths(data);
    let _ = report.ggml_compatible();
    for d in report.errors.iter().chain(&report.warnings) {
        assert!(!d.message.is_empty());
        assert_eq!(Rule::from_id(d.rule.id()), Some(d.rule));
    }
}

/// `outline` reports what `validate` reports, its pairs walk (whether or not the parse stopped), and
/// where permissive opening succeeds they are its pairs, with the same values.
pub fn check_outline(data: &[u8], report: &ggufkit::Report, permissive: Option<&Gguf<'_>>) {
    let o = ggufkit::outline(data);
    assert_eq!(&o.report, report, "outline reports as validate does");
    let walked: Vec<(u64, u64)> = o
        .kvs()
        .map(|kv| (kv.offset, walk_value(&kv.value)))
        .collect();
    if let (Some(p), false) = (permissive, o.stopped) {
        let opened: Vec<(u64, u64)> = p
            .metadata()
            .map(|kv| (kv.offset, walk_value(&kv.value)))
            .collect();
        assert_eq!(walked, opened, "outline's pairs are permissive opening's");
    }
}

/// The parser's fast paths read `data` as its field-by-field path does
/// ([`ggufkit::validate::check_fast_paths`]).
#[track_caller]
pub fn check_paths(data: &[u8]) {
    if let Err(e) = ggufkit::validate::check_fast_paths(data) {
        panic!("the fast paths and the field-by-field path differ: {e}");
    }
}

/// The stream reader over chunks of `sizes` agrees with the slice parser on `data`, strictly and
/// permissively: the same header, counts and lengths, the reader left at the data, no tensor data,
/// the same findings; or the same rule at the same offset; or a slice that fails only past the
/// header, on a truncation.
pub fn check_stream(data: &[u8], sizes: Vec<usize>) {
    for opts in [ReadOptions::default(), ReadOptions::permissive()] {
        let slice = Gguf::from_bytes_with(data, &opts);
        let stream = Gguf::read_header_with(Chunked::new(data, sizes.clone()), &opts);
        match (&slice, &stream) {
            (Ok(a), Ok((b, rest))) => {
                assert_eq!(a.header_bytes(), b.header_bytes());
                assert_eq!(a.kv_count(), b.kv_count());
                assert_eq!(a.tensor_count(), b.tensor_count());
                assert_eq!(a.data_offset(), b.data_offset());
                // a last tensor of a type no table sizes runs to the end of the file, which only
                // the slice knows: the stream's header ends that tensor where its data starts;
                // one of an id forks reuse (41-47) that the slice found running past the end,
                // the stream (not knowing the end) takes at the id's word
                match a
                    .tensors()
                    .last()
                    .filter(|t| t.tensor_type().ggml().is_none())
                {
                    Some(last) => match b
                        .tensors()
                        .last()
                        .filter(|t| t.tensor_type().ggml().is_some())
                    {
                        Some(by_id) => {
                            let size = (by_id.offset() + by_id.size())
                                .next_multiple_of(u64::from(b.alignment()).max(1));
                            assert_eq!(b.expected_len(), b.data_offset() + size);
                            assert!(a.expected_len() < b.expected_len());
                        }
                        None => {
                            assert_eq!(b.expected_len(), last.absolute_offset());
                            assert!(a.expected_len() >= b.expected_len());
                        }
                    },
                    None => assert_eq!(a.expected_len(), b.expected_len()),
                }
                assert_eq!(
                    rest.position() as u64,
                    b.data_offset(),
                    "reader left at the data"
                );
                assert!(b.actual_len().is_none());
                assert!(b.tensors().all(|t| t.data().is_none()));
                // the header's findings are the same; the slice adds what it sees of the data
                for (x, y) in b.report().errors.iter().zip(&a.report().errors) {
                    assert_eq!(x, y);
                }
                walk(b);
            }
            (Err(a), Err(b)) => {
                assert_eq!(a.rule(), b.rule(), "{a} / {b}");
                assert_eq!(a.offset(), b.offset(), "{a} / {b}");
            }
            (Err(a), Ok((b, _))) => {
                // only the data past the header can make the slice fail
                assert_eq!(a.rule(), Some(Rule::Truncated), "{a}");
                let offset = a.offset().expect("a truncation has an offset");
                assert!(offset >= b.data_offset(), "{a}");
            }
            (Ok(_), Err(b)) => panic!("the slice parses but the stream fails: {b}"),
        }
    }
}
