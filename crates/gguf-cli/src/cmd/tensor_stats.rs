//! `gguf tensors FILE --stats [--tensor GLOB]`: value statistics of each tensor, computed over
//! its dequantized values without holding a whole tensor in memory.
//!
//! Each tensor is decoded in runs of whole blocks (about 64 Ki values at a time) by
//! `ggufkit::quant` (the same values as ggml's `to_float`), tensors in parallel on rayon's pool.
//! Two streaming passes: the first gives the count, min, max, mean and standard deviation of the
//! finite values and the numbers of NaN, ±Inf and ±0; the second bins the finite values into
//! [`BINS`] equal-width bins between min and max. A progress bar (bytes decoded, both passes) is
//! shown when stdout and stderr are terminals.

use rayon::prelude::*;

use ggufkit::{quant, TensorInfo};

use crate::output::grouped;
use crate::output::json::Json;
use crate::output::progress::Progress;
use crate::output::table::{Align, Table};

/// Bins of the histogram.
pub const BINS: usize = 10;

/// Values decoded at a time (rounded to whole blocks).
const CHUNK_VALUES: usize = 1 << 16;

/// Statistics of one tensor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub n_elements: u64,
    /// Finite values.
    pub finite: u64,
    pub nan: u64,
    pub inf: u64,
    pub zeros: u64,
    /// Over the finite values; `None` when there are none.
    pub min: Option<f32>,
    pub max: Option<f32>,
    pub mean: Option<f64>,
    /// Population standard deviation of the finite values.
    pub std: Option<f64>,
    /// Counts of the finite values in [`BINS`] equal bins from `min` to `max` (the last bin
    /// includes `max`; all in the first bin when min == max).
    pub histogram: [u64; BINS],
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

/// Calls `f` with each run of decoded values of `t`; `progress` counts the bytes.
fn for_each_chunk(
    t: &TensorInfo<'_>,
    progress: &Progress,
    mut f: impl FnMut(&[f32]),
) -> Result<(), String> {
    let ty = t.ggml_type();
    let data = t
        .data()
        .ok_or("its data is not in the file (cut short, or a header without data)")?;
    if !quant::can_dequantize(ty) {
        return Err(format!("type {ty} has no float form"));
    }
    let block_elems = ty.block_size().max(1) as usize;
    let block_bytes = ty.type_size().max(1) as usize;
    let blocks = (CHUNK_VALUES / block_elems).max(1);
    let mut buf = vec![0f32; blocks * block_elems];
    for chunk in data.chunks(blocks * block_bytes) {
        let n = chunk.len() / block_bytes * block_elems;
        let out = buf.get_mut(..n).ok_or("chunk larger than its buffer")?;
        quant::dequantize(ty, chunk, t.endian(), out).map_err(|e| e.to_string())?;
        f(out);
        progress.add(chunk.len() as u64);
    }
    Ok(())
}

