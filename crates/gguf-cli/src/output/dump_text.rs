//! The header for people, as `gguf dump` prints it: the format line, every key-value pair (long
//! arrays shortened) and every tensor info.

use ggufkit::{Gguf, Value};

use super::value::human_value;
use super::{grouped, pad, size_note, Style};

/// The listing, arrays shown up to `max` elements.
pub fn dump_text(g: &Gguf<'_>, max: usize, s: &Style) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{} version {}, {}-endian, alignment {}, {} key-value pairs, {} tensors\n",
        s.bold("GGUF"),
        g.version(),
        g.endian(),
        g.alignment(),
        g.kv_count(),
        g.tensor_count()
    ));
    let actual = g.actual_len().unwrap_or(0);
    let trailing = g.trailing_data().map_or(0, |(_, n)| n);
    out.push_str(&format!(
        "tensor data at byte {}, file size {} bytes, {}\n",
        grouped(g.data_offset()),
        grouped(actual),
        size_note(actual, g.expected_len(), trailing, s)
    ));
    out.push_str(&format!("\n{}\n", s.bold("metadata")));
    for (i, kv) in g.metadata().enumerate() {
        let ty = match kv.value {
            Value::Array(a) => format!("array[{}; {}]", a.element_type().name(), a.len()),
            _ => kv.value_type().name().to_string(),
        };
        out.push_str(&format!(
            "{i:>5}  {:<40} {} {}\n",
            kv.key(),
            pad(&s.dim(&ty), 22),
            human_value(&kv.value, max)
        ));
    }
    out.push_str(&format!("\n{}\n", s.bold("tensors")));
    for (i, t) in g.tensors().enumerate() {
        let shape: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
        out.push_str(&format!(
            "{i:>5}  {:<48} {:<8} [{}]  offset {}  {} bytes\n",
            t.name(),
            t.ggml_type().name(),
            shape.join(", "),
            t.offset(),
            t.size()
        ));
    }
    out
}
