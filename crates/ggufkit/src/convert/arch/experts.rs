//! Expert tensors as the script's MoE models yield them: per-expert tensors stacked into one 3-D
//! tensor per block and projection, as its Mixtral and Qwen MoE models do (a block's expert
//! tensors are held back until all of them, experts × projections, were read, then each
//! projection's stack is yielded in the script's projection order); and the fused 3-D tensors
//! transformers 5 keeps in memory (`mlp.experts.gate_up_proj`, `mlp.experts.down_proj`), as its
//! Qwen MoE models take them: `down_proj` as it is, `gate_up_proj` split into its gate and up
//! halves along its second-to-last dimension.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use crate::convert::arch::{bid, map_name, role_of, TensorOut, TensorSource, Transform};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;

/// How an architecture names its experts.
pub struct ExpertLayout {
    /// The config keys of the expert count (`find_hparam` order).
    pub count_keys: &'static [&'static str],
    /// The projections, in the order the stacks are yielded.
    pub projections: &'static [&'static str],
    /// A source tensor's name: `(block, expert, projection)`.
    pub source_name: fn(u32, usize, &str) -> String,
    /// The name of a block's stack of `projection` that the tensor-name map knows:
    /// `(block, projection)`.
    pub merged_name: fn(u32, &str) -> String,
}

/// Expert tensors waiting for the rest of their block.
pub struct ExpertStacker {
    layout: &'static ExpertLayout,
    names: NameSet,
    n_blocks: u32,
    /// Read from the config at the first expert tensor (a model without experts needs no count).
    n_experts: Option<usize>,
    pending: HashMap<u32, HashMap<String, usize>>,
}

