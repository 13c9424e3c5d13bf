//! One tensor as a NumPy `.npy` file (format 1.0, C order).
#![forbid(unsafe_code)]

use std::io::{self, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::progress::{NoProgress, Progress};
use crate::read::TensorInfo;

use super::values::{check, int_dtype, write_values};
use super::{io_error, save, Dtype};

/// The NumPy shape: the stored shape reversed (C order), as `(a, b)` / `(a,)` / `()`.
fn npy_shape(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().rev().map(|d| d.to_string()).collect();
    match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    }
}

/// The .npy format 1.0 header: magic, version, length, and the dict padded with spaces and a
/// newline to a multiple of 64 bytes. A tensor has at most 4 dimensions, so the header is far
/// below the format's 65,535 bytes.
fn npy_header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': {}, }}",
        npy_shape(shape)
    );
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    h.extend(((total - 10) as u16).to_le_bytes());
    h.extend(dict.as_bytes());
    h.resize(total - 1, b' ');
    h.push(b'\n');
    h
}

/// Checks the tensor and writes header and values.
fn encode(
    w: &mut dyn Write,
    t: &TensorInfo<'_>,
    data: &[u8],
    io: &dyn Fn(io::Error) -> Error,
    progress: &dyn Progress,
) -> Result<()> {
    let descr = int_dtype(t.ggml_type()?).map_or("<f4", |d| d.numpy);
    w.write_all(&npy_header(descr, t.shape())).map_err(io)?;
    progress.total(data.len() as u64);
    write_values(w, t, data, Dtype::F32, io, progress)
}

/// Writes tensor `t` as .npy to `w`: float32 values (integer tensors in their own dtype).
/// `data` is the tensor's bytes: [`TensorInfo::data`] for a file held whole, or the bytes
/// fetched for a remote one.
pub fn write_npy(w: &mut dyn Write, t: &TensorInfo<'_>, data: &[u8]) -> Result<()> {
    check(t, data)?;
    encode(w, t, data, &io_error, &NoProgress)
}

/// [`write_npy`] to the file `target`, atomically; an existing target is replaced only with
/// `overwrite`. Nothing is created when the tensor cannot be exported.
pub fn save_npy(t: &TensorInfo<'_>, data: &[u8], target: &Path, overwrite: bool) -> Result<()> {
    save_npy_with(t, data, target, overwrite, &NoProgress)
}

/// [`save_npy`], telling `progress` the tensor's bytes as they are converted (its total first).
pub fn save_npy_with(
    t: &TensorInfo<'_>,
    data: &[u8],
    target: &Path,
    overwrite: bool,
    progress: &dyn Progress,
) -> Result<()> {
    check(t, data)?;
    save(target, overwrite, &[], |w, io| {
        encode(w, t, data, io, progress)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_aligned_and_shaped() {
        let h = npy_header("<f4", &[512, 4]);
        assert_eq!(h.len() % 64, 0);
        assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
        assert_eq!(u16::from_le_bytes([h[8], h[9]]) as usize, h.len() - 10);
        let text = std::str::from_utf8(&h[10..]).unwrap();
        assert!(text.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 512), }"));
        assert!(text.ends_with('\n'));
        assert_eq!(npy_shape(&[7]), "(7,)");
        assert_eq!(npy_shape(&[]), "()");
        let widest = npy_header("<i8", &[u64::MAX; 4]);
        assert_eq!(widest.len() % 64, 0);
    }
}
