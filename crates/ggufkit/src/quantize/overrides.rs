//! The user's choices that override the preset: `--tensor-type PATTERN=TYPE` (and the files of
//! them), and `--override-kv KEY=TYPE:VALUE`.
#![forbid(unsafe_code)]

use regex::Regex;

use crate::error::QuantizeError;
use crate::types::GgmlType;
use crate::write::OwnedValue;

/// One `--tensor-type PATTERN=TYPE`: tensors whose name the pattern (a regular expression,
/// lower-cased as llama-quantize lower-cases it) matches anywhere get TYPE.
#[derive(Clone, Debug)]
pub struct TensorTypeOverride {
    /// The pattern as matched (lower case).
    pub pattern: String,
    /// The type it gives.
    pub ty: GgmlType,
    regex: Regex,
}

impl TensorTypeOverride {
    /// Parses `PATTERN=TYPE` (the pattern ends at the first `=`).
    pub fn parse(spec: &str) -> Result<Self, QuantizeError> {
        let bad = |problem: &str| QuantizeError::BadTensorType {
            spec: spec.to_string(),
            problem: problem.to_string(),
        };
        let (pattern, ty) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected PATTERN=TYPE"))?;
        if pattern.is_empty() {
            return Err(bad("missing tensor name pattern"));
        }
        if ty.is_empty() {
            return Err(bad("missing quantization type"));
        }
        let ty = GgmlType::parse(ty).map_err(|e| bad(&e.to_string()))?;
        let pattern = pattern.to_ascii_lowercase();
        let regex =
            Regex::new(&pattern).map_err(|e| bad(&format!("not a regular expression: {e}")))?;
        Ok(TensorTypeOverride { pattern, ty, regex })
    }

    /// Every `PATTERN=TYPE` of a `--tensor-type-file`: separated by white space (spaces or new
    /// lines), as llama-quantize reads them.
    pub fn parse_list(text: &str) -> Result<Vec<Self>, QuantizeError> {
        text.split_whitespace().map(Self::parse).collect()
    }

    /// Whether the pattern matches somewhere in `name`.
    pub fn matches(&self, name: &str) -> bool {
        self.regex.is_match(name)
    }
}

/// The type the first matching override gives `name`, with the override.
pub fn override_for<'o>(
    overrides: &'o [TensorTypeOverride],
    name: &str,
) -> Option<&'o TensorTypeOverride> {
    overrides.iter().find(|o| o.matches(name))
}

/// One `--override-kv KEY=TYPE:VALUE`, as the value llama-quantize writes: `int` as a uint32 of
/// the absolute value, `float` as float32, `bool` (`true`/`false`), `str` (at most 127 bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct KvOverride {
    /// The key.
    pub key: String,
    /// The value written.
    pub value: OwnedValue,
}

impl KvOverride {
    /// Parses `KEY=TYPE:VALUE`.
    pub fn parse(spec: &str) -> Result<Self, QuantizeError> {
        let bad = |problem: String| QuantizeError::BadOverride {
            spec: spec.to_string(),
            problem,
        };
        let (key, rest) = spec
            .split_once('=')
            .ok_or_else(|| bad("expected KEY=TYPE:VALUE".into()))?;
        if key.is_empty() || key.len() >= 128 {
            return Err(bad("the key must be 1 to 127 bytes".into()));
        }
        let (ty, v) = rest
            .split_once(':')
            .ok_or_else(|| bad("expected TYPE:VALUE after '='".into()))?;
        let value = match ty {
            "int" => {
                let i: i64 = v
                    .parse()
                    .map_err(|_| bad(format!("'{v}' is not an integer")))?;
                OwnedValue::U32(i.unsigned_abs() as u32)
            }
            "float" => OwnedValue::F32(
                v.parse::<f64>()
                    .map_err(|_| bad(format!("'{v}' is not a number")))? as f32,
            ),
            "bool" => OwnedValue::Bool(match v {
                "true" => true,
                "false" => false,
                _ => return Err(bad(format!("'{v}' is not true or false"))),
            }),
            "str" => {
                if v.len() > 127 {
                    return Err(bad("a string value is at most 127 bytes".into()));
                }
                OwnedValue::String(v.to_string())
            }
            other => {
                return Err(bad(format!(
                    "unknown type '{other}' (int, float, bool, str)"
                )))
            }
        };
        Ok(KvOverride {
            key: key.to_string(),
            value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_types() {
        let o = TensorTypeOverride::parse("Attn_Q=q8_0").unwrap();
        assert_eq!((o.pattern.as_str(), o.ty), ("attn_q", GgmlType::Q8_0));
        assert!(o.matches("blk.0.attn_q.weight"));
        assert!(!o.matches("blk.0.attn_k.weight"));
        let o = TensorTypeOverride::parse(r"blk\.[0-3]\.ffn_down=Q6_K").unwrap();
        assert!(o.matches("blk.2.ffn_down.weight"));
        assert!(!o.matches("blk.12.ffn_down.weight"));
        for bad in [
            "attn_q",
            "=q8_0",
            "attn_q=",
            "attn_q=q9_9",
            "(=q8_0",
            "x=q4_2",
        ] {
            assert!(TensorTypeOverride::parse(bad).is_err(), "{bad}");
        }
        let list = TensorTypeOverride::parse_list("a=q8_0 b=f16\nc=q4_k\n").unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(override_for(&list, "xbx").unwrap().ty, GgmlType::F16);
        assert!(override_for(&list, "zzz").is_none());
    }

    #[test]
    fn kv_overrides() {
        let k = KvOverride::parse("llama.block_count=int:-3").unwrap();
        assert_eq!(k.value, OwnedValue::U32(3));
        let k = KvOverride::parse("a.b=float:0.5").unwrap();
        assert_eq!(k.value, OwnedValue::F32(0.5));
        let k = KvOverride::parse("a.b=bool:true").unwrap();
        assert_eq!(k.value, OwnedValue::Bool(true));
        let k = KvOverride::parse("a.b=str:x=y:z").unwrap();
        assert_eq!(k.value, OwnedValue::String("x=y:z".into()));
        for bad in [
            "a.b",
            "a.b=int",
            "a.b=int:x",
            "a.b=bool:1",
            "a.b=u8:1",
            "=int:1",
        ] {
            assert!(KvOverride::parse(bad).is_err(), "{bad}");
        }
    }
}
