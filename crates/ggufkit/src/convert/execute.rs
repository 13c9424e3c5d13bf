//! Carrying out a [`Plan`]: the header from the metadata pairs and the planned tensor infos, then
//! each tensor read from the mapped shards, transformed, converted to its type and written once,
//! through the library's writer into a temporary file renamed over the target (or one per shard
//! of a split output, [`split`](super::split), renamed when all are complete). A tensor is
//! converted in chunks of whole rows straight from the map into the writer (an expert stack part
//! by part, a source whose bytes are already the output's copied as they are), and its pages of
//! the map are given back once read: memory holds a chunk, never the model. The element
//! conversions run on rayon's pool.
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;

use crate::convert::arch::{permute_order, TensorSource, Transform};
use crate::convert::folder::HfFolder;
use crate::convert::metadata::{general_metadata, MetadataOptions};
use crate::convert::outtype::Elements;
use crate::convert::plan::{
    metadata, plan, ConvertOptions, KvList, ParamCounts, Plan, PlannedTensor,
};
use crate::convert::safetensors::Dtype;
use crate::convert::split::{output_shards, shard_metadata, OutputShard, SplitLimits};
use crate::error::{CheckpointError, Error, Result};
use crate::types::GgmlType;
use crate::write::{AtomicFile, GgufBuilder, ProgressFn, TensorDataWriter};

/// The builder of one output file: every pair of `kvs` in order, the info of each of `tensors`.
pub fn builder(tensors: &[PlannedTensor], kvs: &KvList) -> Result<GgufBuilder<'static>> {
    let mut b = GgufBuilder::new();
    for (k, v) in kvs.iter() {
        b.set(k, v.clone())?;
    }
    for t in tensors {
        b.add_tensor(&t.out.name, t.ty, &t.gguf_shape())?;
    }
    Ok(b)
}

/// The bytes of planned tensor `t`, as written.
pub fn tensor_bytes(folder: &HfFolder, t: &PlannedTensor) -> Result<Vec<u8>> {
    let elements = match &t.out.source {
        TensorSource::Values(v) => Elements::F32(v.clone()),
        TensorSource::Tensors(ids) => {
            let mut parts = Vec::with_capacity(ids.len());
            for &i in ids {
                let src = &folder.tensors()[i];
                let bytes = folder.data(src);
                let mut e = Elements::decode(src.entry.dtype, bytes).ok_or_else(|| {
                    CheckpointError::Tensor {
                        path: folder.shards()[src.shard].path().to_path_buf(),
                        tensor: src.entry.name.clone(),
                        problem: format!("dtype {} is not converted", src.entry.dtype.name()),
                    }
                })?;
                for tr in &t.out.transforms {
                    e = apply(folder, &src.name, &src.entry.shape, e, tr)?;
                }
                parts.push(e);
            }
            if parts.len() == 1 {
                parts.pop().unwrap_or(Elements::F32(vec![]))
            } else {
                Elements::concat(parts)
            }
        }
    };
    elements.encode(t.ty)
}

/// Source elements converted at a time (whole rows, at least one): 16 MB as f32.
const CHUNK_ELEMENTS: usize = 1 << 22;

/// Writes planned tensor `t` through `dw` chunk by chunk; `scratch` is the reused buffer of a
/// chunk's gathered source rows.
fn write_tensor<W: std::io::Write>(
    folder: &HfFolder,
    t: &PlannedTensor,
    dw: &mut TensorDataWriter<'_, W>,
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let TensorSource::Tensors(ids) = &t.out.source else {
        return dw.write_tensor(&tensor_bytes(folder, t)?);
    };
    // a stack's parts are encoded one by one: the same bytes as the stack's when they decode to
    // one kind (each part is whole rows, hence whole blocks); mixed kinds widen together
    let f16 = |i: usize| folder.tensors()[i].entry.dtype == Dtype::F16;
    if ids.iter().any(|&i| f16(i) != f16(ids[0])) {
        return dw.write_tensor(&tensor_bytes(folder, t)?);
    }
    for &i in ids {
        write_part(folder, i, t, dw, scratch)?;
    }
    Ok(())
}

