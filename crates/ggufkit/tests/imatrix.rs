//! Importance matrices: the shared Gemma 3 matrix in both formats, and broken legacy files.

use std::path::Path;

use ggufkit::error::ImatrixError;
use ggufkit::quant::{ImatrixFormat, ImportanceMatrix};
use ggufkit::Error;

fn legacy(entries: &[(&str, i32, &[f32])], trailer: Option<(i32, &str)>) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend((entries.len() as i32).to_le_bytes());
    for (name, ncall, vals) in entries {
        b.extend((name.len() as i32).to_le_bytes());
        b.extend(name.as_bytes());
        b.extend(ncall.to_le_bytes());
        b.extend((vals.len() as i32).to_le_bytes());
        for v in *vals {
            b.extend(v.to_le_bytes());
        }
    }
    if let Some((n, d)) = trailer {
        b.extend(n.to_le_bytes());
        b.extend((d.len() as i32).to_le_bytes());
        b.extend(d.as_bytes());
    }
    b
}

#[test]
fn legacy_values_are_sums_over_calls() {
    let b = legacy(
        &[("a.weight", 4, &[2.0, 6.0, 1.0]), ("b.weight", 0, &[3.0])],
        Some((7, "calib.txt")),
    );
    let m = ImportanceMatrix::from_legacy_bytes(&b, Path::new("x.dat")).expect("parse");
    assert_eq!(m.format, ImatrixFormat::Legacy);
    assert_eq!(m.get("a.weight"), Some(&[0.5, 1.5, 0.25][..]));
    // ncall 0: the sums as they are
    assert_eq!(m.get("b.weight"), Some(&[3.0][..]));
    assert_eq!(m.chunk_count, 7);
    assert_eq!(m.datasets, ["calib.txt"]);
    // no trailer
    let b = legacy(&[("a", 1, &[1.0])], None);
    let m = ImportanceMatrix::from_legacy_bytes(&b, Path::new("x.dat")).expect("parse");
    assert_eq!((m.chunk_count, m.datasets.len()), (0, 0));
}

#[test]
fn broken_legacy_files_are_typed_errors() {
    let good = legacy(&[("a.weight", 4, &[2.0, 6.0, 1.0])], None);
    for cut in [0, 3, 4, 9, 15, 20, good.len() - 1] {
        let e = ImportanceMatrix::from_legacy_bytes(&good[..cut], Path::new("x.dat"))
            .expect_err("truncated");
        assert!(
            matches!(
                e,
                Error::Imatrix(ImatrixError::Legacy { .. } | ImatrixError::NoEntries { .. })
            ),
            "cut at {cut}: {e}"
        );
    }
    // a huge declared value count is refused by the bytes present, not allocated
    let mut b = legacy(&[("a", 1, &[1.0])], None);
    b[13..17].copy_from_slice(&i32::MAX.to_le_bytes());
    let e = ImportanceMatrix::from_legacy_bytes(&b, Path::new("x.dat")).expect_err("huge");
    assert!(e.to_string().contains("ends in an entry's values"), "{e}");
    let mut b = legacy(&[("a", 1, &[1.0])], None);
    b[4..8].copy_from_slice(&(-5i32).to_le_bytes());
    let e = ImportanceMatrix::from_legacy_bytes(&b, Path::new("x.dat")).expect_err("neg");
    assert!(e.to_string().contains("name length -5"), "{e}");
    let e = ImportanceMatrix::from_legacy_bytes(&0i32.to_le_bytes(), Path::new("x.dat"))
        .expect_err("empty");
    assert!(matches!(e, Error::Imatrix(ImatrixError::NoEntries { .. })));
}

/// The shared Gemma 3 matrix: the GGUF and legacy files of one llama-imatrix run give the same
/// importance (so llama-quantize writes the same tensors from either).
#[test]
fn gemma3_imatrix_both_formats() {
    let Some(dir) = ggufkit_testkit::shared::find("vectors/quantize") else {
        return;
    };
    let g = ImportanceMatrix::open(dir.join("gemma-3-270m-f16.imatrix.gguf")).expect("gguf");
    let d = ImportanceMatrix::open(dir.join("gemma-3-270m-f16.imatrix.dat")).expect("dat");
    assert_eq!(g.format, ImatrixFormat::Gguf);
    assert_eq!(d.format, ImatrixFormat::Legacy);
    assert_eq!(g.len(), 126);
    assert_eq!(g.datasets, ["calib.txt"]);
    assert_eq!(g.chunk_count, 8);
    assert_eq!(d.chunk_count, 8);
    assert_eq!(d.datasets, ["calib.txt"]);
    assert_eq!(
        g.entries.keys().collect::<Vec<_>>(),
        d.entries.keys().collect::<Vec<_>>()
    );
    let q = g.get("blk.0.attn_q.weight").expect("attn_q");
    assert_eq!(q.len(), 640);
    assert!(q.iter().all(|v| v.is_finite() && *v >= 0.0));
    assert!(g.first_non_finite().is_none());
    let mut differ = 0;
    for (k, v) in &g.entries {
        let w = &d.entries[k];
        assert_eq!(v.len(), w.len(), "{k}");
        differ += v
            .iter()
            .zip(w)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
    }
    assert_eq!(
        differ, 0,
        "values differ between the GGUF and legacy matrices"
    );
}
