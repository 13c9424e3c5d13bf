//! A conversion as a quantizer's input: the GGUF that `convert` would write, never written. Its
//! metadata and tensor infos are the plan's; each tensor's bytes are made from the mapped
//! safetensors as the quantizer asks for them, a run of rows at a time ([`TensorRows`], the rule
//! `convert` writes by), so that a checkpoint goes to a llama-quantize preset in one pass, in
//! the memory of a run of rows whatever the model's size, with the bytes of `convert` followed
//! by llama-quantize.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use std::ops::Range;

use crate::convert::execute::plan_folder;
use crate::convert::folder::HfFolder;
use crate::convert::plan::{ConvertOptions, KvList, Plan};
use crate::convert::rows::TensorRows;
use crate::error::Result;
use crate::quantize::{self, Input, Produced, ProducedRows, ProducedTensor, QuantizeOptions};
use crate::write::{OwnedValue, ProgressFn};

/// A checkpoint folder and its conversion, decided: what the converted file would hold.
#[derive(Debug)]
pub struct Conversion {
    folder: HfFolder,
    plan: Plan,
    metadata: KvList,
    tensors: Vec<ProducedTensor>,
}

impl Conversion {
    /// Reads `dir` and plans its conversion with `opts` (everything the conversion would refuse
    /// is refused here, before anything is written).
    pub fn open(dir: &Path, opts: &ConvertOptions) -> Result<Conversion> {
        let folder = HfFolder::open(dir)?;
        let (plan, metadata) = plan_folder(&folder, opts)?;
        Ok(Conversion::new(folder, plan, metadata))
    }

    /// The conversion of `folder` by `plan` with the pairs `metadata`
    /// ([`plan_folder`]'s answer).
    pub fn new(folder: HfFolder, plan: Plan, metadata: KvList) -> Conversion {
        let tensors = plan
            .tensors
            .iter()
            .map(|t| ProducedTensor {
                name: t.out.name.clone(),
                ty: t.ty,
                shape: t.gguf_shape(),
            })
            .collect();
        Conversion {
            folder,
            plan,
            metadata,
            tensors,
        }
    }

    /// The conversion's plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Every metadata pair the converted file would hold, in order.
    pub fn metadata(&self) -> &KvList {
        &self.metadata
    }

    /// The folder read.
    pub fn folder(&self) -> &HfFolder {
        &self.folder
    }

    /// The conversion as the quantizer's input.
    pub fn input(&self) -> Input<'_, 'static> {
        Input::produced(self)
    }
}

impl Produced for Conversion {
    fn metadata(&self) -> &[(String, OwnedValue)] {
        self.metadata.as_slice()
    }

    fn tensors(&self) -> &[ProducedTensor] {
        &self.tensors
    }

    fn produce(&self, index: usize) -> Result<Box<dyn ProducedRows + '_>> {
        let t = self
            .plan
            .tensors
            .get(index)
            .ok_or(crate::error::Missing::TensorIndex { index })?;
        Ok(Box::new(TensorRows::new(&self.folder, t)?))
    }

    fn paths(&self) -> Vec<&Path> {
        self.folder.shards().iter().map(|s| s.path()).collect()
    }
}

impl ProducedRows for TensorRows<'_> {
    fn rows(&mut self, rows: Range<u64>) -> Result<&[u8]> {
        let n = self.row_len();
        self.get(rows.start.saturating_mul(n)..rows.end.saturating_mul(n))
    }
}

/// What [`quantize_folder`] did.
#[derive(Debug)]
pub struct QuantizedFolder {
    /// The conversion's plan (the tensors as `convert` would write them).
    pub conversion: Plan,
    /// The quantization's plan.
    pub plan: quantize::Plan,
    /// The files written.
    pub written: Vec<PathBuf>,
}

/// Converts checkpoint folder `dir` with `convert` and quantizes the result with `quantize` into
/// `out` in one pass, without an intermediate file: the bytes of `convert` then llama-quantize.
/// An importance matrix in `quantize` must name tensors of the converted model. Everything is
/// checked before a byte is written; the output is written atomically (replacing an existing
/// file only when `overwrite`).
pub fn quantize_folder(
    dir: &Path,
    out: &Path,
    convert: &ConvertOptions,
    quantize: &QuantizeOptions,
    imatrix_path: Option<&Path>,
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<QuantizedFolder> {
    let c = Conversion::open(dir, convert)?;
    let input = c.input();
    if let (Some(path), Some(values)) = (imatrix_path, &quantize.importance) {
        let names: Vec<String> = input.tensor_names().map(|n| n.into_owned()).collect();
        quantize::imatrix::check_matches(values, path, names.iter().map(|s| s.as_str()))?;
    }
    let plan = quantize::plan(input, quantize)?;
    let written = quantize::quantize_file(input, out, &plan, quantize, overwrite, progress)?;
    Ok(QuantizedFolder {
        conversion: c.plan,
        plan,
        written,
    })
}
