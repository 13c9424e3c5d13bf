//! `gguf recipe`: the summary beside the `--tensor-type-file` text (the type mix and the preset
//! it matches), and the JSON object of `--json`.

use ggufkit::quantize::{PresetMatch, Recipe};

use super::json::Json;

/// How a match depends on an importance matrix, in words.
fn imatrix_words(m: &PresetMatch) -> &'static str {
    match (m.without_imatrix, m.with_imatrix) {
        (true, true) => "with or without an importance matrix",
        (true, false) => "without an importance matrix",
        _ => "with an importance matrix",
    }
}

/// The lines for stderr: the mix, the matching presets, and how to reproduce the file.
pub fn summary(file: &str, r: &Recipe) -> String {
    let mix: Vec<String> = r
        .type_counts()
        .iter()
        .map(|(t, n)| format!("{t} {}", super::grouped(*n as u64)))
        .collect();
    let mut out = format!(
        "{file}: {} quantizable: {}\n",
        super::counted(r.tensors.len() as u64, "tensor", "tensors"),
        if mix.is_empty() {
            "none".to_string()
        } else {
            mix.join(", ")
        }
    );
    match r.preset() {
        Some(m) => {
            out.push_str(&format!(
                "matches preset {} ({})",
                m.preset,
                imatrix_words(m)
            ));
            let others: Vec<&str> = r
                .matches
                .iter()
                .filter(|o| o.preset != m.preset)
                .map(|o| o.preset.name)
                .collect();
            if !others.is_empty() {
                out.push_str(&format!("; also {}", others.join(", ")));
            }
            out.push('\n');
        }
        None if r.tensors.is_empty() => {
            out.push_str("no tensor llama-quantize would quantize: the file tells no preset\n")
        }
        None => out.push_str("matches no preset\n"),
    }
    if let Some(p) = r.preset_to_use() {
        out.push_str(&format!(
            "reproduce: gguf quantize SOURCE OUT {p} --tensor-type-file RECIPE\n"
        ));
    }
    out
}

/// The JSON object, with a newline.
pub fn json(file: &str, r: &Recipe) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("file_type");
    match r.file_type {
        Some(t) => j.u64(u64::from(t)),
        None => j.raw("null"),
    };
    j.raw(",").key("preset");
    match r.preset_to_use() {
        Some(p) => j.str(p.name),
        None => j.raw("null"),
    };
    j.raw(",").key("matches").raw("[");
    for (i, m) in r.matches.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("preset").str(m.preset.name);
        j.raw(",").key("without_imatrix").bool(m.without_imatrix);
        j.raw(",").key("with_imatrix").bool(m.with_imatrix);
        j.raw("}");
    }
    j.raw("],").key("type_counts").raw("{");
    for (i, (t, n)) in r.type_counts().iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.key(t.name()).u64(*n as u64);
    }
    j.raw("},").key("tensors").raw("[");
    for (i, e) in r.tensors.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("name").str(&e.name);
        j.raw(",").key("type").str(e.ty.name());
        j.raw(",")
            .key("pattern")
            .str(&ggufkit::quantize::exact_pattern(&e.name));
        j.raw("}");
    }
    j.raw("],")
        .key("tensor_type_file")
        .str(&r.to_tensor_type_file());
    j.raw("}\n");
    j.out
}
