//! The leaf rules: every rule of the format, one named check each, in the order of the CLI
//! contract's rule table, with the diagnostic its violation produces, and the [`Report`] that
//! collects what was found. The parser (`read/parser/`) calls these checks on every field as it
//! reads the header; the verdicts (`validate/`) sit above the parser and run it.
//!
//! A check is a small pure function over values already read (`true` or `Some` when the rule
//! holds); the parser's field-by-field path and its fast paths call the same checks, so a rule is
//! written once. A violation is built by the function named after the rule with `_violation`:
//! the one place that says what the message of a broken rule reads. Messages are built only
//! when a rule is broken (names are formatted then, never on the way).
#![forbid(unsafe_code)]

use crate::endian::Endian;
use crate::error::{Diagnostic, Rule};
use crate::types::GgmlType;
use crate::wire::{padding, ValueType, MAGIC};

mod report;

pub use report::Report;

/// Spec: tensor names are shorter than 64 bytes.
pub(crate) const MAX_NAME: u64 = crate::wire::MAX_TENSOR_NAME as u64 + 1;
/// Spec: at most 4 dimensions.
pub(crate) const MAX_DIMS: u32 = 4;

/// The one way a rule violation is made: the rule, where, and the sentence saying what was found
/// against what was expected.
#[inline]
pub(crate) fn violation(rule: Rule, offset: u64, message: String) -> Diagnostic {
    Diagnostic {
        rule,
        offset,
        message,
    }
}

/// Shows a name or key in a message: lossy UTF-8, cut to a readable length.
pub(crate) fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s.into_owned()
    }
}

// ---- magic -------------------------------------------------------------------------------

/// `magic`: the file starts with `GGUF` (as far as its first bytes go).
#[inline]
pub(crate) fn magic(head: &[u8]) -> bool {
    let n = head.len().min(4);
    head[..n] == MAGIC[..n]
}

/// `head` is as much of the file's start as the reader holds: beyond the first 4 bytes it only
/// lets the message say what the file looks like instead.
#[cold]
pub(crate) fn magic_violation(head: &[u8]) -> Diagnostic {
    let n = head.len().min(4);
    let first = &head[..n];
    let shown = if first.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("\"{}\"", String::from_utf8_lossy(first))
    } else {
        let hex: Vec<String> = first.iter().map(|b| format!("{b:02x}")).collect();
        format!("the bytes {}", hex.join(" "))
    };
    let mut message = format!("the file starts with {shown}, expected the magic \"GGUF\"");
    if let Some(what) = looks_like(head) {
        message.push_str("; ");
        message.push_str(&what);
    }
    violation(Rule::Magic, 0, message)
}

/// What a file that is not a GGUF looks like, from its first bytes, with what to do about it.
fn looks_like(head: &[u8]) -> Option<String> {
    let starts = |p: &[u8]| head.starts_with(p);
    let text = String::from_utf8_lossy(&head[..head.len().min(512)]).to_ascii_lowercase();
    let trimmed = text.trim_start();
    const CARVE: &str = "`gguf carve FILE -o OUT` cuts it out";
    if starts(b"\xEF\xBB\xBFGGUF") {
        return Some(format!(
            "it is a GGUF after a UTF-8 byte-order mark (3 bytes a text tool added): {CARVE}"
        ));
    }
    if starts(b"version https://git-lfs") {
        return Some(
            "it is a Git LFS pointer, not the model: fetch the file itself (`git lfs pull`)".into(),
        );
    }
    if trimmed.starts_with("<!doctype html") || trimmed.starts_with("<html") {
        return Some(
            "it is an HTML page (a download that returned a web page instead of the file?)".into(),
        );
    }
    if starts(b"lmgg") || starts(b"fmgg") || starts(b"tjgg") {
        return Some(
            "it is a GGML/GGMF/GGJT file, the format GGUF replaced in August 2023: convert it with llama.cpp's tools".into(),
        );
    }
    if let Some(at) = find_gguf_magic(head) {
        let what = if starts(b"PK\x03\x04") {
            "a zip archive"
        } else if head.get(257..262) == Some(b"ustar") {
            "a tar archive"
        } else {
            "a larger file"
        };
        return Some(format!(
            "it is {what} with a GGUF inside from byte {at}: {CARVE}"
        ));
    }
    if starts(b"PK\x03\x04") {
        return Some("it is a zip archive (a PyTorch checkpoint, or a compressed archive)".into());
    }
    if head.get(257..262) == Some(b"ustar") {
        return Some("it is a tar archive without a GGUF stored in its first bytes".into());
    }
    if head.len() > 8 && head[8] == b'{' {
        let n = u64::from_le_bytes(head[..8].try_into().unwrap_or_default());
        if n > 1 && n < 1 << 30 {
            return Some("it is a safetensors file, not a GGUF".into());
        }
    }
    None
}

