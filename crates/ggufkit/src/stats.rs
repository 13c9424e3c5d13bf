//! Value statistics of tensors, over their dequantized values (the same values as ggml's
//! `to_float`) without holding a whole tensor in memory: what `gguf tensors --stats` shows.
//!
//! Each tensor is decoded in runs of whole blocks (about 64 Ki values at a time), tensors in
//! parallel on rayon's pool. Two streaming passes: the first gives the count, min, max, mean and
//! standard deviation of the finite values and the numbers of NaN, ±Inf and ±0; the second bins
//! the finite values into [`HISTOGRAM_BINS`] equal-width bins between min and max.
#![forbid(unsafe_code)]

use rayon::prelude::*;

use crate::error::Result;
use crate::progress::Progress;
use crate::quant;
use crate::read::TensorInfo;
use crate::tensor_data::{check_dequantizable, tensor_bytes};

/// Bins of the histogram.
pub const HISTOGRAM_BINS: usize = 10;

/// Values decoded at a time (rounded to whole blocks).
const CHUNK_VALUES: usize = 1 << 16;

/// Statistics of one tensor's values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TensorStats {
    /// All values.
    pub n_elements: u64,
    /// Finite values.
    pub finite: u64,
    /// NaN values.
    pub nan: u64,
    /// Infinite values, of either sign.
    pub inf: u64,
    /// Zeros, of either sign.
    pub zeros: u64,
    /// Smallest finite value; `None` when there are none.
    pub min: Option<f32>,
    /// Largest finite value.
    pub max: Option<f32>,
    /// Mean of the finite values.
    pub mean: Option<f64>,
    /// Population standard deviation of the finite values.
    pub std: Option<f64>,
    /// Counts of the finite values in equal bins from `min` to `max` (the last bin includes
    /// `max`; all in the first bin when min == max).
    pub histogram: [u64; HISTOGRAM_BINS],
}

/// Running moments of the finite values (count, mean, sum of squared deviations), merged chunk by
/// chunk with Chan's formula so that large tensors keep their precision.
#[derive(Default)]
struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn merge(&mut self, n: u64, mean: f64, m2: f64) {
        if n == 0 {
            return;
        }
        if self.n == 0 {
            *self = Moments { n, mean, m2 };
            return;
        }
        let total = (self.n + n) as f64;
        let delta = mean - self.mean;
        self.mean += delta * n as f64 / total;
        self.m2 += m2 + delta * delta * self.n as f64 * n as f64 / total;
        self.n += n;
    }
}

/// Calls `f` with each run of decoded values of `t`, telling `progress` the bytes decoded.
fn for_each_chunk(
    t: &TensorInfo<'_>,
    progress: &dyn Progress,
    mut f: impl FnMut(&[f32]),
) -> Result<()> {
    let ty = t.ggml_type()?;
    let data = tensor_bytes(t)?;
    check_dequantizable(t)?;
    let block_elems = ty.block_size().max(1) as usize;
    let block_bytes = ty.type_size().max(1) as usize;
    let blocks = (CHUNK_VALUES / block_elems).max(1);
    let mut buf = vec![0f32; blocks * block_elems];
    // each run holds at most `blocks` blocks, so its values fit the buffer
    for run in data.chunks(blocks * block_bytes) {
        let out = &mut buf[..run.len() / block_bytes * block_elems];
        quant::dequantize(ty, run, t.endian(), out)?;
        f(out);
        progress.advance(run.len() as u64);
    }
    Ok(())
}

/// The statistics of one tensor: two streaming passes over its decoded values, each told to
/// `progress` ([`Progress::advance`] only: twice the tensor's bytes in all).
pub fn tensor_stats(t: &TensorInfo<'_>, progress: &dyn Progress) -> Result<TensorStats> {
    let mut s = TensorStats {
        n_elements: t.n_elements(),
        ..TensorStats::default()
    };
    let mut moments = Moments::default();
    let (mut min, mut max) = (f32::INFINITY, f32::NEG_INFINITY);
    for_each_chunk(t, progress, |v| {
        let (mut n, mut sum) = (0u64, 0f64);
        for &x in v {
            if x.is_finite() {
                n += 1;
                sum += f64::from(x);
                min = min.min(x);
                max = max.max(x);
                if x == 0.0 {
                    s.zeros += 1;
                }
            } else if x.is_nan() {
                s.nan += 1;
            } else {
                s.inf += 1;
            }
        }
        if n > 0 {
            let mean = sum / n as f64;
            let m2: f64 = v
                .iter()
                .filter(|x| x.is_finite())
                .map(|&x| (f64::from(x) - mean).powi(2))
                .sum();
            moments.merge(n, mean, m2);
        }
    })?;
    s.finite = moments.n;
    if moments.n == 0 {
        return Ok(s);
    }
    s.min = Some(min);
    s.max = Some(max);
    s.mean = Some(moments.mean);
    s.std = Some((moments.m2 / moments.n as f64).sqrt());
    let (lo, hi) = (f64::from(min), f64::from(max));
    let width = (hi - lo) / HISTOGRAM_BINS as f64;
    let mut hist = [0u64; HISTOGRAM_BINS];
    for_each_chunk(t, progress, |v| {
        for &x in v.iter().filter(|x| x.is_finite()) {
            let bin = if width > 0.0 {
                (((f64::from(x) - lo) / width) as usize).min(HISTOGRAM_BINS - 1)
            } else {
                0
            };
            hist[bin] += 1;
        }
    })?;
    s.histogram = hist;
    Ok(s)
}

/// The statistics of every tensor of `tensors`, in their order, tensors in parallel. `progress`
/// gets the bytes decoded (each tensor is read twice) as its total. A tensor that cannot be
/// decoded has its error ([`Error::TensorDataMissing`], [`Error::TensorNotDequantizable`]) in
/// its place; the others are still computed.
///
/// [`Error::TensorDataMissing`]: crate::Error::TensorDataMissing
/// [`Error::TensorNotDequantizable`]: crate::Error::TensorNotDequantizable
pub fn tensors_stats(
    tensors: &[TensorInfo<'_>],
    progress: &dyn Progress,
) -> Vec<Result<TensorStats>> {
    let total: u64 = tensors
        .iter()
        .map(|t| t.data().map_or(0, |d| d.len() as u64).saturating_mul(2))
        .sum();
    progress.total(total);
    tensors
        .par_iter()
        .map(|t| tensor_stats(t, progress))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_merge_like_one_pass() {
        let xs: Vec<f64> = (0..1000)
            .map(|i| (i as f64 * 0.37).sin() * 5.0 + 2.0)
            .collect();
        let mut m = Moments::default();
        for c in xs.chunks(77) {
            let mean = c.iter().sum::<f64>() / c.len() as f64;
            let m2 = c.iter().map(|x| (x - mean).powi(2)).sum();
            m.merge(c.len() as u64, mean, m2);
        }
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!((m.mean - mean).abs() < 1e-12);
        assert!((m.m2 / m.n as f64 - var).abs() < 1e-10);
    }
}