/// The statistics of one tensor (two streaming passes over its decoded values).
pub fn tensor_stats(t: &TensorInfo<'_>, progress: &Progress) -> Result<Stats, String> {
    let mut s = Stats {
        n_elements: t.n_elements(),
        ..Stats::default()
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
    let width = (hi - lo) / BINS as f64;
    let mut hist = [0u64; BINS];
    for_each_chunk(t, progress, |v| {
        for &x in v.iter().filter(|x| x.is_finite()) {
            let bin = if width > 0.0 {
                (((f64::from(x) - lo) / width) as usize).min(BINS - 1)
            } else {
                0
            };
            hist[bin] += 1;
        }
    })?;
    s.histogram = hist;
    Ok(s)
}

/// The statistics of every tensor of `rows`, tensors in parallel, with a progress bar for the
/// bytes decoded (each tensor is read twice).
pub fn all_stats(rows: &[TensorInfo<'_>]) -> Vec<Result<Stats, String>> {
    let total: u64 = rows
        .iter()
        .map(|t| t.data().map_or(0, |d| d.len() as u64).saturating_mul(2))
        .sum();
    let progress = Progress::bytes(total, "statistics");
    let out = rows
        .par_iter()
        .map(|t| tensor_stats(t, &progress))
        .collect();
    progress.finish();
    out
}

/// A number in at most about 10 characters: plain for moderate magnitudes, scientific otherwise.
fn num(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if (1e-3..1e5).contains(&a) {
        let s = format!("{v:.5}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{v:.3e}")
    }
}

/// The histogram as a bar of block characters, one per bin (space for an empty bin).
pub fn sparkline(h: &[u64; BINS]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let top = h.iter().copied().max().unwrap_or(0);
    h.iter()
        .map(|&c| {
            if c == 0 || top == 0 {
                ' '
            } else {
                // 1..=8 eighths, rounded up so that any non-empty bin shows.
                let level = (c as u128 * 8).div_ceil(top as u128).clamp(1, 8) as usize;
                BARS[level - 1]
            }
        })
        .collect()
}

/// The human table: one row per tensor.
pub fn human(rows: &[TensorInfo<'_>], stats: &[Result<Stats, String>]) -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("type", Align::Left),
        ("elements", Align::Right),
        ("min", Align::Right),
        ("max", Align::Right),
        ("mean", Align::Right),
        ("std", Align::Right),
        ("nan", Align::Right),
        ("inf", Align::Right),
        ("zeros", Align::Right),
        ("histogram", Align::Left),
    ]);
    let dash = || "-".to_string();
    for (r, s) in rows.iter().zip(stats) {
        let mut row = vec![
            r.name().into_owned(),
            r.ggml_type().name().to_string(),
            grouped(r.n_elements()),
        ];
        match s {
            Ok(s) => row.extend([
                s.min.map_or_else(dash, |v| num(f64::from(v))),
                s.max.map_or_else(dash, |v| num(f64::from(v))),
                s.mean.map_or_else(dash, num),
                s.std.map_or_else(dash, num),
                grouped(s.nan),
                grouped(s.inf),
                grouped(s.zeros),
                format!("[{}]", sparkline(&s.histogram)),
            ]),
            Err(e) => {
                row.extend(std::iter::repeat_with(dash).take(7));
                row.push(format!("error: {e}"));
            }
        }
        t.row(row);
    }
    let errors = stats.iter().filter(|s| s.is_err()).count();
    let footer = vec![
        format!(
            "{} tensor{}{}",
            grouped(rows.len() as u64),
            if rows.len() == 1 { "" } else { "s" },
            if errors > 0 {
                format!(", {errors} unreadable")
            } else {
                String::new()
            }
        ),
        String::new(),
        grouped(rows.iter().map(|r| r.n_elements()).sum()),
    ];
    let footer: Vec<String> = footer
        .into_iter()
        .chain(std::iter::repeat_with(String::new))
        .take(11)
        .collect();
    t.render(&[footer])
}

/// The JSON object of one file, with a newline.
pub fn json_line(file: &str, rows: &[TensorInfo<'_>], stats: &[Result<Stats, String>]) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("tensors").raw("[");
    for (i, (r, s)) in rows.iter().zip(stats).enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("name").text(r.name_bytes());
        j.raw(",").key("type").str(r.ggml_type().name());
        j.raw(",").key("n_elements").u64(r.n_elements());
        match s {
            Ok(s) => {
                let opt = |j: &mut Json, k: &str, v: Option<f64>| {
                    j.raw(",").key(k);
                    match v {
                        Some(v) => j.f64(v),
                        None => j.raw("null"),
                    };
                };
                opt(&mut j, "min", s.min.map(f64::from));
                opt(&mut j, "max", s.max.map(f64::from));
                opt(&mut j, "mean", s.mean);
                opt(&mut j, "std", s.std);
                j.raw(",").key("finite").u64(s.finite);
                j.raw(",").key("nan").u64(s.nan);
                j.raw(",").key("inf").u64(s.inf);
                j.raw(",").key("zeros").u64(s.zeros);
                j.raw(",").key("histogram").raw("[");
                for (k, c) in s.histogram.iter().enumerate() {
                    if k > 0 {
                        j.raw(",");
                    }
                    j.u64(*c);
                }
                j.raw("]");
            }
            Err(e) => {
                j.raw(",").key("error").str(e);
            }
        }
        j.raw("}");
    }
    j.raw("]}\n");
    j.out
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

    #[test]
    fn sparkline_levels() {
        let mut h = [0u64; BINS];
        h[0] = 8;
        h[1] = 1;
        h[9] = 4;
        assert_eq!(sparkline(&h), "█▁       ▄");
        assert_eq!(sparkline(&[0; BINS]), " ".repeat(BINS));
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(num(0.0), "0");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(-0.25), "-0.25");
        assert_eq!(num(1e-7), "1.000e-7");
        assert_eq!(num(123456.0), "1.235e5");
    }
}
