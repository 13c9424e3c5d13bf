//! Importance matrices as llama-imatrix writes them and llama-quantize reads them: the GGUF
//! format (`general.type = imatrix`: per weight `NAME.in_sum2` and `NAME.counts`, f32) and the
//! legacy `.dat` format. [`ImportanceMatrix::open`] gives, per weight, the importance of each
//! column exactly as llama-quantize's `load_imatrix` computes it (`in_sum2 / counts` per expert,
//! 1 where a count is 0; legacy: `sums / ncall`), ready for [`quantize_rows`](super::quantize_rows).
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, ImatrixError, Result};
use crate::read::Gguf;
use crate::types::GgmlType;

/// Which of the two file formats an importance matrix came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImatrixFormat {
    /// GGUF (`general.type = imatrix`), llama-imatrix's default.
    Gguf,
    /// The legacy `.dat` format (`--output-format dat`).
    Legacy,
}

/// A loaded importance matrix: per weight name, one importance per column (for a tensor with
/// experts, the experts' vectors one after another), plus the file's metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportanceMatrix {
    /// The file it was read from.
    pub path: PathBuf,
    /// The file's format.
    pub format: ImatrixFormat,
    /// Importance per weight name (`blk.0.attn_q.weight` ...), in name order.
    pub entries: BTreeMap<String, Vec<f32>>,
    /// The calibration datasets named in the file (`imatrix.datasets`, or the legacy trailer).
    pub datasets: Vec<String>,
    /// `imatrix.chunk_count` (legacy: the trailer's call count); 0 when absent.
    pub chunk_count: i32,
    /// `imatrix.chunk_size`; 0 when absent (always 0 for legacy files).
    pub chunk_size: i32,
}

