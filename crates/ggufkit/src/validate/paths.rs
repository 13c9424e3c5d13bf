//! Proof that the parser's fast paths read exactly what its field-by-field path reads: the same
//! header index, the same findings in the same order, the same stop, the same partial reading
//! of a broken file; in both modes. The tests run it over every corpus file and crafted case, a
//! fuzz target over arbitrary bytes.
#![forbid(unsafe_code)]

use crate::read::index::Header;
use crate::read::parser::{parse_reaching, Findings, Mode, Paths, Reached, Stop};
use crate::read::source::SliceSource;

/// Parses `bytes` with the fast paths and field by field only, strictly and permissively, and
/// says where the two readings differ (`Err` with a description); `Ok` when they agree.
///
/// A self-check of the reader, not something a program needs to call: the fast paths decode
/// runs of plain tensor infos and string-array elements with fewer checks of the bytes, and
/// must come to every conclusion the field-by-field reading comes to.
#[doc(hidden)]
pub fn check_fast_paths(bytes: &[u8]) -> Result<(), String> {
    for mode in [Mode::Strict, Mode::Permissive] {
        let fast = parse_reaching(&mut SliceSource(bytes), mode, Paths::Fast);
        let slow = parse_reaching(&mut SliceSource(bytes), mode, Paths::FieldByField);
        compare(bytes, &fast, &slow).map_err(|what| format!("{mode:?} parse: {what}"))?;
    }
    Ok(())
}

type Parsed = (Result<Header, Stop>, Findings, Reached);

fn compare(src: &[u8], fast: &Parsed, slow: &Parsed) -> Result<(), String> {
    let differ = |what: &str, f: &dyn std::fmt::Debug, s: &dyn std::fmt::Debug| {
        Err(format!("{what}: fast {f:?}, field by field {s:?}"))
    };
    if fast.1 != slow.1 {
        return differ("the findings", &fast.1, &slow.1);
    }
    match (&fast.0, &slow.0) {
        (Ok(f), Ok(s)) => compare_headers(src, f, s),
        (Err(Stop::Rule(f)), Err(Stop::Rule(s))) if f == s => compare_reached(&fast.2, &slow.2),
        (Err(Stop::Io(f)), Err(Stop::Io(s))) if f.to_string() == s.to_string() => {
            compare_reached(&fast.2, &slow.2)
        }
        (f, s) => differ("the outcome", &outcome(f), &outcome(s)),
    }
}

fn outcome(r: &Result<Header, Stop>) -> String {
    match r {
        Ok(_) => "a header".into(),
        Err(Stop::Rule(d)) => format!("stop: {d}"),
        Err(Stop::Io(e)) => format!("stop: {e}"),
    }
}

fn compare_reached(f: &Reached, s: &Reached) -> Result<(), String> {
    if f.endian != s.endian || f.kvs != s.kvs || f.tensors != s.tensors {
        return Err(format!(
            "what was read before the stop: fast {} pairs and {} infos, field by field {} and {}",
            f.kvs.len(),
            f.tensors.len(),
            s.kvs.len(),
            s.tensors.len()
        ));
    }
    Ok(())
}

fn compare_headers(src: &[u8], f: &Header, s: &Header) -> Result<(), String> {
    let fields = [
        ("the byte order", f.endian == s.endian),
        ("the version", f.version == s.version),
        ("the key-value pairs", f.kvs == s.kvs),
        ("the tensor infos", f.tensors == s.tensors),
        ("the alignment", f.alignment == s.alignment),
        ("the data offset", f.data_offset == s.data_offset),
        ("the file size", f.file_size == s.file_size),
        ("the value index", f.value_index == s.value_index),
    ];
    if let Some((what, _)) = fields.iter().find(|(_, same)| !same) {
        return Err(format!("{what} differ"));
    }
    // the indexes are hash tables seeded per parse: compared by what they answer
    for kv in f.kvs.iter() {
        let key = crate::read::index::key_bytes(src, kv, f.endian);
        let (a, b) = (f.key_position(src, key), s.key_position(src, key));
        if a != b {
            return Err(format!("the key index: {key:?} at {a:?} and {b:?}"));
        }
    }
    for t in f.tensors.iter() {
        let name = crate::read::index::tensor_name(src, t, f.endian);
        let (a, b) = (f.tensor_position(src, name), s.tensor_position(src, name));
        if a != b {
            return Err(format!("the name index: {name:?} at {a:?} and {b:?}"));
        }
    }
    Ok(())
}
