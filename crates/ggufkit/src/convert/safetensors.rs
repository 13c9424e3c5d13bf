//! A safetensors file, memory-mapped, its header checked before any tensor is touched: the
//! header length (at least 2, at most [`MAX_HEADER`], inside the file), the JSON (an object of
//! tensor entries and an optional `__metadata__`), each entry's dtype, shape and byte count
//! (`shape` product × dtype size, without overflow, equal to its offsets' span), offsets inside
//! the data section, and no two tensors overlapping. Every error names the file and the tensor.
//!
//! The tensors are listed by name, as `safetensors` and gguf-py's reader list them (the order
//! the conversion adds them in).
#![forbid(unsafe_code)]

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::error::CheckpointError;
use crate::map::Map;

/// The largest JSON header read (100 MB, the `safetensors` crate's limit).
pub const MAX_HEADER: u64 = 100_000_000;

/// A safetensors element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE binary64.
    F64,
    /// Signed and unsigned integers and booleans (not weights the conversion reads).
    I64,
    /// 32-bit signed integer.
    I32,
    /// 16-bit signed integer.
    I16,
    /// 8-bit signed integer.
    I8,
    /// 8-bit unsigned integer.
    U8,
    /// A boolean byte.
    Bool,
    /// FP8 E4M3 (scaled checkpoints).
    F8E4M3,
    /// FP8 E5M2.
    F8E5M2,
}

impl Dtype {
    /// The name in the header.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "F32",
            Dtype::F16 => "F16",
            Dtype::BF16 => "BF16",
            Dtype::F64 => "F64",
            Dtype::I64 => "I64",
            Dtype::I32 => "I32",
            Dtype::I16 => "I16",
            Dtype::I8 => "I8",
            Dtype::U8 => "U8",
            Dtype::Bool => "BOOL",
            Dtype::F8E4M3 => "F8_E4M3",
            Dtype::F8E5M2 => "F8_E5M2",
        }
    }

    fn from_name(s: &str) -> Option<Dtype> {
        Some(match s {
            "F32" => Dtype::F32,
            "F16" => Dtype::F16,
            "BF16" => Dtype::BF16,
            "F64" => Dtype::F64,
            "I64" => Dtype::I64,
            "I32" => Dtype::I32,
            "I16" => Dtype::I16,
            "I8" => Dtype::I8,
            "U8" => Dtype::U8,
            "BOOL" => Dtype::Bool,
            "F8_E4M3" => Dtype::F8E4M3,
            "F8_E5M2" => Dtype::F8E5M2,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            Dtype::F64 | Dtype::I64 => 8,
            Dtype::F32 | Dtype::I32 => 4,
            Dtype::F16 | Dtype::BF16 | Dtype::I16 => 2,
            Dtype::I8 | Dtype::U8 | Dtype::Bool | Dtype::F8E4M3 | Dtype::F8E5M2 => 1,
        }
    }
}

/// One tensor entry of a header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorEntry {
    /// Its name.
    pub name: String,
    /// Its element type.
    pub dtype: Dtype,
    /// Its shape, outermost dimension first (as torch has it).
    pub shape: Vec<u64>,
    /// Where its bytes are, from the start of the file.
    pub bytes: Range<usize>,
}

impl TensorEntry {
    /// Its element count.
    pub fn elements(&self) -> u64 {
        self.shape.iter().product()
    }
}

/// A safetensors file, mapped, with its checked tensor entries.
pub struct SafetensorsFile {
    path: PathBuf,
    map: Map,
    tensors: Vec<TensorEntry>,
}

impl std::fmt::Debug for SafetensorsFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafetensorsFile")
            .field("path", &self.path)
            .field("tensors", &self.tensors.len())
            .finish()
    }
}

