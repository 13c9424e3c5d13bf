//! `gguf meta get FILE KEY [--json]`: one value, arrays printed whole; exit 1 when absent.

use std::path::PathBuf;

use ggufkit::{Kv, Value};

use super::{open_reporting, CmdResult, FOUND, OK};
use crate::output::json::Json;
use crate::output::print;

#[derive(clap::Args)]
pub struct Args {
    /// The file to read.
    file: PathBuf,
    /// The key, e.g. `general.architecture`.
    key: String,
    /// The pair as `dump --json` writes a metadata entry: `{"key", "type", ["element_type",] "value"}`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let g = open_reporting(&args.file)?;
    let Some(kv) = g.get_kv(&args.key) else {
        eprintln!(
            "gguf: {}: no key '{}' among its {} key-value pairs",
            args.file.display(),
            args.key,
            g.kv_count()
        );
        return Ok(FOUND);
    };
    if args.json {
        let mut j = Json::new();
        kv_json(&mut j, &kv);
        j.out.push('\n');
        print(&j.out);
    } else {
        print(&human(&kv.value));
    }
    Ok(OK)
}

/// A metadata entry as `dump --json` writes it (also used by `diff`).
pub fn kv_json(j: &mut Json, kv: &Kv<'_>) {
    j.raw("{").key("key").text(kv.key.as_bytes());
    j.raw(",");
    typed_value_json(j, &kv.value);
    j.raw("}");
}

/// `"type": ..., ["element_type": ...,] "value": ...` of a value, without braces.
pub fn typed_value_json(j: &mut Json, v: &Value<'_>) {
    j.key("type").str(v.value_type().name());
    if let Value::Array(a) = v {
        j.raw(",").key("element_type").str(a.element_type().name());
    }
    j.raw(",").key("value").value(v);
}

/// A value for a person or a script: a string as it is (so a chat template keeps its lines), a
/// number as JSON writes it, an array one element per line (strings escaped so that each element
/// stays on its line; nested arrays as JSON).
pub fn human(v: &Value<'_>) -> String {
    match v {
        Value::String(s) => {
            let mut out = s.to_string_lossy().into_owned();
            out.push('\n');
            out
        }
        Value::Array(a) => {
            let mut out = String::new();
            if let Some(strings) = a.strings() {
                for s in strings {
                    out.push_str(&escape_line(&s.to_string_lossy()));
                    out.push('\n');
                }
            } else {
                for e in a.iter() {
                    out.push_str(&scalar(&e));
                    out.push('\n');
                }
            }
            out
        }
        other => format!("{}\n", scalar(other)),
    }
}

fn scalar(v: &Value<'_>) -> String {
    let mut j = Json::new();
    match v {
        Value::Array(a) => {
            j.raw("{\"element_type\":")
                .str(a.element_type().name())
                .raw(",\"value\":")
                .array(a)
                .raw("}");
        }
        Value::String(s) => return escape_line(&s.to_string_lossy()),
        other => {
            j.value(other);
        }
    }
    j.out
}

/// Escapes what would break a line: backslash, newline, carriage return, tab, other controls.
pub fn escape_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}
