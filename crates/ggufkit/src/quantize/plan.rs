//! The plan: for a model, a preset and the options, each tensor's target type and why, in the
//! order llama-quantize writes them, with the sizes before and after.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::fmt;

use super::input::Input;
use super::model::ModelInfo;
use super::names::{loader_order, quantizable, Category, NotQuantized};
use super::overrides::{override_for, KvOverride, TensorTypeOverride};
use super::preset::{Ftype, Preset};
use super::prune::Pruner;
use super::rules::{fallback, requires_imatrix, Rules};
use super::uniform::SkipReason;
use crate::endian::Endian;
use crate::error::{QuantizeError, Result};
use crate::file_type::FileType;
use crate::types::GgmlType;

/// Importance values per tensor name: for each tensor, one value per column of each expert's
/// matrix (`ne0 * ne2` values), as llama-quantize hands them to the codecs.
pub type Importance = HashMap<String, Vec<f32>>;

/// What llama-quantize is asked to do, besides the input and output files.
#[derive(Clone, Debug)]
pub struct QuantizeOptions {
    /// The preset (`Q4_K_M`, `COPY`, ...).
    pub preset: Preset,
    /// `--pure`: every quantizable tensor gets the preset's type (no mixture rules; overrides,
    /// the output and embedding types and the shape fallback still apply).
    pub pure: bool,
    /// `--leave-output-tensor`: `output.weight` keeps its type.
    pub leave_output: bool,
    /// `--output-tensor-type`.
    pub output_type: Option<GgmlType>,
    /// `--token-embedding-type`.
    pub token_embedding_type: Option<GgmlType>,
    /// `--tensor-type PATTERN=TYPE`, in order (the first match wins).
    pub tensor_types: Vec<TensorTypeOverride>,
    /// `--allow-requantize`: quantized source tensors may be converted.
    pub allow_requantize: bool,
    /// `--override-kv`, in order, written after the file type.
    pub kv_overrides: Vec<KvOverride>,
    /// The importance matrix, when one is given (its presence also changes some rules).
    pub importance: Option<Importance>,
    /// Threads for the conversion (`None`: rayon's default, every core).
    pub threads: Option<usize>,
    /// `--prune-layers`: layers left out (the later ones renumbered, `block_count` set).
    pub prune_layers: Vec<u32>,
    /// `--keep-split`: one output shard per input shard, each tensor in its input shard, in
    /// file order (llama-quantize then applies the rules in that order too).
    pub keep_split: bool,
}

impl QuantizeOptions {
    /// The preset with every option at llama-quantize's default.
    pub fn new(preset: Preset) -> Self {
        QuantizeOptions {
            preset,
            pure: false,
            leave_output: false,
            output_type: None,
            token_embedding_type: None,
            tensor_types: Vec::new(),
            allow_requantize: false,
            kv_overrides: Vec::new(),
            importance: None,
            threads: None,
            prune_layers: Vec::new(),
            keep_split: false,
        }
    }
}

/// Why a tensor gets its type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Not quantized: it keeps its type.
    Kept(NotQuantized),
    /// The preset's type for every tensor (also under `--pure`).
    Preset,
    /// A rule of the preset's mixture changed it.
    Rule(&'static str),
    /// `--tensor-type PATTERN=TYPE`.
    Override(String),
    /// `--output-tensor-type`.
    OutputType,
    /// `--token-embedding-type`.
    TokenEmbeddingType,
    /// The row width does not fit `wanted`'s blocks, chosen for `because`.
    Fallback {
        /// The type the rules chose.
        wanted: GgmlType,
        /// Why it was chosen.
        because: Box<Reason>,
    },
    /// The one type of a uniform conversion (`gguf convert --type`).
    Uniform,
    /// Left as it is by a uniform conversion, and why.
    Skipped(SkipReason),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Kept(NotQuantized::Copy) => f.write_str("kept: COPY"),
            Reason::Kept(NotQuantized::OneDimensional) => f.write_str("kept: 1-D"),
            Reason::Kept(NotQuantized::NotAWeight) => f.write_str("kept: not a weight"),
            Reason::Kept(NotQuantized::Excluded(part)) => write!(f, "kept: {part}"),
            Reason::Kept(NotQuantized::OutputLeft) => f.write_str("kept: --leave-output-tensor"),
            Reason::Preset => f.write_str("preset"),
            Reason::Rule(r) => write!(f, "rule: {r}"),
            Reason::Override(p) => write!(f, "--tensor-type {p}"),
            Reason::OutputType => f.write_str("--output-tensor-type"),
            Reason::TokenEmbeddingType => f.write_str("--token-embedding-type"),
            Reason::Fallback { wanted, because } => {
                write!(f, "fallback from {wanted} ({because})")
            }
            Reason::Uniform => f.write_str("--type"),
            Reason::Skipped(why) => write!(f, "kept: {why}"),
        }
    }
}