impl ImportanceMatrix {
    /// Reads an importance matrix in either format: a file starting with the GGUF magic is read
    /// as GGUF, any other as the legacy format (llama-quantize tries GGUF first, then legacy).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let mut head = [0u8; 4];
        let n = {
            use std::io::Read;
            let mut f = std::fs::File::open(path)
                .map_err(|e| Error::io_at(format!("opening {}", path.display()), path, e))?;
            let mut n = 0;
            while n < 4 {
                match f.read(&mut head[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        return Err(Error::io_at(format!("reading {}", path.display()), path, e))
                    }
                }
            }
            n
        };
        if n == 4 && &head == b"GGUF" {
            Self::from_gguf(&Gguf::open(path)?, path)
        } else {
            let bytes = std::fs::read(path)
                .map_err(|e| Error::io_at(format!("reading {}", path.display()), path, e))?;
            Self::from_legacy_bytes(&bytes, path)
        }
    }

    /// Reads the GGUF format from an opened file (`path` is what errors name).
    pub fn from_gguf(g: &Gguf<'_>, path: &Path) -> Result<Self> {
        let err_path = || path.to_path_buf();
        if g.tensors().len() == 0 {
            return Err(ImatrixError::NoEntries { path: err_path() }.into());
        }
        let datasets_kv = g.get("imatrix.datasets");
        let mut datasets = Vec::new();
        if let Some(strs) = datasets_kv
            .as_ref()
            .and_then(|v| v.as_array())
            .and_then(|a| a.strings())
        {
            datasets.extend(strs.map(|s| s.to_string_lossy().into_owned()));
        }
        let chunk_count = g.get("imatrix.chunk_count");
        let chunk_size = g.get("imatrix.chunk_size");
        if datasets_kv.is_none() || chunk_count.is_none() || chunk_size.is_none() {
            return Err(ImatrixError::MissingMetadata { path: err_path() }.into());
        }
        // ggml reads both as u32 and llama-quantize keeps them in an int32_t.
        let as_i32 = |v: Option<crate::Value<'_>>| v.and_then(|v| v.as_u64()).unwrap_or(0) as i32;
        let (chunk_count, chunk_size) = (as_i32(chunk_count), as_i32(chunk_size));

        let mut pairs: BTreeMap<String, (Option<usize>, Option<usize>)> = BTreeMap::new();
        let infos: Vec<_> = g.tensors().collect();
        for (i, t) in infos.iter().enumerate() {
            let name = t.name();
            if let Some(base) = name.strip_suffix(".in_sum2") {
                pairs.entry(base.to_owned()).or_default().0 = Some(i);
            } else if let Some(base) = name.strip_suffix(".counts") {
                pairs.entry(base.to_owned()).or_default().1 = Some(i);
            }
        }
        let mut entries = BTreeMap::new();
        for (name, (s, c)) in pairs {
            let (s, c) = match (s, c) {
                (Some(s), Some(c)) => (&infos[s], &infos[c]),
                (s, _) => {
                    return Err(ImatrixError::Unpaired {
                        path: err_path(),
                        name,
                        missing: if s.is_none() { "in_sum2" } else { "counts" },
                    }
                    .into())
                }
            };
            let floats = |t: &crate::TensorInfo<'_>| -> Result<Vec<f32>> {
                let ty = t.ggml_type()?;
                if ty != GgmlType::F32 {
                    return Err(ImatrixError::EntryType {
                        path: err_path(),
                        tensor: t.name().into_owned(),
                        ty,
                    }
                    .into());
                }
                let data = t.data().ok_or_else(|| Error::TensorDataMissing {
                    tensor: t.name().into_owned(),
                    offset: t.absolute_offset(),
                })?;
                super::dequantize_to_vec(GgmlType::F32, data, t.endian())
            };
            let sums = floats(s)?;
            let counts: Vec<i64> = floats(c)?.into_iter().map(super::c_lroundf).collect();
            if counts.is_empty() {
                return Err(ImatrixError::EmptyCounts {
                    path: err_path(),
                    tensor: c.name().into_owned(),
                }
                .into());
            }
            entries.insert(name, normalize_gguf(&sums, &counts));
        }
        Ok(ImportanceMatrix {
            path: path.to_path_buf(),
            format: ImatrixFormat::Gguf,
            entries,
            datasets,
            chunk_count,
            chunk_size,
        })
    }

    /// Reads the legacy `.dat` format from its bytes (`path` is what errors name).
    ///
    /// Layout (little-endian): `i32 n_entries`, then per entry `i32 len`, `len` name bytes,
    /// `i32 ncall`, `i32 nval`, `nval` f32 sums; then optionally `i32 chunk_count`, `i32 len` and
    /// the dataset name.
    pub fn from_legacy_bytes(bytes: &[u8], path: &Path) -> Result<Self> {
        let mut r = LegacyReader {
            bytes,
            pos: 0,
            path,
        };
        let n_entries = r.i32("the entry count")?;
        if n_entries < 1 {
            return Err(ImatrixError::NoEntries {
                path: path.to_path_buf(),
            }
            .into());
        }
        let mut entries = BTreeMap::new();
        for i in 0..n_entries {
            let at = r.pos;
            let len = r.i32("an entry's name length")?;
            let len = usize::try_from(len)
                .map_err(|_| r.bad(at, format!("entry {}: name length {len}", i + 1)))?;
            let name = r.take(len, "an entry's name")?;
            // llama.cpp keeps the name up to its first NUL.
            let name = name.split(|&b| b == 0).next().unwrap_or(&[]);
            let name = String::from_utf8_lossy(name).into_owned();
            let ncall = r.i32("an entry's call count")?;
            let at = r.pos;
            let nval = r.i32("an entry's value count")?;
            if nval < 1 {
                return Err(r.bad(at, format!("entry {}: {nval} values", i + 1)));
            }
            let raw = r.take(nval as usize * 4, "an entry's values")?;
            let ncall = i64::from(ncall);
            let values = raw
                .chunks_exact(4)
                .map(|b| {
                    let s = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    if ncall > 0 {
                        s / ncall as f32
                    } else {
                        s
                    }
                })
                .collect();
            entries.insert(name, values);
        }
        let mut chunk_count = 0;
        let mut datasets = Vec::new();
        if r.pos < bytes.len() {
            // The trailer is optional and read leniently, as llama.cpp does.
            if let Ok(n) = r.i32("the chunk count") {
                chunk_count = n;
                if let Ok(len) = r.i32("the dataset name length") {
                    if len > 0 {
                        if let Ok(d) = r.take(len as usize, "the dataset name") {
                            let d = d.split(|&b| b == 0).next().unwrap_or(&[]);
                            datasets.push(String::from_utf8_lossy(d).into_owned());
                        }
                    }
                }
            }
        }
        Ok(ImportanceMatrix {
            path: path.to_path_buf(),
            format: ImatrixFormat::Legacy,
            entries,
            datasets,
            chunk_count,
            chunk_size: 0,
        })
    }

    /// The importance of weight `name` (all experts' vectors, one after another).
    pub fn get(&self, name: &str) -> Option<&[f32]> {
        self.entries.get(name).map(Vec::as_slice)
    }

    /// The number of entries (llama-quantize's `quantize.imatrix.entries_count` before
    /// `--include-weights`/`--exclude-weights`).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The first entry holding a NaN or an infinity, with the value (llama-quantize refuses such
    /// a matrix: "imatrix contains non-finite value").
    pub fn first_non_finite(&self) -> Option<(&str, f32)> {
        self.entries
            .iter()
            .find_map(|(k, v)| v.iter().find(|x| !x.is_finite()).map(|&x| (k.as_str(), x)))
    }
}

/// `in_sum2 / count` per expert slice of `sums.len() / counts.len()` values, 1 where the count
/// is not positive; values past the last whole slice stay 0 (as llama-quantize leaves them).
fn normalize_gguf(sums: &[f32], counts: &[i64]) -> Vec<f32> {
    let mut e = vec![0f32; sums.len()];
    let ne0 = sums.len() / counts.len();
    for (j, &c) in counts.iter().enumerate() {
        let count = c as f32;
        for i in 0..ne0 {
            e[j * ne0 + i] = if count > 0.0 {
                sums[j * ne0 + i] / count
            } else {
                1.0
            };
        }
    }
    e
}

/// Bounded little-endian reads of a legacy file.
struct LegacyReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    path: &'a Path,
}

impl<'a> LegacyReader<'a> {
    fn bad(&self, offset: usize, problem: String) -> Error {
        ImatrixError::Legacy {
            path: self.path.to_path_buf(),
            offset: offset as u64,
            problem,
        }
        .into()
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.bytes.len() => {
                let s = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(s)
            }
            _ => Err(self.bad(
                self.pos,
                format!(
                    "the file ends in {what} ({n} bytes needed, {} left)",
                    self.bytes.len() - self.pos
                ),
            )),
        }
    }

    fn i32(&mut self, what: &str) -> Result<i32> {
        let b = self.take(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}
