//! The plan of a conversion, made before anything is written: the architecture (refused, naming
//! the class and the supported ones, when the table lacks it), every tensor (its sources, what
//! is done to them, its GGUF name, type and shape) and every metadata pair in the script's order.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::convert::arch::{self, TensorOut, TensorSource};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::outtype::{tensor_type, OutType};
use crate::convert::safetensors::Dtype;
use crate::error::CheckpointError;
use crate::types::GgmlType;
use crate::write::OwnedValue;

pub use crate::convert::Kv;

/// Metadata pairs in insertion order; setting a key already present replaces its value in its
/// place (gguf-py's writer keeps its pairs in a dict).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KvList {
    items: Vec<Kv>,
}

impl KvList {
    /// Sets `key` to `value`.
    pub fn set(&mut self, key: String, value: OwnedValue) {
        match self.items.iter_mut().find(|(k, _)| *k == key) {
            Some(kv) => kv.1 = value,
            None => self.items.push((key, value)),
        }
    }

    /// Sets every pair of `kvs`, in order.
    pub fn extend(&mut self, kvs: impl IntoIterator<Item = Kv>) {
        for (k, v) in kvs {
            self.set(k, v);
        }
    }

    /// The pairs, in order, as a slice.
    pub fn as_slice(&self) -> &[Kv] {
        &self.items
    }

    /// The pairs, in order.
    pub fn iter(&self) -> impl Iterator<Item = &Kv> {
        self.items.iter()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&OwnedValue> {
        self.items.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// What a conversion is asked to do.
#[derive(Clone, Debug)]
pub struct ConvertOptions {
    /// `--outtype`.
    pub outtype: OutType,
    /// `--vocab-only`: the metadata and vocabulary, no tensors.
    pub vocab_only: bool,
    /// `--model-name`.
    pub model_name: Option<String>,
    /// `--metadata FILE`.
    pub metadata: Option<PathBuf>,
    /// `--split-max-size` in bytes (0: no limit).
    pub split_max_size: u64,
    /// `--split-max-tensors` (0: no limit).
    pub split_max_tensors: usize,
    /// `--no-tensor-first-split`: a split output's first shard holds the metadata only.
    pub no_tensor_first_split: bool,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            outtype: OutType::Auto,
            vocab_only: false,
            model_name: None,
            metadata: None,
            split_max_size: 0,
            split_max_tensors: 0,
            no_tensor_first_split: false,
        }
    }
}

/// One tensor of the plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedTensor {
    /// Name, sources, transforms, shape.
    pub out: TensorOut,
    /// The GGUF type written.
    pub ty: GgmlType,
    /// The checkpoint names it is made from (empty for computed values).
    pub source_names: Vec<String>,
    /// Their dtype (`None` for computed values, which are f32).
    pub source_dtype: Option<Dtype>,
}

impl PlannedTensor {
    /// The shape in GGUF's order (innermost first).
    pub fn gguf_shape(&self) -> Vec<u64> {
        self.out.shape.iter().rev().copied().collect()
    }
}

/// The parameter counts gguf-py derives from the tensors (`get_total_parameter_count`): total,
/// shared, per-expert, and the mean expert count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParamCounts {
    /// Every element of every tensor.
    pub total: u64,
    /// Elements outside expert tensors.
    pub shared: u64,
    /// Elements of one expert.
    pub expert: u64,
    /// Experts per expert tensor, on average.
    pub expert_count: u64,
}

/// A whole conversion, decided.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The Hugging Face class.
    pub class: String,
    /// The GGUF architecture.
    pub arch: &'static str,
    /// The outtype, `auto` resolved.
    pub outtype: OutType,
    /// The hyperparameter pairs (`set_gguf_parameters`), in order.
    pub parameters: KvList,
    /// The pairs set while the tensors are prepared (empty for `--vocab-only`), written right
    /// after `general.architecture`.
    pub tensor_parameters: KvList,
    /// The tensors, in order (empty for `--vocab-only`).
    pub tensors: Vec<PlannedTensor>,
    /// The parameter counts of the tensors.
    pub params: ParamCounts,
}

