//! The preset rules: which type a quantizable tensor gets under a preset (the mixtures of
//! llama.cpp's `src/llama-quant.cpp`: more bits for the output, attn_v and some ffn_down layers,
//! fewer for others), and the shape fallback when a row is not a whole number of blocks.
//!
//! The rules keep counters (the how-many-th attn_v or ffn_down tensor this is), so they must see
//! the tensors in the loader's order ([`super::names::loader_order`]).
#![forbid(unsafe_code)]

use super::model::ModelInfo;
use super::names::{layer_of, Category};
use super::preset::Ftype;
use crate::error::QuantizeError;
use crate::types::GgmlType;

/// The state of the rules over one model: the preset, the model's hyperparameters and counters.
#[derive(Clone, Debug)]
pub struct Rules<'m> {
    ftype: Ftype,
    model: &'m ModelInfo,
    has_imatrix: bool,
    /// No `output.weight`: the token embeddings double as the output and follow its rule.
    tied_embeddings: bool,
    n_attention_wv: i32,
    n_layer: i32,
    i_attention_wv: i32,
    i_ffn_down: i32,
    i_ffn_gate: i32,
    i_ffn_up: i32,
}

/// llama.cpp's `use_more_bits`: the first and last eighth of the layers, and every third between.
pub fn use_more_bits(i_layer: i32, n_layers: i32) -> bool {
    i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2
}

impl<'m> Rules<'m> {
    /// Rules for a model whose tensors are named `names` (all of them, in any order).
    pub fn new<'n>(
        ftype: Ftype,
        model: &'m ModelInfo,
        has_imatrix: bool,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Self {
        let mut n_attention_wv = 0;
        let mut tied = true;
        for n in names {
            let c = Category::of(n);
            if c.is_attn_v() {
                n_attention_wv += 1;
            }
            if c == Category::Output {
                tied = false;
            }
        }
        Rules {
            ftype,
            model,
            has_imatrix,
            tied_embeddings: tied,
            n_attention_wv,
            n_layer: i32::try_from(model.n_layer).unwrap_or(i32::MAX),
            i_attention_wv: 0,
            i_ffn_down: 0,
            i_ffn_gate: 0,
            i_ffn_up: 0,
        }
    }

    /// Whether the token embeddings follow the output tensor's rule (no `output.weight`).
    pub fn tied_embeddings(&self) -> bool {
        self.tied_embeddings
    }

    /// The (layer, layer count) a per-layer rule uses: the running count of such tensors, or for
    /// a mixture of experts the layer in the name.
    fn layer_info(&self, counter: i32, name: &str) -> Result<(i32, i32), QuantizeError> {
        if self.model.n_expert <= 1 {
            return Ok((counter, self.n_layer));
        }
        let bad = |layer: Option<i32>| QuantizeError::BadLayer {
            tensor: name.to_string(),
            layer,
            n_layer: self.model.n_layer,
        };
        let l = layer_of(name).ok_or_else(|| bad(None))?;
        if l < 0 || l >= self.n_layer {
            return Err(bad(Some(l)));
        }
        Ok((l, self.n_layer))
    }

    /// The type the preset gives tensor `name` (of category `cat`, `ne0` wide, `ne2` experts),
    /// starting from `ty`, with the rule that changed it (`None`: the preset's type stands).
    /// `output_type` is `--output-tensor-type`, which the tied token embeddings also follow.
    pub fn choose(
        &mut self,
        name: &str,
        cat: Category,
        ne0: u64,
        ne2: u64,
        ty: GgmlType,
        output_type: Option<GgmlType>,
    ) -> Result<(GgmlType, Option<&'static str>), QuantizeError> {
        use Ftype as F;
        use GgmlType as T;
        let ft = self.ftype;
        let m = self.model;
        let gqa = m.n_gqa();
        let is = |list: &[Ftype]| list.contains(&ft);
        let mut new = ty;
        let mut why: Option<&'static str> = None;
        let mut set = |t: GgmlType, rule: &'static str, new: &mut GgmlType| {
            *new = t;
            why = Some(rule);
        };
        let low_iq = [
            F::IQ2_XXS,
            F::IQ2_XS,
            F::IQ1_S,
            F::IQ2_S,
            F::IQ2_M,
            F::IQ1_M,
        ];