/// The first place after byte 0 where `GGUF` and a version of 2 or 3 (either byte order)
/// follow, within the first MiB.
fn find_gguf_magic(head: &[u8]) -> Option<usize> {
    let head = &head[..head.len().min(1 << 20)];
    head.windows(8)
        .skip(1)
        .position(|w| {
            w.starts_with(MAGIC)
                && matches!(
                    (
                        u32::from_le_bytes([w[4], w[5], w[6], w[7]]),
                        u32::from_be_bytes([w[4], w[5], w[6], w[7]])
                    ),
                    (2 | 3, _) | (_, 2 | 3)
                )
        })
        .map(|p| p + 1)
}

// ---- version -----------------------------------------------------------------------------

/// `version`: 2 or 3, read in the byte order the field itself gives away.
#[inline]
pub(crate) fn version(v: u32) -> bool {
    (2..=3).contains(&v)
}

#[cold]
pub(crate) fn version_violation(v: u32, endian: Endian) -> Diagnostic {
    let why = if v == 1 {
        " (GGUF v1 used 32-bit counts and lengths and is no longer supported)"
    } else {
        ""
    };
    violation(
        Rule::Version,
        4,
        format!(
            "version is {v} (read {}), expected 2 or 3{why}",
            endian.name()
        ),
    )
}

// ---- truncated ---------------------------------------------------------------------------
// Checked by the parser's cursor before every read (read/parser/cursor.rs) and against the
// file's length after the header (validate/data.rs); these say how a cut reads.

/// `truncated`: the file ends inside the magic.
#[cold]
pub(crate) fn truncated_magic(have: usize) -> Diagnostic {
    violation(
        Rule::Truncated,
        0,
        match have {
            0 => {
                "the file is empty (0 bytes), expected a GGUF file starting with the magic \"GGUF\""
                    .to_string()
            }
            1 => "the file ends after 1 byte, inside the magic \"GGUF\"".to_string(),
            _ => format!("the file ends after {have} bytes, inside the magic \"GGUF\""),
        },
    )
}

/// `truncated`: a field of `n` bytes at `pos` (reported at `field`) runs past the file's `have`
/// bytes.
#[cold]
pub(crate) fn truncated_field(field: u64, have: u64, what: &str, n: u64, pos: u64) -> Diagnostic {
    violation(
        Rule::Truncated,
        field,
        format!("the file ends at byte {have}, inside {what} (needs {n} bytes from byte {pos})"),
    )
}

/// `truncated`: a count of items of at least `min` bytes each that the `left` bytes cannot hold.
#[cold]
pub(crate) fn truncated_count(
    field: u64,
    what: &str,
    count: u64,
    min: u64,
    left: u64,
) -> Diagnostic {
    violation(
        Rule::Truncated,
        field,
        format!(
            "{what} declares {count} items of at least {min} bytes each, but only {left} bytes remain"
        ),
    )
}

/// `truncated`: a string longer than the `left` bytes after its length field.
#[cold]
pub(crate) fn truncated_string(field: u64, what: &str, len: u64, left: u64) -> Diagnostic {
    violation(
        Rule::Truncated,
        field,
        format!("{what} has length {len}, but only {left} bytes remain in the file"),
    )
}

/// `truncated`: the file ends inside a string of a string array.
#[cold]
pub(crate) fn truncated_element(at: u64, have: u64, k: u64, pair: &str) -> Diagnostic {
    violation(
        Rule::Truncated,
        at,
        format!("the file ends at byte {have}, inside string {k} of the array of {pair}"),
    )
}

