//! Metadata values from what people type and programs hold: type names (`uint32`,
//! `array[int8]`), scalars from text, arrays from a JSON-shaped tree ([`Untyped`]), and the rules
//! that pick a type when none is given. `gguf meta set` reads its VALUE and `--type` with them; a
//! binding turns its own objects into [`Untyped`] and gets the same types and the same errors.
#![forbid(unsafe_code)]

use std::fmt;

use super::value::{OwnedArray, OwnedValue};
use crate::error::ValueTextError;
use crate::value::{Value, ValueType};

/// A value type asked for: a scalar type, or an array whose element type may be left open.
///
/// Written `uint8 int8 uint16 int16 uint32 int32 float32 bool string uint64 int64 float64`
/// (short forms `u8 i32 f32 str` ... too), `array` (element type inferred) or `array[T]`,
/// nested as deep as wanted: `array[array[int8]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeSpec {
    Scalar(ValueType),
    /// `array` (`None`: the element type is inferred) or `array[T]`.
    Array(Option<Box<TypeSpec>>),
}

/// A value as JSON shapes it, before its GGUF type is fixed.
///
/// A number keeps its text (the shortest decimal that reads back to it) and is parsed as the
/// target type, so integers are exact at any size and floats correctly rounded for float32.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Untyped {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    Array(Vec<Untyped>),
    /// Members in order; `{"element_type": T, "value": [...]}` is an array of type T, as
    /// `gguf dump --json` writes nested arrays.
    Object(Vec<(String, Untyped)>),
}

impl TypeSpec {
    /// Parses a type name (see [`TypeSpec`]); case does not matter.
    pub fn parse(s: &str) -> Result<TypeSpec, ValueTextError> {
        let lower = s.trim().to_ascii_lowercase();
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
            Some(ValueType::Array) | None => Err(ValueTextError::UnknownType {
                name: s.to_string(),
            }),
            Some(v) => Ok(TypeSpec::Scalar(v)),
        }
    }

    /// The type of an existing value, so that a new value can keep it: an array's element type,
    /// left open below an array of arrays (whose inner arrays may differ).
    pub fn of(v: &Value<'_>) -> TypeSpec {
        match v {
            Value::Array(a) => match a.element_type() {
                ValueType::Array => TypeSpec::Array(Some(Box::new(TypeSpec::Array(None)))),
                t => TypeSpec::Array(Some(Box::new(TypeSpec::Scalar(t)))),
            },
            v => TypeSpec::Scalar(v.value_type()),
        }
    }
}

impl OwnedValue {
    /// A scalar of type `t` from text (surrounding whitespace ignored, except in a string):
    /// integers in the type's range, floats with `nan`, `inf` and `-inf`, bools as `true`,
    /// `false`, `1` or `0`.
    pub fn from_text(text: &str, t: ValueType) -> Result<OwnedValue, ValueTextError> {
        let s = text.trim();
        let bad = || ValueTextError::NotOfType {
            text: text.to_string(),
            expected: t,
        };
        let v = match t {
            ValueType::U8 => OwnedValue::U8(s.parse().map_err(|_| bad())?),
            ValueType::I8 => OwnedValue::I8(s.parse().map_err(|_| bad())?),
            ValueType::U16 => OwnedValue::U16(s.parse().map_err(|_| bad())?),
            ValueType::I16 => OwnedValue::I16(s.parse().map_err(|_| bad())?),
            ValueType::U32 => OwnedValue::U32(s.parse().map_err(|_| bad())?),
            ValueType::I32 => OwnedValue::I32(s.parse().map_err(|_| bad())?),
            ValueType::U64 => OwnedValue::U64(s.parse().map_err(|_| bad())?),
            ValueType::I64 => OwnedValue::I64(s.parse().map_err(|_| bad())?),
            ValueType::F32 => OwnedValue::F32(s.parse().map_err(|_| bad())?),
            ValueType::F64 => OwnedValue::F64(s.parse().map_err(|_| bad())?),
            ValueType::Bool => match s.to_ascii_lowercase().as_str() {
                "true" | "1" => OwnedValue::Bool(true),
                "false" | "0" => OwnedValue::Bool(false),
                _ => return Err(bad()),
            },
            ValueType::String => OwnedValue::String(text.to_string()),
            ValueType::Array => return Err(ValueTextError::ArrayFromText),
        };
        Ok(v)
    }

