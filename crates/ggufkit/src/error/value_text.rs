//! Metadata values from text and JSON-shaped trees (`write/value_text.rs`): why a text or an
//! untyped value is not a value of the type asked for.
#![forbid(unsafe_code)]

use crate::wire::ValueType;

/// Why text or an [`Untyped`](crate::write::Untyped) value is not a value of the type asked for.
#[derive(Debug, thiserror::Error)]
pub enum ValueTextError {
    /// A type name that is none of the scalar types, `array` or `array[TYPE]`.
    #[error(
        "unknown type '{name}': expected one of uint8 int8 uint16 int16 uint32 int32 float32 \
         bool string uint64 int64 float64, 'array' or 'array[TYPE]'"
    )]
    UnknownType { name: String },
    /// Text that is not a value of the scalar type `expected`.
    #[error("'{text}' is not a {}", describe(*.expected))]
    NotOfType { text: String, expected: ValueType },
    /// An array element that is not a value of the scalar type `expected` (`shown` as JSON).
    #[error("{shown} is not a {expected}")]
    ElementNotOfType { shown: String, expected: ValueType },
    /// An array asked for from scalar text.
    #[error("an array cannot be read from scalar text")]
    ArrayFromText,
    /// An array asked for from something that is not one (`shown` as JSON).
    #[error("{shown} is not an array")]
    NotAnArray { shown: String },
    /// A `{"element_type", "value"}` object without one of its members.
    #[error("{shown} has no \"{member}\"")]
    MissingMember { shown: String, member: &'static str },
    /// A `{"element_type", "value"}` object whose element type is not the one asked for.
    #[error("{shown} has element type {element_type}, which contradicts the type asked for")]
    ElementTypeContradicts { shown: String, element_type: String },
    /// An empty array without an element type.
    #[error("the element type of an empty array cannot be inferred")]
    EmptyArray,
    /// An array without an element type whose elements are of different kinds.
    #[error("the array mixes element kinds")]
    MixedKinds,
    /// What is wrong with element `index` of an array.
    #[error("element {index}: {error}")]
    InElement {
        index: usize,
        error: Box<ValueTextError>,
    },
    /// The array could not be built from its elements.
    #[error("{0}")]
    Array(Box<crate::Error>),
}

/// What a value of type `t` is, for a message.
fn describe(t: ValueType) -> String {
    match t {
        ValueType::F32 | ValueType::F64 => format!("{t} number (or nan, inf, -inf)"),
        ValueType::Bool => "bool (true, false, 1 or 0)".to_string(),
        ValueType::String | ValueType::Array => t.to_string(),
        _ => format!("{t} (an integer in its range)"),
    }
}