/// `truncated`: the padded tensor data would end beyond any file.
#[cold]
pub(crate) fn truncated_beyond_u64(data_offset: u64) -> Diagnostic {
    violation(
        Rule::Truncated,
        data_offset,
        "the tensor data ends beyond 2^64 bytes, past the end of any file".into(),
    )
}

/// `truncated`: a file of `total` bytes whose header implies `implied`; `what` is the first piece
/// (tensor data or its padding) that runs past the end, at `at`.
#[cold]
pub(crate) fn truncated_data(at: u64, total: u64, implied: u64, what: &str) -> Diagnostic {
    violation(
        Rule::Truncated,
        at,
        format!(
            "the file is {total} bytes long but the header implies {implied} bytes: {what} runs past the end"
        ),
    )
}

// ---- key.empty ---------------------------------------------------------------------------

/// `key.empty`: a key has at least one byte.
#[inline(always)]
pub(crate) fn key_not_empty(len: u64) -> bool {
    len != 0
}

#[cold]
pub(crate) fn key_empty_violation(at: u64, i: u64) -> Diagnostic {
    violation(
        Rule::KeyEmpty,
        at,
        format!("key-value pair {i} has an empty key, expected a key of at least one byte"),
    )
}

// ---- key.duplicate -----------------------------------------------------------------------
// Checked by entering the key in the key index (read/parser/names.rs).

#[cold]
pub(crate) fn key_duplicate_violation(at: u64, key: &[u8], i: u64, first: u32) -> Diagnostic {
    violation(
        Rule::KeyDuplicate,
        at,
        format!(
            "key '{}' of key-value pair {i} already appeared in pair {first}, expected unique keys",
            show(key)
        ),
    )
}

// ---- value.type --------------------------------------------------------------------------

/// `value.type`: a value or element type id from 0 to 12.
#[inline(always)]
pub(crate) fn value_type(id: u32) -> Option<ValueType> {
    ValueType::from_id(id)
}

/// The value type of the pair with key `key` is not a type.
#[cold]
pub(crate) fn value_type_violation(at: u64, key: &[u8], id: u32) -> Diagnostic {
    violation(
        Rule::ValueType,
        at,
        format!(
            "key '{}' has value type {id}, expected a type id from 0 to 12",
            show(key)
        ),
    )
}

/// The element type of an array in pair `kv` is not a type.
#[cold]
pub(crate) fn element_type_violation(at: u64, kv: u64, id: u32) -> Diagnostic {
    violation(
        Rule::ValueType,
        at,
        format!(
            "an array in key-value pair {kv} has element type {id}, expected a type id from 0 to 12"
        ),
    )
}

// ---- value.bool --------------------------------------------------------------------------

/// `value.bool`: the first bool byte of `bytes` that is neither 0 nor 1.
#[inline]
pub(crate) fn first_bad_bool(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b > 1)
}

#[cold]
pub(crate) fn value_bool_violation(at: u64, kv: u64, byte: u8) -> Diagnostic {
    violation(
        Rule::ValueBool,
        at,
        format!("a bool of key-value pair {kv} has byte value {byte}, expected 0 or 1"),
    )
}

// ---- value.utf8 --------------------------------------------------------------------------

/// `value.utf8`: the bytes of a string are UTF-8. (The parser checks runs of strings at once
/// where their length fields allow: read/parser/fast_strings.rs.)
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> bool {
    utf8_text(bytes).is_some()
}

/// The text of `bytes` when they are UTF-8: the standard library's check for short strings
/// (names, tokens), SIMD for long ones.
#[inline]
pub(crate) fn utf8_text(b: &[u8]) -> Option<&str> {
    if b.len() < 64 {
        std::str::from_utf8(b).ok()
    } else {
        simdutf8::basic::from_utf8(b).ok()
    }
}

/// `bytes`, the string `what` starting at `start`, is not UTF-8.
#[cold]
pub(crate) fn value_utf8_violation(start: u64, bytes: &[u8], what: &str) -> Diagnostic {
    let valid = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) => e.valid_up_to(),
    };
    let bad = start + valid as u64;
    violation(
        Rule::ValueUtf8,
        start,
        format!(
            "{what} is not valid UTF-8 (invalid byte 0x{:02x} at byte {bad}), expected UTF-8 text",
            bytes.get(valid).copied().unwrap_or(0)
        ),
    )
}

// ---- alignment ---------------------------------------------------------------------------