/// A tensor as the planner sees it: its name, type and shape, and where it is in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorDesc {
    /// The input shard holding it (0 for a file that is not split).
    pub shard: usize,
    /// Index in its shard's tensor table.
    pub index: usize,
    /// Offset of its data from the start of its shard (the order `--keep-split` writes).
    pub offset: u64,
    /// Name.
    pub name: String,
    /// Type in the input.
    pub ty: GgmlType,
    /// Shape, ne0 first.
    pub shape: Vec<u64>,
}

/// One tensor of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedTensor {
    /// The input shard holding it.
    pub shard: usize,
    /// Index in its input shard's tensor table.
    pub index: usize,
    /// The output file (shard) it is written to: its input shard with `--keep-split`, else 0.
    pub output_shard: usize,
    /// Name in the output.
    pub name: String,
    /// Name in the input (another layer number with `--prune-layers`); the importance matrix
    /// is looked up by it.
    pub source_name: String,
    /// Shape, ne0 first.
    pub shape: Vec<u64>,
    /// Type in the input.
    pub from: GgmlType,
    /// Type in the output (`from` when kept or already right).
    pub to: GgmlType,
    /// Why.
    pub reason: Reason,
    /// Bytes in the input.
    pub bytes_in: u64,
    /// Bytes in the output.
    pub bytes_out: u64,
    /// Whether llama-quantize requires an importance matrix for it.
    pub needs_imatrix: bool,
}

impl PlannedTensor {
    /// Elements.
    pub fn n_elements(&self) -> u64 {
        self.shape.iter().product()
    }

    /// Whether the data is converted (not copied).
    pub fn converts(&self) -> bool {
        self.to != self.from
    }
}

/// What a plan is, which says what its output declares besides the tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanKind {
    /// llama-quantize with a preset: the output's metadata is llama-quantize's
    /// ([`output_builders`](super::output_builders)), its tensors in the loader's order.
    Preset {
        /// The preset.
        preset: Preset,
        /// The `general.file_type` written (for `COPY`: the input's, or the one guessed from
        /// its tensors with llama.cpp's guessed flag).
        file_type: u32,
    },
    /// One type for the tensors a rule picks ([`plan_uniform`](super::plan_uniform), `gguf
    /// convert --type`): the input's metadata and tensor order kept, in the byte order asked for.
    Uniform {
        /// The type.
        ty: GgmlType,
        /// Every tensor that can be converted, not only those llama-quantize quantizes.
        all: bool,
        /// The output's byte order.
        endian: Endian,
    },
}

/// The plan of a quantization: the tensors in output order, and what the output declares.
#[derive(Clone, Debug)]
pub struct Plan {
    /// What the plan is: a preset's, or one type's.
    pub kind: PlanKind,
    /// Every tensor, in the order written.
    pub tensors: Vec<PlannedTensor>,
    /// How many tensors fell back to another type because of their shape.
    pub fallbacks: usize,
    /// Whether an importance matrix was given (some rules depend on it).
    pub has_imatrix: bool,
    /// With `--prune-layers`: the `{arch}.block_count` written.
    pub block_count: Option<u64>,
    /// `--keep-split`: the output is [`output_shards`](Plan::output_shards) files named as
    /// llama.cpp names shards, each with the split keys when there are several.
    pub keep_split: bool,
    /// Output files: with `--keep-split` as many as the input has shards holding planned tensors,
    /// else 1.
    pub output_shards: usize,
}

impl Plan {
    /// The preset, for a preset's plan.
    pub fn preset(&self) -> Option<Preset> {
        match self.kind {
            PlanKind::Preset { preset, .. } => Some(preset),
            PlanKind::Uniform { .. } => None,
        }
    }

    /// The `general.file_type` a preset's plan writes (a uniform conversion keeps the input's).
    pub fn file_type(&self) -> Option<u32> {
        match self.kind {
            PlanKind::Preset { file_type, .. } => Some(file_type),
            PlanKind::Uniform { .. } => None,
        }
    }

    /// The byte order of the output: little-endian but for a uniform conversion asked otherwise.
    pub fn endian(&self) -> Endian {
        match self.kind {
            PlanKind::Preset { .. } => Endian::Little,
            PlanKind::Uniform { endian, .. } => endian,
        }
    }