/// One stack: the projection and the source tensors, expert by expert.
pub type Stack = (&'static str, Vec<usize>);

impl ExpertStacker {
    /// A stacker for `layout`, mapping the stacks' names with `names` for `n_blocks` blocks.
    pub fn new(layout: &'static ExpertLayout, names: NameSet, n_blocks: u32) -> Self {
        ExpertStacker {
            layout,
            names,
            n_blocks,
            n_experts: None,
            pending: HashMap::new(),
        }
    }

    /// Takes expert tensor `idx` named `name`: held back until its block has every expert of
    /// every projection, then one stacked tensor per projection is pushed to `out` (the
    /// script's order), each mapped to its GGUF name.
    pub fn take(
        &mut self,
        h: &Hparams,
        folder: &HfFolder,
        name: &str,
        idx: usize,
        out: &mut Vec<TensorOut>,
    ) -> Result<(), CheckpointError> {
        let Some(b) = bid(name) else {
            return Err(CheckpointError::Mismatch {
                path: folder.dir().to_path_buf(),
                problem: format!("expert tensor '{name}' has no block number"),
            });
        };
        if self.n_experts.is_none() {
            let keys = self.layout.count_keys;
            let key = keys.last().copied().unwrap_or("num_experts");
            let n = h
                .find_u32(keys)?
                .ok_or_else(|| h.error(key, "a whole number (the key is absent)"))?;
            if n == 0 {
                return Err(h.error(key, "a positive number (the checkpoint has experts)"));
            }
            self.n_experts = Some(n as usize);
        }
        if let Some(stacks) = self.add(folder, b, name, idx)? {
            for (projection, parts) in stacks {
                let gguf = map_name(
                    self.names,
                    &(self.layout.merged_name)(b, projection),
                    self.n_blocks,
                    folder,
                )?;
                out.push(TensorOut {
                    role: role_of(&gguf),
                    name: gguf,
                    shape: stack_shape(folder, &parts),
                    source: TensorSource::Tensors(parts),
                    transforms: vec![],
                });
            }
        }
        Ok(())
    }

    /// Takes source tensor `idx` named `name` of block `bid`; when the block is complete, its
    /// stacks.
    fn add(
        &mut self,
        folder: &HfFolder,
        bid: u32,
        name: &str,
        idx: usize,
    ) -> Result<Option<Vec<Stack>>, CheckpointError> {
        let n_experts = self.n_experts.unwrap_or(0).max(1);
        let layer = self.pending.entry(bid).or_default();
        layer.insert(name.to_string(), idx);
        if layer.len() < n_experts * self.layout.projections.len() {
            return Ok(None);
        }
        let mut stacks = Vec::with_capacity(self.layout.projections.len());
        for &p in self.layout.projections {
            let mut parts = Vec::with_capacity(n_experts);
            for x in 0..n_experts {
                let ename = (self.layout.source_name)(bid, x, p);
                let i = layer
                    .remove(&ename)
                    .ok_or_else(|| CheckpointError::Mismatch {
                        path: folder.dir().to_path_buf(),
                        problem: format!("expert tensor '{ename}' is absent"),
                    })?;
                parts.push(i);
            }
            let Some((&first, rest)) = parts.split_first() else {
                continue;
            };
            let first = &folder.tensors()[first];
            for &i in rest {
                let t = &folder.tensors()[i];
                if t.entry.shape != first.entry.shape {
                    return Err(CheckpointError::Mismatch {
                        path: folder.dir().to_path_buf(),
                        problem: format!(
                            "expert tensor '{}' has shape {:?}, unlike '{}' {:?}",
                            t.name, t.entry.shape, first.name, first.entry.shape
                        ),
                    });
                }
            }
            stacks.push((p, parts));
        }
        Ok(Some(stacks))
    }

    /// An error naming an expert tensor left over (its block lacks some experts), if any.
    pub fn finish(&self, folder: &HfFolder) -> Result<(), CheckpointError> {
        match self.pending.values().flat_map(|l| l.keys()).min() {
            Some(left) => Err(CheckpointError::Mismatch {
                path: folder.dir().to_path_buf(),
                problem: format!(
                    "expert tensor '{left}' is left over: its block lacks some experts"
                ),
            }),
            None => Ok(()),
        }
    }
}

/// The shape of a stack: the experts, then one expert's shape.
fn stack_shape(folder: &HfFolder, parts: &[usize]) -> Vec<u64> {
    let mut shape = vec![parts.len() as u64];
    if let Some(&first) = parts.first() {
        shape.extend(&folder.tensors()[first].entry.shape);
    }
    shape
}

/// Takes source tensor `idx` named `name` when it is a fused expert tensor of the Qwen MoE
/// layout (`…mlp.experts.down_proj[.weight]`, `…mlp.experts.gate_up_proj[.weight]`): pushes
/// the tensors the script yields for it to `out` and returns true; false for any other name.
/// A `gate_up_proj` of fewer than three dimensions or of an odd second-to-last one is refused,
/// naming it, as the script refuses it.
pub fn take_fused(
    names: NameSet,
    folder: &HfFolder,
    name: &str,
    idx: usize,
    n_blocks: u32,
    out: &mut Vec<TensorOut>,
) -> Result<bool, CheckpointError> {
    let shape = &folder.tensors()[idx].entry.shape;
    let mut push = |hf: String, shape: Vec<u64>, transforms: Vec<Transform>| {
        let gguf = map_name(names, &hf, n_blocks, folder)?;
        out.push(TensorOut {
            role: role_of(&gguf),
            name: gguf,
            source: TensorSource::Tensors(vec![idx]),
            transforms,
            shape,
        });
        Ok::<(), CheckpointError>(())
    };
    if name.ends_with("mlp.experts.down_proj") || name.ends_with("mlp.experts.down_proj.weight") {
        let hf = if name.ends_with(".weight") {
            name.to_string()
        } else {
            format!("{name}.weight")
        };
        push(hf, shape.clone(), vec![])?;
        return Ok(true);
    }
    if name.ends_with("mlp.experts.gate_up_proj")
        || name.ends_with("mlp.experts.gate_up_proj.weight")
    {
        let n = shape.len();
        if n < 3 || shape[n - 2] % 2 != 0 {
            return Err(CheckpointError::Mismatch {
                path: folder.dir().to_path_buf(),
                problem: format!(
                    "tensor '{name}' has shape {shape:?}: a fused gate_up_proj is [experts, 2 × n_ff, n_embd]"
                ),
            });
        }
        let n_ff = shape[n - 2] / 2;
        let mut half = shape.clone();
        half[n - 2] = n_ff;
        let base = name
            .strip_suffix(".weight")
            .unwrap_or(name)
            .strip_suffix(".gate_up_proj")
            .unwrap_or(name);
        let f = n_ff as usize;
        push(
            format!("{base}.gate_proj.weight"),
            half.clone(),
            vec![Transform::InnerRows(0..f)],
        )?;
        push(
            format!("{base}.up_proj.weight"),
            half,
            vec![Transform::InnerRows(f..2 * f)],
        )?;
        return Ok(true);
    }
    Ok(false)
}
