//! The full walk of a header shared by the benchmarks and the `walk` example: every key, every
//! array element (strings as checked `&str`, numbers decoded), every tensor info.

use ggufkit::{ArrayView, Gguf, Value, ValueType};

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

/// Visits everything a header holds; returns a checksum so nothing is optimised away.
pub fn walk(g: &Gguf<'_>) -> u64 {
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
            .wrapping_add(t.ggml_type().id() as u64);
    }
    acc
}