/// The source rows the transforms select, in output order (`None`: all, in order), and whether
/// one is added to every element.
fn row_plan(
    folder: &HfFolder,
    name: &str,
    rows: usize,
    transforms: &[Transform],
) -> Result<(Option<Vec<usize>>, bool)> {
    let mut map: Option<Vec<usize>> = None;
    let mut add_one = false;
    let mismatch = |problem: String| CheckpointError::Mismatch {
        path: folder.dir().to_path_buf(),
        problem,
    };
    for tr in transforms {
        let current = map.as_ref().map_or(rows, Vec::len);
        match tr {
            Transform::PermuteHeads(heads) => {
                let order = permute_order(current, *heads).ok_or_else(|| {
                    mismatch(format!(
                        "tensor '{name}' has {current} rows, which {heads} heads of two halves do not divide"
                    ))
                })?;
                map = Some(match &map {
                    Some(m) => order.iter().map(|&o| m[o]).collect(),
                    None => order,
                });
            }
            Transform::AddOne => add_one = true,
            Transform::Rows(r) => {
                if r.end > current || r.start > r.end {
                    return Err(mismatch(format!(
                        "tensor '{name}' has {current} rows, fewer than the {} its split needs",
                        r.end
                    ))
                    .into());
                }
                map = Some(match &map {
                    Some(m) => m[r.clone()].to_vec(),
                    None => r.clone().collect(),
                });
            }
        }
    }
    Ok((map, add_one))
}

/// Writes the part of `t` made from source tensor `i`, in chunks of whole rows.
fn write_part<W: std::io::Write>(
    folder: &HfFolder,
    i: usize,
    t: &PlannedTensor,
    dw: &mut TensorDataWriter<'_, W>,
    scratch: &mut Vec<u8>,
) -> Result<()> {
    let src = &folder.tensors()[i];
    let bytes = folder.data(src);
    let dtype = src.entry.dtype;
    let unsupported = || CheckpointError::Tensor {
        path: folder.shards()[src.shard].path().to_path_buf(),
        tensor: src.entry.name.clone(),
        problem: format!("dtype {} is not converted", dtype.name()),
    };
    let elem = match dtype {
        Dtype::F32 => 4,
        Dtype::F16 | Dtype::BF16 => 2,
        _ => return Err(unsupported().into()),
    };
    let rows = src.entry.shape.first().copied().unwrap_or(1).max(1) as usize;
    let row_bytes = bytes.len() / rows;
    if row_bytes == 0 {
        return Ok(());
    }
    let (map, add_one) = row_plan(folder, &src.name, rows, &t.out.transforms)?;
    let same = matches!(
        (dtype, t.ty),
        (Dtype::F32, GgmlType::F32) | (Dtype::F16, GgmlType::F16) | (Dtype::BF16, GgmlType::BF16)
    );
    let out_rows = map.as_ref().map_or(rows, Vec::len);
    let per_chunk = (CHUNK_ELEMENTS / (row_bytes / elem).max(1)).max(1);
    let mut start = 0;
    while start < out_rows {
        let end = (start + per_chunk).min(out_rows);
        let chunk: &[u8] = match &map {
            None => &bytes[start * row_bytes..end * row_bytes],
            Some(m) => {
                scratch.clear();
                for &r in &m[start..end] {
                    scratch.extend_from_slice(&bytes[r * row_bytes..(r + 1) * row_bytes]);
                }
                scratch
            }
        };
        // the script widens bf16 to f32 and narrows it back, which keeps every value but
        // quietens a NaN: bytes are copied as they are only where that changes nothing
        if same && !add_one && !(dtype == Dtype::BF16 && has_bf16_nan(chunk)) {
            dw.write_part(chunk)?;
        } else {
            let mut e = Elements::decode(dtype, chunk).ok_or_else(unsupported)?;
            if add_one {
                e.add_scalar(1.0);
            }
            dw.write_part(&e.encode(t.ty)?)?;
        }
        // rows read in order are given back chunk by chunk, gathered rows at the end
        if map.is_none() {
            folder.release(src, start * row_bytes..end * row_bytes);
        }
        start = end;
    }
    if map.is_some() {
        folder.release(src, 0..bytes.len());
    }
    Ok(())
}

/// True when little-endian bf16 `bytes` hold a NaN.
fn has_bf16_nan(bytes: &[u8]) -> bool {
    bytes
        .chunks_exact(2)
        .any(|c| u16::from_le_bytes([c[0], c[1]]) & 0x7fff > 0x7f80)
}

fn apply(
    folder: &HfFolder,
    name: &str,
    shape: &[u64],
    e: Elements,
    tr: &Transform,
) -> Result<Elements> {
    let rows = shape.first().copied().unwrap_or(1).max(1) as usize;
    let row_len = e.len() / rows;
    let mismatch = |problem: String| CheckpointError::Mismatch {
        path: folder.dir().to_path_buf(),
        problem,
    };
    Ok(match tr {
        Transform::PermuteHeads(heads) => {
            let order = permute_order(rows, *heads).ok_or_else(|| {
                mismatch(format!(
                    "tensor '{name}' has {rows} rows, which {heads} heads of two halves do not divide"
                ))
            })?;
            e.permute_rows(row_len, &order)
        }
        Transform::AddOne => {
            let mut e = e;
            e.add_scalar(1.0);
            e
        }
        Transform::Rows(r) => {
            if r.end > rows {
                return Err(mismatch(format!(
                    "tensor '{name}' has {rows} rows, fewer than the {} its split needs",
                    r.end
                ))
                .into());
            }
            e.slice(r.start * row_len..r.end * row_len)
        }
    })
}