/// `alignment`: `general.alignment` is a uint32 ...
#[inline]
pub(crate) fn alignment_type(vt: ValueType) -> bool {
    vt == ValueType::U32
}

#[cold]
pub(crate) fn alignment_type_violation(at: u64, vt: ValueType) -> Diagnostic {
    violation(
        Rule::Alignment,
        at,
        format!("general.alignment has type {}, expected uint32", vt.name()),
    )
}

/// ... and a non-zero power of two.
#[inline]
pub(crate) fn alignment_value(v: u32) -> bool {
    v != 0 && v.is_power_of_two()
}

#[cold]
pub(crate) fn alignment_value_violation(at: u64, v: u32) -> Diagnostic {
    violation(
        Rule::Alignment,
        at,
        format!("general.alignment is {v}, expected a non-zero power of two"),
    )
}

// ---- tensor.name -------------------------------------------------------------------------

/// `tensor.name`: a tensor name of fewer than 64 bytes.
#[inline(always)]
pub(crate) fn tensor_name_len(len: u64) -> bool {
    len < MAX_NAME
}

#[cold]
pub(crate) fn tensor_name_violation(at: u64, i: u64, len: u64) -> Diagnostic {
    violation(
        Rule::TensorName,
        at,
        format!("tensor {i} has a name of {len} bytes, expected fewer than 64"),
    )
}

// ---- tensor.duplicate --------------------------------------------------------------------
// Checked by entering the name in the name index (read/parser/names.rs).

#[cold]
pub(crate) fn tensor_duplicate_violation(at: u64, name: &[u8], i: u64, first: u32) -> Diagnostic {
    violation(
        Rule::TensorDuplicate,
        at,
        format!(
            "tensor {i} is named '{}' like tensor {first}, expected unique tensor names",
            show(name)
        ),
    )
}

// ---- tensor.dims -------------------------------------------------------------------------

/// `tensor.dims`: at most 4 dimensions.
#[inline(always)]
pub(crate) fn tensor_dims(n_dims: u32) -> bool {
    n_dims <= MAX_DIMS
}

#[cold]
pub(crate) fn tensor_dims_violation(at: u64, name: &str, n_dims: u32) -> Diagnostic {
    violation(
        Rule::TensorDims,
        at,
        format!("tensor '{name}' has {n_dims} dimensions, expected at most 4"),
    )
}

// ---- tensor.dim --------------------------------------------------------------------------

/// `tensor.dim`: a dimension, read as the signed 64-bit integer the spec stores, is not negative.
#[inline(always)]
pub(crate) fn tensor_dim(raw: u64) -> bool {
    (raw as i64) >= 0
}

#[cold]
pub(crate) fn tensor_dim_violation(at: u64, name: &str, d: usize, raw: u64) -> Diagnostic {
    violation(
        Rule::TensorDim,
        at,
        format!(
            "tensor '{name}' has dimension {d} = {}, expected 0 or more",
            raw as i64
        ),
    )
}

// ---- tensor.type -------------------------------------------------------------------------

/// `tensor.type`: a type ggml still reads (an id below 43 that was not removed).
#[inline(always)]
pub(crate) fn tensor_type(id: u32) -> Option<GgmlType> {
    GgmlType::from_id(id).filter(|t| !t.is_removed())
}

#[cold]
pub(crate) fn tensor_type_violation(at: u64, name: &str, id: u32) -> Diagnostic {
    let message = match GgmlType::from_id(id) {
        Some(t) => format!(
            "tensor '{name}' has type {id} ({}), which was {}; expected a type ggml still reads",
            t.name(),
            t.removal_note().unwrap_or("removed")
        ),
        None => match crate::forks::ForkType::from_id(id) {
            Some(f) => format!(
                "tensor '{name}' has type {id} ({} of {}), which ggml does not read; expected a type id below 43",
                f.name, f.origin
            ),
            None => format!("tensor '{name}' has type {id}, expected a type id below 43"),
        },
    };
    violation(Rule::TensorType, at, message)
}

// ---- tensor.block ------------------------------------------------------------------------

/// `tensor.block`: the first dimension is a multiple of the type's block size. Block sizes are
/// powers of two (a test of the type table says so): a mask, not a division.
#[inline(always)]
pub(crate) fn tensor_block(ne0: u64, ty: GgmlType) -> bool {
    ne0 & (ty.block_size() - 1) == 0
}

