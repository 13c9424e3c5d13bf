//! Writing GGUF: a streaming, bit-exact writer ([`GgufBuilder`], [`TensorDataWriter`]), metadata
//! edits in place or by an atomic rewrite ([`edit()`]), byte-order conversion ([`convert`]), and
//! atomic output files ([`atomic`]). Converting tensors to another type is
//! [`crate::quantize`]'s.
//!
//! Everything that writes a file goes through a temporary file in the target's directory that is
//! renamed over the target once complete, so an existing file is never left damaged; the one
//! exception is the documented in-place header edit of [`edit()`]. Edits, conversions and splits
//! take the input as a [`Gguf`] opened from a path, and copy its tensor data from that file.
#![forbid(unsafe_code)]

pub mod atomic;
pub mod carve;
pub mod edit;
pub mod endian;
pub mod known_keys;
pub mod splice;
pub mod value;
pub mod value_text;
pub mod writer;

use std::fs::File;
use std::io::Write;
use std::path::Path;

pub use crate::error::ValueTextError;
pub use atomic::{write_atomically, write_atomically_from, AtomicFile};
pub use carve::{carve_file, carve_file_with, find_gguf, Found};
pub use edit::{edit, EditOutcome, EditTarget, MetaEdit};
pub use endian::{reencode_pair, swap_pair_in_place, swap_tensor_data};
pub use known_keys::{known_key_type, needed_by_loaders, type_for_key};
pub use splice::{edited_pieces, Piece};
pub use value::{OwnedArray, OwnedValue};
pub use value_text::{integer_type, widened, TypeSpec, Untyped};
pub use writer::{
    tensor_size, GgufBuilder, Layout, ProgressFn, TensorDataWriter, TensorSpec, ALIGNMENT_KEY,
    DEFAULT_VERSION,
};

use crate::endian::Endian;
use crate::error::{Error, Result, WriteError};
use crate::read::{Gguf, TensorInfo};

/// The file `g` was opened from, which the writers copy its tensor data from.
pub(crate) fn source_path<'g>(g: &'g Gguf<'_>) -> Result<&'g Path> {
    g.path().ok_or_else(|| WriteError::NotFromFile.into())
}

/// Opens a file for reading, with the path in the error.
pub(crate) fn open_file(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| Error::io_at(format!("opening {}", path.display()), path, e))
}

/// Writes `b`'s header and then each tensor's bytes copied from `src` at the given absolute
/// offsets (`copy_file_range` between files on Linux).
pub fn write_copying<W: Write>(
    b: &GgufBuilder<'_>,
    w: W,
    sources: &[(&File, u64)],
    progress: Option<ProgressFn>,
) -> Result<W> {
    if sources.len() != b.tensors().len() {
        return Err(WriteError::SourceCount {
            tensors: b.tensors().len(),
            sources: sources.len(),
        }
        .into());
    }
    let mut dw = b.write_header(w)?;
    if let Some(p) = progress {
        dw.on_progress(p);
    }
    for (file, offset) in sources {
        dw.copy_tensor_from_file(file, *offset)?;
    }
    dw.finish()
}

/// Options of [`convert`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    /// The byte order of the output; `None` keeps the input's.
    pub endian: Option<Endian>,
    /// Replace an existing output.
    pub overwrite: bool,
}

/// Rewrites `g`, a GGUF opened from a path ([`Gguf::open`]), into `out` as the writer lays it
/// out, in the byte order asked for (every metadata value and every tensor's data, multi-byte
/// fields of quantized blocks included). Without a change the output is bit-identical to any
/// input laid out as the writer lays it out, and the tensor data is copied file to file without
/// passing through user space. Converting tensors to another type is a plan of
/// [`crate::quantize`] ([`plan_uniform`](crate::quantize::plan_uniform)).
pub fn convert(
    g: &Gguf<'_>,
    out: &Path,
    opts: ConvertOptions,
    progress: Option<ProgressFn>,
) -> Result<()> {
    let file = open_file(source_path(g)?)?;
    let mut b = GgufBuilder::from_gguf(g)?;
    let to = opts.endian.unwrap_or(g.endian());
    b.endian(to);
    let src = source_path(g)?;
    write_atomically_from(out, opts.overwrite, &[src], |w| {
        if to == g.endian() {
            let sources: Vec<(&File, u64)> =
                g.tensors().map(|t| (&file, t.absolute_offset())).collect();
            write_copying(&b, w, &sources, progress)?;
            return Ok(());
        }
        let mut dw = b.write_header(w)?;
        if let Some(p) = progress {
            dw.on_progress(p);
        }
        let mut buf = Vec::new();
        for t in g.tensors() {
            swap_tensor(&t, &mut dw, &mut buf)?;
        }
        dw.finish()?;
        Ok(())
    })
}

/// Bytes converted at a time when swapping tensor data.
const CHUNK: usize = 4 << 20;

fn tensor_data<'t>(t: &TensorInfo<'t>) -> Result<&'t [u8]> {
    t.data().ok_or_else(|| {
        WriteError::TensorDataMissing {
            name: t.name().into_owned(),
        }
        .into()
    })
}

/// Writes tensor `t`'s data with every multi-byte field swapped, a bounded run at a time (also
/// the quantization executor's, for the tensors it copies into an output of the other order).
pub(crate) fn swap_tensor<W: Write>(
    t: &TensorInfo<'_>,
    dw: &mut TensorDataWriter<'_, W>,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let data = tensor_data(t)?;
    let ty = t.ggml_type()?;
    let unit = ty.type_size().max(1) as usize;
    let step = (CHUNK / unit).max(1) * unit;
    if data.is_empty() {
        return dw.write_part(&[]);
    }
    for chunk in data.chunks(step) {
        buf.clear();
        buf.extend_from_slice(chunk);
        endian::swap_tensor_data(ty, buf).map_err(|e| WriteError::Convert {
            name: t.name().into_owned(),
            source: Box::new(e),
        })?;
        dw.write_part(buf)?;
    }
    Ok(())
}

/// Byte order swapped.
pub fn other_endian(e: Endian) -> Endian {
    match e {
        Endian::Little => Endian::Big,
        Endian::Big => Endian::Little,
    }
}
