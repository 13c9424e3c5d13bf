//! Writing GGUF: a streaming, bit-exact writer ([`GgufBuilder`], [`TensorDataWriter`]), metadata
//! edits in place or by an atomic rewrite ([`edit()`]), byte-order conversion and re-quantization
//! ([`convert`]), and atomic output files ([`atomic`]).
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
pub mod value;
pub mod value_text;
pub mod writer;

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;

pub use crate::error::ValueTextError;
pub use atomic::{write_atomically, write_atomically_from, AtomicFile};
pub use carve::{carve_file, carve_file_with, find_gguf, Found};
pub use edit::{edit, EditOutcome, EditTarget, MetaEdit};
pub use endian::{reencode_pair, swap_pair_in_place, swap_tensor_data};
pub use known_keys::{known_key_type, needed_by_loaders, type_for_key};
pub use value::{OwnedArray, OwnedValue};
pub use value_text::{integer_type, widened, TypeSpec, Untyped};
pub use writer::{
    tensor_size, GgufBuilder, Layout, ProgressFn, TensorDataWriter, TensorSpec, ALIGNMENT_KEY,
    DEFAULT_VERSION,
};

use crate::endian::Endian;
use crate::error::{Error, Result, WriteError};
use crate::read::{Gguf, TensorInfo};
use crate::types::GgmlType;

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
    /// Re-quantize to this type the tensors [`requantize_plan`] picks.
    pub quantize: Option<GgmlType>,
    /// With `quantize`: every tensor whose first dimension is a multiple of the type's block
    /// size, not only the weights.
    pub all: bool,
    /// Replace an existing output.
    pub overwrite: bool,
}

/// Why `convert --type` leaves a tensor as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// It already has the type.
    AlreadyThatType,
    /// An integer tensor (i8..i64).
    Integer,
    /// Its type has no float form.
    NoFloatForm,
    /// Without `all`: not a weight of 2 or more dimensions whose name ends in `weight`.
    NotAWeight,
    /// Its first dimension (`ne0`, given) is not a multiple of the type's block size.
    RowsDoNotFit(u64),
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::AlreadyThatType => f.write_str("already that type"),
            SkipReason::Integer => f.write_str("an integer tensor"),
            SkipReason::NoFloatForm => f.write_str("its type has no float form"),
            SkipReason::NotAWeight => f.write_str("not a weight of 2 or more dimensions"),
            SkipReason::RowsDoNotFit(ne0) => {
                write!(f, "rows of {ne0} are not whole blocks of the type")
            }
        }
    }
}

/// Whether `convert --type ty` re-quantizes `t`, and if not, why.
fn requantize_decision(t: &TensorInfo<'_>, ty: GgmlType, all: bool) -> Result<(), SkipReason> {
    let ne0 = t.shape().first().copied().unwrap_or(1);
    // a type this build cannot size never reaches here: the builder refused it
    let Ok(src) = t.ggml_type() else {
        return Err(SkipReason::NoFloatForm);
    };
    if src == ty {
        return Err(SkipReason::AlreadyThatType);
    }
    if src.is_integer() {
        return Err(SkipReason::Integer);
    }
    if !crate::quant::can_dequantize(src) {
        return Err(SkipReason::NoFloatForm);
    }
    if !(all || (t.n_dims() >= 2 && t.name().ends_with("weight"))) {
        return Err(SkipReason::NotAWeight);
    }
    if ne0 % ty.block_size() != 0 {
        return Err(SkipReason::RowsDoNotFit(ne0));
    }
    Ok(())
}

/// The tensors `convert --type ty` re-quantizes: those whose first dimension is a multiple of
/// `ty`'s block size, whose type is not already `ty` and can be decoded to floats, and that are
/// not integer tensors; without `all`, only the weights users expect to be re-quantized: tensors
/// of 2 or more dimensions whose name ends in `weight` (norms, biases and other 1-D tensors keep
/// their type, as llama.cpp's quantizer keeps them).
pub fn requantize_plan(g: &Gguf<'_>, ty: GgmlType, all: bool) -> Result<Vec<usize>> {
    if !crate::quant::can_quantize(ty) {
        return Err(WriteError::NoReferenceQuantizer { ty }.into());
    }
    Ok(g.tensors()
        .enumerate()
        .filter(|(_, t)| requantize_decision(t, ty, all).is_ok())
        .map(|(i, _)| i)
        .collect())
}

/// The tensors `convert --type ty` leaves as they are, with the reason, in file order.
pub fn requantize_skipped(g: &Gguf<'_>, ty: GgmlType, all: bool) -> Vec<(usize, SkipReason)> {
    g.tensors()
        .enumerate()
        .filter_map(|(i, t)| requantize_decision(&t, ty, all).err().map(|r| (i, r)))
        .collect()
}

