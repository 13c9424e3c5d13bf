//! Property tests: arbitrary valid models (every value type, nested arrays, both byte orders, any
//! power-of-two alignment, tensors of every supported type) read back equal; arbitrary mutations
//! of valid files never panic, give the same verdict twice, and `from_bytes` succeeds exactly when
//! `validate` says valid; the stream reader agrees with the slice parser.

use ggufkit::{Endian, GgmlType, Gguf, ReadOptions};
use ggufkit_testkit::checks::{check_stream, check_verdicts};
use ggufkit_testkit::compare::assert_model_eq;
use ggufkit_testkit::walk::walk;
use ggufkit_testkit::{Model, T, V};
use proptest::prelude::*;

fn bytes_utf8() -> impl Strategy<Value = Vec<u8>> {
    ".{0,12}".prop_map(|s: String| s.into_bytes())
}

fn scalar(ty: u32) -> BoxedStrategy<V> {
    match ty {
        0 => any::<u8>().prop_map(V::U8).boxed(),
        1 => any::<i8>().prop_map(V::I8).boxed(),
        2 => any::<u16>().prop_map(V::U16).boxed(),
        3 => any::<i16>().prop_map(V::I16).boxed(),
        4 => any::<u32>().prop_map(V::U32).boxed(),
        5 => any::<i32>().prop_map(V::I32).boxed(),
        // any bit pattern: NaNs with payloads, infinities, subnormals, -0.0
        6 => any::<u32>().prop_map(|b| V::F32(f32::from_bits(b))).boxed(),
        7 => (0u8..=1).prop_map(V::Bool).boxed(),
        8 => bytes_utf8().prop_map(V::Str).boxed(),
        10 => any::<u64>().prop_map(V::U64).boxed(),
        11 => any::<i64>().prop_map(V::I64).boxed(),
        12 => any::<u64>().prop_map(|b| V::F64(f64::from_bits(b))).boxed(),
        _ => unreachable!("not a scalar type: {ty}"),
    }
}

const SCALARS: [u32; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12];

/// Any value: scalars, arrays of any element type, arrays of arrays (up to 5 levels).
fn value() -> impl Strategy<Value = V> {
    let leaf = prop::sample::select(SCALARS.to_vec()).prop_flat_map(scalar);
    let flat_array = prop::sample::select(SCALARS.to_vec())
        .prop_flat_map(|t| prop::collection::vec(scalar(t), 0..6).prop_map(move |v| V::Arr(t, v)));
    let nested = flat_array.clone().prop_recursive(4, 48, 4, |inner| {
        prop::collection::vec(inner, 0..4).prop_map(|v| {
            // an array of arrays: every element an array (whatever its element type)
            V::Arr(
                9,
                v.into_iter().filter(|e| matches!(e, V::Arr(..))).collect(),
            )
        })
    });
    prop_oneof![4 => leaf, 2 => flat_array, 1 => nested]
}

fn tensor(i: usize) -> impl Strategy<Value = T> {
    let types: Vec<GgmlType> = GgmlType::supported().collect();
    (
        prop::sample::select(types),
        prop::collection::vec(1u64..4, 0..=4),
        any::<u8>(),
    )
        .prop_map(move |(ty, mut dims, fill)| {
            if dims.is_empty() {
                if ty.block_size() != 1 {
                    dims = vec![ty.block_size()];
                }
            } else {
                dims[0] *= ty.block_size();
            }
            let mut t = T::new(&format!("t.{i}"), &dims, ty);
            for b in &mut t.data {
                *b ^= fill;
            }
            t
        })
}

prop_compose! {
    fn model()(
        big in any::<bool>(),
        version in 2u32..=3,
        shift in 0u32..=8,
        explicit in any::<bool>(),
        kvs in prop::collection::vec(value(), 0..10),
        n_tensors in 0usize..6,
    )(
        tensors in (0..n_tensors).map(tensor).collect::<Vec<_>>(),
        big in Just(big), version in Just(version), shift in Just(shift),
        explicit in Just(explicit), kvs in Just(kvs),
    ) -> Model {
        let alignment = 1u64 << shift;
        let mut pairs: Vec<(Vec<u8>, V)> = kvs
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("k.{i}").into_bytes(), v))
            .collect();
        if explicit || alignment != 32 {
            pairs.insert(pairs.len() / 2, (b"general.alignment".to_vec(), V::U32(alignment as u32)));
        }
        Model {
            version,
            endian: if big { Endian::Big } else { Endian::Little },
            kvs: pairs,
            tensors,
            alignment,
            pad_last: true,
        }
    }
}

