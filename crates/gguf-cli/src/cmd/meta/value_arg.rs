//! `meta set`'s VALUE as the command line writes it: scalars as text, arrays as JSON. The types,
//! the inference rules and the errors are the library's ([`ggufkit::write::value_text`]); what
//! is left here is reading the JSON and pointing at `--type` where a type must be given.

use ggufkit::write::{OwnedValue, TypeSpec, Untyped, ValueTextError};
use serde_json::Value as Json;

/// Parses `text` as a value of type `spec`; with no spec, infers one: a JSON array is an array
/// (element type inferred), anything else as [`OwnedValue::infer_from_text`] says.
pub fn parse_value(text: &str, spec: Option<&TypeSpec>) -> Result<OwnedValue, String> {
    let parsed = match spec {
        None => {
            let t = text.trim();
            let array = t
                .starts_with('[')
                .then(|| serde_json::from_str::<Json>(t).ok());
            match array.flatten() {
                Some(j) => OwnedValue::array_from_untyped(&untyped(&j), None),
                None => Ok(OwnedValue::infer_from_text(text)),
            }
        }
        Some(TypeSpec::Scalar(t)) => OwnedValue::from_text(text, *t),
        Some(TypeSpec::Array(elem)) => {
            let j: Json = serde_json::from_str(text)
                .map_err(|e| format!("'{text}' is not a JSON array: {e}"))?;
            OwnedValue::array_from_untyped(&untyped(&j), elem.as_deref())
        }
    };
    parsed.map_err(|e| message(&e))
}

/// A `--type` argument.
pub fn parse_type(s: &str) -> Result<TypeSpec, String> {
    TypeSpec::parse(s).map_err(|e| message(&e))
}

/// JSON as the library's untyped tree (numbers keep their shortest text).
fn untyped(j: &Json) -> Untyped {
    match j {
        Json::Null => Untyped::Null,
        Json::Bool(b) => Untyped::Bool(*b),
        Json::Number(n) => Untyped::Number(n.to_string()),
        Json::String(s) => Untyped::Text(s.clone()),
        Json::Array(items) => Untyped::Array(items.iter().map(untyped).collect()),
        Json::Object(o) => {
            Untyped::Object(o.iter().map(|(k, v)| (k.clone(), untyped(v))).collect())
        }
    }
}

/// The library's message, in the command line's words: arrays are JSON, and a type that cannot
/// be inferred is given with `--type`.
fn message(e: &ValueTextError) -> String {
    match e {
        ValueTextError::InElement { index, error } => {
            format!("element {index}: {}", message(error))
        }
        ValueTextError::NotAnArray { shown } => format!("{shown} is not a JSON array"),
        ValueTextError::ArrayFromText => {
            "an array needs --type array or array[TYPE] and a JSON array".into()
        }
        ValueTextError::EmptyArray => format!("{e}; give it with --type 'array[TYPE]'"),
        ValueTextError::MixedKinds => format!("{e}; give its type with --type 'array[TYPE]'"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ggufkit::write::OwnedArray;
    use ggufkit::ValueType;

    fn p(text: &str, ty: &str) -> Result<OwnedValue, String> {
        parse_value(text, Some(&parse_type(ty)?))
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
        assert!(parse_type("int3").is_err());
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
        assert_eq!(
            p("[]", "array"),
            Err("the element type of an empty array cannot be inferred; \
                 give it with --type 'array[TYPE]'"
                .into())
        );
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
        assert_eq!(
            p("[[1, \"a\"]]", "array[array]"),
            Err(
                "element 0: the array mixes element kinds; give its type with --type 'array[TYPE]'"
                    .into()
            )
        );
        assert_eq!(
            p("[1, 2]", "array[array]"),
            Err("element 0: 1 is not a JSON array".into())
        );
    }

    #[test]
    fn inference_for_new_keys() {
        let infer = |t| parse_value(t, None);
        assert_eq!(infer("true"), Ok(OwnedValue::Bool(true)));
        assert_eq!(infer("42"), Ok(OwnedValue::I32(42)));
        assert_eq!(infer("-5000000000"), Ok(OwnedValue::I64(-5_000_000_000)));
        assert_eq!(infer("1e-5"), Ok(OwnedValue::F32(1e-5)));
        assert_eq!(infer("llama"), Ok(OwnedValue::String("llama".into())));
        assert_eq!(infer("[1,2"), Ok(OwnedValue::String("[1,2".into())));
        assert_eq!(infer("[\"x\"]"), Ok(OwnedValue::from(vec!["x"])));
    }
}