/// Rewrites `g`, a GGUF opened from a path ([`Gguf::open`]), into `out` as the writer lays it
/// out, in the byte order asked for (every metadata value and every tensor's data, multi-byte
/// fields of quantized blocks included), with the tensors [`requantize_plan`] picks re-quantized
/// when asked. Without a change the output is bit-identical to any input laid out as the writer
/// lays it out, and the tensor data is copied file to file without passing through user space.
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
    let targets = match opts.quantize {
        Some(ty) => requantize_plan(g, ty, opts.all)?,
        None => Vec::new(),
    };
    if let Some(ty) = opts.quantize {
        for &i in &targets {
            b.retype_tensor(i, ty)?;
        }
    }
    let src = source_path(g)?;
    write_atomically_from(out, opts.overwrite, &[src], |w| {
        if to == g.endian() && targets.is_empty() {
            let sources: Vec<(&File, u64)> =
                g.tensors().map(|t| (&file, t.absolute_offset())).collect();
            write_copying(&b, w, &sources, progress)?;
            return Ok(());
        }
        let mut dw = b.write_header(w)?;
        // progress counts the input's tensor bytes (the total a caller knows beforehand): the
        // writer's counts of bytes written, but a re-quantized tensor, whose size changes,
        // counts the input bytes it consumed instead
        let report = progress.map(|p| Rc::new(RefCell::new(p)));
        let muted = Rc::new(Cell::new(false));
        if let Some(r) = &report {
            let (r, muted) = (Rc::clone(r), Rc::clone(&muted));
            dw.on_progress(Box::new(move |n| {
                if !muted.get() {
                    (r.borrow_mut())(n)
                }
            }));
        }
        let mut consumed = |n: u64| {
            if let Some(r) = &report {
                (r.borrow_mut())(n)
            }
        };
        let mut buf = Vec::new();
        for (i, t) in g.tensors().enumerate() {
            match opts.quantize {
                // the plan is in file order: a search, not a scan per tensor
                Some(ty) if targets.binary_search(&i).is_ok() => {
                    muted.set(true);
                    requantize(&t, ty, to, &mut dw, &mut buf, &mut consumed)?;
                    muted.set(false);
                }
                _ if to == g.endian() => dw.copy_tensor_from_file(&file, t.absolute_offset())?,
                _ => swap_tensor(&t, &mut dw, &mut buf)?,
            }
        }
        dw.finish()?;
        Ok(())
    })
}

/// Bytes converted at a time when swapping or re-quantizing tensor data.
const CHUNK: usize = 4 << 20;

fn tensor_data<'t>(t: &TensorInfo<'t>) -> Result<&'t [u8]> {
    t.data().ok_or_else(|| {
        WriteError::TensorDataMissing {
            name: t.name().into_owned(),
        }
        .into()
    })
}

/// Writes tensor `t`'s data with every multi-byte field swapped.
fn swap_tensor<W: Write>(
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

/// Writes tensor `t` re-quantized to `ty`, in `to` byte order, a run of whole rows at a time,
/// telling `consumed` the input bytes of each run.
fn requantize<W: Write>(
    t: &TensorInfo<'_>,
    ty: GgmlType,
    to: Endian,
    dw: &mut TensorDataWriter<'_, W>,
    out: &mut Vec<u8>,
    consumed: &mut dyn FnMut(u64),
) -> Result<()> {
    let data = tensor_data(t)?;
    let src_ty = t.ggml_type()?;
    let ne0 = t.shape().first().copied().unwrap_or(1).max(1);
    let rows = (CHUNK as u64 / 4 / ne0).max(1);
    let elems = rows * ne0;
    let step = src_ty
        .bytes_for(elems)
        .and_then(|s| usize::try_from(s).ok())
        .ok_or_else(|| WriteError::TensorTooLarge {
            name: t.name().into_owned(),
        })?;
    let what = |e: Error| WriteError::Requantize {
        name: t.name().into_owned(),
        source: Box::new(e),
    };
    if data.is_empty() {
        return dw.write_part(&[]);
    }
    let mut floats = Vec::new();
    for chunk in data.chunks(step) {
        let n = crate::quant::element_count(src_ty, chunk.len()).map_err(what)?;
        floats.clear();
        floats.resize(n, 0f32);
        crate::quant::dequantize(src_ty, chunk, t.endian(), &mut floats).map_err(what)?;
        out.clear();
        crate::quant::quantize(ty, &floats, out).map_err(what)?;
        if to == Endian::Big {
            endian::swap_tensor_data(ty, out).map_err(what)?;
        }
        dw.write_part(out)?;
        consumed(chunk.len() as u64);
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