/// Writes `plan` of `folder` with the metadata `kvs` to the files `shards` lays out
/// ([`output_shards`]: one, or the shards of a split), in one pass over the tensors. Atomic:
/// every file is written beside its target and renamed only once all of them are complete, so a
/// failure or an interrupt leaves none of them; an existing file is replaced only when
/// `overwrite`.
pub fn execute(
    folder: &HfFolder,
    plan: &Plan,
    kvs: &KvList,
    shards: &[OutputShard],
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<()> {
    let n = shards.len();
    let builders = shards
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let kvs = shard_metadata(kvs, i, n, plan.tensors.len());
            let mut b = builder(&plan.tensors[s.tensors.clone()], &kvs)?;
            // the script pads every file it writes tensors to, a first shard left without
            // them included; a vocabulary alone (no tensors anywhere) ends after its header
            b.tensorless_padding(!plan.tensors.is_empty());
            Ok(b)
        })
        .collect::<Result<Vec<_>>>()?;
    let inputs: Vec<&Path> = folder.shards().iter().map(|s| s.path()).collect();
    let mut files = shards
        .iter()
        .map(|s| AtomicFile::create_from(&s.path, overwrite, &inputs))
        .collect::<Result<Vec<_>>>()?;
    // the same callback, handed to each file in turn
    let shared = progress.map(|f| Rc::new(RefCell::new(f)));
    let mut scratch = Vec::new();
    for ((shard, b), file) in shards.iter().zip(&builders).zip(&mut files) {
        let target = file.target().to_path_buf();
        let mut w = file.writer();
        let mut dw = b.write_header(&mut w)?;
        if let Some(f) = &shared {
            let f = Rc::clone(f);
            dw.on_progress(Box::new(move |k| (f.borrow_mut())(k)));
        }
        for t in &plan.tensors[shard.tensors.clone()] {
            write_tensor(folder, t, &mut dw, &mut scratch)?;
        }
        dw.finish()?;
        w.flush()
            .map_err(|e| Error::io_at("writing the output", &target, e))?;
    }
    let mut committed: Vec<&Path> = Vec::new();
    for (file, shard) in files.into_iter().zip(shards) {
        if let Err(e) = file.commit() {
            // the files of this output renamed already go too: all or nothing
            for p in committed {
                let _ = std::fs::remove_file(p);
            }
            return Err(e);
        }
        committed.push(&shard.path);
    }
    Ok(())
}

/// What [`convert_folder`] did.
#[derive(Debug)]
pub struct Converted {
    /// The plan carried out.
    pub plan: Plan,
    /// Every metadata pair written, in order.
    pub metadata: KvList,
    /// The files written: the output, or its shards.
    pub files: Vec<OutputShard>,
}

/// The plan of `dir` and every metadata pair its output would have (what `--dry-run` shows).
pub fn plan_folder(folder: &HfFolder, opts: &ConvertOptions) -> Result<(Plan, KvList)> {
    let p = plan(folder, opts)?;
    let arch = crate::convert::arch::find(&p.class, &folder.config_path())?;
    let vocab_size = match folder.config().get("vocab_size") {
        Some(v) => Some(
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| CheckpointError::Json {
                    path: folder.config_path(),
                    problem: "key 'vocab_size': expected a whole number".into(),
                })?,
        ),
        None => None,
    };
    let mut vocab = KvList::default();
    vocab.extend(arch.vocab(folder.dir(), vocab_size)?);
    // the script counts the parameters of the tensors it added: none for --vocab-only
    let counts = if opts.vocab_only {
        ParamCounts::default()
    } else {
        p.params
    };
    let general_opts = MetadataOptions {
        model_name: opts.model_name.as_deref(),
        metadata_override: opts.metadata.as_deref(),
        model_card_dir: None,
    };
    let mut general = KvList::default();
    general.extend(general_metadata(folder.dir(), &general_opts, &counts)?);
    let kvs = metadata(&p, &general, &vocab);
    Ok((p, kvs))
}

/// Converts the checkpoint folder `dir` to `out` as convert_hf_to_gguf.py does: everything is
/// read and decided first (an architecture or tokenizer it cannot convert is refused before a
/// byte is written), then the file, or the shards the split options cut
/// ([`output_shards`]), are written atomically.
pub fn convert_folder(
    dir: &Path,
    out: &Path,
    opts: &ConvertOptions,
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<Converted> {
    let folder = HfFolder::open(dir)?;
    let (plan, metadata) = plan_folder(&folder, opts)?;
    let files = output_shards(&plan, out, &SplitLimits::of(opts))?;
    execute(&folder, &plan, &metadata, &files, overwrite, progress)?;
    Ok(Converted {
        plan,
        metadata,
        files,
    })
}