    /// The tensors whose data is converted, in output order.
    pub fn converted(&self) -> impl Iterator<Item = &PlannedTensor> {
        self.tensors.iter().filter(|t| t.converts())
    }

    /// The tensors a uniform conversion leaves as they are, with the reason, in output order.
    pub fn skipped(&self) -> impl Iterator<Item = (&PlannedTensor, SkipReason)> {
        self.tensors.iter().filter_map(|t| match t.reason {
            Reason::Skipped(why) => Some((t, why)),
            _ => None,
        })
    }

    /// Bytes of tensor data in the input.
    pub fn bytes_in(&self) -> u64 {
        self.tensors.iter().map(|t| t.bytes_in).sum()
    }

    /// Bytes of tensor data in the output (without padding).
    pub fn bytes_out(&self) -> u64 {
        self.tensors.iter().map(|t| t.bytes_out).sum()
    }

    /// Elements of all tensors.
    pub fn n_elements(&self) -> u64 {
        self.tensors.iter().map(|t| t.n_elements()).sum()
    }

    /// Bits per weight of the output (tensor bytes × 8 / elements), as llama-quantize prints it.
    pub fn bits_per_weight_out(&self) -> f64 {
        bpw(self.bytes_out(), self.n_elements())
    }

    /// Bits per weight of the input.
    pub fn bits_per_weight_in(&self) -> f64 {
        bpw(self.bytes_in(), self.n_elements())
    }

    /// The tensors that need an importance matrix.
    pub fn needing_imatrix(&self) -> impl Iterator<Item = &PlannedTensor> {
        self.tensors.iter().filter(|t| t.needs_imatrix)
    }

    /// Tensor count per output type, in type order.
    pub fn type_counts(&self) -> Vec<(GgmlType, usize)> {
        let mut m: std::collections::BTreeMap<GgmlType, usize> = Default::default();
        for t in &self.tensors {
            *m.entry(t.to).or_default() += 1;
        }
        m.into_iter().collect()
    }
}

fn bpw(bytes: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        bytes as f64 * 8.0 / n as f64
    }
}

/// The descriptions of every tensor of `input`, shard by shard in file order, and its
/// `general.file_type`: what the planner and the recipe read of a model. A tensor of a type this
/// build cannot size is refused ([`crate::Error::UnsupportedTensorType`]).
pub(crate) fn tensors_of(input: Input<'_, '_>) -> Result<(Vec<TensorDesc>, Option<u32>)> {
    Ok((input.descs()?, input.file_type()))
}

/// The plan for the tensors of `input`: a file, or a split model whose first shard gives the
/// metadata.
pub fn plan<'a, 'g: 'a>(input: impl Into<Input<'a, 'g>>, opts: &QuantizeOptions) -> Result<Plan> {
    let input = input.into();
    let (descs, file_type) = tensors_of(input)?;
    let mut model = input.model_info();
    model.apply_overrides(&opts.kv_overrides);
    plan_tensors(&descs, &model, file_type, opts)
}

/// Bytes of `shape` in `ty`, or an error naming the tensor when the rows are not whole blocks.
pub(crate) fn size_in(name: &str, ty: GgmlType, shape: &[u64]) -> Result<u64> {
    let n: u64 = shape.iter().product();
    ty.bytes_for(n)
        .filter(|_| {
            shape
                .first()
                .is_none_or(|&ne0| ne0 % ty.block_size().max(1) == 0)
        })
        .ok_or_else(|| {
            QuantizeError::RowsDoNotFit {
                tensor: name.to_string(),
                ty,
                ne0: shape.first().copied().unwrap_or(1),
            }
            .into()
        })
}

