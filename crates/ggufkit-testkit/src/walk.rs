//! The walk of tests and fuzz targets: touches every value (every array element, nested arrays,
//! strings, typed views), every tensor info and every tensor data byte of a parsed file, through
//! every accessor, and asserts the invariants the library promises for any input it opened. A
//! failed assertion is a bug in the library.
#![forbid(unsafe_code)]

use ggufkit::value::Scalar;
use ggufkit::{ArrayView, Gguf, Value, ValueType};

/// Walks everything `g` exposes; returns a checksum so nothing is optimised away.
pub fn walk(g: &Gguf<'_>) -> u64 {
    let mut sum = u64::from(g.version()) ^ u64::from(g.alignment()) ^ g.data_offset();
    sum ^= g.expected_len() ^ g.actual_len().unwrap_or(0);
    let _ = (g.architecture(), g.model_name(), g.context_length());
    let _ = (
        g.embedding_length(),
        g.block_count(),
        g.head_count(),
        g.head_count_kv(),
    );
    for (i, kv) in g.metadata().enumerate() {
        let again = g.kv_at(i).expect("kv_at agrees with metadata()");
        assert_eq!(again.offset, kv.offset);
        let key = kv.key();
        if kv.key.as_str().is_some() {
            // the last occurrence of a repeated key wins
            let found = g.get_kv(&key).expect("every key can be looked up");
            assert!(found.offset >= kv.offset);
        }
        let _ = g.get(&key);
        let _ = (
            g.get_u64(&key),
            g.get_i64(&key),
            g.get_f64(&key),
            g.get_str(&key),
        );
        let _ = (
            g.get_bool(&key),
            g.get_f32(&key),
            g.get_u32(&key),
            g.get_array(&key),
        );
        sum = sum
            .wrapping_add(kv.offset)
            .wrapping_add(key.len() as u64)
            .wrapping_add(kv.raw.len() as u64)
            .wrapping_add(walk_value(&kv.value));
        assert_eq!(kv.value_type(), kv.value.value_type());
    }
    for (i, t) in g.tensors().enumerate() {
        let again = g.tensor_at(i).expect("tensor_at agrees with tensors()");
        assert_eq!(again.info_offset(), t.info_offset());
        if std::str::from_utf8(t.name_bytes()).is_ok() {
            // the first occurrence of a repeated name wins
            let found = g
                .tensor(&t.name())
                .expect("every tensor can be looked up by name");
            assert!(found.info_offset() <= t.info_offset());
        }
        assert_eq!(t.shape().len(), t.n_dims() as usize);
        assert!(t.n_dims() <= 4);
        sum = sum
            .wrapping_add(t.n_elements())
            .wrapping_add(t.size())
            .wrapping_add(t.row_size())
            .wrapping_add(t.offset())
            .wrapping_add(t.absolute_offset())
            .wrapping_add(t.info_offset());
        let _ = (t.ne(), t.tensor_type().name(), t.endian(), t.name_bytes());
        if let Some(d) = t.data() {
            assert_eq!(d.len() as u64, t.size());
            sum = sum.wrapping_add(d.iter().map(|&b| u64::from(b)).sum::<u64>());
        }
    }
    let _ = (
        g.tensor_data_size(),
        g.parameter_count(),
        g.header_bytes().len(),
        g.as_bytes().len(),
    );
    sum
}

/// Every element of a value, nested arrays without recursion (nesting is as deep as the bytes
/// allow, 12 bytes a level).
pub fn walk_value(v: &Value<'_>) -> u64 {
    let mut sum = 0u64;
    let mut stack = vec![*v];
    while let Some(v) = stack.pop() {
        let _ = (
            v.as_u64(),
            v.as_i64(),
            v.as_f64(),
            v.as_bool(),
            v.as_str(),
            v.value_type(),
        );
        match v {
            Value::String(s) => {
                sum = sum
                    .wrapping_add(s.len() as u64)
                    .wrapping_add(s.to_string_lossy().len() as u64);
            }
            Value::Array(a) => {
                let mut n = 0u64;
                for e in a.iter() {
                    assert_eq!(e.value_type(), a.element_type());
                    if let Value::Array(_) = e {
                        stack.push(e);
                    } else {
                        let _ = (e.as_u64(), e.as_f64(), e.as_str());
                    }
                    n += 1;
                }
                assert_eq!(n, a.len(), "array iteration ends early");
                let _ = a.get(a.len());
                let _ = a.get(u64::MAX);
                if a.element_type() != ValueType::Array && !a.is_empty() {
                    assert!(a.get(0).is_some() && a.get(a.len() - 1).is_some());
                }
                if let Some(strs) = a.strings() {
                    assert_eq!(strs.count() as u64, a.len());
                }
                sum = sum
                    .wrapping_add(a.len())
                    .wrapping_add(n)
                    .wrapping_add(typed_views(&a))
                    .wrapping_add(a.raw_bytes().len() as u64);
            }
            _ => {}
        }
    }
    sum
}

/// Every typed view of an array (only the one of its element type exists).
fn typed_views(a: &ArrayView<'_>) -> u64 {
    fn one<T: Scalar>(a: &ArrayView<'_>) -> u64 {
        let Some(t) = a.typed::<T>() else { return 0 };
        assert_eq!(t.len() as u64, a.len());
        let _ = (t.as_slice(), t.get(t.len()), t.get(usize::MAX));
        if !t.is_empty() {
            assert!(t.get(t.len() - 1).is_some());
        }
        t.iter().count() as u64 + t.to_vec().len() as u64
    }
    one::<u8>(a)
        + one::<i8>(a)
        + one::<u16>(a)
        + one::<i16>(a)
        + one::<u32>(a)
        + one::<i32>(a)
        + one::<f32>(a)
        + one::<u64>(a)
        + one::<i64>(a)
        + one::<f64>(a)
}