        if cat == Category::Output || (self.tied_embeddings && cat == Category::TokenEmbedding) {
            if let Some(t) = output_type {
                set(t, "--output-tensor-type", &mut new);
            } else if ft == F::MXFP4_MOE {
                set(T::Q8_0, "output tensor of MXFP4_MOE", &mut new);
            } else if m.is_falcon() {
                set(T::Q8_0, "output tensor of Falcon", &mut new);
            } else if ne0 % ty.block_size() != 0 {
                set(
                    T::Q8_0,
                    "output tensor whose rows do not fit the type",
                    &mut new,
                );
            } else if is(&[
                F::IQ2_XXS,
                F::IQ2_XS,
                F::IQ3_XXS,
                F::IQ1_S,
                F::IQ2_S,
                F::IQ2_M,
                F::IQ1_M,
            ]) {
                set(T::Q5_K, "output tensor of a low-bit i-quant", &mut new);
            } else if ty != T::Q8_0 {
                set(T::Q6_K, "output tensor", &mut new);
            }
            if why.is_some() && cat == Category::TokenEmbedding {
                why = Some(match why {
                    Some("--output-tensor-type") => "--output-tensor-type (tied embeddings)",
                    _ => "tied embeddings follow the output tensor",
                });
            }
        } else if ft == F::MXFP4_MOE {
            let bailing_expert = m.arch == "bailingmoe3"
                && matches!(cat, Category::FfnUp | Category::FfnGate | Category::FfnDown);
            if ne2 > 1 && (m.arch != "bailingmoe3" || bailing_expert) {
                set(T::MXFP4, "expert tensor of MXFP4_MOE", &mut new);
            } else {
                set(T::Q8_0, "non-expert tensor of MXFP4_MOE", &mut new);
            }
        } else if cat == Category::TokenEmbedding {
            if is(&[F::IQ2_XXS, F::IQ2_XS, F::IQ1_S, F::IQ1_M]) {
                set(T::Q2_K, "token embeddings of a low-bit i-quant", &mut new);
            } else if is(&[F::IQ2_S, F::IQ2_M, F::IQ3_XXS]) {
                set(T::IQ3_S, "token embeddings of a low-bit i-quant", &mut new);
            } else if is(&[F::TQ1_0, F::TQ2_0, F::Q2_0]) {
                set(
                    T::Q4_K,
                    "token embeddings of a ternary/2-bit preset",
                    &mut new,
                );
            }
        } else if is(&low_iq) {
            let iq2_s_m = is(&[F::IQ2_S, F::IQ2_M]);
            if cat.is_attn_v() {
                if gqa >= 4 || m.n_expert >= 4 {
                    set(T::Q4_K, "attn_v with GQA >= 4 or >= 4 experts", &mut new);
                } else if iq2_s_m {
                    set(T::IQ3_S, "attn_v", &mut new);
                } else {
                    set(T::Q2_K, "attn_v", &mut new);
                }
                self.i_attention_wv += 1;
            } else if m.n_expert == 8 && cat == Category::AttentionK {
                set(T::Q4_K, "attn_k of an 8-expert model", &mut new);
            } else if cat == Category::FfnDown {
                if self.i_ffn_down < self.n_layer / 8 {
                    let t = if iq2_s_m { T::IQ3_S } else { T::Q2_K };
                    set(t, "ffn_down of the first eighth of the layers", &mut new);
                }
                self.i_ffn_down += 1;
            } else if cat == Category::AttentionOutput {
                if m.n_expert == 8 {
                    set(T::Q5_K, "attn_output of an 8-expert model", &mut new);
                } else if is(&[F::IQ1_S, F::IQ1_M]) {
                    set(T::IQ2_XXS, "attn_output", &mut new);
                } else if iq2_s_m {
                    set(T::IQ3_S, "attn_output", &mut new);
                }
            }
        } else if cat.is_attn_v() {
            let i = self.i_attention_wv;
            if ft == F::Q2_K {
                let t = if gqa >= 4 { T::Q4_K } else { T::Q3_K };
                set(t, "attn_v", &mut new);
            } else if ft == F::Q2_K_S && gqa >= 4 {
                set(T::Q4_K, "attn_v with GQA >= 4", &mut new);
            } else if ft == F::IQ3_XXS {
                let t = if gqa >= 4 {
                    T::Q4_K
                } else if !self.has_imatrix {
                    T::IQ3_S
                } else {
                    T::IQ3_XXS
                };
                set(t, "attn_v", &mut new);
            } else if is(&[F::IQ3_XS, F::IQ3_S]) && gqa >= 4 {
                set(T::Q4_K, "attn_v with GQA >= 4", &mut new);
            } else if ft == F::IQ3_M {
                set(T::Q4_K, "attn_v", &mut new);
            } else if ft == F::Q3_K_M {
                let t = if i < 2 { T::Q5_K } else { T::Q4_K };
                set(t, "attn_v", &mut new);
            } else if ft == F::Q3_K_L {
                set(T::Q5_K, "attn_v", &mut new);
            } else if is(&[F::IQ4_NL, F::IQ4_XS]) && gqa >= 4 {
                set(T::Q5_K, "attn_v with GQA >= 4", &mut new);
            } else if is(&[F::Q4_K_M, F::Q5_K_M]) && use_more_bits(i, self.n_attention_wv) {
                set(T::Q6_K, "attn_v in a use_more_bits layer", &mut new);
            } else if ft == F::Q4_K_S && i < 4 {
                set(T::Q5_K, "attn_v of the first 4 layers", &mut new);
            }
            if m.is_llama_70b() && matches!(new, T::Q3_K | T::Q4_K) {
                set(T::Q5_K, "attn_v of a 70B Llama", &mut new);
            }
            if m.n_expert == 8 {
                set(T::Q8_0, "attn_v of an 8-expert model", &mut new);
            }
            self.i_attention_wv += 1;
        } else if cat == Category::AttentionK {
            if m.n_expert == 8 {
                set(T::Q8_0, "attn_k of an 8-expert model", &mut new);
            } else if ft == F::IQ3_XS {
                set(T::IQ3_XXS, "attn_k", &mut new);
            } else if ft == F::IQ3_XXS {
                set(T::IQ2_S, "attn_k", &mut new);
            }
        } else if cat == Category::AttentionQ {
            if ft == F::IQ3_XS {
                set(T::IQ3_XXS, "attn_q", &mut new);
            } else if ft == F::IQ3_XXS {
                set(T::IQ2_S, "attn_q", &mut new);
            }
        } else if cat == Category::FfnDown {
            let (il, nl) = self.layer_info(self.i_ffn_down, name)?;
            let falcon = m.is_falcon();
            let first_8th = il < nl / 8;
            if ft == F::Q2_K {
                set(T::Q3_K, "ffn_down", &mut new);
            } else if ft == F::Q2_K_S {
                if first_8th {
                    set(
                        T::Q4_K,
                        "ffn_down of the first eighth of the layers",
                        &mut new,
                    );
                }
            } else if ft == F::IQ3_XXS && !self.has_imatrix {
                if first_8th {
                    set(
                        T::Q4_K,
                        "ffn_down of the first eighth, no imatrix",
                        &mut new,
                    );
                } else {
                    set(T::Q3_K, "ffn_down without an imatrix", &mut new);
                }
            } else if ft == F::Q3_K_M {
                if il < nl / 16 {
                    set(
                        T::Q5_K,
                        "ffn_down of the first sixteenth of the layers",
                        &mut new,
                    );
                } else if !falcon || use_more_bits(il, nl) {
                    set(T::Q4_K, "ffn_down", &mut new);
                } else {
                    set(T::Q3_K, "ffn_down of Falcon", &mut new);
                }
            } else if ft == F::IQ3_M && (first_8th || (m.n_expert == 8 && use_more_bits(il, nl))) {
                set(T::Q4_K, "ffn_down in a use_more_bits layer", &mut new);
            } else if ft == F::Q3_K_L {
                set(if falcon { T::Q4_K } else { T::Q5_K }, "ffn_down", &mut new);
            } else if ft == F::Q4_K_M {
                if falcon {
                    if il < nl / 16 {
                        set(T::Q6_K, "ffn_down of Falcon's first sixteenth", &mut new);
                    } else if use_more_bits(il, nl) {
                        set(
                            T::Q5_K,
                            "ffn_down of Falcon in a use_more_bits layer",
                            &mut new,
                        );
                    } else {
                        set(T::Q4_K, "ffn_down of Falcon", &mut new);
                    }
                } else if use_more_bits(il, nl) {
                    set(T::Q6_K, "ffn_down in a use_more_bits layer", &mut new);
                }
            } else if first_8th && is(&[F::IQ4_NL, F::IQ4_XS]) && !self.has_imatrix {
                set(
                    T::Q5_K,
                    "ffn_down of the first eighth, no imatrix",
                    &mut new,
                );
            } else if ft == F::Q5_K_M && use_more_bits(il, nl) {
                set(T::Q6_K, "ffn_down in a use_more_bits layer", &mut new);
            } else if ft == F::Q4_K_S && !falcon && first_8th {
                set(
                    T::Q5_K,
                    "ffn_down of the first eighth of the layers",
                    &mut new,
                );
            } else if is(&[F::Q4_0, F::Q5_0]) && self.has_imatrix && first_8th {
                let t = if ft == F::Q4_0 { T::Q4_1 } else { T::Q5_1 };
                set(t, "ffn_down of the first eighth, with an imatrix", &mut new);
            }
            self.i_ffn_down += 1;
        } else if cat == Category::AttentionOutput {
            if !m.is_falcon() {
                if m.n_expert == 8 {
                    if is(&[
                        F::Q2_K,
                        F::IQ3_XS,
                        F::IQ3_XXS,
                        F::Q3_K_S,
                        F::Q3_K_M,
                        F::IQ4_NL,
                        F::Q4_K_S,
                        F::Q4_K_M,
                        F::IQ3_S,
                        F::IQ3_M,
                        F::IQ4_XS,
                    ]) {
                        set(T::Q5_K, "attn_output of an 8-expert model", &mut new);
                    }
                } else if ft == F::Q2_K {
                    set(T::Q3_K, "attn_output", &mut new);
                } else if ft == F::IQ3_XXS {
                    set(T::IQ3_S, "attn_output", &mut new);
                } else if ft == F::Q3_K_M || ft == F::IQ3_M {
                    set(T::Q4_K, "attn_output", &mut new);
                } else if ft == F::Q3_K_L {
                    set(T::Q5_K, "attn_output", &mut new);
                }
            } else if ft == F::Q3_K_L {
                set(T::Q4_K, "attn_output of Falcon", &mut new);
            }
        } else if cat == Category::AttentionQkv {
            if is(&[F::Q3_K_M, F::Q3_K_L, F::IQ3_M]) {
                set(T::Q4_K, "attn_qkv", &mut new);
            } else if ft == F::Q4_K_M {
                set(T::Q5_K, "attn_qkv", &mut new);
            } else if ft == F::Q5_K_M {
                set(T::Q6_K, "attn_qkv", &mut new);
            }
        } else if cat == Category::FfnGate || cat == Category::FfnUp {
            let counter = if cat == Category::FfnGate {
                self.i_ffn_gate
            } else {
                self.i_ffn_up
            };
            let (il, nl) = self.layer_info(counter, name)?;
            if ft == F::IQ3_XS && il >= nl / 8 && il < 7 * nl / 8 {
                let rule = if cat == Category::FfnGate {
                    "ffn_gate of the middle layers"
                } else {
                    "ffn_up of the middle layers"
                };
                set(T::IQ3_XXS, rule, &mut new);
            }
            if cat == Category::FfnGate {
                self.i_ffn_gate += 1;
            } else {
                self.i_ffn_up += 1;
            }
        }
        Ok((new, why))
    }
}

