//! `gguf convert HF_DIR --dry-run`: the plan of a checkpoint's conversion, one line per tensor
//! (source → GGUF name, dtype → type, shape) and every metadata pair it would write (long arrays
//! shortened), and the files it would write (the output, or the shards of a split).

use std::fmt::Write;

use ggufkit::convert::plan::{KvList, Plan};
use ggufkit::convert::OutputShard;
use ggufkit::write::OwnedValue;

/// The plan as text.
pub fn render(plan: &Plan, metadata: &KvList) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} -> {} (--outtype {}), {} tensors, {} parameters",
        plan.class,
        plan.arch,
        plan.outtype.name(),
        plan.tensors.len(),
        plan.params.total
    );
    for t in &plan.tensors {
        let sources = match t.source_names.len() {
            0 => "(computed)".to_string(),
            1 => t.source_names[0].clone(),
            n => format!("{} .. ({n} stacked)", t.source_names[0]),
        };
        let dtype = t.source_dtype.map_or("F32", |d| d.name());
        let shape: Vec<String> = t.gguf_shape().iter().map(|d| d.to_string()).collect();
        let _ = writeln!(
            s,
            "  {sources} -> {}, {dtype} -> {}, [{}]",
            t.out.name,
            t.ty.name(),
            shape.join(", ")
        );
    }
    let _ = writeln!(s, "metadata: {} pairs", metadata.len());
    for (k, v) in metadata.iter() {
        let _ = writeln!(s, "  {k} = {}", short(v));
    }
    s
}

/// The files a conversion writes: the output, or each shard with its tensors and their bytes.
pub fn render_files(files: &[OutputShard]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "files: {}", files.len());
    for f in files {
        let _ = writeln!(
            s,
            "  {}: {} tensors, {} bytes",
            f.path.display(),
            f.tensors.len(),
            f.tensor_bytes
        );
    }
    s
}

/// A value, arrays cut to their first items.
fn short(v: &OwnedValue) -> String {
    let text = v.to_string();
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}
