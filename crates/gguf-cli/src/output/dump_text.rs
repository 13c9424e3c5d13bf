//! The header for people, as `gguf dump` prints it: the format line, every key-value pair (long
//! arrays shortened) and every tensor info.

use ggufkit::{Gguf, Value};

use super::table::{Align, Table};
use super::tensor_table;
use super::value::human_value_within;
use super::{counted, grouped, size_note, Style};

/// The listing, arrays shown up to `max` elements and strings up to `max_chars` characters;
/// the metadata and the tensors as aligned tables (the tensors as `gguf tensors` prints them).
pub fn dump_text(g: &Gguf<'_>, max: usize, max_chars: usize, s: &Style) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{} version {}, {}-endian, alignment {}, {}, {}\n",
        s.bold("GGUF"),
        g.version(),
        g.endian(),
        g.alignment(),
        counted(g.kv_count() as u64, "key-value pair", "key-value pairs"),
        counted(g.tensor_count() as u64, "tensor", "tensors")
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
    let mut t = Table::new(&[
        ("#", Align::Right),
        ("key", Align::Left),
        ("type", Align::Left),
        ("value", Align::Left),
    ]);
    for (i, kv) in g.metadata().enumerate() {
        let ty = match kv.value {
            Value::Array(a) => format!("array[{}; {}]", a.element_type().name(), grouped(a.len())),
            _ => kv.value_type().name().to_string(),
        };
        t.row(vec![
            i.to_string(),
            kv.key().to_string(),
            s.dim(&ty),
            human_value_within(&kv.value, max, max_chars),
        ]);
    }
    out.push_str(&t.render(&[]));
    out.push_str(&format!("\n{}\n", s.bold("tensors")));
    let rows: Vec<_> = g.tensors().collect();
    if rows.is_empty() {
        out.push_str("none\n");
    } else {
        out.push_str(&tensor_table::human(&rows));
    }
    out
}
