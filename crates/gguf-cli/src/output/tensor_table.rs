//! The tensor table of `gguf tensors`: for people (aligned columns, totals) and as one JSON object
//! per file.

use ggufkit::TensorInfo;

use super::table::{Align, Table};
use super::{grouped, shape_text};

/// The human table of `rows`, with a totals line.
pub fn human(rows: &[TensorInfo<'_>]) -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("type", Align::Left),
        ("shape", Align::Left),
        ("elements", Align::Right),
        ("bytes", Align::Right),
        ("offset", Align::Right),
    ]);
    let (mut elements, mut bytes) = (0u64, 0u64);
    for r in rows {
        elements = elements.saturating_add(r.n_elements());
        bytes = bytes.saturating_add(r.size());
        t.row(vec![
            r.name().into_owned(),
            r.tensor_type().to_string(),
            shape_text(r.shape()),
            grouped(r.n_elements()),
            grouped(r.size()),
            grouped(r.offset()),
        ]);
    }
    let footer = vec![
        format!(
            "{} tensor{}",
            grouped(rows.len() as u64),
            if rows.len() == 1 { "" } else { "s" }
        ),
        String::new(),
        String::new(),
        grouped(elements),
        grouped(bytes),
        String::new(),
    ];
    t.render(&[footer])
}
