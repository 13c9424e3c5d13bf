//! `ggufkit::outline`: the entries read before a stop, and the same verdicts as `validate`.

use ggufkit::{outline, validate_bytes, Gguf, Rule};

fn put_str(b: &mut Vec<u8>, s: &str) {
    b.extend((s.len() as u64).to_le_bytes());
    b.extend(s.as_bytes());
}

/// Three key-value pairs and two f32 tensors of 4 elements, alignment 32.
fn file() -> (Vec<u8>, Vec<usize>) {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(2u64.to_le_bytes());
    b.extend(3u64.to_le_bytes());
    let mut marks = Vec::new();
    for (k, v) in [("a.one", 1u32), ("a.two", 2), ("a.three", 3)] {
        marks.push(b.len());
        put_str(&mut b, k);
        b.extend(4u32.to_le_bytes());
        b.extend(v.to_le_bytes());
    }
    for (i, name) in ["t0", "t1"].iter().enumerate() {
        marks.push(b.len());
        put_str(&mut b, name);
        b.extend(1u32.to_le_bytes());
        b.extend(4u64.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend((i as u64 * 32).to_le_bytes());
    }
    marks.push(b.len());
    while b.len() % 32 != 0 {
        b.push(0);
    }
    for i in 0..2 {
        for k in 0..4 {
            b.extend((i as f32 + k as f32).to_le_bytes());
        }
        b.extend([0u8; 16]);
    }
    (b, marks)
}

#[test]
fn a_valid_file_outlines_like_it_opens() {
    let (b, _) = file();
    let o = outline(&b);
    let g = Gguf::from_bytes(&b).unwrap();
    assert!(!o.stopped);
    assert_eq!(o.data_offset, Some(g.data_offset()));
    assert_eq!(o.alignment, Some(32));
    assert_eq!(o.expected_len, Some(b.len() as u64));
    assert_eq!(o.kvs().len(), 3);
    for (x, y) in o.kvs().zip(g.metadata()) {
        assert_eq!((x.offset, x.raw), (y.offset, y.raw));
    }
    for (x, y) in o.tensors.iter().zip(g.tensors()) {
        assert_eq!(x.info_offset(), y.info_offset());
        assert_eq!(x.absolute_offset(), y.absolute_offset());
        assert_eq!(x.data(), y.data());
    }
    assert!(o.report.valid());
}

#[test]
fn a_stop_keeps_the_entries_read_before_it() {
    let (b, marks) = file();
    // cut inside the third pair: two pairs survive
    let o = outline(&b[..marks[2] + 5]);
    assert!(o.stopped);
    assert_eq!(o.kvs().len(), 2);
    assert_eq!(o.kv(1).unwrap().key(), "a.two");
    assert!(o.kv(2).is_none());
    assert!(o.tensors.is_empty());
    assert_eq!(o.report.errors.last().unwrap().rule, Rule::Truncated);
    // too many dimensions in the second tensor: every pair and the first tensor survive
    let mut bad = b.clone();
    let dims_pos = marks[4] + 8 + 2;
    bad[dims_pos] = 5;
    let o = outline(&bad);
    assert!(o.stopped);
    assert_eq!(o.kvs().len(), 3);
    assert_eq!(o.tensors.len(), 1);
    assert_eq!(o.tensors[0].name(), "t0");
    assert_eq!(o.tensors[0].data(), None);
    let last = o.report.errors.last().unwrap();
    assert_eq!(
        (last.rule, last.offset),
        (Rule::TensorDims, dims_pos as u64)
    );
    // a removed type in the second tensor does not stop the outline: it is kept, its size taken
    // from the end of the file
    let mut bad = b.clone();
    let type_pos = marks[4] + 8 + 2 + 4 + 8;
    bad[type_pos] = 4; // removed type q4_2
    let o = outline(&bad);
    assert!(!o.stopped);
    assert_eq!(o.tensors.len(), 2);
    assert_eq!(o.tensors[1].type_id(), 4);
    let last = o.report.errors.last().unwrap();
    assert_eq!(
        (last.rule, last.offset),
        (Rule::TensorType, type_pos as u64)
    );
}

#[test]
fn every_prefix_reports_as_validate_does() {
    let (b, _) = file();
    for n in 0..=b.len() {
        let o = outline(&b[..n]);
        assert_eq!(o.report, validate_bytes(&b[..n]), "prefix of {n} bytes");
        assert!(o.kvs().all(|kv| kv.offset as usize + kv.raw.len() <= n));
    }
}

/// `deep_pairs(depth)` followed by the start of a second pair that the bytes cut short: the parse
/// stops after the nested pair, which the outline keeps.
fn stopped_after_deep_pairs(depth: usize) -> Vec<u8> {
    let mut b = ggufkit_testkit::fixtures::deep_pairs(depth);
    b[16..24].copy_from_slice(&2u64.to_le_bytes());
    b.extend([9, 0, 0]);
    b
}

/// The outline's views keep the parser's record of where nested arrays end, as `Gguf`'s do:
/// walking arrays nested 20,000 levels deep, each beside a sibling, takes linear time in a whole
/// file and in one whose parse stopped after them (without the record it is quadratic: 1.7 s in
/// a release build where the record makes it 1.5 ms).
#[test]
fn walking_an_outline_is_linear_in_its_nesting() {
    use ggufkit_testkit::{growth, walk::walk_value};
    let walk = |b: &[u8]| {
        let o = outline(b);
        let mut sum = 0;
        let t = growth::time(|| sum = o.kvs().map(|kv| walk_value(&kv.value)).sum::<u64>());
        (o.stopped, sum, t)
    };
    // the same values as a parsed file, whole or stopped after them
    let whole = ggufkit_testkit::fixtures::deep_pairs(1000);
    let g = Gguf::from_bytes(&whole).unwrap();
    let expected: u64 = g.metadata().map(|kv| walk_value(&kv.value)).sum();
    let (stopped, sum, _) = walk(&whole);
    assert_eq!((stopped, sum), (false, expected));
    let (stopped, sum, _) = walk(&stopped_after_deep_pairs(1000));
    assert_eq!((stopped, sum), (true, expected));
    for (what, build) in [
        (
            "whole",
            ggufkit_testkit::fixtures::deep_pairs as fn(usize) -> Vec<u8>,
        ),
        ("stopped", stopped_after_deep_pairs),
    ] {
        let [t] = growth::measure(&build(20_000), &build(5_000), |b| [walk(b).2]);
        assert!(t.is_linear(), "{what}: {t:?}, {:.1}x", t.ratio());
    }
}