/// Plans the conversion of `folder`.
pub fn plan(folder: &HfFolder, opts: &ConvertOptions) -> Result<Plan, CheckpointError> {
    let class = folder.architecture()?.to_string();
    let arch = arch::find(&class, &folder.config_path())?;
    let h = Hparams::new(folder.config_path(), folder.config().clone());
    let outtype = opts.outtype.resolve(folder.first_16bit_matrix());
    let outs = arch.tensors(&h, folder)?;
    let mut tensors = Vec::with_capacity(outs.len());
    let mut seen = std::collections::HashSet::new();
    for out in outs {
        if !seen.insert(out.name.clone()) {
            return Err(CheckpointError::Mismatch {
                path: folder.dir().to_path_buf(),
                problem: format!("two tensors map to '{}'", out.name),
            });
        }
        let (source_names, source_dtype) = match &out.source {
            TensorSource::Tensors(ids) => {
                let names: Vec<String> = ids
                    .iter()
                    .map(|&i| folder.tensors()[i].name.clone())
                    .collect();
                let dtype = folder.tensors()[ids[0]].entry.dtype;
                for &i in ids {
                    let t = &folder.tensors()[i];
                    // a scaled weight's dtype was checked when its scale was attached
                    if t.scale.is_none()
                        && !matches!(
                            t.entry.dtype,
                            Dtype::F32 | Dtype::F16 | Dtype::BF16 | Dtype::F8E4M3 | Dtype::F8E5M2
                        )
                    {
                        return Err(CheckpointError::Tensor {
                            path: folder.shards()[t.shard].path().to_path_buf(),
                            tensor: t.entry.name.clone(),
                            problem: format!(
                                "dtype {} is not converted (F32, F16, BF16 and FP8 are)",
                                t.entry.dtype.name()
                            ),
                        });
                    }
                }
                (names, Some(dtype))
            }
            TensorSource::Values(_) => (vec![], None),
        };
        let ty = tensor_type(outtype, &out.name, &out.shape, out.role);
        tensors.push(PlannedTensor {
            out,
            ty,
            source_names,
            source_dtype,
        });
    }
    let params = param_counts(&tensors);
    let mut parameters = KvList::default();
    arch.parameters(&h, outtype.file_type(), &mut parameters)?;
    let mut tensor_parameters = KvList::default();
    if opts.vocab_only {
        tensors.clear();
    } else {
        arch.tensor_parameters(&h, &mut tensor_parameters)?;
    }
    Ok(Plan {
        class,
        arch: arch.gguf_arch(),
        outtype,
        parameters,
        tensor_parameters,
        tensors,
        params,
    })
}

/// gguf-py's `get_total_parameter_count` over the planned tensors.
fn param_counts(tensors: &[PlannedTensor]) -> ParamCounts {
    let mut c = ParamCounts::default();
    let (mut expert_sum, mut n_expert_tensors) = (0u64, 0u64);
    for t in tensors {
        let shape = &t.out.shape;
        let size: u64 = shape.iter().product();
        if t.out.name.contains("_exps.") && shape.len() >= 3 {
            let idx = if t.out.name.contains(".bias") {
                shape.len() - 2
            } else {
                shape.len() - 3
            };
            let n = shape[idx].max(1);
            c.expert += size / n;
            expert_sum += n;
            n_expert_tensors += 1;
        } else {
            c.shared += size;
        }
        c.total += size;
    }
    c.expert_count = expert_sum.checked_div(n_expert_tensors).unwrap_or(0);
    c
}

/// Every metadata pair of the output in the script's order: `general.architecture`, the pairs
/// set while the tensors were prepared, `general.type`, the general metadata (`general`), the
/// hyperparameters,
/// `general.quantization_version`, then the vocabulary (`vocab`).
pub fn metadata(plan: &Plan, general: &KvList, vocab: &KvList) -> KvList {
    let mut kv = KvList::default();
    kv.set(
        "general.architecture".into(),
        OwnedValue::String(plan.arch.into()),
    );
    kv.extend(plan.tensor_parameters.iter().cloned());
    kv.set("general.type".into(), OwnedValue::String("model".into()));
    kv.extend(general.iter().cloned());
    kv.extend(plan.parameters.iter().cloned());
    kv.set("general.quantization_version".into(), OwnedValue::U32(2));
    kv.extend(vocab.iter().cloned());
    kv
}
