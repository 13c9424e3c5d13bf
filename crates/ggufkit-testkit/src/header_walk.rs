//! The walk the benchmarks and the `walk` example time: what a program reading a header does,
//! visiting every key, every array element (strings as checked `&str`, numbers decoded) and every
//! tensor info. Unlike [`walk`](crate::walk::walk) it asserts nothing and reads no tensor data,
//! so what is timed is the reader, not the checks.
#![forbid(unsafe_code)]

use ggufkit::{ArrayView, Gguf, Value, ValueType};

/// Visits everything a header holds; returns a checksum so nothing is optimised away.
pub fn header_walk(g: &Gguf<'_>) -> u64 {
    let mut acc = 0u64;
    for kv in g.metadata() {
        acc = acc
            .wrapping_add(kv.key.len() as u64)
            .wrapping_add(walk_value(&kv.value));
    }
    for t in g.tensors() {
        acc = acc
            .wrapping_add(t.n_elements())
            .wrapping_add(t.offset())
            .wrapping_add(t.name_bytes().len() as u64)
            .wrapping_add(u64::from(t.type_id()));
    }
    acc
}

fn walk_array(a: &ArrayView<'_>) -> u64 {
    match a.element_type() {
        ValueType::String => a
            .strings()
            .map(|it| it.map(|s| s.as_str().map_or(0, |s| s.len() as u64)).sum())
            .unwrap_or(0),
        ValueType::F32 => a.typed::<f32>().map_or(0, |t| {
            t.iter()
                .map(|x| x.to_bits() as u64)
                .fold(0, u64::wrapping_add)
        }),
        ValueType::I32 => a
            .typed::<i32>()
            .map_or(0, |t| t.iter().map(|x| x as u64).fold(0, u64::wrapping_add)),
        ValueType::U32 => a
            .typed::<u32>()
            .map_or(0, |t| t.iter().map(u64::from).fold(0, u64::wrapping_add)),
        ValueType::U8 => a
            .typed::<u8>()
            .map_or(0, |t| t.iter().map(u64::from).fold(0, u64::wrapping_add)),
        _ => a.iter().map(|v| walk_value(&v)).fold(0, u64::wrapping_add),
    }
}

fn walk_value(v: &Value<'_>) -> u64 {
    match v {
        Value::String(s) => s.as_str().map_or(0, |s| s.len() as u64),
        Value::Array(a) => walk_array(a),
        other => other.as_u64().unwrap_or(1),
    }
}
