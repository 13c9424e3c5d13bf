//! Turning `meta set`'s VALUE text (and `--type`) into a metadata value.
//!
//! Type names: `uint8 int8 uint16 int16 uint32 int32 float32 bool string uint64 int64 float64`
//! (short forms `u8 i32 f32 str` ... too), `array` (element type inferred from the JSON), and
//! `array[T]` for an array whose elements have type T, nested as deep as wanted:
//! `array[array[int8]]`. Arrays are written as JSON; the elements of `array[array]` may also be
//! objects shaped like `gguf dump --json` prints them: `{"element_type": "int8", "value": [1, 2]}`.
//! Floats accept `nan`, `inf` and `-inf` (as JSON strings inside arrays).

use ggufkit::write::{OwnedArray, OwnedValue};
use ggufkit::ValueType;
use serde_json::Value as Json;

/// A `--type` argument: a scalar type, or an array whose element type may be left open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeSpec {
    Scalar(ValueType),
    /// `array` (None: inferred) or `array[T]`.
    Array(Option<Box<TypeSpec>>),
}

impl TypeSpec {
    pub fn parse(s: &str) -> Result<TypeSpec, String> {
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        if lower == "array" {
            return Ok(TypeSpec::Array(None));
        }
        if let Some(inner) = lower
            .strip_prefix("array[")
            .and_then(|r| r.strip_suffix(']'))
        {
            return Ok(TypeSpec::Array(Some(Box::new(TypeSpec::parse(inner)?))));
        }
        match ValueType::from_name(&lower) {
            Some(ValueType::Array) | None => Err(format!(
                "unknown type '{s}': expected one of uint8 int8 uint16 int16 uint32 int32 float32 \
                 bool string uint64 int64 float64, 'array' or 'array[TYPE]'"
            )),
            Some(v) => Ok(TypeSpec::Scalar(v)),
        }
    }

    /// The spec describing an existing value's type (arrays: their element type, recursively
    /// open for arrays of arrays, whose inner types may differ).
    pub fn of(v: &ggufkit::Value<'_>) -> TypeSpec {
        match v {
            ggufkit::Value::Array(a) => match a.element_type() {
                ValueType::Array => TypeSpec::Array(Some(Box::new(TypeSpec::Array(None)))),
                t => TypeSpec::Array(Some(Box::new(TypeSpec::Scalar(t)))),
            },
            v => TypeSpec::Scalar(v.value_type()),
        }
    }
}

/// Parses `text` as a value of type `spec`; with no spec, infers one (see [`infer`]).
pub fn parse_value(text: &str, spec: Option<&TypeSpec>) -> Result<OwnedValue, String> {
    match spec {
        None => infer(text),
        Some(TypeSpec::Scalar(t)) => scalar_from_text(text, *t),
        Some(TypeSpec::Array(elem)) => {
            let j: Json = serde_json::from_str(text)
                .map_err(|e| format!("'{text}' is not a JSON array: {e}"))?;
            array_from_json(&j, elem.as_deref())
        }
    }
}

/// The type a new key gets when `--type` is not given: `true`/`false` are bool, a JSON array is an
/// array (element type inferred), an integer is int32 (int64, then uint64 when it does not fit), a
/// number with a fraction or exponent (or nan/inf) is float32, anything else is a string.
pub fn infer(text: &str) -> Result<OwnedValue, String> {
    let t = text.trim();
    if t == "true" || t == "false" {
        return Ok(OwnedValue::Bool(t == "true"));
    }
    if t.starts_with('[') {
        if let Ok(j) = serde_json::from_str::<Json>(t) {
            return array_from_json(&j, None);
        }
    }
    if let Some(v) = infer_integer(t) {
        return Ok(v);
    }
    let numeric = t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c))
        && t.chars().any(|c| c.is_ascii_digit());
    let special = matches!(t.to_ascii_lowercase().as_str(), "nan" | "inf" | "-inf");
    if numeric || special {
        if let Ok(f) = t.parse::<f32>() {
            return Ok(OwnedValue::F32(f));
        }
    }
    Ok(OwnedValue::String(text.to_string()))
}

fn infer_integer(t: &str) -> Option<OwnedValue> {
    if let Ok(v) = t.parse::<i32>() {
        return Some(OwnedValue::I32(v));
    }
    if let Ok(v) = t.parse::<i64>() {
        return Some(OwnedValue::I64(v));
    }
    t.parse::<u64>().ok().map(OwnedValue::U64)
}

fn int_err(text: &str, t: ValueType) -> String {
    format!("'{text}' is not a {t} (an integer in its range)")
}