/// The type llama-quantize substitutes for `ty` when a row of `ne0` values is not a whole number
/// of `ty`'s blocks: `Ok(None)` when it fits; the 32-wide relative of a 256-block type (q4_k ->
/// q5_0, q5_k -> q5_1, q6_k -> q8_0, q2_k/q3_k/tq*/q2_0 -> q4_0, iq* -> iq4_nl); f16 when that
/// does not fit either or `ty` has blocks of 32 or fewer; an error naming tensor `name` for the
/// other types (q1_0, nvfp4), which have no fallback.
pub fn fallback(name: &str, ty: GgmlType, ne0: u64) -> Result<Option<GgmlType>, QuantizeError> {
    use GgmlType as T;
    let fits = |t: GgmlType| t.block_size() != 0 && ne0 % t.block_size() == 0;
    if fits(ty) {
        return Ok(None);
    }
    let to = match ty {
        T::IQ1_S
        | T::IQ1_M
        | T::IQ2_XXS
        | T::IQ2_XS
        | T::IQ2_S
        | T::IQ3_XXS
        | T::IQ3_S
        | T::IQ4_XS => Some(T::IQ4_NL),
        T::Q2_0 | T::Q2_K | T::Q3_K | T::TQ1_0 | T::TQ2_0 => Some(T::Q4_0),
        T::Q4_K => Some(T::Q5_0),
        T::Q5_K => Some(T::Q5_1),
        T::Q6_K => Some(T::Q8_0),
        t if t.block_size() != 0 && t.block_size() <= 32 => None,
        t => {
            return Err(QuantizeError::NoFallback {
                tensor: name.to_string(),
                ty: t,
                ne0,
            })
        }
    };
    Ok(Some(match to {
        Some(t) if fits(t) => t,
        _ => T::F16,
    }))
}

