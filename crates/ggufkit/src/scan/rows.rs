//! The four tables of a scan, one row type each: `files` (one row per location, with the
//! summary's facts, the verdicts and what the read cost, or the error that kept it from being
//! read), `metadata` (one row per key), `tensors` (one row per tensor info) and `findings` (one
//! row per error or warning of the report).
#![forbid(unsafe_code)]

use super::table::{Cell, Column, Kind, Row};

/// One scanned location: a row of the `files` table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileRow {
    /// The path or URL, as the scan was given it (directories expanded).
    pub location: String,
    /// Bytes of the file or object.
    pub size: Option<u64>,
    /// The object's ETag (remote locations).
    pub etag: Option<String>,
    /// Modification time, nanoseconds since the Unix epoch (local files).
    pub mtime_ns: Option<i64>,
    pub version: Option<u64>,
    /// `little` or `big`.
    pub byte_order: Option<String>,
    pub alignment: Option<u64>,
    /// The verdicts of `gguf validate`; `None` when the file could not be read at all.
    pub valid: Option<bool>,
    pub ggml_compatible: Option<bool>,
    /// The first error of the report: rule id, byte offset and message.
    pub error_rule: Option<String>,
    pub error_offset: Option<u64>,
    pub error_message: Option<String>,
    pub kv_count: Option<u64>,
    pub tensor_count: Option<u64>,
    pub architecture: Option<String>,
    pub name: Option<String>,
    /// `general.file_type` as llama.cpp names it (`Q4_K_M`), and its number.
    pub file_type: Option<String>,
    pub file_type_id: Option<u64>,
    pub parameters: Option<u64>,
    pub bits_per_weight: Option<f64>,
    pub context_length: Option<u64>,
    pub vocab_size: Option<u64>,
    /// SHA-256 (hex) of `tokenizer.chat_template`'s bytes, when it is a string.
    pub chat_template_sha256: Option<String>,
    /// Bytes before the tensor data (the header with its padding).
    pub header_length: Option<u64>,
    pub split_no: Option<u64>,
    pub split_count: Option<u64>,
    /// Bytes read from the location and the requests that took (remote; 0 for local files,
    /// whose header pages are mapped).
    pub bytes_fetched: u64,
    pub requests: u64,
    /// Why the location could not be read at all (I/O, a scheme not known).
    pub read_error: Option<String>,
}

impl Row for FileRow {
    const TABLE: &'static str = "files";
    const COLUMNS: &'static [Column] = &[
        Column::req("location", Kind::Str),
        Column::opt("size", Kind::U64),
        Column::opt("etag", Kind::Str),
        Column::opt("mtime_ns", Kind::I64),
        Column::opt("version", Kind::U64),
        Column::opt("byte_order", Kind::Str),
        Column::opt("alignment", Kind::U64),
        Column::opt("valid", Kind::Bool),
        Column::opt("ggml_compatible", Kind::Bool),
        Column::opt("error_rule", Kind::Str),
        Column::opt("error_offset", Kind::U64),
        Column::opt("error_message", Kind::Str),
        Column::opt("kv_count", Kind::U64),
        Column::opt("tensor_count", Kind::U64),
        Column::opt("architecture", Kind::Str),
        Column::opt("name", Kind::Str),
        Column::opt("file_type", Kind::Str),
        Column::opt("file_type_id", Kind::U64),
        Column::opt("parameters", Kind::U64),
        Column::opt("bits_per_weight", Kind::F64),
        Column::opt("context_length", Kind::U64),
        Column::opt("vocab_size", Kind::U64),
        Column::opt("chat_template_sha256", Kind::Str),
        Column::opt("header_length", Kind::U64),
        Column::opt("split_no", Kind::U64),
        Column::opt("split_count", Kind::U64),
        Column::req("bytes_fetched", Kind::U64),
        Column::req("requests", Kind::U64),
        Column::opt("read_error", Kind::Str),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Str(&self.location),
            1 => self.size.into(),
            2 => self.etag.as_deref().into(),
            3 => self.mtime_ns.into(),
            4 => self.version.into(),
            5 => self.byte_order.as_deref().into(),
            6 => self.alignment.into(),
            7 => self.valid.into(),
            8 => self.ggml_compatible.into(),
            9 => self.error_rule.as_deref().into(),
            10 => self.error_offset.into(),
            11 => self.error_message.as_deref().into(),
            12 => self.kv_count.into(),
            13 => self.tensor_count.into(),
            14 => self.architecture.as_deref().into(),
            15 => self.name.as_deref().into(),
            16 => self.file_type.as_deref().into(),
            17 => self.file_type_id.into(),
            18 => self.parameters.into(),
            19 => self.bits_per_weight.into(),
            20 => self.context_length.into(),
            21 => self.vocab_size.into(),
            22 => self.chat_template_sha256.as_deref().into(),
            23 => self.header_length.into(),
            24 => self.split_no.into(),
            25 => self.split_count.into(),
            26 => Cell::U64(self.bytes_fetched),
            27 => Cell::U64(self.requests),
            28 => self.read_error.as_deref().into(),
            _ => Cell::Null,
        }
    }
}

