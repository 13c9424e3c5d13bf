//! The fields of a file, derived from what the parser read ([`Outline`]): the fixed part from the
//! bytes, each key-value pair and tensor info from the spans of its fields ([`crate::wire`]), the
//! tensor data from the offsets and the alignment.
#![forbid(unsafe_code)]

use super::attach::attach_findings;
use super::{Field, FieldPath, FieldValue, Finding, KvPart, Severity, TensorInfoPart};
use crate::wire::{self, Span, ValueSpans};
use crate::{Endian, Outline, Value};

fn u32_at(b: &[u8], at: u64, e: Endian) -> Option<u32> {
    let at = usize::try_from(at).ok()?;
    Some(e.u32(b.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: u64, e: Endian) -> Option<u64> {
    let at = usize::try_from(at).ok()?;
    Some(e.u64(b.get(at..at.checked_add(8)?)?.try_into().ok()?))
}

/// Every field of a file `len` bytes long of which `bytes` are the first ones (all of them, or
/// the header of a remote file), in byte order, with the findings attached.
pub(super) fn fields<'a>(bytes: &'a [u8], len: u64, o: &Outline<'a>) -> Vec<Field<'a>> {
    let e = o.endian;
    let mut out: Vec<Field<'a>> = Vec::new();
    let mut push = |path: FieldPath, offset: u64, length: u64, value: FieldValue<'a>| {
        out.push(Field {
            path,
            offset,
            length,
            value,
            findings: Vec::new(),
        })
    };
    let stop = if o.stopped {
        o.report.errors.last().map(|d| d.offset)
    } else {
        None
    };

    // the fixed part: magic, version, counts (as far as the bytes go and the parser went)
    let fixed = [
        (FieldPath::Magic, wire::MAGIC_SPAN),
        (FieldPath::Version, wire::VERSION_SPAN),
        (FieldPath::NumTensorInfos, wire::TENSOR_COUNT_SPAN),
        (FieldPath::NumKvPairs, wire::KV_COUNT_SPAN),
    ];
    let fixed_end = wire::FIXED_HEADER_LEN;
    let mut pos = 0u64;
    for (path, span) in fixed {
        let at = span.offset;
        if at >= len || stop.is_some_and(|s| s < at) {
            break;
        }
        let have = span.len.min(len - at);
        let value = if have < span.len {
            FieldValue::None
        } else if path == FieldPath::Magic {
            bytes.get(0..4).map_or(FieldValue::None, FieldValue::Text)
        } else if span.len == 4 {
            u32_at(bytes, at, e).map_or(FieldValue::None, |v| FieldValue::Int(v.into()))
        } else {
            u64_at(bytes, at, e).map_or(FieldValue::None, FieldValue::Int)
        };
        push(path, at, have, value);
        pos = at + have;
    }
    let header_done = pos == fixed_end && stop.is_none_or(|s| s >= fixed_end);

    if header_done {
        for (index, kv) in o.kvs_of_bytes().enumerate() {
            let mut field = |part, span: Span, value| {
                push(FieldPath::Kv { index, part }, span.offset, span.len, value)
            };
            let spans = kv.spans();
            field(
                KvPart::KeyLength,
                spans.key_len,
                FieldValue::Int(spans.key.len),
            );
            field(KvPart::Key, spans.key, FieldValue::Text(kv.key.as_bytes()));
            field(
                KvPart::Type,
                spans.value_type,
                FieldValue::ValueType(kv.value_type()),
            );
            match (spans.value, kv.value) {
                (ValueSpans::String { len, bytes }, Value::String(s)) => {
                    field(KvPart::StringLength, len, FieldValue::Int(bytes.len));
                    field(KvPart::String, bytes, FieldValue::Text(s.as_bytes()));
                }
                (
                    ValueSpans::Array {
                        elem_type,
                        count,
                        elems,
                    },
                    Value::Array(a),
                ) => {
                    field(
                        KvPart::ElementType,
                        elem_type,
                        FieldValue::ValueType(a.element_type()),
                    );
                    field(KvPart::ElementCount, count, FieldValue::Int(a.len()));
                    field(KvPart::Elements, elems, FieldValue::Elements(a.len()));
                }
                (spans, v) => field(KvPart::Value, spans.whole(), FieldValue::Value(v)),
            }
            pos = spans.value.whole().end();
        }
        for (index, t) in o.tensors.iter().enumerate() {
            let mut field = |part, span: Span, value| {
                push(
                    FieldPath::TensorInfo { index, part },
                    span.offset,
                    span.len,
                    value,
                )
            };
            let spans = t.spans();
            field(
                TensorInfoPart::NameLength,
                spans.name_len,
                FieldValue::Int(spans.name.len),
            );
            field(
                TensorInfoPart::Name,
                spans.name,
                FieldValue::Text(t.name_bytes()),
            );
            field(
                TensorInfoPart::DimCount,
                spans.n_dims,
                FieldValue::Int(t.n_dims().into()),
            );
            for (d, (span, dim)) in spans.dims().iter().zip(t.shape()).enumerate() {
                field(TensorInfoPart::Dim(d), *span, FieldValue::Int(*dim));
            }
            field(
                TensorInfoPart::Type,
                spans.ggml_type,
                FieldValue::TensorType(t.tensor_type()),
            );
            field(
                TensorInfoPart::Offset,
                spans.offset,
                FieldValue::Int(t.offset()),
            );
            pos = spans.whole().end();
        }
    }

    match (o.data_offset, o.alignment, o.expected_len) {
        (Some(data_offset), Some(align), Some(expected)) if !o.stopped => {
            if !o.tensors.is_empty() {
                push(
                    FieldPath::Padding,
                    pos,
                    data_offset.saturating_sub(pos),
                    FieldValue::None,
                );
            }
            let align = u64::from(align).max(1);
            for (index, t) in o.tensors.iter().enumerate() {
                let at = t.absolute_offset();
                let size = t.size();
                let pad = wire::padding(size, align);
                // data cut short: the fields stop at the end of the file
                let clip = |from: u64, n: u64| (from.min(len), n.min(len.saturating_sub(from)));
                let (o1, l1) = clip(at, size);
                push(
                    FieldPath::TensorData { index },
                    o1,
                    l1,
                    FieldValue::Text(t.name_bytes()),
                );
                let (o2, l2) = clip(at.saturating_add(size), pad);
                push(
                    FieldPath::TensorDataPadding { index },
                    o2,
                    l2,
                    FieldValue::None,
                );
            }
            if len > expected {
                push(
                    FieldPath::Trailing,
                    expected,
                    len - expected,
                    FieldValue::None,
                );
            }
        }
        _ => {
            // the structure the parser was reading when it stopped, to the end of the file
            let what = if !header_done {
                FieldPath::Body
            } else if u64_at(bytes, wire::KV_COUNT_SPAN.offset, e)
                .is_some_and(|n| (o.kvs().len() as u64) < n)
            {
                FieldPath::Kv {
                    index: o.kvs().len(),
                    part: KvPart::Whole,
                }
            } else if u64_at(bytes, wire::TENSOR_COUNT_SPAN.offset, e)
                .is_some_and(|n| (o.tensors.len() as u64) < n)
            {
                FieldPath::TensorInfo {
                    index: o.tensors.len(),
                    part: TensorInfoPart::Whole,
                }
            } else {
                FieldPath::Padding
            };
            // zero bytes long when the file ends where the stop is: it still carries the mark
            push(what, pos, len.saturating_sub(pos), FieldValue::None);
        }
    }

    let errors = o.report.errors.iter().map(|d| (Severity::Error, d));
    let warnings = o.report.warnings.iter().map(|d| (Severity::Warning, d));
    let findings = errors
        .chain(warnings)
        .map(|(severity, d)| Finding {
            severity,
            diagnostic: d.clone(),
        })
        .collect();
    attach_findings(&mut out, len, findings);
    out
}
