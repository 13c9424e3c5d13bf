//! `general.file_type` against the tensor mix: the planner says which type each tensor gets under
//! the declared file type (its preset's rules and shape fallbacks); a file where most quantizable
//! tensors have another type does not hold what it declares. The audit reports it as
//! `model.file-type`, the summary as a warning.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;
use std::fmt;

use super::{plan, Preset, QuantizeOptions, Reason};
use crate::file_type::FileType;
use crate::Gguf;

/// A `general.file_type` that most quantizable tensors contradict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileTypeMismatch {
    /// The file type declared.
    pub declared: FileType,
    /// The preset that writes it.
    pub preset: Preset,
    /// Quantizable tensors that have the type the preset gives them.
    pub agree: usize,
    /// Quantizable tensors.
    pub quantizable: usize,
    /// The types the quantizable tensors have, with how many have each, most common first.
    pub mix: Vec<(&'static str, usize)>,
}

/// The mismatch of `g`'s declared file type with its tensors, if most quantizable tensors do not
/// have the type the declared preset gives them. `None` too when the file declares no type, one
/// llama.cpp no longer knows, or shapes the planner refuses (the validator's business).
pub fn file_type_mismatch(g: &Gguf<'_>) -> Option<FileTypeMismatch> {
    let declared = FileType::of(g)?;
    let preset = Preset::all().find(|p| !p.only_copy && p.ftype.id() == declared.id())?;
    let mut opts = QuantizeOptions::new(preset);
    opts.allow_requantize = true;
    let planned = plan(g, &opts).ok()?;
    let quantizable: Vec<_> = planned
        .tensors
        .iter()
        .filter(|t| !matches!(t.reason, Reason::Kept(_)))
        .collect();
    let agree = quantizable.iter().filter(|t| t.from == t.to).count();
    if quantizable.is_empty() || agree * 2 >= quantizable.len() {
        return None;
    }
    let mut mix: BTreeMap<_, usize> = BTreeMap::new();
    for t in &quantizable {
        *mix.entry(t.from.name()).or_default() += 1;
    }
    let mut mix: Vec<_> = mix.into_iter().collect();
    mix.sort_by_key(|m| std::cmp::Reverse(m.1));
    Some(FileTypeMismatch {
        declared,
        preset,
        agree,
        quantizable: quantizable.len(),
        mix,
    })
}

/// The sentence of the audit's finding and the summary's warning.
impl fmt::Display for FileTypeMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mix: Vec<String> = self.mix.iter().map(|(t, n)| format!("{n} {t}")).collect();
        write!(
            f,
            "general.file_type is {} ({}) but only {} of {} quantizable tensors have the type it gives them; they are {}",
            self.declared.id(),
            self.preset.name,
            self.agree,
            self.quantizable,
            mix.join(", ")
        )
    }
}