/// One metadata key of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetadataRow {
    pub location: String,
    /// The key (invalid UTF-8 replaced).
    pub key: String,
    /// The value type's name (`uint32`, `string`, `array`, ...).
    pub value_type: String,
    /// The element type's name, for arrays.
    pub element_type: Option<String>,
    /// Elements of an array.
    pub element_count: Option<u64>,
    /// The value as `dump --json` spells it (JSON text); an array cut to the scan's limit unless
    /// `full_arrays`.
    pub value: String,
    /// True when `value` holds only the first elements of the array.
    pub truncated: bool,
}

impl Row for MetadataRow {
    const TABLE: &'static str = "metadata";
    const COLUMNS: &'static [Column] = &[
        Column::req("location", Kind::Str),
        Column::req("key", Kind::Str),
        Column::req("type", Kind::Str),
        Column::opt("element_type", Kind::Str),
        Column::opt("element_count", Kind::U64),
        Column::req("value", Kind::Str),
        Column::req("truncated", Kind::Bool),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Str(&self.location),
            1 => Cell::Str(&self.key),
            2 => Cell::Str(&self.value_type),
            3 => self.element_type.as_deref().into(),
            4 => self.element_count.into(),
            5 => Cell::Str(&self.value),
            6 => Cell::Bool(self.truncated),
            _ => Cell::Null,
        }
    }
}

/// One tensor info of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TensorRow {
    pub location: String,
    pub name: String,
    /// The ggml type's name (a fork's name, or `unknown`, for ids ggml does not read).
    pub ggml_type: String,
    /// The type id stored in the info: what tells a fork's types apart (`type` is `unknown` for
    /// every id no table knows).
    pub type_id: u64,
    pub shape: Vec<u64>,
    pub elements: u64,
    /// Offset in the tensor data section, as the info declares it.
    pub offset: u64,
    pub bytes: u64,
}

impl Row for TensorRow {
    const TABLE: &'static str = "tensors";
    const COLUMNS: &'static [Column] = &[
        Column::req("location", Kind::Str),
        Column::req("name", Kind::Str),
        Column::req("type", Kind::Str),
        Column::req("type_id", Kind::U64),
        Column::req("shape", Kind::ListU64),
        Column::req("elements", Kind::U64),
        Column::req("offset", Kind::U64),
        Column::req("bytes", Kind::U64),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Str(&self.location),
            1 => Cell::Str(&self.name),
            2 => Cell::Str(&self.ggml_type),
            3 => Cell::U64(self.type_id),
            4 => Cell::ListU64(&self.shape),
            5 => Cell::U64(self.elements),
            6 => Cell::U64(self.offset),
            7 => Cell::U64(self.bytes),
            _ => Cell::Null,
        }
    }
}

/// One error or warning of a file's report, or one finding of its audit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FindingRow {
    pub location: String,
    /// The rule's id, as `validate --json` names it.
    pub rule: String,
    pub offset: u64,
    pub message: String,
    /// `error` (breaks the spec) or `warning`; the audit's findings are `error`, `warning` or
    /// `note`.
    pub severity: String,
}

impl Row for FindingRow {
    const TABLE: &'static str = "findings";
    const COLUMNS: &'static [Column] = &[
        Column::req("location", Kind::Str),
        Column::req("rule", Kind::Str),
        Column::req("offset", Kind::U64),
        Column::req("message", Kind::Str),
        Column::req("severity", Kind::Str),
    ];

    fn cell(&self, i: usize) -> Cell<'_> {
        match i {
            0 => Cell::Str(&self.location),
            1 => Cell::Str(&self.rule),
            2 => Cell::U64(self.offset),
            3 => Cell::Str(&self.message),
            4 => Cell::Str(&self.severity),
            _ => Cell::Null,
        }
    }
}

/// Everything a scan learnt about one location: its row of each table. A sink writes them
/// together, so a location is either wholly in the output or not at all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileRows {
    pub file: FileRow,
    pub metadata: Vec<MetadataRow>,
    pub tensors: Vec<TensorRow>,
    pub findings: Vec<FindingRow>,
}