#[cold]
pub(crate) fn tensor_block_violation(at: u64, name: &str, ty: GgmlType, ne0: u64) -> Diagnostic {
    violation(
        Rule::TensorBlock,
        at,
        format!(
            "tensor '{name}' of type {} has {ne0} elements in its first dimension, expected a multiple of the block size {}",
            ty.name(),
            ty.block_size()
        ),
    )
}

// ---- tensor.size -------------------------------------------------------------------------

/// `tensor.size`, the element count: exact, 0 when a dimension is 0, `None` beyond `i64::MAX`.
#[inline(always)]
pub(crate) fn element_count(dims: &[u64; 4]) -> Option<u64> {
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter()
        .try_fold(1u64, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= i64::MAX as u64)
}

#[cold]
pub(crate) fn element_count_violation(at: u64, name: &str, shape: &[u64]) -> Diagnostic {
    violation(
        Rule::TensorSize,
        at,
        format!(
            "tensor '{name}' has shape {shape:?}, whose element count does not fit in a signed 64-bit integer"
        ),
    )
}

/// `tensor.size`, the byte size without padding: `None` beyond `i64::MAX`.
#[inline(always)]
pub(crate) fn byte_size(ty: GgmlType, n_elements: u64) -> Option<u64> {
    ty.bytes_for(n_elements).filter(|&s| s <= i64::MAX as u64)
}

#[cold]
pub(crate) fn byte_size_violation(at: u64, name: &str, ty: GgmlType, n: u64) -> Diagnostic {
    violation(
        Rule::TensorSize,
        at,
        format!(
            "tensor '{name}' of type {} has {n} elements, whose byte size does not fit in a signed 64-bit integer",
            ty.name()
        ),
    )
}

/// `tensor.size`, the padded end: `offset + size` rounded up to the alignment, exactly; `None`
/// beyond `u64::MAX`.
#[inline(always)]
pub(crate) fn padded_end(offset: u64, size: u64, align: u64) -> Option<u64> {
    offset.checked_add(size)?.checked_add(padding(size, align))
}

#[cold]
pub(crate) fn padded_end_violation(at: u64, name: &str, offset: u64, size: u64) -> Diagnostic {
    violation(
        Rule::TensorSize,
        at,
        format!(
            "tensor '{name}' ends at offset {offset} + {size} bytes plus padding, which does not fit in an unsigned 64-bit integer"
        ),
    )
}

// ---- tensor.offset -----------------------------------------------------------------------

/// `tensor.offset`: a tensor's data starts where the previous one's padded data ends (0 first).
#[inline(always)]
pub(crate) fn tensor_offset(offset: u64, expected: u64) -> bool {
    offset == expected
}

#[cold]
pub(crate) fn tensor_offset_violation(
    at: u64,
    name: &str,
    offset: u64,
    expected: u64,
) -> Diagnostic {
    violation(
        Rule::TensorOffset,
        at,
        format!("tensor '{name}' has offset {offset}, expected {expected}"),
    )
}

/// `tensor.offset` after a tensor whose type has no size here (a permissive reading): its data
/// runs up to this tensor's, which must start at or after `from` (its offset), aligned.
#[inline]
pub(crate) fn tensor_offset_after_unsized(offset: u64, from: u64, align: u64) -> bool {
    offset >= from && padding(offset, align) == 0
}

#[cold]
pub(crate) fn tensor_offset_after_unsized_violation(
    at: u64,
    name: &str,
    offset: u64,
    from: u64,
    align: u64,
) -> Diagnostic {
    violation(
        Rule::TensorOffset,
        at,
        format!(
            "tensor '{name}' has offset {offset}, expected a multiple of {align} from {from} (where the data of the tensor of unknown type before it starts)"
        ),
    )
}

// ---- a fork's type under an id ggml reads ---------------------------------------------------

/// The sentence a permissive reading adds when it takes a tensor of a reused id (41 `q1_0`,
/// 42 `q2_0`; [`crate::forks::REUSED_IDS`]) as a fork's type, because the id's size does not fit.
const REUSED_NOTE: &str = "TurboQuant forks reuse ids 41-47 for types of their own; read permissively, its size is taken from where the next tensor's data starts";

