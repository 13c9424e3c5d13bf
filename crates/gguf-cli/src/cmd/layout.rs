//! `gguf layout FILE [--json]`: the byte map of a file as the spec structures it — every field
//! with its offset, length and value, like a hex editor's structure view. Built from what the
//! parser found ([`ggufkit::outline`]), not by parsing again; a broken file is mapped up to the
//! field where it breaks, and that field is marked.

use std::path::PathBuf;

use ggufkit::{Diagnostic, Endian, MappedFile, Outline, Value};

use super::{CliError, CmdResult, FAILED, FOUND, OK};
use crate::output::json::Json;
use crate::output::table::{Align, Table};
use crate::output::{grouped, print, Style};

#[derive(clap::Args)]
pub struct Args {
    /// The file to map.
    file: PathBuf,
    /// A JSON list of `{path, offset, length, value}` (plus `errors` on marked fields).
    #[arg(long)]
    json: bool,
}

/// What a field holds, for display.
#[derive(Clone, Copy)]
pub enum FieldValue<'a> {
    None,
    Int(u64),
    Text(&'a [u8]),
    Name(&'static str),
    Value(Value<'a>),
    /// The number of elements of an array's `elems` (the values themselves are in `dump`).
    Elements(u64),
}

/// One field of the map.
pub struct Field<'a> {
    pub path: String,
    pub offset: u64,
    pub length: u64,
    pub value: FieldValue<'a>,
    pub errors: Vec<Diagnostic>,
}

pub fn run(args: Args) -> CmdResult {
    let file = &args.file;
    if crate::remote::is_remote(file) {
        // the header's bytes with range requests; the object's length decides the data fields
        let (bytes, total) = crate::remote::header_prefix(file)?;
        let o = ggufkit::outline_sized(&bytes, total);
        let fields = fields_sized(&bytes, total, &o);
        if args.json {
            // an array: no place for a "remote" member without changing its shape
            print(&json(&fields));
        } else {
            let mut text = human(&fields, &Style::detect());
            if let Some(line) = crate::remote::human_line(file) {
                text.push_str(line.trim_start());
            }
            print(&text);
        }
        return Ok(if o.report.valid() { OK } else { FOUND });
    }
    let map = MappedFile::open(file).map_err(|e| CliError::from_lib(file, &e))?;
    let bytes = map.bytes();
    let o = ggufkit::outline(bytes);
    let fields = fields(bytes, &o);
    if args.json {
        print(&json(&fields));
    } else {
        print(&human(&fields, &Style::detect()));
    }
    if let Some(why) = &o.report.incomplete {
        // mapped as far as the reader goes; the rest cannot be judged
        eprintln!("gguf: {}: {why}", file.display());
        return Ok(FAILED);
    }
    Ok(if o.report.valid() { OK } else { FOUND })
}

fn u32_at(b: &[u8], at: usize, e: Endian) -> Option<u32> {
    Some(e.u32(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize, e: Endian) -> Option<u64> {
    Some(e.u64(b.get(at..at + 8)?.try_into().ok()?))
}

/// Every field of the file in byte order, with the findings attached to the fields they point at.
pub fn fields<'a>(bytes: &'a [u8], o: &Outline<'a>) -> Vec<Field<'a>> {
    fields_sized(bytes, bytes.len() as u64, o)
}

/// [`fields`] of a file `len` bytes long of which `bytes` are the first ones, as far as the parser
/// read them (a remote file's header).
pub fn fields_sized<'a>(bytes: &'a [u8], len: u64, o: &Outline<'a>) -> Vec<Field<'a>> {
    let e = o.endian;
    let mut out: Vec<Field<'a>> = Vec::new();
    let mut push = |path: String, offset: u64, length: u64, value: FieldValue<'a>| {
        out.push(Field {
            path,
            offset,
            length,
            value,
            errors: Vec::new(),
        })
    };
    let stop = if o.stopped {
        o.report.errors.last().map(|d| d.offset)
    } else {
        None
    };

    // the fixed part: magic, version, counts (as far as the bytes go and the parser went)
    let fixed: [(&str, u64, u64); 4] = [
        ("magic", 0, 4),
        ("version", 4, 4),
        ("num_tensor_infos", 8, 8),
        ("num_kv_pairs", 16, 8),
    ];
    let mut pos = 0u64;
    for (name, at, size) in fixed {
        if at >= len || stop.is_some_and(|s| s < at) {
            break;
        }
        let have = size.min(len - at);
        let value = if have < size {
            FieldValue::None
        } else if name == "magic" {
            FieldValue::Text(&bytes[0..4])
        } else if size == 4 {
            u32_at(bytes, at as usize, e).map_or(FieldValue::None, |v| FieldValue::Int(v.into()))
        } else {
            u64_at(bytes, at as usize, e).map_or(FieldValue::None, FieldValue::Int)
        };
        push(name.to_string(), at, have, value);
        pos = at + have;
    }
    let header_done = pos == 24 && stop.is_none_or(|s| s >= 24);

    if header_done {
        for (i, kv) in o.kvs.iter().enumerate() {
            let p = format!("kv_pairs[{i}]");
            let start = kv.offset;
            let klen = kv.key.len() as u64;
            push(
                format!("{p}.key.len_value"),
                start,
                8,
                FieldValue::Int(klen),
            );
            push(
                format!("{p}.key.value"),
                start + 8,
                klen,
                FieldValue::Text(kv.key.as_bytes()),
            );
            let tpos = start + 8 + klen;
            push(
                format!("{p}.type"),
                tpos,
                4,
                FieldValue::Name(kv.value_type().name()),
            );
            let vpos = tpos + 4;
            let end = start + kv.raw.len() as u64;
            match kv.value {
                Value::String(s) => {
                    push(
                        format!("{p}.value.len_value"),
                        vpos,
                        8,
                        FieldValue::Int(s.len() as u64),
                    );
                    push(
                        format!("{p}.value.value"),
                        vpos + 8,
                        s.len() as u64,
                        FieldValue::Text(s.as_bytes()),
                    );
                }
                Value::Array(a) => {
                    push(
                        format!("{p}.value.type"),
                        vpos,
                        4,
                        FieldValue::Name(a.element_type().name()),
                    );
                    push(
                        format!("{p}.value.num_elems"),
                        vpos + 4,
                        8,
                        FieldValue::Int(a.len()),
                    );
                    push(
                        format!("{p}.value.elems"),
                        vpos + 12,
                        end - (vpos + 12),
                        FieldValue::Elements(a.len()),
                    );
                }
                v => push(format!("{p}.value"), vpos, end - vpos, FieldValue::Value(v)),
            }
            pos = end;
        }
        for (i, t) in o.tensors.iter().enumerate() {
            let p = format!("tensor_infos[{i}]");
            let start = t.info_offset();
            let nlen = t.name_bytes().len() as u64;
            push(
                format!("{p}.name.len_value"),
                start,
                8,
                FieldValue::Int(nlen),
            );
            push(
                format!("{p}.name.value"),
                start + 8,
                nlen,
                FieldValue::Text(t.name_bytes()),
            );
            let mut q = start + 8 + nlen;
            push(
                format!("{p}.num_dims"),
                q,
                4,
                FieldValue::Int(t.n_dims().into()),
            );
            q += 4;
            for (d, dim) in t.shape().iter().enumerate() {
                push(format!("{p}.dims[{d}]"), q, 8, FieldValue::Int(*dim));
                q += 8;
            }
            push(
                format!("{p}.type"),
                q,
                4,
                FieldValue::Name(t.ggml_type().name()),
            );
            push(format!("{p}.offset"), q + 4, 8, FieldValue::Int(t.offset()));
            pos = q + 12;
        }
    }

    match (o.data_offset, o.alignment, o.expected_len) {
        (Some(data_offset), Some(align), Some(expected)) if !o.stopped => {
            if !o.tensors.is_empty() {
                push("padding".into(), pos, data_offset - pos, FieldValue::None);
            }
            let align = u64::from(align);
            for (i, t) in o.tensors.iter().enumerate() {
                let at = t.absolute_offset();
                let size = t.size();
                let pad = (align - size % align) % align;
                // data cut short: the fields stop at the end of the file
                let clip = |from: u64, n: u64| (from.min(len), n.min(len.saturating_sub(from)));
                let (o1, l1) = clip(at, size);
                push(
                    format!("tensor_data[{i}]"),
                    o1,
                    l1,
                    FieldValue::Text(t.name_bytes()),
                );
                let (o2, l2) = clip(at + size, pad);
                push(
                    format!("tensor_data[{i}].padding"),
                    o2,
                    l2,
                    FieldValue::None,
                );
            }
            if len > expected {
                push(
                    "trailing".into(),
                    expected,
                    len - expected,
                    FieldValue::None,
                );
            }
        }
        _ => {
            // the structure the parser was reading when it stopped, to the end of the file
            let what = if !header_done {
                "body".to_string()
            } else if u64_at(bytes, 16, e).is_some_and(|n| (o.kvs.len() as u64) < n) {
                format!("kv_pairs[{}]", o.kvs.len())
            } else if u64_at(bytes, 8, e).is_some_and(|n| (o.tensors.len() as u64) < n) {
                format!("tensor_infos[{}]", o.tensors.len())
            } else {
                "padding".to_string()
            };
            // zero bytes long when the file ends where the stop is: it still carries the mark
            push(what, pos, len.saturating_sub(pos), FieldValue::None);
        }
    }

    // attach each finding to the field it points into (a zero-length field at its offset), else
    // to the last field
    for d in o.report.errors.iter().chain(&o.report.warnings) {
        let k = out
            .iter()
            .position(|f| {
                (f.offset <= d.offset && d.offset < f.offset + f.length)
                    || (f.length == 0 && f.offset == d.offset)
            })
            .or(out.len().checked_sub(1));
        match k {
            Some(k) => out[k].errors.push(d.clone()),
            None => out.push(Field {
                path: "file".into(),
                offset: 0,
                length: len,
                value: FieldValue::None,
                errors: vec![d.clone()],
            }),
        }
    }
    out
}

fn value_text(v: &FieldValue<'_>) -> String {
    match v {
        FieldValue::None => String::new(),
        FieldValue::Int(n) => n.to_string(),
        FieldValue::Name(s) => s.to_string(),
        FieldValue::Elements(n) => {
            format!("{} element{}", grouped(*n), if *n == 1 { "" } else { "s" })
        }
        FieldValue::Text(b) => {
            let s = format!("{:?}", String::from_utf8_lossy(b));
            if s.chars().count() > 60 {
                let cut: String = s.chars().take(57).collect();
                format!("{cut}...")
            } else {
                s
            }
        }
        FieldValue::Value(v) => crate::output::value::human_value(v, 8),
    }
}

pub fn human(fields: &[Field<'_>], s: &Style) -> String {
    let mut t = Table::new(&[
        ("offset", Align::Right),
        ("hex", Align::Right),
        ("length", Align::Right),
        ("field", Align::Left),
        ("value", Align::Left),
    ]);
    let mut marks = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        t.row(vec![
            f.offset.to_string(),
            format!("{:#x}", f.offset),
            f.length.to_string(),
            f.path.clone(),
            value_text(&f.value),
        ]);
        for d in &f.errors {
            marks.push((i, d));
        }
    }
    let text = t.render(&[]);
    if marks.is_empty() {
        return text;
    }
    // a marked field is followed by its findings
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        if i == 0 {
            continue;
        }
        for (_, d) in marks.iter().filter(|(k, _)| *k == i - 1) {
            let kind = if d.rule.id().starts_with("ggml.") || d.rule.id() == "trailing_data" {
                s.yellow("warning")
            } else {
                s.red("error")
            };
            out.push_str(&format!(
                "    ^ {kind} at byte {}: {} [{}]\n",
                d.offset, d.message, d.rule
            ));
        }
    }
    out
}

pub fn value_json(j: &mut Json, v: &FieldValue<'_>) {
    match v {
        FieldValue::None | FieldValue::Elements(_) => {
            j.raw("null");
        }
        FieldValue::Int(n) => {
            j.u64(*n);
        }
        FieldValue::Name(s) => {
            j.str(s);
        }
        FieldValue::Text(b) => {
            j.text(b);
        }
        FieldValue::Value(v) => {
            j.value(v);
        }
    }
}

pub fn json(fields: &[Field<'_>]) -> String {
    let mut j = Json::new();
    j.raw("[");
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            j.raw(",\n");
        }
        j.raw("{").key("path").str(&f.path);
        j.raw(",").key("offset").u64(f.offset);
        j.raw(",").key("length").u64(f.length);
        j.raw(",").key("value");
        value_json(&mut j, &f.value);
        if !f.errors.is_empty() {
            j.raw(",").key("errors").raw("[");
            for (k, d) in f.errors.iter().enumerate() {
                if k > 0 {
                    j.raw(",");
                }
                j.raw("{").key("rule").str(d.rule.id());
                j.raw(",").key("offset").u64(d.offset);
                j.raw(",").key("message").str(&d.message).raw("}");
            }
            j.raw("]");
        }
        j.raw("}");
    }
    j.raw("]\n");
    j.out
}
