//! `ggufkit::stats`: statistics of special values with exact answers, of every tensor of the
//! committed sample and of corpus models against a one-pass computation over
//! `quant::dequantize_to_vec`, and a tensor without data reported in its place.

use std::path::Path;

use ggufkit::progress::NoProgress;
use ggufkit::stats::{tensor_stats, tensors_stats, TensorStats, HISTOGRAM_BINS};
use ggufkit::{quant, Error, GgmlType, Gguf, GgufBuilder, ReadOptions, TensorInfo};

/// The statistics computed the plain way: all values in memory, one sum at a time.
fn naive(t: &TensorInfo<'_>) -> TensorStats {
    let v =
        quant::dequantize_to_vec(t.ggml_type().unwrap(), t.data().unwrap(), t.endian()).unwrap();
    let finite: Vec<f64> = v
        .iter()
        .filter(|x| x.is_finite())
        .map(|&x| f64::from(x))
        .collect();
    let mut s = TensorStats {
        n_elements: v.len() as u64,
        finite: finite.len() as u64,
        nan: v.iter().filter(|x| x.is_nan()).count() as u64,
        inf: v.iter().filter(|x| x.is_infinite()).count() as u64,
        zeros: v.iter().filter(|&&x| x == 0.0).count() as u64,
        ..TensorStats::default()
    };
    if finite.is_empty() {
        return s;
    }
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = finite.iter().sum::<f64>() / finite.len() as f64;
    let var = finite.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / finite.len() as f64;
    s.min = Some(lo as f32);
    s.max = Some(hi as f32);
    s.mean = Some(mean);
    s.std = Some(var.sqrt());
    let width = (hi - lo) / HISTOGRAM_BINS as f64;
    for x in &finite {
        let bin = if width > 0.0 {
            (((x - lo) / width) as usize).min(HISTOGRAM_BINS - 1)
        } else {
            0
        };
        s.histogram[bin] += 1;
    }
    s
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => (a - b).abs() <= 1e-9 * b.abs().max(1.0),
        (a, b) => a == b,
    }
}

fn assert_like_naive(file: &str, g: &Gguf<'_>) {
    let tensors: Vec<TensorInfo<'_>> = g.tensors().collect();
    let got = tensors_stats(&tensors, &NoProgress);
    assert_eq!(got.len(), tensors.len());
    for (t, s) in tensors.iter().zip(got) {
        let s = s.unwrap();
        let want = naive(t);
        let what = format!("{file}: {}", t.name());
        assert_eq!(
            (s.n_elements, s.finite, s.nan, s.inf, s.zeros),
            (want.n_elements, want.finite, want.nan, want.inf, want.zeros),
            "{what}"
        );
        assert_eq!((s.min, s.max), (want.min, want.max), "{what}");
        assert!(
            close(s.mean, want.mean),
            "{what}: {:?} {:?}",
            s.mean,
            want.mean
        );
        assert!(close(s.std, want.std), "{what}: {:?} {:?}", s.std, want.std);
        assert_eq!(s.histogram, want.histogram, "{what}");
    }
}

#[test]
fn special_values_have_exact_statistics() {
    let mut b = GgufBuilder::new();
    let special = [1.0f32, 2.0, 3.0, 4.0, f32::NAN, f32::INFINITY, 0.0, -0.0];
    let bytes: Vec<u8> = special.iter().flat_map(|v| v.to_le_bytes()).collect();
    b.add_tensor_with_data("special", GgmlType::F32, &[8], &bytes)
        .unwrap();
    let ramp: Vec<u8> = (0..100).flat_map(|i| (i as f32).to_le_bytes()).collect();
    b.add_tensor_with_data("ramp", GgmlType::F32, &[100], &ramp)
        .unwrap();
    // q8_0, one block: d = 0.5 (f16 0x3800), quants -64..-33: values -32.0 .. -16.5
    let mut q8 = vec![0x00, 0x38];
    q8.extend((0..32).map(|i| (i as i8 - 64) as u8));
    b.add_tensor_with_data("q", GgmlType::Q8_0, &[32], &q8)
        .unwrap();
    let file = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&file).unwrap();

    let s = tensor_stats(&g.tensor("special").unwrap(), &NoProgress).unwrap();
    assert_eq!(
        (s.n_elements, s.finite, s.nan, s.inf, s.zeros),
        (8, 6, 1, 1, 2)
    );
    assert_eq!((s.min, s.max), (Some(0.0), Some(4.0)));
    assert!(close(s.mean, Some(10.0 / 6.0)));
    // bins of width 0.4 over [0, 4]: 0,0 | 1 | 2 | 3 | 4 (the max lands in the last bin)
    assert_eq!(s.histogram, [2, 0, 1, 0, 0, 1, 0, 1, 0, 1]);

    let r = tensor_stats(&g.tensor("ramp").unwrap(), &NoProgress).unwrap();
    assert_eq!((r.min, r.max), (Some(0.0), Some(99.0)));
    assert!(close(r.mean, Some(49.5)));
    assert!(close(r.std, Some((9999.0f64 / 12.0).sqrt())));
    assert_eq!(r.histogram, [10; HISTOGRAM_BINS]);

    let q = tensor_stats(&g.tensor("q").unwrap(), &NoProgress).unwrap();
    assert_eq!((q.min, q.max), (Some(-32.0), Some(-16.5)));
    assert!(close(q.mean, Some((-32.0 - 16.5) / 2.0)));
    assert_eq!(q.zeros, 0);
}

#[test]
fn the_sample_matches_a_plain_computation_and_counts_its_bytes() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    let g = Gguf::open(&path).unwrap();
    assert_like_naive("tiny-llama.gguf", &g);
    let tensors: Vec<TensorInfo<'_>> = g.tensors().collect();
    let total = std::sync::atomic::AtomicU64::new(0);
    let count = |n: u64| {
        total.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
    };
    tensors_stats(&tensors, &count);
    assert_eq!(total.into_inner(), 2 * g.tensor_data_size());
}

#[test]
fn corpus_models_match_a_plain_computation() {
    let Some(dir) = ggufkit_testkit::shared::find("corpus/models") else {
        return;
    };
    for name in ["llama-2-tiny-random.gguf", "superpoint.gguf"] {
        let g = Gguf::open(dir.join(name)).unwrap();
        assert_like_naive(name, &g);
    }
}

#[test]
fn a_tensor_without_data_has_its_error_in_its_place() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    let mut bytes = std::fs::read(path).unwrap();
    bytes.truncate(bytes.len() - 300);
    let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
    let tensors: Vec<TensorInfo<'_>> = g.tensors().collect();
    let got = tensors_stats(&tensors, &NoProgress);
    let last = tensors.last().unwrap();
    match got.last().unwrap() {
        Err(Error::TensorDataMissing { tensor, offset }) => {
            assert_eq!(*tensor, last.name());
            assert_eq!(*offset, last.absolute_offset());
        }
        other => panic!("{other:?}"),
    }
    // 300 bytes cut: the last tensor's 256 and the end of the one before
    assert!(got[got.len() - 2].is_err());
    assert!(got[..got.len() - 2].iter().all(Result::is_ok));
}
