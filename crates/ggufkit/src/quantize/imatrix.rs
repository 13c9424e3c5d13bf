//! Importance matrices as llama-quantize reads them: the GGUF format of `llama-imatrix`
//! (`NAME.in_sum2` and `NAME.counts` tensors, `imatrix.*` metadata) and the legacy `.dat` format,
//! turned into the per-column values the codecs take (sums over counts), and the
//! `quantize.imatrix.*` keys the output records.
#![forbid(unsafe_code)]

use std::path::Path;

use super::overrides::KvOverride;
use super::plan::Importance;
use crate::error::{Error, QuantizeError, Result};
use crate::read::Gguf;
use crate::types::GgmlType;
use crate::write::OwnedValue;

/// The `.in_sum2` and `.counts` of one entry, as found.
type SumsCounts = (Option<Vec<f32>>, Option<Vec<f32>>);

/// A loaded importance matrix.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Imatrix {
    /// Per tensor name, the importance of each column of each matrix (`ne0 * n_mat` values).
    pub values: Importance,
    /// The calibration data sets it was computed on.
    pub datasets: Vec<String>,
    /// Chunks of calibration text it was computed on (0 when unknown).
    pub chunk_count: i64,
    /// Whether it came from the legacy `.dat` format.
    pub legacy: bool,
}

fn bad(path: &Path, problem: impl Into<String>) -> Error {
    QuantizeError::BadImatrix {
        path: path.to_path_buf(),
        problem: problem.into(),
    }
    .into()
}

impl Imatrix {
    /// Reads `path`: GGUF when it starts with `GGUF`, else the legacy format.
    pub fn load(path: &Path) -> Result<Imatrix> {
        let bytes = std::fs::read(path)
            .map_err(|e| Error::io_at(format!("reading {}", path.display()), path, e))?;
        if bytes.starts_with(b"GGUF") {
            let g = Gguf::from_bytes(&bytes).map_err(|e| bad(path, e.to_string()))?;
            Self::from_gguf(&g, path)
        } else {
            Self::from_legacy(&bytes, path)
        }
    }

    /// The GGUF format: pairs of `NAME.in_sum2` (sums of squared activations, per column and
    /// matrix) and `NAME.counts` (per matrix), both f32; `imatrix.datasets`,
    /// `imatrix.chunk_count` and `imatrix.chunk_size` must be there.
    pub fn from_gguf(g: &Gguf<'_>, path: &Path) -> Result<Imatrix> {
        if g.tensor_count() == 0 {
            return Err(bad(path, "no data (no tensors)"));
        }
        let datasets: Option<Vec<String>> = g
            .get_array("imatrix.datasets")
            .and_then(|a| a.strings())
            .map(|s| s.map(|x| x.to_string_lossy().into_owned()).collect());
        let chunk_count = g.get_u32("imatrix.chunk_count");
        if datasets.is_none() || chunk_count.is_none() || g.get_u32("imatrix.chunk_size").is_none()
        {
            return Err(bad(
                path,
                "missing imatrix metadata (imatrix.datasets, imatrix.chunk_count, imatrix.chunk_size)",
            ));
        }
        let mut pairs: std::collections::BTreeMap<String, SumsCounts> = Default::default();
        for t in g.tensors() {
            let name = t.name().into_owned();
            let (base, is_sums) = if let Some(b) = name.strip_suffix(".in_sum2") {
                (b.to_string(), true)
            } else if let Some(b) = name.strip_suffix(".counts") {
                (b.to_string(), false)
            } else {
                continue;
            };
            if base.is_empty() {
                continue;
            }
            if t.ggml_type() != GgmlType::F32 {
                return Err(bad(
                    path,
                    format!("sums and counts of '{base}' must be f32"),
                ));
            }
            let data = t
                .data()
                .ok_or_else(|| bad(path, format!("'{name}' has no data")))?;
            let v = crate::quant::dequantize_to_vec(GgmlType::F32, data, g.endian())?;
            let e = pairs.entry(base).or_default();
            if is_sums {
                e.0 = Some(v);
            } else {
                e.1 = Some(v);
            }
        }
        let mut values = Importance::new();
        for (name, pair) in pairs {
            let (Some(sums), Some(counts)) = pair else {
                return Err(bad(
                    path,
                    format!("mismatched sums and counts for '{name}'"),
                ));
            };
            if counts.is_empty() || sums.is_empty() {
                continue;
            }
            let ne0 = sums.len() / counts.len();
            let mut v = vec![0f32; sums.len()];
            for (j, &c) in counts.iter().enumerate() {
                // llama.cpp rounds the stored counts to integers, then divides in float
                let count = crate::quant::c_lroundf(c) as f32;
                for i in 0..ne0 {
                    let k = j * ne0 + i;
                    if k < v.len() {
                        v[k] = if count > 0.0 { sums[k] / count } else { 1.0 };
                    }
                }
            }
            values.insert(name, v);
        }
        Ok(Imatrix {
            values,
            datasets: datasets.unwrap_or_default(),
            chunk_count: i64::from(chunk_count.unwrap_or(0)),
            legacy: false,
        })
    }