/// The plan for tensors `descs` of a model with hyperparameters `model`, whose input declares
/// `input_file_type` (`general.file_type`): the type-choice rules alone, without any tensor data.
pub fn plan_tensors(
    descs: &[TensorDesc],
    model: &ModelInfo,
    input_file_type: Option<u32>,
    opts: &QuantizeOptions,
) -> Result<Plan> {
    let preset = opts.preset;
    let ftype = preset.ftype;
    let default = ftype.default_type();
    let mut order: Vec<&TensorDesc> = descs.iter().collect();
    order.sort_by(|a, b| loader_order(a.name.as_bytes(), b.name.as_bytes()));
    let mut pruner = Pruner::new(&opts.prune_layers);
    let guessed = guessed_file_type(&order);
    let mut named: Vec<(&TensorDesc, String)> = order
        .into_iter()
        .filter_map(|d| Some((d, pruner.rename(&d.name)?)))
        .collect();
    // llama-quantize renames in the loader's order, then sorts by shard and offset to keep the
    // split, and chooses the types in that order
    if opts.keep_split {
        named.sort_by_key(|(d, _)| (d.shard, d.offset, d.index));
    }
    let output_shards = if opts.keep_split {
        named.iter().map(|(d, _)| d.shard + 1).max().unwrap_or(1)
    } else {
        1
    };
    if let Some(empty) =
        (0..output_shards).find(|&s| s > 0 && !named.iter().any(|(d, _)| d.shard == s))
    {
        return Err(QuantizeError::EmptyOutputShard {
            shard: empty + 1,
            count: output_shards,
        }
        .into());
    }
    let mut rules = Rules::new(
        ftype,
        model,
        opts.importance.is_some(),
        named.iter().map(|(_, n)| n.as_str()),
    );
    let mut fallbacks = 0;
    let mut tensors = Vec::with_capacity(named.len());
    for (d, new_name) in &named {
        let name = new_name.as_str();
        let cat = Category::of(name);
        let ne0 = d.shape.first().copied().unwrap_or(1);
        let ne2 = d.shape.get(2).copied().unwrap_or(1);
        let allowed = quantizable(name, &d.shape, preset.only_copy, opts.leave_output);
        let (to, reason) = match allowed {
            Err(why) => (d.ty, Reason::Kept(why)),
            Ok(()) => match (opts.token_embedding_type, opts.output_type) {
                (Some(t), _) if cat == Category::TokenEmbedding => (t, Reason::TokenEmbeddingType),
                (_, Some(t)) if cat == Category::Output => (t, Reason::OutputType),
                _ if !default.is_quantized() => (default, Reason::Preset),
                _ => {
                    let (mut ty, mut reason) = (default, Reason::Preset);
                    if let Some(o) = override_for(&opts.tensor_types, name) {
                        ty = o.ty;
                        reason = Reason::Override(o.pattern.clone());
                    } else if !opts.pure {
                        let (t, why) = rules.choose(name, cat, ne0, ne2, ty, opts.output_type)?;
                        if let Some(w) = why {
                            ty = t;
                            reason = match w {
                                "--output-tensor-type"
                                | "--output-tensor-type (tied embeddings)" => Reason::OutputType,
                                w => Reason::Rule(w),
                            };
                        }
                    }
                    if let Some(fb) = fallback(name, ty, ne0)? {
                        fallbacks += 1;
                        reason = Reason::Fallback {
                            wanted: ty,
                            because: Box::new(reason),
                        };
                        ty = fb;
                    }
                    (ty, reason)
                }
            },
        };
        let bytes_in = size_in(name, d.ty, &d.shape)?;
        let bytes_out = if to == d.ty {
            bytes_in
        } else {
            size_in(name, to, &d.shape)?
        };
        tensors.push(PlannedTensor {
            shard: d.shard,
            index: d.index,
            output_shard: if opts.keep_split { d.shard } else { 0 },
            name: new_name.clone(),
            source_name: d.name.clone(),
            shape: d.shape.clone(),
            from: d.ty,
            to,
            reason,
            bytes_in,
            bytes_out,
            needs_imatrix: allowed.is_ok() && requires_imatrix(name, to, ftype),
        });
    }
    let file_type = if preset.only_copy {
        input_file_type.unwrap_or(guessed)
    } else {
        ftype.id()
    };
    Ok(Plan {
        kind: PlanKind::Preset { preset, file_type },
        tensors,
        fallbacks,
        has_imatrix: opts.importance.is_some(),
        block_count: pruner.is_active().then(|| pruner.block_count()),
        keep_split: opts.keep_split,
        output_shards,
    })
}

/// llama.cpp's guess of a file type for a file without `general.file_type`: from the type most
/// tensors of all shards have (the first to reach the highest count in the loader's order), with
/// the guessed flag.
fn guessed_file_type(descs: &[&TensorDesc]) -> u32 {
    let mut counts: HashMap<GgmlType, usize> = HashMap::new();
    let (mut best, mut max) = (GgmlType::F32, 0);
    for d in descs {
        let c = counts.entry(d.ty).or_default();
        *c += 1;
        if *c > max {
            max = *c;
            best = d.ty;
        }
    }
    Ftype::guess_from(best).id() | FileType::GUESSED
}
