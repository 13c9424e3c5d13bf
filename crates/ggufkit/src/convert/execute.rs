//! Carrying out a [`Plan`]: the header from the metadata pairs and the planned tensor infos, then
//! each tensor read from the mapped shards, transformed, converted to its type and written once,
//! through the library's writer into a temporary file renamed over the target (or one per shard
//! of a split output, [`split`](super::split), renamed when all are complete). A tensor is
//! made in chunks of whole rows straight from the map into the writer ([`TensorRows`]: a source
//! whose bytes are already the output's copied as they are), and its pages of the map are given
//! back once read: memory holds a chunk, never the model. The element conversions run on
//! rayon's pool.
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::io::Write;
use std::path::Path;
use std::rc::Rc;

use crate::convert::folder::HfFolder;
use crate::convert::metadata::{general_metadata, MetadataOptions};
use crate::convert::plan::{
    metadata, plan, ConvertOptions, KvList, ParamCounts, Plan, PlannedTensor,
};
use crate::convert::rows::TensorRows;
use crate::convert::split::{output_shards, shard_metadata, OutputShard, SplitLimits};
use crate::error::{CheckpointError, Error, Result};
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

/// Source elements converted at a time (whole rows, at least one): 16 MB as f32.
const CHUNK_ELEMENTS: u64 = 1 << 22;

/// Writes planned tensor `t` through `dw`, a chunk of whole rows at a time.
fn write_tensor<W: std::io::Write>(
    folder: &HfFolder,
    t: &PlannedTensor,
    dw: &mut TensorDataWriter<'_, W>,
) -> Result<()> {
    let mut rows = TensorRows::new(folder, t)?;
    let total = rows.len();
    if total == 0 {
        // an empty tensor still takes its turn (and its padding) in the output
        return dw.write_part(&[]);
    }
    let per_chunk = (CHUNK_ELEMENTS / rows.row_len()).max(1) * rows.row_len();
    let mut start = 0;
    while start < total {
        let end = (start + per_chunk).min(total);
        dw.write_part(rows.get(start..end)?)?;
        start = end;
    }
    Ok(())
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
    for ((shard, b), file) in shards.iter().zip(&builders).zip(&mut files) {
        let target = file.target().to_path_buf();
        let mut w = file.writer();
        let mut dw = b.write_header(&mut w)?;
        if let Some(f) = &shared {
            let f = Rc::clone(f);
            dw.on_progress(Box::new(move |k| (f.borrow_mut())(k)));
        }
        for t in &plan.tensors[shard.tensors.clone()] {
            write_tensor(folder, t, &mut dw)?;
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
