//! Whether two metadata values are equal, and where two arrays first differ.
#![forbid(unsafe_code)]

use crate::value::{ArrayView, Value};

/// `None` when equal; `Some(first_difference)` when they differ (the index only for two arrays of
/// one element type). Floats compare by bits, so a NaN equals the same NaN.
pub(super) fn compare(a: &Value<'_>, b: &Value<'_>) -> Option<Option<u64>> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            if x.element_type() != y.element_type() {
                return Some(None);
            }
            first_difference(x, y).map(Some)
        }
        _ => (!scalar_eq(a, b)).then_some(None),
    }
}

fn scalar_eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::String(x), Value::String(y)) => x.as_bytes() == y.as_bytes(),
        (Value::Array(x), Value::Array(y)) => {
            x.element_type() == y.element_type() && first_difference(x, y).is_none()
        }
        _ => a == b,
    }
}

/// The first index where two arrays of one element type differ, or `None` when equal.
fn first_difference(x: &ArrayView<'_>, y: &ArrayView<'_>) -> Option<u64> {
    if x.len() == y.len() && x.endian() == y.endian() && x.raw_bytes() == y.raw_bytes() {
        return None;
    }
    if let (Some(mut s), Some(mut t)) = (x.strings(), y.strings()) {
        let mut i = 0u64;
        loop {
            match (s.next(), t.next()) {
                (None, None) => return None,
                (Some(p), Some(q)) if p.as_bytes() == q.as_bytes() => i += 1,
                _ => return Some(i),
            }
        }
    }
    let (mut s, mut t) = (x.iter(), y.iter());
    let mut i = 0u64;
    loop {
        match (s.next(), t.next()) {
            (None, None) => return None,
            (Some(p), Some(q)) if scalar_eq(&p, &q) => i += 1,
            _ => return Some(i),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_compare_by_value_and_floats_by_bits() {
        assert_eq!(compare(&Value::U32(1), &Value::U32(1)), None);
        assert_eq!(compare(&Value::U32(1), &Value::U32(2)), Some(None));
        assert_eq!(compare(&Value::U32(1), &Value::I32(1)), Some(None));
        assert_eq!(compare(&Value::F32(f32::NAN), &Value::F32(f32::NAN)), None);
        assert_eq!(compare(&Value::F32(0.0), &Value::F32(-0.0)), Some(None));
    }
}
