//! An importance matrix as llama-quantize uses it: read by [`ImportanceMatrix::open`] (both
//! file formats), filtered by `--include-weights`/`--exclude-weights`, checked against the model,
//! and the `quantize.imatrix.*` keys the output records.
#![forbid(unsafe_code)]

use std::path::Path;

use super::overrides::KvOverride;
use super::plan::Importance;
use crate::error::{Error, QuantizeError, Result};
use crate::quant::{ImatrixFormat, ImportanceMatrix};
use crate::write::OwnedValue;

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

impl From<ImportanceMatrix> for Imatrix {
    fn from(m: ImportanceMatrix) -> Imatrix {
        Imatrix {
            values: m.entries.into_iter().collect(),
            datasets: m.datasets,
            chunk_count: i64::from(m.chunk_count),
            legacy: m.format == ImatrixFormat::Legacy,
        }
    }
}

impl Imatrix {
    /// Reads `path` in either format ([`ImportanceMatrix::open`], the one reader of both).
    pub fn load(path: &Path) -> Result<Imatrix> {
        Ok(ImportanceMatrix::open(path)?.into())
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

impl super::plan::QuantizeOptions {
    /// Uses the importance matrix at `path` as llama-quantize's `--imatrix` does: read, kept to
    /// the entries `include` names (when not empty) less those `exclude` names, checked finite,
    /// its `quantize.imatrix.*` keys added to the overrides (`path_as_given` recorded as the
    /// file's name, as llama-quantize records what its command line said).
    pub fn use_imatrix(
        &mut self,
        path: &Path,
        path_as_given: &str,
        include: &[String],
        exclude: &[String],
    ) -> Result<()> {
        let mut im = Imatrix::load(path)?;
        im.filter(include, exclude);
        im.check_finite(path)?;
        self.kv_overrides.extend(im.metadata(path_as_given));
        if !im.values.is_empty() {
            self.importance = Some(im.values);
        }
        Ok(())
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