    /// The scalar a new key gets from text when no type is given: `true`/`false` are bool, an
    /// integer is int32 (int64, then uint64 when it does not fit), a number with a fraction or an
    /// exponent (or nan, inf, -inf) is float32, anything else is the text as a string.
    pub fn infer_from_text(text: &str) -> OwnedValue {
        let t = text.trim();
        if t == "true" || t == "false" {
            return OwnedValue::Bool(t == "true");
        }
        if let Some(v) = infer_integer(t) {
            return v;
        }
        let numeric = t.chars().all(|c| c.is_ascii_digit() || "+-.eE".contains(c))
            && t.chars().any(|c| c.is_ascii_digit());
        let special = matches!(t.to_ascii_lowercase().as_str(), "nan" | "inf" | "-inf");
        if numeric || special {
            if let Ok(f) = t.parse::<f32>() {
                return OwnedValue::F32(f);
            }
        }
        OwnedValue::String(text.to_string())
    }

    /// An array from an [`Untyped`] array (or `{"element_type", "value"}` object) whose elements
    /// have type `element`, or with `None`, the type the elements imply (see
    /// [`Untyped::element_type`]). Floats may be the strings `"nan"`, `"inf"`, `"-inf"`.
    pub fn array_from_untyped(
        u: &Untyped,
        element: Option<&TypeSpec>,
    ) -> Result<OwnedValue, ValueTextError> {
        let items = match u {
            Untyped::Array(items) => items,
            Untyped::Object(_) => {
                let (et, value) = u.typed_array()?;
                let spec = match TypeSpec::parse(et)? {
                    TypeSpec::Scalar(t) => TypeSpec::Scalar(t),
                    TypeSpec::Array(_) => TypeSpec::Array(None),
                };
                if element.is_some_and(|want| !same_kind(want, &spec)) {
                    return Err(ValueTextError::ElementTypeContradicts {
                        shown: u.to_string(),
                        element_type: et.to_string(),
                    });
                }
                return OwnedValue::array_from_untyped(value, Some(&spec));
            }
            other => {
                return Err(ValueTextError::NotAnArray {
                    shown: other.to_string(),
                })
            }
        };
        let element = match element {
            Some(e) => e.clone(),
            None => Untyped::element_type(items)?,
        };
        let in_element = |index: usize| {
            move |e| ValueTextError::InElement {
                index,
                error: Box::new(e),
            }
        };
        let (vt, values) = match &element {
            TypeSpec::Scalar(t) => (
                *t,
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| scalar_from_untyped(x, *t).map_err(in_element(i)))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            TypeSpec::Array(inner) => (
                ValueType::Array,
                items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        OwnedValue::array_from_untyped(x, inner.as_deref()).map_err(in_element(i))
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        OwnedArray::new(vt, values)
            .map(OwnedValue::Array)
            .map_err(|e| ValueTextError::Array(Box::new(e)))
    }
}

fn infer_integer(t: &str) -> Option<OwnedValue> {
    let v = t.parse::<i128>().ok()?;
    Some(match integer_type(v)? {
        ValueType::I32 => OwnedValue::I32(v as i32),
        ValueType::I64 => OwnedValue::I64(v as i64),
        _ => OwnedValue::U64(v as u64),
    })
}

/// The type an integer given without one takes: int32, else int64, else uint64 when it fits
/// (what gguf-py does with a Python `int`); `None` beyond all three.
pub fn integer_type(v: i128) -> Option<ValueType> {
    if i32::try_from(v).is_ok() {
        Some(ValueType::I32)
    } else if i64::try_from(v).is_ok() {
        Some(ValueType::I64)
    } else if u64::try_from(v).is_ok() {
        Some(ValueType::U64)
    } else {
        None
    }
}

/// The common type of two array elements given without a type: equal types stay, inferred
/// numbers widen in the order int32 < int64 < uint64 < float32; `None` for kinds that do not mix.
pub fn widened(a: ValueType, b: ValueType) -> Option<ValueType> {
    if a == b {
        return Some(a);
    }
    const ORDER: [ValueType; 4] = [
        ValueType::I32,
        ValueType::I64,
        ValueType::U64,
        ValueType::F32,
    ];
    let rank = |t| ORDER.iter().position(|&o| o == t);
    Some(if rank(a)? >= rank(b)? { a } else { b })
}

/// A scalar of type `t` from an array element.
fn scalar_from_untyped(u: &Untyped, t: ValueType) -> Result<OwnedValue, ValueTextError> {
    match (t, u) {
        (ValueType::String, Untyped::Text(s)) => Ok(OwnedValue::String(s.clone())),
        (ValueType::Bool, Untyped::Bool(b)) => Ok(OwnedValue::Bool(*b)),
        (ValueType::F32 | ValueType::F64, Untyped::Text(s)) => OwnedValue::from_text(s, t),
        (ValueType::String | ValueType::Bool | ValueType::Array, _) | (_, Untyped::Text(_)) => {
            Err(ValueTextError::ElementNotOfType {
                shown: u.to_string(),
                expected: t,
            })
        }
        (_, Untyped::Number(n)) => OwnedValue::from_text(n, t),
        _ => Err(ValueTextError::ElementNotOfType {
            shown: u.to_string(),
            expected: t,
        }),
    }
}

/// Whether a type asked for and a type an object gives agree: the same scalar, or both arrays.
fn same_kind(want: &TypeSpec, got: &TypeSpec) -> bool {
    match (want, got) {
        (TypeSpec::Scalar(a), TypeSpec::Scalar(b)) => a == b,
        (TypeSpec::Array(_), TypeSpec::Array(_)) => true,
        _ => false,
    }
}

impl Untyped {
    /// The element type of array elements given without one: all strings → string, all bools →
    /// bool, all integers → int32 (int64, then uint64 when they do not fit), any other numbers →
    /// float32, all arrays or `{"element_type", "value"}` objects → arrays of arrays.
    pub fn element_type(items: &[Untyped]) -> Result<TypeSpec, ValueTextError> {
        if items.is_empty() {
            return Err(ValueTextError::EmptyArray);
        }
        let all = |f: fn(&Untyped) -> bool| items.iter().all(f);
        if all(|u| matches!(u, Untyped::Text(_))) {
            return Ok(TypeSpec::Scalar(ValueType::String));
        }
        if all(|u| matches!(u, Untyped::Bool(_))) {
            return Ok(TypeSpec::Scalar(ValueType::Bool));
        }
        if all(|u| matches!(u, Untyped::Array(_) | Untyped::Object(_))) {
            return Ok(TypeSpec::Array(None));
        }
        let numbers: Option<Vec<&str>> = items
            .iter()
            .map(|u| match u {
                Untyped::Number(n) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        let Some(numbers) = numbers else {
            return Err(ValueTextError::MixedKinds);
        };
        let fits = |f: fn(&str) -> bool| numbers.iter().all(|n| f(n));
        let t = if fits(|n| n.parse::<i32>().is_ok()) {
            ValueType::I32
        } else if fits(|n| n.parse::<i64>().is_ok()) {
            ValueType::I64
        } else if fits(|n| n.parse::<u64>().is_ok()) {
            ValueType::U64
        } else {
            ValueType::F32
        };
        Ok(TypeSpec::Scalar(t))
    }

    /// The members of a `{"element_type": T, "value": [...]}` object.
    fn typed_array(&self) -> Result<(&str, &Untyped), ValueTextError> {
        let Untyped::Object(members) = self else {
            return Err(ValueTextError::NotAnArray {
                shown: self.to_string(),
            });
        };
        let member = |name: &str| members.iter().find(|(k, _)| k == name).map(|(_, v)| v);
        let missing = |member| ValueTextError::MissingMember {
            shown: self.to_string(),
            member,
        };
        let et = match member("element_type") {
            Some(Untyped::Text(t)) => t.as_str(),
            _ => return Err(missing("element_type")),
        };
        let value = member("value").ok_or_else(|| missing("value"))?;
        Ok((et, value))
    }
}

/// Compact JSON, as the value is shown in messages.
impl fmt::Display for Untyped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Untyped::Null => f.write_str("null"),
            Untyped::Bool(b) => write!(f, "{b}"),
            Untyped::Number(n) => f.write_str(n),
            Untyped::Text(s) => json_string(f, s),
            Untyped::Array(items) => {
                f.write_str("[")?;
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            Untyped::Object(members) => {
                f.write_str("{")?;
                for (i, (k, v)) in members.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    json_string(f, k)?;
                    write!(f, ":{v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// A JSON string literal with the escapes JSON requires.
fn json_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if u32::from(c) < 0x20 => write!(f, "\\u{:04x}", u32::from(c))?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(n: &str) -> Untyped {
        Untyped::Number(n.to_string())
    }

    fn text(s: &str) -> Untyped {
        Untyped::Text(s.to_string())
    }

    fn array(spec: &str, items: Vec<Untyped>) -> Result<OwnedValue, ValueTextError> {
        let elem = match TypeSpec::parse(spec).unwrap() {
            TypeSpec::Array(e) => e,
            s => panic!("{s:?} is not an array type"),
        };
        OwnedValue::array_from_untyped(&Untyped::Array(items), elem.as_deref())
    }

    #[test]
    fn integers_and_widening() {
        assert_eq!(integer_type(-5), Some(ValueType::I32));
        assert_eq!(integer_type(1 << 31), Some(ValueType::I64));
        assert_eq!(integer_type(1 << 63), Some(ValueType::U64));
        assert_eq!(integer_type(1 << 64), None);
        assert_eq!(
            widened(ValueType::I32, ValueType::I64),
            Some(ValueType::I64)
        );
        assert_eq!(
            widened(ValueType::U64, ValueType::I32),
            Some(ValueType::U64)
        );
        assert_eq!(
            widened(ValueType::I64, ValueType::F32),
            Some(ValueType::F32)
        );
        assert_eq!(
            widened(ValueType::Bool, ValueType::Bool),
            Some(ValueType::Bool)
        );
        assert_eq!(widened(ValueType::Bool, ValueType::I32), None);
        assert_eq!(widened(ValueType::F64, ValueType::F32), None);
    }

    #[test]
    fn type_names() {
        assert_eq!(
            TypeSpec::parse("U32").unwrap(),
            TypeSpec::Scalar(ValueType::U32)
        );
        assert_eq!(
            TypeSpec::parse("array[array[int8]]").unwrap(),
            TypeSpec::Array(Some(Box::new(TypeSpec::Array(Some(Box::new(
                TypeSpec::Scalar(ValueType::I8)
            ))))))
        );
        let e = TypeSpec::parse("array[int3]").unwrap_err();
        assert!(matches!(&e, ValueTextError::UnknownType { name } if name == "int3"));
        assert!(TypeSpec::parse("array[]").is_err());
    }

    #[test]
    fn errors_convert_into_the_crate_error() {
        fn parse(s: &str) -> crate::Result<TypeSpec> {
            Ok(TypeSpec::parse(s)?)
        }
        let e = parse("int3").unwrap_err();
        assert!(matches!(
            &e,
            crate::Error::ValueText(ValueTextError::UnknownType { name }) if name == "int3"
        ));
        assert!(e
            .to_string()
            .starts_with("unknown type 'int3': expected one of uint8"));
    }

    #[test]
    fn scalars_of_every_type() {
        let p = OwnedValue::from_text;
        assert_eq!(p("255", ValueType::U8).unwrap(), OwnedValue::U8(255));
        let e = p("256", ValueType::U8).unwrap_err();
        assert_eq!(
            e.to_string(),
            "'256' is not a uint8 (an integer in its range)"
        );
        assert_eq!(p(" -1 ", ValueType::I64).unwrap(), OwnedValue::I64(-1));
        assert_eq!(p("0.1", ValueType::F32).unwrap(), OwnedValue::F32(0.1));
        assert_eq!(p("0.1", ValueType::F64).unwrap(), OwnedValue::F64(0.1));
        assert!(
            matches!(p("-inf", ValueType::F32), Ok(OwnedValue::F32(x)) if x == f32::NEG_INFINITY)
        );
        assert_eq!(p("1", ValueType::Bool).unwrap(), OwnedValue::Bool(true));
        let e = p("yes", ValueType::Bool).unwrap_err();
        assert_eq!(e.to_string(), "'yes' is not a bool (true, false, 1 or 0)");
        assert_eq!(
            p(" 12 ", ValueType::String).unwrap(),
            OwnedValue::String(" 12 ".into())
        );
        assert!(matches!(
            p("1", ValueType::Array),
            Err(ValueTextError::ArrayFromText)
        ));
    }

    #[test]
    fn inference_from_text() {
        let i = OwnedValue::infer_from_text;
        assert_eq!(i("false"), OwnedValue::Bool(false));
        assert_eq!(i("42"), OwnedValue::I32(42));
        assert_eq!(i("-5000000000"), OwnedValue::I64(-5_000_000_000));
        assert_eq!(i("18446744073709551615"), OwnedValue::U64(u64::MAX));
        assert_eq!(i("1e-5"), OwnedValue::F32(1e-5));
        assert!(matches!(i("NaN"), OwnedValue::F32(x) if x.is_nan()));
        assert_eq!(i("1.2.3"), OwnedValue::String("1.2.3".into()));
        assert_eq!(i("llama"), OwnedValue::String("llama".into()));
    }

    #[test]
    fn arrays_typed_and_inferred() {
        assert_eq!(
            array("array[uint16]", vec![num("1"), num("2")]).unwrap(),
            OwnedValue::from(vec![1u16, 2])
        );
        let e = array("array[uint16]", vec![num("1"), num("70000")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "element 1: '70000' is not a uint16 (an integer in its range)"
        );
        assert_eq!(
            array("array", vec![num("1"), num("5000000000")]).unwrap(),
            OwnedValue::from(vec![1i64, 5_000_000_000])
        );
        assert_eq!(
            array("array", vec![num("0.5"), num("1")]).unwrap(),
            OwnedValue::from(vec![0.5f32, 1.0])
        );
        assert_eq!(
            array("array[float32]", vec![text("nan"), num("1.5")])
                .unwrap()
                .to_string(),
            "[float32; NaN, 1.5]"
        );
        let e = array("array[int32]", vec![text("a\"\n")]).unwrap_err();
        assert_eq!(e.to_string(), "element 0: \"a\\\"\\n\" is not a int32");
        assert!(matches!(
            array("array", vec![]),
            Err(ValueTextError::EmptyArray)
        ));
        assert!(matches!(
            array("array", vec![num("1"), text("a")]),
            Err(ValueTextError::MixedKinds)
        ));
        assert_eq!(
            array("array[string]", vec![]).unwrap(),
            OwnedValue::Array(OwnedArray::empty(ValueType::String))
        );
    }

    #[test]
    fn nested_arrays_and_typed_objects() {
        let typed = |et: &str, value: Untyped| {
            Untyped::Object(vec![
                ("element_type".into(), text(et)),
                ("value".into(), value),
            ])
        };
        let nested = array(
            "array[array]",
            vec![
                Untyped::Array(vec![num("1"), num("2")]),
                typed("string", Untyped::Array(vec![text("a")])),
            ],
        )
        .unwrap();
        assert_eq!(
            nested.to_string(),
            "[array; [int32; 1, 2], [string; \"a\"]]"
        );
        let e = array(
            "array[array[int8]]",
            vec![typed("uint8", Untyped::Array(vec![num("1")]))],
        )
        .unwrap_err();
        assert!(matches!(&e, ValueTextError::InElement { index: 0, .. }));
        assert_eq!(
            e.to_string(),
            "element 0: {\"element_type\":\"uint8\",\"value\":[1]} has element type uint8, \
             which contradicts the type asked for"
        );
        let e = array(
            "array[array]",
            vec![Untyped::Object(vec![("x".into(), Untyped::Null)])],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "element 0: {\"x\":null} has no \"element_type\""
        );
    }
}
