//! The fields of a file, derived from what the parser read ([`Outline`]): the fixed part from the
//! bytes, each key-value pair and tensor info from its offset and the wire format's field sizes,
//! the tensor data from the offsets and the alignment.
#![forbid(unsafe_code)]

use super::{Field, FieldPath, FieldValue, Finding, KvPart, Severity, TensorInfoPart};
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
    let fixed: [(FieldPath, u64, u64); 4] = [
        (FieldPath::Magic, 0, 4),
        (FieldPath::Version, 4, 4),
        (FieldPath::NumTensorInfos, 8, 8),
        (FieldPath::NumKvPairs, 16, 8),
    ];
    let fixed_end = 24;
    let mut pos = 0u64;
    for (path, at, size) in fixed {
        if at >= len || stop.is_some_and(|s| s < at) {
            break;
        }
        let have = size.min(len - at);
        let value = if have < size {
            FieldValue::None
        } else if path == FieldPath::Magic {
            bytes.get(0..4).map_or(FieldValue::None, FieldValue::Text)
        } else if size == 4 {
            u32_at(bytes, at, e).map_or(FieldValue::None, |v| FieldValue::Int(v.into()))
        } else {
            u64_at(bytes, at, e).map_or(FieldValue::None, FieldValue::Int)
        };
        push(path, at, have, value);
        pos = at + have;
    }
    let header_done = pos == fixed_end && stop.is_none_or(|s| s >= fixed_end);

    if header_done {
        for (index, kv) in o.kvs.iter().enumerate() {
            let at = |part| FieldPath::Kv { index, part };
            let start = kv.offset;
            let klen = kv.key.len() as u64;
            push(at(KvPart::KeyLength), start, 8, FieldValue::Int(klen));
            push(
                at(KvPart::Key),
                start + 8,
                klen,
                FieldValue::Text(kv.key.as_bytes()),
            );
            let tpos = start + 8 + klen;
            push(
                at(KvPart::Type),
                tpos,
                4,
                FieldValue::ValueType(kv.value_type()),
            );
            let vpos = tpos + 4;
            let end = start + kv.raw.len() as u64;
            match kv.value {
                Value::String(s) => {
                    let n = s.len() as u64;
                    push(at(KvPart::StringLength), vpos, 8, FieldValue::Int(n));
                    push(
                        at(KvPart::String),
                        vpos + 8,
                        n,
                        FieldValue::Text(s.as_bytes()),
                    );
                }
                Value::Array(a) => {
                    push(
                        at(KvPart::ElementType),
                        vpos,
                        4,
                        FieldValue::ValueType(a.element_type()),
                    );
                    push(
                        at(KvPart::ElementCount),
                        vpos + 4,
                        8,
                        FieldValue::Int(a.len()),
                    );
                    push(
                        at(KvPart::Elements),
                        vpos + 12,
                        end.saturating_sub(vpos + 12),
                        FieldValue::Elements(a.len()),
                    );
                }
                v => push(
                    at(KvPart::Value),
                    vpos,
                    end.saturating_sub(vpos),
                    FieldValue::Value(v),
                ),
            }
            pos = end;
        }
        for (index, t) in o.tensors.iter().enumerate() {
            let at = |part| FieldPath::TensorInfo { index, part };
            let start = t.info_offset();
            let nlen = t.name_bytes().len() as u64;
            push(
                at(TensorInfoPart::NameLength),
                start,
                8,
                FieldValue::Int(nlen),
            );
            push(
                at(TensorInfoPart::Name),
                start + 8,
                nlen,
                FieldValue::Text(t.name_bytes()),
            );
            let mut q = start + 8 + nlen;
            push(
                at(TensorInfoPart::DimCount),
                q,
                4,
                FieldValue::Int(t.n_dims().into()),
            );
            q += 4;
            for (d, dim) in t.shape().iter().enumerate() {
                push(at(TensorInfoPart::Dim(d)), q, 8, FieldValue::Int(*dim));
                q += 8;
            }
            push(
                at(TensorInfoPart::Type),
                q,
                4,
                FieldValue::GgmlType(t.ggml_type()),
            );
            push(
                at(TensorInfoPart::Offset),
                q + 4,
                8,
                FieldValue::Int(t.offset()),
            );
            pos = q + 12;
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
                let pad = (align - size % align) % align;
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
            } else if u64_at(bytes, 16, e).is_some_and(|n| (o.kvs.len() as u64) < n) {
                FieldPath::Kv {
                    index: o.kvs.len(),
                    part: KvPart::Whole,
                }
            } else if u64_at(bytes, 8, e).is_some_and(|n| (o.tensors.len() as u64) < n) {
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

    // attach each finding to the field it points into (a zero-length field at its offset), else
    // to the last field
    let errors = o.report.errors.iter().map(|d| (Severity::Error, d));
    let warnings = o.report.warnings.iter().map(|d| (Severity::Warning, d));
    for (severity, d) in errors.chain(warnings) {
        let finding = Finding {
            severity,
            diagnostic: d.clone(),
        };
        let k = out
            .iter()
            .position(|f| {
                (f.offset <= d.offset && d.offset < f.offset.saturating_add(f.length))
                    || (f.length == 0 && f.offset == d.offset)
            })
            .or(out.len().checked_sub(1));
        match k.and_then(|k| out.get_mut(k)) {
            Some(f) => f.findings.push(finding),
            None => out.push(Field {
                path: FieldPath::File,
                offset: 0,
                length: len,
                value: FieldValue::None,
                findings: vec![finding],
            }),
        }
    }
    out
}
