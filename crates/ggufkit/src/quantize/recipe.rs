//! A quantized file's recipe: the type of each tensor llama-quantize would quantize, rendered as a
//! `--tensor-type-file` whose patterns name each tensor exactly, so that quantizing the same
//! source with it reproduces the file's types; and the presets whose own rules give that mix.
#![forbid(unsafe_code)]

use std::collections::HashMap;

use super::model::ModelInfo;
use super::names::quantizable;
use super::plan::{plan_tensors, Importance, QuantizeOptions, TensorDesc};
use super::preset::Preset;
use crate::error::QuantizeError;
use crate::read::Gguf;
use crate::types::GgmlType;

/// One line of a recipe: a tensor and its type in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeEntry {
    /// The tensor's name.
    pub name: String,
    /// Its type in the file.
    pub ty: GgmlType,
}

impl RecipeEntry {
    /// `PATTERN=TYPE` for this tensor alone (see [`exact_pattern`]).
    pub fn spec(&self) -> String {
        format!("{}={}", exact_pattern(&self.name), self.ty)
    }
}

/// A preset whose rules, over the file's tensors and hyperparameters, give every tensor the
/// file's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresetMatch {
    /// The preset (aliases folded into the full name: `Q4_K_M`, not `Q4_K`).
    pub preset: Preset,
    /// Whether the rules give the mix without an importance matrix.
    pub without_imatrix: bool,
    /// Whether the rules give the mix with one (some rules depend on it).
    pub with_imatrix: bool,
}

/// A file's type mix as llama-quantize's options can restate it.
#[derive(Clone, Debug)]
pub struct Recipe {
    /// Every tensor llama-quantize would quantize (2-D or more weights, not the never-quantized
    /// names), in file order, with its type. The other tensors are copied as they are.
    pub tensors: Vec<RecipeEntry>,
    /// The file's `general.file_type`.
    pub file_type: Option<u32>,
    /// The presets that give this mix, in llama-quantize's order.
    pub matches: Vec<PresetMatch>,
}

impl Recipe {
    /// The recipe of `g`: its quantizable tensors' types, and the presets that match. A tensor
    /// of a type this build cannot size is refused, and so is one shard of a model split in
    /// several ([`QuantizeError::SplitShard`]: its recipe would be part of the model's).
    pub fn of(g: &Gguf<'_>) -> crate::Result<Recipe> {
        let count = g.get_u32(crate::shard::SPLIT_COUNT).unwrap_or(1);
        if count > 1 {
            let no = g.get_u32(crate::shard::SPLIT_NO).unwrap_or(0);
            return Err(QuantizeError::SplitShard { no, count }.into());
        }
        let (descs, file_type) = super::plan::tensors_of(g.into())?;
        Ok(Recipe::of_tensors(&descs, &ModelInfo::of(g), file_type))
    }

    /// The recipe of tensors `descs` (their types as in the file) of a model `model`. Without a
    /// quantizable tensor (a vocabulary-only file) every preset would match, so none is said to.
    pub fn of_tensors(descs: &[TensorDesc], model: &ModelInfo, file_type: Option<u32>) -> Recipe {
        let tensors: Vec<RecipeEntry> = descs
            .iter()
            .filter(|d| quantizable(&d.name, &d.shape, false, false).is_ok())
            .map(|d| RecipeEntry {
                name: d.name.clone(),
                ty: d.ty,
            })
            .collect();
        let matches = if tensors.is_empty() {
            Vec::new()
        } else {
            matching_presets(descs, model, file_type)
        };
        Recipe {
            tensors,
            file_type,
            matches,
        }
    }

    /// The preset to quantize with: the matching one whose file type is the file's, else the
    /// first match.
    pub fn preset(&self) -> Option<&PresetMatch> {
        self.matches
            .iter()
            .find(|m| Some(m.preset.ftype.id()) == self.file_type)
            .or_else(|| self.matches.first())
    }

    /// The preset to quantize with so that the output also declares the file's
    /// `general.file_type`: [`Recipe::preset`]'s, else the preset of the file's type (`None`
    /// without one). A preset of unquantized type (F16, BF16, F32) applies no `--tensor-type`.
    pub fn preset_to_use(&self) -> Option<Preset> {
        if let Some(m) = self.preset() {
            return Some(m.preset);
        }
        let id = self.file_type?;
        Preset::all()
            .filter(|p| !p.only_copy && p.ftype.id() == id)
            .last()
    }

    /// The `--tensor-type-file` text: one `PATTERN=TYPE` per line, in file order.
    pub fn to_tensor_type_file(&self) -> String {
        let mut out = String::new();
        for e in &self.tensors {
            out.push_str(&e.spec());
            out.push('\n');
        }
        out
    }

    /// Tensor count per type, in type order.
    pub fn type_counts(&self) -> Vec<(GgmlType, usize)> {
        let mut m: std::collections::BTreeMap<GgmlType, usize> = Default::default();
        for e in &self.tensors {
            *m.entry(e.ty).or_default() += 1;
        }
        m.into_iter().collect()
    }
}