/// Whether llama-quantize refuses to make tensor `name` of type `ty` without an importance
/// matrix (the 1-2 bit i-quants, iq3_xxs, and q2_k in a Q2_K_S file; never the embeddings or
/// the output).
pub fn requires_imatrix(name: &str, ty: GgmlType, ftype: Ftype) -> bool {
    use GgmlType as T;
    if super::names::is_token_embedding(name) || super::names::is_output(name) {
        return false;
    }
    match ty {
        T::IQ3_XXS | T::IQ2_XXS | T::IQ2_XS | T::IQ2_S | T::IQ1_M | T::IQ1_S => true,
        T::Q2_K => ftype == Ftype::Q2_K_S,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use GgmlType as T;

    fn llama(n_layer: u32, n_head: u32, n_head_kv: u32, n_expert: u32) -> ModelInfo {
        ModelInfo {
            arch: "llama".into(),
            n_layer,
            n_head,
            n_head_kv,
            n_expert,
        }
    }

    #[test]
    fn more_bits_layers() {
        let picked: Vec<i32> = (0..32).filter(|&i| use_more_bits(i, 32)).collect();
        assert_eq!(
            picked,
            [0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]
        );
    }

    #[test]
    fn fallbacks() {
        assert_eq!(fallback("t", T::Q4_K, 640).unwrap(), Some(T::Q5_0));
        assert_eq!(fallback("t", T::Q5_K, 640).unwrap(), Some(T::Q5_1));
        assert_eq!(fallback("t", T::Q6_K, 640).unwrap(), Some(T::Q8_0));
        assert_eq!(fallback("t", T::Q2_K, 640).unwrap(), Some(T::Q4_0));
        assert_eq!(fallback("t", T::Q3_K, 640).unwrap(), Some(T::Q4_0));
        assert_eq!(fallback("t", T::IQ2_XXS, 640).unwrap(), Some(T::IQ4_NL));
        assert_eq!(fallback("t", T::IQ4_XS, 640).unwrap(), Some(T::IQ4_NL));
        assert_eq!(fallback("t", T::Q4_K, 1024).unwrap(), None);
        // not even 32 wide: f16
        assert_eq!(fallback("t", T::Q4_K, 8).unwrap(), Some(T::F16));
        assert_eq!(fallback("t", T::Q4_0, 8).unwrap(), Some(T::F16));
        assert_eq!(fallback("t", T::Q8_0, 48).unwrap(), Some(T::F16));
        assert_eq!(fallback("t", T::F16, 7).unwrap(), None);
        assert!(matches!(
            fallback("t", T::Q1_0, 64),
            Err(QuantizeError::NoFallback { ty: T::Q1_0, .. })
        ));
    }

    #[test]
    fn q4_k_m_mixture() {
        let m = llama(32, 32, 8, 0);
        let names: Vec<String> = (0..32)
            .flat_map(|l| {
                [
                    format!("blk.{l}.attn_v.weight"),
                    format!("blk.{l}.ffn_down.weight"),
                ]
            })
            .chain(["output.weight".to_string()])
            .collect();
        let mut r = Rules::new(Ftype::Q4_K_M, &m, false, names.iter().map(|s| s.as_str()));
        assert!(!r.tied_embeddings());
        let mut v6 = 0;
        let mut d6 = 0;
        for l in 0..32 {
            let (t, _) = r
                .choose(
                    &format!("blk.{l}.attn_v.weight"),
                    Category::AttentionV,
                    4096,
                    1,
                    T::Q4_K,
                    None,
                )
                .unwrap();
            v6 += usize::from(t == T::Q6_K);
            assert_eq!(t == T::Q6_K, use_more_bits(l, 32), "attn_v {l}");
            let (t, _) = r
                .choose(
                    &format!("blk.{l}.ffn_down.weight"),
                    Category::FfnDown,
                    4096,
                    1,
                    T::Q4_K,
                    None,
                )
                .unwrap();
            d6 += usize::from(t == T::Q6_K);
        }
        assert_eq!((v6, d6), (16, 16));
        let (t, why) = r
            .choose("output.weight", Category::Output, 4096, 1, T::Q4_K, None)
            .unwrap();
        assert_eq!((t, why), (T::Q6_K, Some("output tensor")));
        let (t, _) = r
            .choose(
                "token_embd.weight",
                Category::TokenEmbedding,
                4096,
                1,
                T::Q4_K,
                None,
            )
            .unwrap();
        assert_eq!(t, T::Q4_K, "untied embeddings keep the preset's type");
    }

    #[test]
    fn gqa_experts_and_arch_rules() {
        // Q2_K: attn_v q4_k with GQA >= 4, q3_k without
        for (kv, want) in [(8, T::Q4_K), (32, T::Q3_K)] {
            let m = llama(32, 32, kv, 0);
            let mut r = Rules::new(Ftype::Q2_K, &m, false, ["blk.0.attn_v.weight"]);
            let (t, _) = r
                .choose(
                    "blk.0.attn_v.weight",
                    Category::AttentionV,
                    4096,
                    1,
                    T::Q2_K,
                    None,
                )
                .unwrap();
            assert_eq!(t, want);
        }
        // 70B Llama: q3_k/q4_k attn_v become q5_k
        let m = llama(80, 64, 8, 0);
        let mut r = Rules::new(Ftype::Q2_K, &m, false, ["blk.0.attn_v.weight"]);
        let (t, why) = r
            .choose(
                "blk.0.attn_v.weight",
                Category::AttentionV,
                8192,
                1,
                T::Q2_K,
                None,
            )
            .unwrap();
        assert_eq!((t, why), (T::Q5_K, Some("attn_v of a 70B Llama")));
        // 8 experts: attn_v and attn_k q8_0; the layer of ffn_down comes from the name
        let m = llama(32, 32, 8, 8);
        let mut r = Rules::new(Ftype::Q4_K_M, &m, false, ["blk.0.attn_v.weight"]);
        let (t, _) = r
            .choose(
                "blk.0.attn_v.weight",
                Category::AttentionV,
                4096,
                1,
                T::Q4_K,
                None,
            )
            .unwrap();
        assert_eq!(t, T::Q8_0);
        let (t, _) = r
            .choose(
                "blk.0.attn_k.weight",
                Category::AttentionK,
                4096,
                1,
                T::Q4_K,
                None,
            )
            .unwrap();
        assert_eq!(t, T::Q8_0);
        let (t, _) = r
            .choose(
                "blk.5.ffn_down_exps.weight",
                Category::FfnDown,
                4096,
                8,
                T::Q4_K,
                None,
            )
            .unwrap();
        assert_eq!(t, T::Q4_K, "layer 5 of 32 is not a use_more_bits layer");
        let e = r
            .choose(
                "blk.40.ffn_down_exps.weight",
                Category::FfnDown,
                4096,
                8,
                T::Q4_K,
                None,
            )
            .unwrap_err();
        assert!(
            matches!(
                e,
                QuantizeError::BadLayer {
                    layer: Some(40),
                    ..
                }
            ),
            "{e}"
        );
        // Falcon's output is q8_0
        let m = ModelInfo {
            arch: "falcon".into(),
            ..llama(32, 32, 8, 0)
        };
        let mut r = Rules::new(Ftype::Q4_K_M, &m, false, ["output.weight"]);
        let (t, _) = r
            .choose("output.weight", Category::Output, 4096, 1, T::Q4_K, None)
            .unwrap();
        assert_eq!(t, T::Q8_0);
        // MXFP4_MOE: experts mxfp4, the rest q8_0
        let m = llama(32, 32, 8, 8);
        let mut r = Rules::new(Ftype::MXFP4_MOE, &m, false, ["output.weight"]);
        let (t, _) = r
            .choose(
                "blk.0.ffn_up_exps.weight",
                Category::FfnUp,
                4096,
                8,
                T::MXFP4,
                None,
            )
            .unwrap();
        assert_eq!(t, T::MXFP4);
        let (t, _) = r
            .choose(
                "blk.0.attn_q.weight",
                Category::AttentionQ,
                4096,
                1,
                T::MXFP4,
                None,
            )
            .unwrap();
        assert_eq!(t, T::Q8_0);
    }

    #[test]
    fn imatrix_requirements() {
        assert!(requires_imatrix(
            "blk.0.attn_q.weight",
            T::IQ2_XXS,
            Ftype::IQ2_XXS
        ));
        assert!(!requires_imatrix(
            "token_embd.weight",
            T::IQ2_XXS,
            Ftype::IQ2_XXS
        ));
        assert!(requires_imatrix(
            "blk.0.attn_q.weight",
            T::Q2_K,
            Ftype::Q2_K_S
        ));
        assert!(!requires_imatrix(
            "blk.0.attn_q.weight",
            T::Q2_K,
            Ftype::Q2_K
        ));
        assert!(!requires_imatrix(
            "blk.0.attn_q.weight",
            T::IQ3_S,
            Ftype::IQ3_S
        ));
    }
}
