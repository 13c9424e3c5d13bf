//! Carrying out a [`Plan`]: the header from the metadata pairs and the planned tensor infos, then
//! each tensor read from the mapped shards, transformed, converted to its type and written once,
//! through the library's writer into a temporary file renamed over the target. Memory holds one
//! output tensor (one expert stack) at a time; the element conversions run on rayon's pool.
#![forbid(unsafe_code)]

use std::path::Path;

use crate::convert::arch::{permute_order, TensorSource, Transform};
use crate::convert::folder::HfFolder;
use crate::convert::metadata::{general_metadata, MetadataOptions};
use crate::convert::outtype::Elements;
use crate::convert::plan::{
    metadata, plan, ConvertOptions, KvList, ParamCounts, Plan, PlannedTensor,
};
use crate::error::{CheckpointError, Result};
use crate::write::{write_atomically_from, GgufBuilder, ProgressFn};

/// The builder of the output: every pair of `kvs` in order, every planned tensor's info.
pub fn builder(plan: &Plan, kvs: &KvList) -> Result<GgufBuilder<'static>> {
    let mut b = GgufBuilder::new();
    for (k, v) in kvs.iter() {
        b.set(k, v.clone())?;
    }
    for t in &plan.tensors {
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

/// Writes `plan` of `folder` to `out` with the metadata `kvs` (atomically: a temporary file
/// renamed over `out`; an existing `out` is replaced only when `overwrite`).
pub fn execute(
    folder: &HfFolder,
    plan: &Plan,
    kvs: &KvList,
    out: &Path,
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<()> {
    let b = builder(plan, kvs)?;
    let inputs: Vec<&Path> = folder.shards().iter().map(|s| s.path()).collect();
    write_atomically_from(out, overwrite, &inputs, |w| {
        let mut dw = b.write_header(w)?;
        if let Some(p) = progress {
            dw.on_progress(p);
        }
        for t in &plan.tensors {
            let bytes = tensor_bytes(folder, t)?;
            dw.write_tensor(&bytes)?;
        }
        dw.finish()?;
        Ok(())
    })
}

/// What [`convert_folder`] did.
#[derive(Debug)]
pub struct Converted {
    /// The plan carried out.
    pub plan: Plan,
    /// Every metadata pair written, in order.
    pub metadata: KvList,
}

/// The plan of `dir` and every metadata pair its output would have (what `--dry-run` shows).
pub fn plan_folder(folder: &HfFolder, opts: &ConvertOptions) -> Result<(Plan, KvList)> {
    if opts.split_max_size != 0 || opts.split_max_tensors != 0 {
        return Err(CheckpointError::Option(
            "--split-max-size / --split-max-tensors are not supported by this conversion yet: convert, then `gguf split`".into(),
        )
        .into());
    }
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
/// byte is written), then the file is written atomically.
pub fn convert_folder(
    dir: &Path,
    out: &Path,
    opts: &ConvertOptions,
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<Converted> {
    let folder = HfFolder::open(dir)?;
    let (plan, metadata) = plan_folder(&folder, opts)?;
    execute(&folder, &plan, &metadata, out, overwrite, progress)?;
    Ok(Converted { plan, metadata })
}