/// A scalar from command-line text.
pub fn scalar_from_text(text: &str, t: ValueType) -> Result<OwnedValue, String> {
    let s = text.trim();
    let v = match t {
        ValueType::U8 => OwnedValue::U8(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::I8 => OwnedValue::I8(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::U16 => OwnedValue::U16(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::I16 => OwnedValue::I16(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::U32 => OwnedValue::U32(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::I32 => OwnedValue::I32(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::U64 => OwnedValue::U64(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::I64 => OwnedValue::I64(s.parse().map_err(|_| int_err(text, t))?),
        ValueType::F32 => OwnedValue::F32(
            s.parse()
                .map_err(|_| format!("'{text}' is not a float32 number (or nan, inf, -inf)"))?,
        ),
        ValueType::F64 => OwnedValue::F64(
            s.parse()
                .map_err(|_| format!("'{text}' is not a float64 number (or nan, inf, -inf)"))?,
        ),
        ValueType::Bool => match s.to_ascii_lowercase().as_str() {
            "true" | "1" => OwnedValue::Bool(true),
            "false" | "0" => OwnedValue::Bool(false),
            _ => return Err(format!("'{text}' is not a bool (true, false, 1 or 0)")),
        },
        ValueType::String => OwnedValue::String(text.to_string()),
        ValueType::Array => {
            return Err("an array needs --type array or array[TYPE] and a JSON array".into())
        }
    };
    Ok(v)
}

/// A scalar from a JSON element of an array.
fn scalar_from_json(j: &Json, t: ValueType) -> Result<OwnedValue, String> {
    match (t, j) {
        (ValueType::String, Json::String(s)) => Ok(OwnedValue::String(s.clone())),
        (ValueType::Bool, Json::Bool(b)) => Ok(OwnedValue::Bool(*b)),
        (ValueType::F32 | ValueType::F64, Json::String(s)) => scalar_from_text(s, t),
        // the number's shortest text, parsed as the target type: exact for integers of any
        // size, correctly rounded for floats
        (ValueType::String | ValueType::Bool | ValueType::Array, _) | (_, Json::String(_)) => {
            Err(format!("{j} is not a {t}"))
        }
        (_, Json::Number(n)) => scalar_from_text(&n.to_string(), t),
        _ => Err(format!("{j} is not a {t}")),
    }
}

/// An array from JSON: `elem` is the element type, or `None` to infer it.
pub fn array_from_json(j: &Json, elem: Option<&TypeSpec>) -> Result<OwnedValue, String> {
    let items = match j {
        Json::Array(items) => items,
        // `{"element_type": T, "value": [...]}`, as `gguf dump --json` shows nested arrays
        Json::Object(o) => {
            let et = o
                .get("element_type")
                .and_then(|v| v.as_str())
                .ok_or_else(|| format!("{j} has no \"element_type\""))?;
            let value = o
                .get("value")
                .ok_or_else(|| format!("{j} has no \"value\""))?;
            let spec = match TypeSpec::parse(et)? {
                TypeSpec::Scalar(t) => TypeSpec::Scalar(t),
                TypeSpec::Array(_) => TypeSpec::Array(None),
            };
            if let Some(want) = elem {
                if !compatible(want, &spec) {
                    return Err(format!(
                        "{j} has element type {et}, which contradicts the type asked for"
                    ));
                }
            }
            return array_from_json(value, Some(&spec));
        }
        other => return Err(format!("{other} is not a JSON array")),
    };
    let elem = match elem {
        Some(e) => e.clone(),
        None => infer_element(items)?,
    };
    let (vt, values) = match &elem {
        TypeSpec::Scalar(t) => (
            *t,
            items
                .iter()
                .enumerate()
                .map(|(i, x)| scalar_from_json(x, *t).map_err(|e| format!("element {i}: {e}")))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        TypeSpec::Array(inner) => (
            ValueType::Array,
            items
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    array_from_json(x, inner.as_deref()).map_err(|e| format!("element {i}: {e}"))
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    OwnedArray::new(vt, values)
        .map(OwnedValue::Array)
        .map_err(|e| e.to_string())
}

fn compatible(want: &TypeSpec, got: &TypeSpec) -> bool {
    match (want, got) {
        (TypeSpec::Scalar(a), TypeSpec::Scalar(b)) => a == b,
        (TypeSpec::Array(_), TypeSpec::Array(_)) => true,
        _ => false,
    }
}

/// The element type of a JSON array given without one: all strings → string, all bools → bool,
/// all integers → int32 (int64, uint64 when they do not fit), any other number → float32, all
/// arrays or `{"element_type", "value"}` objects → arrays of arrays.
fn infer_element(items: &[Json]) -> Result<TypeSpec, String> {
    if items.is_empty() {
        return Err("the element type of an empty array cannot be inferred; \
                    give it with --type 'array[TYPE]'"
            .into());
    }
    let all = |f: fn(&Json) -> bool| items.iter().all(f);
    if all(Json::is_string) {
        return Ok(TypeSpec::Scalar(ValueType::String));
    }
    if all(Json::is_boolean) {
        return Ok(TypeSpec::Scalar(ValueType::Bool));
    }
    if all(|j| j.is_array() || j.is_object()) {
        return Ok(TypeSpec::Array(None));
    }
    if all(Json::is_number) {
        let fits =
            |f: fn(&serde_json::Number) -> bool| items.iter().all(|j| j.as_number().is_some_and(f));
        let t = if fits(|n| n.as_i64().is_some_and(|v| i32::try_from(v).is_ok())) {
            ValueType::I32
        } else if fits(|n| n.as_i64().is_some()) {
            ValueType::I64
        } else if fits(|n| n.as_u64().is_some()) {
            ValueType::U64
        } else {
            ValueType::F32
        };
        return Ok(TypeSpec::Scalar(t));
    }
    Err("the array mixes element kinds; give its type with --type 'array[TYPE]'".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str, ty: &str) -> Result<OwnedValue, String> {
        parse_value(text, Some(&TypeSpec::parse(ty).unwrap()))
    }

    #[test]
    fn scalars_of_every_type() {
        assert_eq!(p("255", "uint8"), Ok(OwnedValue::U8(255)));
        assert!(p("256", "uint8").is_err());
        assert_eq!(p("-128", "i8"), Ok(OwnedValue::I8(-128)));
        assert_eq!(
            p("18446744073709551615", "uint64"),
            Ok(OwnedValue::U64(u64::MAX))
        );
        assert_eq!(p("-1", "int64"), Ok(OwnedValue::I64(-1)));
        assert_eq!(p("0.1", "float32"), Ok(OwnedValue::F32(0.1)));
        assert_eq!(p("0.1", "float64"), Ok(OwnedValue::F64(0.1)));
        assert!(matches!(p("nan", "f32"), Ok(OwnedValue::F32(x)) if x.is_nan()));
        assert_eq!(p("true", "bool"), Ok(OwnedValue::Bool(true)));
        assert!(p("yes", "bool").is_err());
        assert_eq!(p("12", "string"), Ok(OwnedValue::String("12".into())));
        assert!(TypeSpec::parse("int3").is_err());
    }

    #[test]
    fn arrays_typed_and_inferred() {
        assert_eq!(
            p("[1, 2]", "array[uint16]"),
            Ok(OwnedValue::from(vec![1u16, 2]))
        );
        assert!(p("[1, 70000]", "array[uint16]").is_err());
        assert_eq!(p("[1, 2]", "array"), Ok(OwnedValue::from(vec![1i32, 2])));
        assert_eq!(
            p("[1, 5000000000]", "array"),
            Ok(OwnedValue::from(vec![1i64, 5_000_000_000]))
        );
        assert_eq!(
            p("[0.5, 1]", "array"),
            Ok(OwnedValue::from(vec![0.5f32, 1.0]))
        );
        assert_eq!(p("[\"a\"]", "array"), Ok(OwnedValue::from(vec!["a"])));
        assert_eq!(
            p("[\"nan\", 1.5]", "array[float32]").map(|v| v.to_string()),
            Ok("[float32; NaN, 1.5]".to_string())
        );
        assert!(p("[]", "array").is_err());
        assert_eq!(
            p("[]", "array[string]"),
            Ok(OwnedValue::Array(OwnedArray::empty(ValueType::String)))
        );
        let nested = p(
            r#"[[1, 2], {"element_type": "string", "value": ["a"]}]"#,
            "array[array]",
        )
        .unwrap();
        assert_eq!(
            nested.to_string(),
            "[array; [int32; 1, 2], [string; \"a\"]]"
        );
        let typed = p("[[1], [2, 3]]", "array[array[int8]]").unwrap();
        assert_eq!(typed.to_string(), "[array; [int8; 1], [int8; 2, 3]]");
        assert!(p("[1, \"a\"]", "array").is_err());
    }

    #[test]
    fn inference_for_new_keys() {
        assert_eq!(infer("true"), Ok(OwnedValue::Bool(true)));
        assert_eq!(infer("42"), Ok(OwnedValue::I32(42)));
        assert_eq!(infer("-5000000000"), Ok(OwnedValue::I64(-5_000_000_000)));
        assert_eq!(infer("1e-5"), Ok(OwnedValue::F32(1e-5)));
        assert_eq!(infer("llama"), Ok(OwnedValue::String("llama".into())));
        assert_eq!(infer("[1,2"), Ok(OwnedValue::String("[1,2".into())));
        assert_eq!(infer("[\"x\"]"), Ok(OwnedValue::from(vec!["x"])));
    }
}
