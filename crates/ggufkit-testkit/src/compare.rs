//! Asserts that what the library read is what was written: a parsed file against the
//! [`Model`] encoded into it, or two parsed files against each other.
#![forbid(unsafe_code)]

use ggufkit::{Gguf, Value};

use crate::encode::{Model, V};

/// Asserts that the library's value equals the encoded one (floats bit for bit); `path` names
/// the value in failure messages.
pub fn assert_value_eq(want: &V, got: &Value<'_>, path: &str) {
    match (want, got) {
        (V::U8(a), Value::U8(b)) => assert_eq!(a, b, "{path}"),
        (V::I8(a), Value::I8(b)) => assert_eq!(a, b, "{path}"),
        (V::U16(a), Value::U16(b)) => assert_eq!(a, b, "{path}"),
        (V::I16(a), Value::I16(b)) => assert_eq!(a, b, "{path}"),
        (V::U32(a), Value::U32(b)) => assert_eq!(a, b, "{path}"),
        (V::I32(a), Value::I32(b)) => assert_eq!(a, b, "{path}"),
        (V::U64(a), Value::U64(b)) => assert_eq!(a, b, "{path}"),
        (V::I64(a), Value::I64(b)) => assert_eq!(a, b, "{path}"),
        (V::F32(a), Value::F32(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{path}"),
        (V::F64(a), Value::F64(b)) => assert_eq!(a.to_bits(), b.to_bits(), "{path}"),
        (V::Bool(a), Value::Bool(b)) => assert_eq!(a, b, "{path}"),
        (V::Str(a), Value::String(b)) => assert_eq!(a.as_slice(), b.as_bytes(), "{path}"),
        (V::Arr(t, items), Value::Array(a)) => {
            assert_eq!(a.element_type().id(), *t, "{path}: element type");
            assert_eq!(a.len(), items.len() as u64, "{path}: length");
            let got: Vec<Value<'_>> = a.iter().collect();
            assert_eq!(got.len(), items.len(), "{path}: iterated length");
            for (i, (w, g)) in items.iter().zip(&got).enumerate() {
                assert_value_eq(w, g, &format!("{path}[{i}]"));
                // O(1) / walking access agrees with iteration
                let by_index = a.get(i as u64).expect("get(i)");
                assert_value_eq(w, &by_index, &format!("{path}.get({i})"));
            }
            if let Some(strs) = a.strings() {
                let strs: Vec<_> = strs.collect();
                assert_eq!(strs.len(), items.len(), "{path}: strings()");
                for (w, g) in items.iter().zip(&strs) {
                    match w {
                        V::Str(s) => assert_eq!(s.as_slice(), g.as_bytes(), "{path}"),
                        other => panic!("{path}: string array holds {other:?}"),
                    }
                }
            }
        }
        (w, g) => panic!("{path}: wrote {w:?}, read {g:?}"),
    }
}

/// Asserts that a parsed file holds exactly the model (`bytes` is what the model encoded to).
pub fn assert_model_eq(m: &Model, g: &Gguf<'_>, bytes: &[u8]) {
    assert_eq!(g.version(), m.version);
    assert_eq!(g.endian(), m.endian);
    assert_eq!(u64::from(g.alignment()), m.alignment);
    assert_eq!(g.kv_count(), m.kvs.len());
    for (i, ((k, v), kv)) in m.kvs.iter().zip(g.metadata()).enumerate() {
        assert_eq!(kv.key.as_bytes(), k.as_slice(), "key {i}");
        assert_value_eq(v, &kv.value, &format!("kv {i}"));
        if let Ok(key) = std::str::from_utf8(k) {
            let by_key = g.get(key).expect("lookup by key");
            assert_value_eq(v, &by_key, &format!("get({key:?})"));
        }
    }
    assert_eq!(g.tensor_count(), m.tensors.len());
    let (_, lay) = m.encode_with_layout();
    assert_eq!(g.data_offset(), lay.data_offset);
    for (i, (t, ti)) in m.tensors.iter().zip(g.tensors()).enumerate() {
        assert_eq!(ti.name_bytes(), t.name.as_slice(), "tensor {i}");
        assert_eq!(ti.shape(), t.dims.as_slice(), "tensor {i}");
        assert_eq!(ti.type_id(), t.ty, "tensor {i}");
        assert_eq!(ti.absolute_offset(), lay.tensor_data[i], "tensor {i}");
        if let Some(d) = ti.data() {
            assert_eq!(d, t.data.as_slice(), "tensor {i} data");
            let at = lay.tensor_data[i] as usize;
            assert_eq!(&bytes[at..at + d.len()], d);
        }
        if let Ok(name) = std::str::from_utf8(&t.name) {
            assert!(g.tensor(name).is_some(), "tensor({name:?})");
        }
    }
}

/// Asserts that two parsed files hold the same header and tensors: every pair bit for bit, every
/// tensor's name, type, shape, offset and data.
pub fn assert_same(a: &Gguf<'_>, b: &Gguf<'_>) {
    assert_eq!(a.version(), b.version());
    assert_eq!(a.endian(), b.endian());
    assert_eq!(a.alignment(), b.alignment());
    assert_eq!(a.data_offset(), b.data_offset());
    assert_eq!(a.expected_len(), b.expected_len());
    assert_eq!(a.kv_count(), b.kv_count());
    for (x, y) in a.metadata().zip(b.metadata()) {
        assert_eq!(x.raw, y.raw);
        assert_eq!(x.offset, y.offset);
    }
    assert_eq!(a.tensor_count(), b.tensor_count());
    for (x, y) in a.tensors().zip(b.tensors()) {
        assert_eq!(x.name_bytes(), y.name_bytes());
        assert_eq!(x.tensor_type(), y.tensor_type());
        assert_eq!(x.shape(), y.shape());
        assert_eq!(x.offset(), y.offset());
        assert_eq!(x.data(), y.data());
    }
}

/// Zeroes the padding of a parsed file's bytes (`bytes` starts at the GGUF): after the tensor
/// infos and after each tensor's data, up to where the next thing starts or `bytes` ends. What a
/// writer that pads with zeros must reproduce.
pub fn zero_padding(g: &Gguf<'_>, bytes: &mut [u8]) {
    let mut zero = |from: u64, to: u64| {
        let to = (to as usize).min(bytes.len());
        let from = (from as usize).min(to);
        bytes[from..to].fill(0);
    };
    if let Some(last) = g.tensors().last() {
        let infos_end = last.info_offset()
            + 8
            + last.name_bytes().len() as u64
            + 4
            + 8 * u64::from(last.n_dims())
            + 4
            + 8;
        zero(infos_end, g.data_offset());
    }
    let ts: Vec<_> = g.tensors().collect();
    for (i, t) in ts.iter().enumerate() {
        let end = t.absolute_offset() + t.size();
        let next = ts
            .get(i + 1)
            .map_or(g.expected_len(), |n| n.absolute_offset());
        zero(end, next);
    }
}

/// The first difference between two GGUF files, `ours` and `theirs` (a reference's): a pair's key
/// or value, a tensor's name, type, shape or data; `None` when they agree. What a differential test
/// reports in place of a bare "the bytes differ".
pub fn first_difference(ours: &Gguf<'_>, theirs: &Gguf<'_>) -> Option<String> {
    let pairs = |g: &Gguf<'_>| -> Vec<(String, Vec<u8>)> {
        g.metadata()
            .map(|k| (k.key().into_owned(), k.raw.to_vec()))
            .collect()
    };
    let (our_keys, their_keys) = (pairs(ours), pairs(theirs));
    for (i, (a, b)) in our_keys.iter().zip(&their_keys).enumerate() {
        if a.0 != b.0 {
            return Some(format!(
                "pair {i}: key '{}' where the script has '{}'",
                a.0, b.0
            ));
        }
        if a.1 != b.1 {
            return Some(format!("key '{}': the values differ", a.0));
        }
    }
    if our_keys.len() != their_keys.len() {
        let n = our_keys.len().min(their_keys.len());
        let (who, extra) = if our_keys.len() > n {
            ("ours", &our_keys[n].0)
        } else {
            ("the script's", &their_keys[n].0)
        };
        return Some(format!("{who} has more pairs, first '{extra}'"));
    }
    let ot: Vec<_> = ours.tensors().collect();
    let tt: Vec<_> = theirs.tensors().collect();
    for (a, b) in ot.iter().zip(&tt) {
        if a.name() != b.name() {
            return Some(format!(
                "tensor '{}' where the script has '{}'",
                a.name(),
                b.name()
            ));
        }
        if a.type_id() != b.type_id() || a.shape() != b.shape() {
            return Some(format!(
                "tensor '{}': type {} shape {:?}, the script's type {} shape {:?}",
                a.name(),
                a.type_id(),
                a.shape(),
                b.type_id(),
                b.shape()
            ));
        }
        if a.data() != b.data() {
            let (da, db) = (a.data().unwrap_or(&[]), b.data().unwrap_or(&[]));
            let at = da.iter().zip(db).position(|(x, y)| x != y).unwrap_or(0);
            return Some(format!(
                "tensor '{}': the data differ from byte {at}",
                a.name()
            ));
        }
    }
    if ot.len() != tt.len() {
        return Some(format!("{} tensors, the script {}", ot.len(), tt.len()));
    }
    None
}
