//! Stacking per-expert tensors into one 3-D tensor per block and projection, as the script's
//! Mixtral and Qwen MoE models do: a block's expert tensors are held back until all of them
//! (experts × projections) were read, then each projection's stack is yielded in the script's
//! projection order.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use crate::convert::folder::HfFolder;
use crate::error::CheckpointError;

/// Expert tensors waiting for the rest of their block.
pub struct ExpertStacker {
    n_experts: usize,
    /// The projections in the order the stacks are yielded, and how a source is named.
    projections: &'static [&'static str],
    name: fn(u32, usize, &str) -> String,
    pending: HashMap<u32, HashMap<String, usize>>,
}

/// One stack: the projection and the source tensors, expert by expert.
pub type Stack = (&'static str, Vec<usize>);

impl ExpertStacker {
    /// A stacker of `n_experts` experts with `projections`, whose source names `name(block,
    /// expert, projection)` gives.
    pub fn new(
        n_experts: usize,
        projections: &'static [&'static str],
        name: fn(u32, usize, &str) -> String,
    ) -> Self {
        ExpertStacker {
            n_experts,
            projections,
            name,
            pending: HashMap::new(),
        }
    }

    /// Takes source tensor `idx` named `name` of block `bid`; when the block is complete, its
    /// stacks.
    pub fn add(
        &mut self,
        folder: &HfFolder,
        bid: u32,
        name: &str,
        idx: usize,
    ) -> Result<Option<Vec<Stack>>, CheckpointError> {
        let layer = self.pending.entry(bid).or_default();
        layer.insert(name.to_string(), idx);
        if layer.len() < self.n_experts * self.projections.len() {
            return Ok(None);
        }
        let mut stacks = Vec::with_capacity(self.projections.len());
        for &p in self.projections {
            let mut parts = Vec::with_capacity(self.n_experts);
            for x in 0..self.n_experts {
                let ename = (self.name)(bid, x, p);
                let i = layer
                    .remove(&ename)
                    .ok_or_else(|| CheckpointError::Mismatch {
                        path: folder.dir().to_path_buf(),
                        problem: format!("expert tensor '{ename}' is absent"),
                    })?;
                parts.push(i);
            }
            let first = &folder.tensors()[parts[0]];
            for &i in &parts[1..] {
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
pub fn stack_shape(folder: &HfFolder, parts: &[usize]) -> Vec<u64> {
    let mut shape = vec![parts.len() as u64];
    if let Some(&first) = parts.first() {
        shape.extend(&folder.tensors()[first].entry.shape);
    }
    shape
}