/// A `--tensor-type` pattern that matches `name` and nothing else: anchored, regex
/// metacharacters escaped, and the characters the option's parser would change or split on
/// (upper case, which it lower-cases; white space; `=`) written as `\xHH` / `\uHHHH` escapes,
/// which both Rust's and ECMAScript's regular expressions read.
pub fn exact_pattern(name: &str) -> String {
    let mut p = String::with_capacity(name.len() + 8);
    p.push('^');
    for c in name.chars() {
        if c.is_ascii_uppercase() || c.is_ascii_whitespace() || c == '=' || c.is_ascii_control() {
            p.push_str(&format!("\\x{:02x}", c as u32));
        } else if c.is_whitespace() && (c as u32) <= 0xffff {
            p.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            let mut buf = [0u8; 4];
            p.push_str(&regex::escape(c.encode_utf8(&mut buf)));
        }
    }
    p.push('$');
    p
}

/// Every preset (but `COPY`; aliases folded) whose plan gives each tensor of `descs` its type.
fn matching_presets(
    descs: &[TensorDesc],
    model: &ModelInfo,
    file_type: Option<u32>,
) -> Vec<PresetMatch> {
    let have: HashMap<&str, GgmlType> = descs.iter().map(|d| (d.name.as_str(), d.ty)).collect();
    // the last name listed for a file type is its full name (Q4_K_M after the alias Q4_K)
    let mut presets: Vec<Preset> = Vec::new();
    for p in Preset::all().filter(|p| !p.only_copy) {
        match presets.iter_mut().find(|q| q.ftype == p.ftype) {
            Some(q) => *q = p,
            None => presets.push(p),
        }
    }
    let gives_mix = |preset: Preset, imatrix: bool| {
        let mut opts = QuantizeOptions::new(preset);
        if imatrix {
            // the rules only ask whether there is one
            opts.importance = Some(Importance::new());
        }
        plan_tensors(descs, model, file_type, &opts).is_ok_and(|plan| {
            plan.tensors
                .iter()
                .all(|t| have.get(t.source_name.as_str()) == Some(&t.to))
        })
    };
    presets
        .into_iter()
        .filter_map(|preset| {
            let without_imatrix = gives_mix(preset, false);
            let with_imatrix = gives_mix(preset, true);
            (without_imatrix || with_imatrix).then_some(PresetMatch {
                preset,
                without_imatrix,
                with_imatrix,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantize::TensorTypeOverride;

    #[test]
    fn exact_patterns_match_only_their_name() {
        let names = [
            "blk.0.attn_q.weight",
            "blk.10.ffn_down.weight",
            "token_embd.weight",
            "Weird Name=x(y)+[z].weight",
            "ütf.ünïcode\u{00a0}weight",
        ];
        for n in names {
            let o = TensorTypeOverride::parse(&format!("{}=q8_0", exact_pattern(n))).unwrap();
            for m in names {
                assert_eq!(o.matches(m), m == n, "{n} vs {m}");
            }
            assert!(!o.matches(&format!("x{n}")));
            assert!(!o.matches(&format!("{n}x")));
            assert!(!exact_pattern(n).contains(char::is_whitespace));
        }
        assert_eq!(
            exact_pattern("blk.1.attn_k.weight"),
            r"^blk\.1\.attn_k\.weight$"
        );
    }

    fn desc(index: usize, name: &str, ty: GgmlType, shape: &[u64]) -> TensorDesc {
        TensorDesc {
            shard: 0,
            index,
            offset: 0,
            name: name.into(),
            ty,
            shape: shape.to_vec(),
        }
    }

    #[test]
    fn recipes_list_the_quantizable_tensors_and_find_the_preset() {
        let model = ModelInfo {
            arch: "llama".into(),
            n_layer: 1,
            n_head: 2,
            n_head_kv: 2,
            n_expert: 0,
        };
        let descs = [
            desc(0, "token_embd.weight", GgmlType::Q8_0, &[256, 8]),
            desc(1, "blk.0.attn_norm.weight", GgmlType::F32, &[256]),
            desc(2, "blk.0.attn_q.weight", GgmlType::Q8_0, &[256, 256]),
            desc(3, "output.weight", GgmlType::Q8_0, &[256, 8]),
        ];
        let r = Recipe::of_tensors(&descs, &model, Some(7));
        assert_eq!(r.tensors.len(), 3);
        assert!(r.tensors.iter().all(|e| e.ty == GgmlType::Q8_0));
        let p = r.preset().unwrap();
        assert_eq!(p.preset.name, "Q8_0");
        assert!(p.without_imatrix && p.with_imatrix);
        assert_eq!(r.type_counts(), [(GgmlType::Q8_0, 3)]);
        let text = r.to_tensor_type_file();
        let list = TensorTypeOverride::parse_list(&text).unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(list[1].pattern, r"^blk\.0\.attn_q\.weight$");
        // a mix no preset gives
        let mut odd = descs.clone();
        odd[2].ty = GgmlType::Q4_1;
        let r = Recipe::of_tensors(&odd, &model, Some(7));
        assert!(r.matches.is_empty());
        assert!(r.preset().is_none());
    }
}
