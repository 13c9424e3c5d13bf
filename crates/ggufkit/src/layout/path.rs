//! Where a field sits in the spec's structure, written with the spec's field ids
//! (`kv_pairs[3].value.len_value`, `tensor_infos[0].dims[1]`).
#![forbid(unsafe_code)]

use std::fmt;

/// The structure path of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldPath {
    Magic,
    Version,
    NumTensorInfos,
    NumKvPairs,
    /// A part of key-value pair `index`.
    Kv {
        index: usize,
        part: KvPart,
    },
    /// A part of tensor info `index`.
    TensorInfo {
        index: usize,
        part: TensorInfoPart,
    },
    /// The padding between the header and the tensor data (also the structure being read when
    /// the parser stopped after the last tensor info).
    Padding,
    /// The data of tensor `index`.
    TensorData {
        index: usize,
    },
    /// The padding after the data of tensor `index`.
    TensorDataPadding {
        index: usize,
    },
    /// Bytes after the length the header implies.
    Trailing,
    /// The rest of a file that stops inside its fixed part.
    Body,
    /// The whole file: where a finding goes when there is no field to attach it to.
    File,
}

/// A part of a key-value pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KvPart {
    /// The whole pair (one that the parser stopped in).
    Whole,
    KeyLength,
    Key,
    Type,
    /// A scalar value.
    Value,
    /// A string value's length.
    StringLength,
    /// A string value's bytes.
    String,
    /// An array's element type.
    ElementType,
    /// An array's element count.
    ElementCount,
    /// An array's elements.
    Elements,
}

/// A part of a tensor info.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TensorInfoPart {
    /// The whole info (one that the parser stopped in).
    Whole,
    NameLength,
    Name,
    DimCount,
    /// Dimension `d` (ne0 first).
    Dim(usize),
    Type,
    Offset,
}

impl FieldPath {
    /// Whether this is one of the four fields of the fixed part (magic, version, counts).
    pub fn is_fixed(&self) -> bool {
        matches!(
            self,
            FieldPath::Magic
                | FieldPath::Version
                | FieldPath::NumTensorInfos
                | FieldPath::NumKvPairs
        )
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldPath::Magic => f.write_str("magic"),
            FieldPath::Version => f.write_str("version"),
            FieldPath::NumTensorInfos => f.write_str("num_tensor_infos"),
            FieldPath::NumKvPairs => f.write_str("num_kv_pairs"),
            FieldPath::Kv { index, part } => {
                let part = match part {
                    KvPart::Whole => "",
                    KvPart::KeyLength => ".key.len_value",
                    KvPart::Key => ".key.value",
                    KvPart::Type => ".type",
                    KvPart::Value => ".value",
                    KvPart::StringLength => ".value.len_value",
                    KvPart::String => ".value.value",
                    KvPart::ElementType => ".value.type",
                    KvPart::ElementCount => ".value.num_elems",
                    KvPart::Elements => ".value.elems",
                };
                write!(f, "kv_pairs[{index}]{part}")
            }
            FieldPath::TensorInfo { index, part } => {
                write!(f, "tensor_infos[{index}]")?;
                match part {
                    TensorInfoPart::Whole => Ok(()),
                    TensorInfoPart::NameLength => f.write_str(".name.len_value"),
                    TensorInfoPart::Name => f.write_str(".name.value"),
                    TensorInfoPart::DimCount => f.write_str(".num_dims"),
                    TensorInfoPart::Dim(d) => write!(f, ".dims[{d}]"),
                    TensorInfoPart::Type => f.write_str(".type"),
                    TensorInfoPart::Offset => f.write_str(".offset"),
                }
            }
            FieldPath::Padding => f.write_str("padding"),
            FieldPath::TensorData { index } => write!(f, "tensor_data[{index}]"),
            FieldPath::TensorDataPadding { index } => write!(f, "tensor_data[{index}].padding"),
            FieldPath::Trailing => f.write_str("trailing"),
            FieldPath::Body => f.write_str("body"),
            FieldPath::File => f.write_str("file"),
        }
    }
}
