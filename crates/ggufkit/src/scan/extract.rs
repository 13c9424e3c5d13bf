//! A file's rows, computed from what the rest of the library already says of it: the facts of
//! [`Summary::of`] (as `gguf info --json`), the header's keys and tensor infos (as `gguf dump
//! --json`, values spelled by [`Json::value`]) and the [`Report`] (as `gguf validate --json`).
//! Nothing here re-derives a fact.
#![forbid(unsafe_code)]

use sha2::{Digest as _, Sha256};

use super::rows::{FileRow, FileRows, FindingRow, MetadataRow, TensorRow};
use crate::json::Json;
use crate::summary::Summary;
use crate::{Diagnostic, Gguf, Report, Value};

/// How much of each array value the `metadata` table keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueLimit {
    /// Elements of an array kept in `value` (the rest are counted in `element_count`).
    pub array_elements: u64,
    /// Keep every element of every array (`--full-arrays`).
    pub full_arrays: bool,
}

impl Default for ValueLimit {
    fn default() -> Self {
        ValueLimit {
            array_elements: 64,
            full_arrays: false,
        }
    }
}

/// The rows of a file whose header was read (`g`, permissively) with its report, and its audit's
/// findings at the depth `audit` says (none when `None`).
pub fn rows_of(
    mut file: FileRow,
    g: &Gguf<'_>,
    report: &Report,
    limit: ValueLimit,
    audit: Option<crate::audit::Depth>,
) -> FileRows {
    let s = Summary::of(g);
    let f = &s.format;
    file.version = Some(f.version.into());
    file.byte_order = Some(f.endian.name().to_string());
    file.alignment = Some(f.alignment.into());
    file.kv_count = Some(f.kv_count);
    file.tensor_count = Some(s.tensor_count());
    file.architecture = s.architecture.clone();
    file.name = s.name.clone();
    if let Some(t) = s.file_type {
        file.file_type = t.name().map(str::to_string);
        file.file_type_id = Some(t.id().into());
    }
    file.parameters = Some(s.parameters);
    file.bits_per_weight = s.bits_per_weight();
    file.context_length = s.hyperparameters.context_length;
    file.vocab_size = s.tokenizer.as_ref().and_then(|t| t.vocab_size);
    file.chat_template_sha256 = match g.get("tokenizer.chat_template") {
        Some(Value::String(t)) => Some(hex(&Sha256::digest(t.as_bytes()))),
        _ => None,
    };
    file.header_length = Some(f.header_bytes);
    file.split_no = s.split.as_ref().map(|x| x.no);
    file.split_count = s.split.as_ref().map(|x| x.count);
    let location = file.location.clone();
    let metadata = g
        .metadata()
        .map(|kv| metadata_row(&location, &kv.key(), &kv.value, limit))
        .collect();
    let tensors = g
        .tensors()
        .map(|t| TensorRow {
            location: location.clone(),
            name: t.name().into_owned(),
            ggml_type: t.tensor_type().name().to_string(),
            type_id: t.type_id().into(),
            shape: t.shape().to_vec(),
            elements: t.n_elements(),
            offset: t.offset(),
            bytes: t.size(),
        })
        .collect();
    let mut rows = verdicts(file, report, metadata, tensors);
    // then the audit's findings (rule ids `template.*`, `tokenizer.*`, `model.*`), as `gguf
    // audit` gives them: a file that breaks the spec is audited too, on what the permissive
    // reading holds; its violations are already the rows above (`gguf audit`'s
    // `spec.violation` findings, each naming the rule these rows carry)
    let audit = match audit {
        Some(depth) => crate::audit::audit_with(g, depth),
        None => Vec::new(),
    };
    rows.findings.extend(audit.into_iter().map(|a| FindingRow {
        location: location.clone(),
        rule: a.rule.to_string(),
        offset: a.offset,
        message: a.message,
        severity: a.severity.name().to_string(),
    }));
    rows
}

/// The rows of a file whose header could not be read even permissively: the verdicts and
/// findings of its report, nothing of its contents.
pub fn rows_of_broken(file: FileRow, report: &Report) -> FileRows {
    verdicts(file, report, Vec::new(), Vec::new())
}

/// The rows of a location that could not be read at all.
pub fn rows_of_unreadable(mut file: FileRow, why: String) -> FileRows {
    file.read_error = Some(why);
    FileRows {
        file,
        ..FileRows::default()
    }
}

fn verdicts(
    mut file: FileRow,
    report: &Report,
    metadata: Vec<MetadataRow>,
    tensors: Vec<TensorRow>,
) -> FileRows {
    file.valid = Some(report.valid());
    file.ggml_compatible = Some(report.ggml_compatible());
    if let Some(d) = report.first_error() {
        file.error_rule = Some(d.rule.id().to_string());
        file.error_offset = Some(d.offset);
        file.error_message = Some(d.message.clone());
    }
    let finding = |d: &Diagnostic, severity: &str| FindingRow {
        location: file.location.clone(),
        rule: d.rule.id().to_string(),
        offset: d.offset,
        message: d.message.clone(),
        severity: severity.to_string(),
    };
    let findings = report
        .errors
        .iter()
        .map(|d| finding(d, "error"))
        .chain(report.warnings.iter().map(|d| finding(d, "warning")))
        .collect();
    FileRows {
        file,
        metadata,
        tensors,
        findings,
    }
}

fn metadata_row(location: &str, key: &str, v: &Value<'_>, limit: ValueLimit) -> MetadataRow {
    let mut j = Json::new();
    let mut row = MetadataRow {
        location: location.to_string(),
        key: key.to_string(),
        value_type: v.value_type().name().to_string(),
        ..MetadataRow::default()
    };
    match v {
        Value::Array(a) => {
            row.element_type = Some(a.element_type().name().to_string());
            row.element_count = Some(a.len());
            if limit.full_arrays || a.len() <= limit.array_elements {
                j.array(a);
            } else {
                row.truncated = true;
                j.raw("[");
                for (i, e) in a.iter().take(limit.array_elements as usize).enumerate() {
                    if i > 0 {
                        j.raw(",");
                    }
                    match &e {
                        // nested as `Json::array` spells them
                        Value::Array(inner) => {
                            j.raw("{").key("element_type");
                            j.str(inner.element_type().name()).raw(",").key("value");
                            j.array(inner).raw("}");
                        }
                        other => {
                            j.value(other);
                        }
                    }
                }
                j.raw("]");
            }
        }
        other => {
            j.value(other);
        }
    }
    row.value = j.out;
    row
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