impl SafetensorsFile {
    /// Maps `path` and checks its header.
    pub fn open(path: &Path) -> Result<Self, CheckpointError> {
        let file = File::open(path).map_err(|e| CheckpointError::io(path, e))?;
        let map = Map::new(&file).map_err(|e| CheckpointError::io(path, e))?;
        let tensors = parse_header(path, map.as_slice())?;
        Ok(SafetensorsFile {
            path: path.to_path_buf(),
            map,
            tensors,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The tensors, by name.
    pub fn tensors(&self) -> &[TensorEntry] {
        &self.tensors
    }

    /// The bytes of `t` (an entry of this file).
    pub fn data(&self, t: &TensorEntry) -> &[u8] {
        self.map.as_slice().get(t.bytes.clone()).unwrap_or(&[])
    }

    /// Gives back the memory pages of `within` (a range of `t`'s bytes) once they were read
    /// (see `Map::release`).
    pub fn release(&self, t: &TensorEntry, within: std::ops::Range<usize>) {
        let start = t.bytes.start.saturating_add(within.start);
        let end = t.bytes.start.saturating_add(within.end).min(t.bytes.end);
        if start < end {
            self.map.release(start..end);
        }
    }
}

/// Checks the header of `file` (the whole file's bytes) and returns its tensor entries sorted by
/// name. `path` only names the file in errors.
pub fn parse_header(path: &Path, file: &[u8]) -> Result<Vec<TensorEntry>, CheckpointError> {
    let header_err = |problem: String| CheckpointError::Header {
        path: path.to_path_buf(),
        problem,
    };
    let len_bytes: [u8; 8] = file
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| {
            header_err(format!(
                "{} bytes long: too short for the 8-byte header length",
                file.len()
            ))
        })?;
    let n = u64::from_le_bytes(len_bytes);
    if n > MAX_HEADER {
        return Err(header_err(format!(
            "header length {n} is over the {MAX_HEADER}-byte limit"
        )));
    }
    let end = 8 + n;
    if end > file.len() as u64 {
        return Err(header_err(format!(
            "header length {n} runs past the end of the file ({} bytes)",
            file.len()
        )));
    }
    let json = &file[8..end as usize];
    let value: serde_json::Value = serde_json::from_slice(json)
        .map_err(|e| header_err(format!("header JSON, column {}: {e}", e.column())))?;
    let serde_json::Value::Object(obj) = value else {
        return Err(header_err("the header JSON is not an object".into()));
    };
    let data_start = end as usize;
    let data_len = (file.len() - data_start) as u64;
    let mut tensors = Vec::with_capacity(obj.len());
    for (name, meta) in &obj {
        if name == "__metadata__" {
            continue;
        }
        tensors.push(entry(path, name, meta, data_start, data_len)?);
    }
    // no two tensors share a byte
    let mut by_start: Vec<&TensorEntry> = tensors.iter().filter(|t| !t.bytes.is_empty()).collect();
    by_start.sort_by_key(|t| (t.bytes.start, t.bytes.end));
    for w in by_start.windows(2) {
        if w[1].bytes.start < w[0].bytes.end {
            return Err(CheckpointError::Tensor {
                path: path.to_path_buf(),
                tensor: w[1].name.clone(),
                problem: format!(
                    "its bytes {}..{} overlap those of tensor '{}' ({}..{})",
                    w[1].bytes.start - data_start,
                    w[1].bytes.end - data_start,
                    w[0].name,
                    w[0].bytes.start - data_start,
                    w[0].bytes.end - data_start
                ),
            });
        }
    }
    tensors.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tensors)
}

fn entry(
    path: &Path,
    name: &str,
    meta: &serde_json::Value,
    data_start: usize,
    data_len: u64,
) -> Result<TensorEntry, CheckpointError> {
    let bad = |problem: String| CheckpointError::Tensor {
        path: path.to_path_buf(),
        tensor: name.to_string(),
        problem,
    };
    let dtype_name = meta
        .get("dtype")
        .and_then(|d| d.as_str())
        .ok_or_else(|| bad("no \"dtype\" string".into()))?;
    let dtype =
        Dtype::from_name(dtype_name).ok_or_else(|| bad(format!("unknown dtype '{dtype_name}'")))?;
    let shape = meta
        .get("shape")
        .and_then(|s| s.as_array())
        .ok_or_else(|| bad("no \"shape\" array".into()))?
        .iter()
        .map(|d| d.as_u64())
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| bad("a dimension of \"shape\" is not a whole number".into()))?;
    let offsets = meta
        .get("data_offsets")
        .and_then(|s| s.as_array())
        .filter(|a| a.len() == 2)
        .and_then(|a| Some((a[0].as_u64()?, a[1].as_u64()?)))
        .ok_or_else(|| bad("no \"data_offsets\" pair of whole numbers".into()))?;
    let (begin, end) = offsets;
    if begin > end {
        return Err(bad(format!(
            "data_offsets [{begin}, {end}] end before they begin"
        )));
    }
    if end > data_len {
        return Err(bad(format!(
            "data_offsets [{begin}, {end}] run past the data section ({data_len} bytes)"
        )));
    }
    let bytes = shape
        .iter()
        .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| bad(format!("shape {shape:?} overflows the byte count")))?;
    if bytes != end - begin {
        return Err(bad(format!(
            "shape {shape:?} of {} takes {bytes} bytes, but data_offsets [{begin}, {end}] span {}",
            dtype.name(),
            end - begin
        )));
    }
    Ok(TensorEntry {
        name: name.to_string(),
        dtype,
        shape,
        bytes: data_start + begin as usize..data_start + end as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(json: &str, data: usize) -> Vec<u8> {
        let mut v = (json.len() as u64).to_le_bytes().to_vec();
        v.extend_from_slice(json.as_bytes());
        v.resize(v.len() + data, 0);
        v
    }

    fn err(bytes: &[u8]) -> String {
        parse_header(Path::new("m.safetensors"), bytes)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn reads_entries_sorted_by_name() {
        let f = file(
            r#"{"b":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]},"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}}"#,
            16,
        );
        let t = parse_header(Path::new("m.safetensors"), &f).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].name, "a");
        assert_eq!(t[0].dtype, Dtype::F32);
        let start = f.len() - 16;
        assert_eq!(t[0].bytes, start + 8..start + 16);
        assert_eq!(t[1].shape, vec![2, 2]);
    }

    #[test]
    fn refuses_hostile_headers_naming_file_and_tensor() {
        assert!(err(&[1, 2, 3]).contains("too short"));
        let mut huge = (200_000_000u64).to_le_bytes().to_vec();
        huge.extend_from_slice(b"{}");
        assert!(err(&huge).contains("over the 100000000-byte limit"));
        let mut past = (50u64).to_le_bytes().to_vec();
        past.extend_from_slice(b"{}");
        assert!(err(&past).contains("runs past the end"));
        assert!(err(&file("[1]", 0)).contains("not an object"));
        assert!(err(&file("{", 0)).starts_with("m.safetensors: header JSON"));
        let e = err(&file(
            r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,8]}}"#,
            8,
        ));
        assert!(
            e.contains("tensor 'w'") && e.contains("takes 16 bytes"),
            "{e}"
        );
        let e = err(&file(
            r#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#,
            8,
        ));
        assert!(e.contains("past the data section"), "{e}");
        let e = err(&file(
            r#"{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#,
            12,
        ));
        assert!(e.contains("overlap"), "{e}");
        let e = err(&file(
            r#"{"w":{"dtype":"Q9","shape":[1],"data_offsets":[0,1]}}"#,
            1,
        ));
        assert!(e.contains("unknown dtype 'Q9'"), "{e}");
        let e = err(&file(
            r#"{"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,1]}}"#,
            1,
        ));
        assert!(e.contains("overflows"), "{e}");
    }
}
