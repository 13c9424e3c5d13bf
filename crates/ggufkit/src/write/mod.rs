//! Writing GGUF: a streaming, bit-exact writer ([`GgufBuilder`], [`TensorDataWriter`]), metadata
//! edits in place or by an atomic rewrite ([`edit`]), byte-order conversion ([`convert_file`]),
//! and atomic output files ([`atomic`]).
//!
//! Everything that writes a file goes through a temporary file in the target's directory that is
//! renamed over the target once complete, so an existing file is never left damaged; the one
//! exception is the documented in-place header edit of [`edit::edit_file`].

pub mod atomic;
pub mod carve;
pub mod edit;
pub mod endian;
pub mod value;
pub mod writer;

use std::fs::File;
use std::io::Write;
use std::path::Path;

pub use atomic::{write_atomically, AtomicFile};
pub use carve::{carve_file, find_gguf, Found};
pub use edit::{edit_file, edit_to, EditOutcome, MetaEdit};
pub use endian::{reencode_pair, swap_pair_in_place, swap_tensor_data};
pub use value::{OwnedArray, OwnedValue};
pub use writer::{
    tensor_size, GgufBuilder, Layout, ProgressFn, TensorDataWriter, TensorSpec, ALIGNMENT_KEY,
    DEFAULT_VERSION,
};

use crate::endian::Endian;
use crate::error::{Error, Result};
use crate::read::Gguf;

/// Opens a file for reading, with the path in the error.
pub(crate) fn open_file(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))
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
        return Err(Error::Invalid(format!(
            "{} tensors but {} data sources",
            b.tensors().len(),
            sources.len()
        )));
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

/// Options of [`convert_file`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    /// The byte order of the output; `None` keeps the input's.
    pub endian: Option<Endian>,
    /// Replace an existing output.
    pub overwrite: bool,
}

/// Rewrites `src` into `out` as the writer lays files out, in the byte order asked for: every
/// metadata value and every tensor's data (multi-byte fields of quantized blocks included) is
/// converted. Without a byte-order change the output is bit-identical to any input laid out as
/// the writer lays it out, and the tensor data is copied file to file without passing through
/// user space.
pub fn convert_file(
    src: &Path,
    out: &Path,
    opts: ConvertOptions,
    progress: Option<ProgressFn>,
) -> Result<()> {
    let g = Gguf::open(src)?;
    let file = open_file(src)?;
    let mut b = GgufBuilder::from_gguf(&g);
    let to = opts.endian.unwrap_or(g.endian());
    b.endian(to);
    write_atomically(out, opts.overwrite, |w| {
        if to == g.endian() {
            let sources: Vec<(&File, u64)> =
                g.tensors().map(|t| (&file, t.absolute_offset())).collect();
            write_copying(&b, w, &sources, progress)?;
        } else {
            write_swapped(&g, &b, w, progress)?;
        }
        Ok(())
    })
}

/// Bytes converted at a time when swapping tensor data.
const SWAP_CHUNK: usize = 4 << 20;

/// Writes `b` (whose byte order differs from `g`'s) with every tensor of `g` swapped.
pub fn write_swapped<W: Write>(
    g: &Gguf<'_>,
    b: &GgufBuilder<'_>,
    w: W,
    progress: Option<ProgressFn>,
) -> Result<W> {
    // refuse before writing anything
    if let Some(t) = g.tensors().find(|t| !endian::can_swap(t.ggml_type())) {
        endian::swap_tensor_data(t.ggml_type(), &mut [])?;
    }
    let mut dw = b.write_header(w)?;
    if let Some(p) = progress {
        dw.on_progress(p);
    }
    let mut buf = Vec::with_capacity(SWAP_CHUNK);
    for t in g.tensors() {
        let data = t.data().ok_or_else(|| {
            Error::Invalid(format!(
                "the data of tensor '{}' is not in the file",
                t.name()
            ))
        })?;
        let unit = t.ggml_type().type_size().max(1) as usize;
        let step = (SWAP_CHUNK / unit).max(1) * unit;
        if data.is_empty() {
            dw.write_part(&[])?;
        }
        for chunk in data.chunks(step) {
            buf.clear();
            buf.extend_from_slice(chunk);
            endian::swap_tensor_data(t.ggml_type(), &mut buf)
                .map_err(|e| Error::Invalid(format!("converting tensor '{}': {e}", t.name())))?;
            dw.write_part(&buf)?;
        }
    }
    dw.finish()
}

/// Byte order swapped.
pub fn other_endian(e: Endian) -> Endian {
    match e {
        Endian::Little => Endian::Big,
        Endian::Big => Endian::Little,
    }
}