/// `tensor.block` for a tensor of a reused id: the rule the spec breaks, with what the permissive
/// reading did about it.
#[cold]
pub(crate) fn reused_type_block_violation(
    at: u64,
    name: &str,
    ty: GgmlType,
    ne0: u64,
) -> Diagnostic {
    let mut d = tensor_block_violation(at, name, ty, ne0);
    d.message = format!("{}; {REUSED_NOTE}", d.message);
    d
}

/// `tensor.offset` after a tensor of a reused id (`before`, of type `ty`) whose size under that id
/// does not reach this offset.
#[cold]
pub(crate) fn reused_type_offset_violation(
    at: u64,
    name: &str,
    offset: u64,
    expected: u64,
    (before, ty): (&str, GgmlType),
) -> Diagnostic {
    let mut d = tensor_offset_violation(at, name, offset, expected);
    d.message = format!(
        "{}, the end of tensor '{before}' as {} (id {}); {REUSED_NOTE}",
        d.message,
        ty.name(),
        ty.id()
    );
    d
}

/// `truncated` for a last tensor of a reused id whose data, sized by that id, runs past the end.
#[cold]
pub(crate) fn reused_type_end_violation(
    at: u64,
    name: &str,
    ty: GgmlType,
    total: u64,
) -> Diagnostic {
    violation(
        Rule::Truncated,
        at,
        format!(
            "the file is {total} bytes long but tensor '{name}' as {} (id {}) runs past the end; TurboQuant forks reuse ids 41-47 for types of their own; read permissively, its data is taken to run to the end of the file",
            ty.name(),
            ty.id()
        ),
    )
}

// ---- warnings: ggml.endian, ggml.nested_array, trailing_data, NUL-cut names ----------------

/// `ggml.endian`: valid, but ggml reads only little-endian files.
#[cold]
pub(crate) fn ggml_endian_warning() -> Diagnostic {
    violation(
        Rule::GgmlEndian,
        4,
        "the file is big-endian: valid, but ggml reads only little-endian files".into(),
    )
}

/// `ggml.nested_array`: pair `kv` is an array of arrays.
#[cold]
pub(crate) fn ggml_nested_array_warning(at: u64, kv: u64) -> Diagnostic {
    violation(
        Rule::GgmlNestedArray,
        at,
        format!("key-value pair {kv} is an array of arrays: valid, but ggml rejects nested arrays"),
    )
}

/// `trailing_data`: `extra` bytes after the `implied` the header implies, from `at`.
#[cold]
pub(crate) fn trailing_data_warning(at: u64, extra: u64, implied: u64) -> Diagnostic {
    violation(
        Rule::TrailingData,
        at,
        format!("{extra} bytes follow the {implied} bytes the header implies"),
    )
}

/// A key or tensor name up to its first NUL byte, as ggml compares names.
#[inline]
pub(crate) fn ggml_name(b: &[u8]) -> &[u8] {
    b.split(|&c| c == 0).next().unwrap_or(b)
}

/// How [`nul_duplicate_warning`] names what it warns about.
pub(crate) struct NameKind {
    pub rule: Rule,
    pub what: &'static str,
    pub earlier: &'static str,
    pub plural: &'static str,
}

/// Keys: `key.duplicate` as ggml sees them.
pub(crate) const KEYS: NameKind = NameKind {
    rule: Rule::KeyDuplicate,
    what: "key",
    earlier: "the key of pair",
    plural: "keys",
};

/// Tensor names: `tensor.duplicate` as ggml sees them.
pub(crate) const TENSOR_NAMES: NameKind = NameKind {
    rule: Rule::TensorDuplicate,
    what: "tensor name",
    earlier: "the name of tensor",
    plural: "names",
};

/// A warning (the spec compares whole names): `name`, at `at`, equals name `j` up to a NUL byte.
#[cold]
pub(crate) fn nul_duplicate_warning(kind: &NameKind, at: u64, name: &[u8], j: u32) -> Diagnostic {
    let NameKind {
        rule,
        what,
        earlier,
        plural,
    } = kind;
    violation(
        *rule,
        at,
        format!(
            "{what} '{}' equals {earlier} {j} up to a NUL byte, and ggml compares {plural} only up to it",
            show(name)
        ),
    )
}