#[derive(Clone, Debug)]
enum Mutation {
    /// Flip bit `bit` of the byte at (position mod length).
    Flip(usize, u8),
    /// Set the byte at (position mod length).
    Set(usize, u8),
    /// Keep the first (position mod (length + 1)) bytes.
    Truncate(usize),
    /// Insert bytes at (position mod (length + 1)).
    Insert(usize, Vec<u8>),
    /// Remove up to n bytes at (position mod length).
    Remove(usize, usize),
    /// Write a little-endian u64 (a count, a length, a dimension) at (position mod length).
    Word(usize, u64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let word = prop_oneof![
        Just(u64::MAX),
        Just(1u64 << 63),
        Just(1u64 << 62),
        Just(1u64 << 32),
        Just(0u64),
        Just(13u64),
        any::<u64>(),
    ];
    prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(p, b)| Mutation::Flip(p, b)),
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Set(p, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(p, b)| Mutation::Insert(p, b)),
        (any::<usize>(), 1usize..16).prop_map(|(p, n)| Mutation::Remove(p, n)),
        (any::<usize>(), word).prop_map(|(p, w)| Mutation::Word(p, w)),
    ]
}

fn apply(b: &mut Vec<u8>, m: &Mutation) {
    let len = b.len();
    match m {
        Mutation::Flip(p, bit) if len > 0 => b[p % len] ^= 1 << bit,
        Mutation::Set(p, v) if len > 0 => b[p % len] = *v,
        Mutation::Truncate(p) => b.truncate(p % (len + 1)),
        Mutation::Insert(p, bytes) => {
            let at = p % (len + 1);
            b.splice(at..at, bytes.iter().copied());
        }
        Mutation::Remove(p, n) if len > 0 => {
            let at = p % len;
            b.drain(at..(at + n).min(len));
        }
        Mutation::Word(p, w) if len >= 8 => {
            let at = p % (len - 7);
            b[at..at + 8].copy_from_slice(&w.to_le_bytes());
        }
        _ => {}
    }
}

/// Every entry point on hostile bytes: no panic, same verdict twice, strict iff valid.
fn check_hostile(b: &[u8]) -> Result<(), TestCaseError> {
    let r1 = ggufkit::validate_bytes(b);
    let r2 = ggufkit::validate_bytes(b);
    prop_assert_eq!(&r1, &r2);
    let strict = Gguf::from_bytes(b);
    prop_assert_eq!(
        strict.is_ok(),
        r1.valid(),
        "from_bytes ok iff valid: {:?}",
        r1
    );
    match &strict {
        Ok(g) => {
            walk(g);
        }
        Err(e) => prop_assert_eq!(e.diagnostic(), r1.first_error()),
    }
    if let Ok(g) = Gguf::from_bytes_with(b, &ReadOptions::permissive()) {
        prop_assert_eq!(&g.report().errors, &r1.errors);
        walk(&g);
    }
    check_stream(b, vec![1, 7, 64]);
    check_verdicts(b);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn valid_models_read_back_equal(m in model()) {
        let b = m.encode();
        let g = Gguf::from_bytes(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_model_eq(&m, &g, &b);
        let r = ggufkit::validate_bytes(&b);
        prop_assert!(r.valid(), "{:?}", r);
        prop_assert_eq!(g.expected_len(), b.len() as u64);
        walk(&g);
        check_stream(&b, vec![3]);
        // and through a file (memory-mapped: not under Miri, which cannot map files)
        if cfg!(miri) {
            return Ok(());
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.gguf");
        std::fs::write(&path, &b).unwrap();
        let g = Gguf::open(&path).map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_model_eq(&m, &g, &b);
    }

    #[test]
    fn mutated_models_never_panic(m in model(), muts in prop::collection::vec(mutation(), 1..4)) {
        let mut b = m.encode();
        for mu in &muts {
            apply(&mut b, mu);
        }
        check_hostile(&b)?;
    }

    #[test]
    fn random_bytes_after_a_header_never_panic(
        version in prop_oneof![Just(2u32), Just(3u32), Just(0x0300_0000u32), any::<u32>()],
        rest in prop::collection::vec(any::<u8>(), 0..300),
    ) {
        let mut b = b"GGUF".to_vec();
        b.extend(version.to_le_bytes());
        b.extend(rest);
        check_hostile(&b)?;
    }
}