    /// The legacy format: `i32` entry count, then per entry `i32` name length, name, `i32` calls,
    /// `i32` value count, the f32 values; optionally the chunk count and a data set name.
    pub fn from_legacy(b: &[u8], path: &Path) -> Result<Imatrix> {
        let mut at = 0usize;
        let i32_at = |at: &mut usize, what: &str| -> Result<i32> {
            let v = b
                .get(*at..*at + 4)
                .ok_or_else(|| bad(path, format!("ends inside {what} at byte {}", *at)))?;
            *at += 4;
            Ok(i32::from_le_bytes(v.try_into().unwrap_or([0; 4])))
        };
        let n = i32_at(&mut at, "the entry count")?;
        if n < 1 {
            return Err(bad(
                path,
                "no data (not a GGUF imatrix, and no legacy entries)",
            ));
        }
        let mut values = Importance::new();
        for i in 0..n {
            let len = i32_at(&mut at, "a name length")?;
            let len = usize::try_from(len)
                .map_err(|_| bad(path, format!("entry {i}: negative name length")))?;
            let name = b
                .get(at..at + len)
                .ok_or_else(|| bad(path, format!("ends inside the name of entry {i}")))?;
            at += len;
            // names end at a NUL, as C reads them
            let name = name.split(|&c| c == 0).next().unwrap_or_default();
            let name = String::from_utf8_lossy(name).into_owned();
            let ncall = i32_at(&mut at, "a call count")?;
            let nval = i32_at(&mut at, "a value count")?;
            let nval = usize::try_from(nval)
                .ok()
                .filter(|&v| v >= 1)
                .ok_or_else(|| bad(path, format!("entry '{name}': bad value count {nval}")))?;
            let raw = b
                .get(at..at.saturating_add(nval.saturating_mul(4)))
                .ok_or_else(|| bad(path, format!("ends inside the values of '{name}'")))?;
            at += nval * 4;
            let sums = raw
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4])));
            let v: Vec<f32> = if ncall > 0 {
                sums.map(|s| s / ncall as f32).collect()
            } else {
                sums.collect()
            };
            values.insert(name, v);
        }
        let mut chunk_count = 0;
        let mut datasets = Vec::new();
        if at < b.len() {
            if let Ok(c) = i32_at(&mut at, "the chunk count") {
                chunk_count = i64::from(c);
                if let Ok(len) = i32_at(&mut at, "the data set name length") {
                    if let Some(d) = usize::try_from(len)
                        .ok()
                        .filter(|&l| l > 0)
                        .and_then(|l| b.get(at..at + l))
                    {
                        let d = d.split(|&c| c == 0).next().unwrap_or_default();
                        datasets.push(String::from_utf8_lossy(d).into_owned());
                    }
                }
            }
        }
        Ok(Imatrix {
            values,
            datasets,
            chunk_count,
            legacy: true,
        })
    }

    /// Keeps only the entries whose name contains one of `include` (when not empty), then drops
    /// those whose name contains one of `exclude` (`--include-weights`, `--exclude-weights`).
    pub fn filter(&mut self, include: &[String], exclude: &[String]) {
        if !include.is_empty() {
            self.values
                .retain(|name, _| include.iter().any(|p| name.contains(p.as_str())));
        }
        self.values
            .retain(|name, _| !exclude.iter().any(|p| name.contains(p.as_str())));
    }

    /// Checks that every value is finite, as llama-quantize does before it starts.
    pub fn check_finite(&self, path: &Path) -> Result<()> {
        for (name, v) in &self.values {
            if let Some(x) = v.iter().find(|x| !x.is_finite()) {
                return Err(bad(path, format!("'{name}' holds a non-finite value {x}")));
            }
        }
        Ok(())
    }

    /// The keys llama-quantize records: `quantize.imatrix.file` (the path as given),
    /// `.dataset` (the first data set), `.entries_count`, `.chunks_count` (when known); strings
    /// cut to 127 bytes as llama.cpp's override buffer cuts them.
    pub fn metadata(&self, path_as_given: &str) -> Vec<KvOverride> {
        let cut = |s: &str| {
            let mut end = s.len().min(127);
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            s[..end].to_string()
        };
        let mut out = vec![KvOverride {
            key: "quantize.imatrix.file".into(),
            value: OwnedValue::String(cut(path_as_given)),
        }];
        if let Some(d) = self.datasets.first() {
            out.push(KvOverride {
                key: "quantize.imatrix.dataset".into(),
                value: OwnedValue::String(cut(d)),
            });
        }
        out.push(KvOverride {
            key: "quantize.imatrix.entries_count".into(),
            value: OwnedValue::U32(self.values.len() as u32),
        });
        if self.chunk_count > 0 {
            out.push(KvOverride {
                key: "quantize.imatrix.chunks_count".into(),
                value: OwnedValue::U32(self.chunk_count as u32),
            });
        }
        out
    }

    /// Checks the matrix against the model's tensors ([`check_matches`]).
    pub fn check_matches<'n>(
        &self,
        path: &Path,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<()> {
        check_matches(&self.values, path, names)
    }
}

/// Checks importance values read from `path` against the model's tensor `names`: an error when
/// they cover none of them (another model's matrix).
pub fn check_matches<'n>(
    values: &Importance,
    path: &Path,
    names: impl IntoIterator<Item = &'n str>,
) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    let names: std::collections::HashSet<&str> = names.into_iter().collect();
    if !values.keys().any(|k| names.contains(k.as_str())) {
        return Err(bad(
            path,
            format!(
                "none of its {} entries names a tensor of the model (an importance matrix of another model?)",
                values.len()
            ),
        ));
    }
    Ok(())
}
