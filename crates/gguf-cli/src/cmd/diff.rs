//! `gguf diff A B [--json]`: what differs between two files — header fields, metadata added,
//! removed and changed (arrays element by element, with the first differing index), tensors added,
//! removed and changed in type, shape or data (data by XXH64, streamed, in parallel). Exit 0 when
//! equal, 1 when they differ. The order of keys and tensors is not compared.

use std::collections::HashSet;
use std::path::PathBuf;

use ggufkit::{ArrayView, Gguf, Kv, TensorInfo, Value};

use super::{open_reporting, CliError, CmdResult, FOUND, OK};
use ggufkit::hash::{self, HashAlgo};

use crate::output::json::Json;
use crate::output::progress::Progress;
use crate::output::tensor::tensor_json;
use crate::output::value::human_value;
use crate::output::value::{kv_json, typed_value_json};
use crate::output::{print, shape_text, Style};

#[derive(clap::Args)]
pub struct Args {
    /// The first file.
    a: PathBuf,
    /// The second file.
    b: PathBuf,
    /// One JSON object describing every difference.
    #[arg(long)]
    json: bool,
}

/// How two values differ.
pub struct ValueChange<'a, 'b> {
    pub key: String,
    pub a: Value<'a>,
    pub b: Value<'b>,
    /// For two arrays of one element type: the first index where they differ (the shorter length
    /// when one is a prefix of the other).
    pub first_difference: Option<u64>,
}

pub struct TensorChange<'a, 'b> {
    pub a: TensorInfo<'a>,
    pub b: TensorInfo<'b>,
    pub type_changed: bool,
    pub shape_changed: bool,
    /// XXH64 of both, when type and shape agree and the data was compared.
    pub hashes: Option<(String, String)>,
}

impl TensorChange<'_, '_> {
    fn data_changed(&self) -> bool {
        self.hashes.as_ref().is_some_and(|(x, y)| x != y)
    }

    fn changed(&self) -> bool {
        self.type_changed || self.shape_changed || self.data_changed()
    }
}

/// Everything that differs.
pub struct Diff<'a, 'b> {
    pub header: Vec<(&'static str, String, String)>,
    pub kv_added: Vec<Kv<'b>>,
    pub kv_removed: Vec<Kv<'a>>,
    pub kv_changed: Vec<ValueChange<'a, 'b>>,
    pub t_added: Vec<TensorInfo<'b>>,
    pub t_removed: Vec<TensorInfo<'a>>,
    pub t_changed: Vec<TensorChange<'a, 'b>>,
}

impl Diff<'_, '_> {
    pub fn is_empty(&self) -> bool {
        self.header.is_empty()
            && self.kv_added.is_empty()
            && self.kv_removed.is_empty()
            && self.kv_changed.is_empty()
            && self.t_added.is_empty()
            && self.t_removed.is_empty()
            && self.t_changed.is_empty()
    }
}

pub fn run(args: Args) -> CmdResult {
    let ga = open_reporting(&args.a)?;
    let gb = open_reporting(&args.b)?;
    ga.advise_sequential();
    gb.advise_sequential();
    let d = diff(&ga, &gb).map_err(|which| {
        let (f, g) = if which == 0 {
            (&args.a, &ga)
        } else {
            (&args.b, &gb)
        };
        CliError::failed(format!(
            "{}: at byte {}: the file is {} bytes long, but its tensor data needs {} bytes",
            f.display(),
            g.actual_len().unwrap_or(0),
            g.actual_len().unwrap_or(0),
            g.expected_len()
        ))
    })?;
    let (na, nb) = (args.a.display().to_string(), args.b.display().to_string());
    if args.json {
        print(&json(&na, &nb, &d));
    } else {
        print(&human(&na, &nb, &d, &Style::detect()));
    }
    Ok(if d.is_empty() { OK } else { FOUND })
}

/// Compares two parsed files. `Err(0)` or `Err(1)` when the data of a compared tensor is missing
/// from file A or B.
pub fn diff<'a, 'b>(ga: &'a Gguf<'_>, gb: &'b Gguf<'_>) -> Result<Diff<'a, 'b>, usize> {
    let mut header = Vec::new();
    if ga.version() != gb.version() {
        header.push((
            "version",
            ga.version().to_string(),
            gb.version().to_string(),
        ));
    }
    if ga.endian() != gb.endian() {
        header.push((
            "endian",
            ga.endian().name().into(),
            gb.endian().name().into(),
        ));
    }
    if ga.alignment() != gb.alignment() {
        header.push((
            "alignment",
            ga.alignment().to_string(),
            gb.alignment().to_string(),
        ));
    }

    let mut kv_removed = Vec::new();
    let mut kv_changed = Vec::new();
    let mut keys_a = HashSet::new();
    for kv in ga.metadata() {
        let key = kv.key();
        keys_a.insert(kv.key.as_bytes());
        match gb.get_kv(&key) {
            None => kv_removed.push(kv),
            Some(other) => {
                if let Some(first) = compare(&kv.value, &other.value) {
                    kv_changed.push(ValueChange {
                        key: key.into_owned(),
                        a: kv.value,
                        b: other.value,
                        first_difference: first,
                    });
                }
            }
        }
    }
    let kv_added = gb
        .metadata()
        .filter(|kv| !keys_a.contains(kv.key.as_bytes()) && ga.get_kv(&kv.key()).is_none())
        .collect();

    let mut t_removed = Vec::new();
    let mut pairs = Vec::new();
    for t in ga.tensors() {
        match gb.tensor(&t.name()) {
            None => t_removed.push(t),
            Some(u) => pairs.push((t, u)),
        }
    }
    let t_added = gb
        .tensors()
        .filter(|u| ga.tensor(&u.name()).is_none())
        .collect();

    // The data of tensors whose type and shape agree is compared byte for byte, in chunks spread
    // over the pool (comparing is cheaper than hashing both sides); only the pairs that differ are
    // then hashed, to show their digests.
    let mut same_layout: Vec<(&[u8], &[u8])> = Vec::new();
    for (t, u) in &pairs {
        if t.ggml_type() == u.ggml_type() && t.shape() == u.shape() {
            same_layout.push((t.data().ok_or(0usize)?, u.data().ok_or(1usize)?));
        }
    }
    let total = same_layout
        .iter()
        .map(|(x, y)| (x.len() + y.len()) as u64)
        .sum();
    let bar = Progress::bytes(total, "comparing");
    let differs = differing_pairs(&same_layout, &bar);
    let mut parts: Vec<&[u8]> = Vec::new();
    for ((x, y), d) in same_layout.iter().zip(&differs) {
        if *d {
            parts.push(x);
            parts.push(y);
        }
    }
    let digests: Vec<String> = hash::digest_many(HashAlgo::Xxh64, &parts, &bar)
        .iter()
        .map(|d| d.to_string())
        .collect();
    bar.finish();
    let mut next = digests.into_iter();
    let mut differs = differs.into_iter();
    let mut t_changed = Vec::new();
    for (t, u) in pairs {
        let type_changed = t.ggml_type() != u.ggml_type();
        let shape_changed = t.shape() != u.shape();
        let hashes = if !type_changed && !shape_changed && differs.next() == Some(true) {
            match (next.next(), next.next()) {
                (Some(x), Some(y)) => Some((x, y)),
                _ => None,
            }
        } else {
            None
        };
        let c = TensorChange {
            a: t,
            b: u,
            type_changed,
            shape_changed,
            hashes,
        };
        if c.changed() {
            t_changed.push(c);
        }
    }
    Ok(Diff {
        header,
        kv_added,
        kv_removed,
        kv_changed,
        t_added,
        t_removed,
        t_changed,
    })
}

/// `None` when equal; `Some(first_difference)` when they differ (the index only for two arrays of
/// one element type). Floats compare by bits, so a NaN equals the same NaN.
pub fn compare(a: &Value<'_>, b: &Value<'_>) -> Option<Option<u64>> {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) => {
            if x.element_type() != y.element_type() {
                return Some(None);
            }
            first_difference(x, y).map(Some)
        }
        _ => (!scalar_eq(a, b)).then_some(None),
    }
}

fn scalar_eq(a: &Value<'_>, b: &Value<'_>) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::String(x), Value::String(y)) => x.as_bytes() == y.as_bytes(),
        (Value::Array(x), Value::Array(y)) => {
            x.element_type() == y.element_type() && first_difference(x, y).is_none()
        }
        _ => a == b,
    }
}

/// The first index where two arrays of one element type differ, or `None` when equal.
fn first_difference(x: &ArrayView<'_>, y: &ArrayView<'_>) -> Option<u64> {
    if x.len() == y.len() && x.endian() == y.endian() && x.raw_bytes() == y.raw_bytes() {
        return None;
    }
    if let (Some(mut s), Some(mut t)) = (x.strings(), y.strings()) {
        let mut i = 0u64;
        loop {
            match (s.next(), t.next()) {
                (None, None) => return None,
                (Some(p), Some(q)) if p.as_bytes() == q.as_bytes() => i += 1,
                _ => return Some(i),
            }
        }
    }
    let (mut s, mut t) = (x.iter(), y.iter());
    let mut i = 0u64;
    loop {
        match (s.next(), t.next()) {
            (None, None) => return None,
            (Some(p), Some(q)) if scalar_eq(&p, &q) => i += 1,
            _ => return Some(i),
        }
    }
}

fn short(v: &Value<'_>) -> String {
    let s = human_value(v, 4);
    if s.chars().count() > 100 {
        let cut: String = s.chars().take(97).collect();
        format!("{cut}...")
    } else {
        s
    }
}

fn type_text(v: &Value<'_>) -> String {
    match v {
        Value::Array(a) => format!("array[{}; {}]", a.element_type().name(), a.len()),
        other => other.value_type().name().to_string(),
    }
}

fn tensor_text(t: &TensorInfo<'_>) -> String {
    format!("{} {}", t.ggml_type().name(), shape_text(t.shape()))
}

pub fn human(na: &str, nb: &str, d: &Diff<'_, '_>, s: &Style) -> String {
    let mut out = String::new();
    out.push_str(&format!("--- {na}\n+++ {nb}\n"));
    if d.is_empty() {
        out.push_str("no differences: same header, metadata and tensors (type, shape, data)\n");
        return out;
    }
    if !d.header.is_empty() {
        out.push_str(&format!("{}\n", s.bold("header")));
        for (f, a, b) in &d.header {
            out.push_str(&format!("  ~ {f}: {a} -> {b}\n"));
        }
    }
    if !(d.kv_added.is_empty() && d.kv_removed.is_empty() && d.kv_changed.is_empty()) {
        out.push_str(&format!("{}\n", s.bold("metadata")));
        for kv in &d.kv_removed {
            out.push_str(&s.red(&format!(
                "  - {} ({}) = {}",
                kv.key(),
                type_text(&kv.value),
                short(&kv.value)
            )));
            out.push('\n');
        }
        for kv in &d.kv_added {
            out.push_str(&s.green(&format!(
                "  + {} ({}) = {}",
                kv.key(),
                type_text(&kv.value),
                short(&kv.value)
            )));
            out.push('\n');
        }
        for c in &d.kv_changed {
            out.push_str(&s.yellow(&format!("  ~ {}", c.key)));
            out.push('\n');
            match (c.first_difference, &c.a, &c.b) {
                (Some(i), Value::Array(x), Value::Array(y)) => {
                    let el = |a: &ArrayView<'_>| {
                        a.get(i)
                            .map(|v| short(&v))
                            .unwrap_or_else(|| "(none: the array ends)".into())
                    };
                    out.push_str(&format!(
                        "      arrays of {}: lengths {} and {}, first difference at index {i}: {} -> {}\n",
                        x.element_type().name(),
                        x.len(),
                        y.len(),
                        el(x),
                        el(y)
                    ));
                }
                _ => {
                    out.push_str(&format!(
                        "      a: ({}) {}\n      b: ({}) {}\n",
                        type_text(&c.a),
                        short(&c.a),
                        type_text(&c.b),
                        short(&c.b)
                    ));
                }
            }
        }
    }
    if !(d.t_added.is_empty() && d.t_removed.is_empty() && d.t_changed.is_empty()) {
        out.push_str(&format!("{}\n", s.bold("tensors")));
        for t in &d.t_removed {
            out.push_str(&s.red(&format!("  - {} {}", t.name(), tensor_text(t))));
            out.push('\n');
        }
        for t in &d.t_added {
            out.push_str(&s.green(&format!("  + {} {}", t.name(), tensor_text(t))));
            out.push('\n');
        }
        for c in &d.t_changed {
            let mut what = Vec::new();
            if c.type_changed {
                what.push(format!(
                    "type {} -> {}",
                    c.a.ggml_type().name(),
                    c.b.ggml_type().name()
                ));
            }
            if c.shape_changed {
                what.push(format!(
                    "shape {} -> {}",
                    shape_text(c.a.shape()),
                    shape_text(c.b.shape())
                ));
            }
            if let Some((x, y)) = &c.hashes {
                what.push(format!("data xxh64 {x} -> {y}"));
            }
            out.push_str(&s.yellow(&format!("  ~ {}: {}", c.a.name(), what.join("; "))));
            out.push('\n');
        }
    }
    let n = d.header.len()
        + d.kv_added.len()
        + d.kv_removed.len()
        + d.kv_changed.len()
        + d.t_added.len()
        + d.t_removed.len()
        + d.t_changed.len();
    out.push_str(&format!(
        "{n} difference{}: header {}, metadata +{} -{} ~{}, tensors +{} -{} ~{}\n",
        if n == 1 { "" } else { "s" },
        d.header.len(),
        d.kv_added.len(),
        d.kv_removed.len(),
        d.kv_changed.len(),
        d.t_added.len(),
        d.t_removed.len(),
        d.t_changed.len()
    ));
    out
}

/// Bytes compared per job: small enough to spread one large tensor over every core.
const COMPARE_CHUNK: usize = 8 << 20;

/// For each pair of equally long byte slices, whether they differ, compared chunk by chunk in
/// parallel (a pair of different lengths differs).
fn differing_pairs(pairs: &[(&[u8], &[u8])], bar: &Progress) -> Vec<bool> {
    use rayon::prelude::*;
    let mut jobs: Vec<(usize, usize)> = Vec::new();
    for (i, (x, _)) in pairs.iter().enumerate() {
        let mut at = 0;
        loop {
            jobs.push((i, at));
            at += COMPARE_CHUNK;
            if at >= x.len() {
                break;
            }
        }
    }
    let diffs: Vec<usize> = jobs
        .par_iter()
        .filter_map(|&(i, at)| {
            let (x, y) = pairs[i];
            if x.len() != y.len() {
                return Some(i);
            }
            let end = (at + COMPARE_CHUNK).min(x.len());
            let same = x[at..end] == y[at..end];
            bar.add(2 * (end - at) as u64);
            (!same).then_some(i)
        })
        .collect();
    let mut out = vec![false; pairs.len()];
    for i in diffs {
        out[i] = true;
    }
    out
}

fn tensor_side(j: &mut Json, t: &TensorInfo<'_>, hash: Option<&String>) {
    // the tensor object with the data hash appended
    let mut inner = Json::new();
    tensor_json(&mut inner, t);
    let body = inner.out.trim_end_matches('}');
    j.raw(body);
    if let Some(h) = hash {
        j.raw(",").key("xxh64").str(h);
    }
    j.raw("}");
}

pub fn json(na: &str, nb: &str, d: &Diff<'_, '_>) -> String {
    let mut j = Json::new();
    j.raw("{").key("a").str(na);
    j.raw(",").key("b").str(nb);
    j.raw(",").key("equal").bool(d.is_empty());
    j.raw(",").key("header").raw("[");
    for (i, (f, a, b)) in d.header.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("field").str(f).raw(",").key("a");
        if *f == "endian" {
            j.str(a).raw(",").key("b").str(b);
        } else {
            j.raw(a).raw(",").key("b").raw(b);
        }
        j.raw("}");
    }
    j.raw("]");
    j.raw(",").key("metadata").raw("{").key("added").raw("[");
    for (i, kv) in d.kv_added.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        kv_json(&mut j, kv);
    }
    j.raw("],").key("removed").raw("[");
    for (i, kv) in d.kv_removed.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        kv_json(&mut j, kv);
    }
    j.raw("],").key("changed").raw("[");
    for (i, c) in d.kv_changed.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("key").str(&c.key);
        j.raw(",").key("a").raw("{");
        typed_value_json(&mut j, &c.a);
        j.raw("},").key("b").raw("{");
        typed_value_json(&mut j, &c.b);
        j.raw("},").key("first_difference");
        match c.first_difference {
            Some(n) => j.u64(n),
            None => j.raw("null"),
        };
        j.raw("}");
    }
    j.raw("]}");
    j.raw(",").key("tensors").raw("{").key("added").raw("[");
    for (i, t) in d.t_added.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        tensor_json(&mut j, t);
    }
    j.raw("],").key("removed").raw("[");
    for (i, t) in d.t_removed.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        tensor_json(&mut j, t);
    }
    j.raw("],").key("changed").raw("[");
    for (i, c) in d.t_changed.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("name").text(c.a.name_bytes());
        j.raw(",").key("changes").raw("[");
        let mut first = true;
        for (on, what) in [
            (c.type_changed, "type"),
            (c.shape_changed, "shape"),
            (c.data_changed(), "data"),
        ] {
            if on {
                if !first {
                    j.raw(",");
                }
                first = false;
                j.str(what);
            }
        }
        j.raw("],").key("a");
        tensor_side(&mut j, &c.a, c.hashes.as_ref().map(|h| &h.0));
        j.raw(",").key("b");
        tensor_side(&mut j, &c.b, c.hashes.as_ref().map(|h| &h.1));
        j.raw("}");
    }
    j.raw("]}}\n");
    j.out
}

#[cfg(test)]
mod compare_tests {
    use super::*;

    #[test]
    fn differing_pairs_finds_a_difference_in_any_chunk() {
        let a = vec![7u8; COMPARE_CHUNK * 2 + 3];
        let mut b = a.clone();
        let mut c = a.clone();
        *b.last_mut().unwrap() = 8;
        c[COMPARE_CHUNK] = 0;
        let short = vec![7u8; 5];
        let bar = Progress::bytes(0, "test");
        let pairs: Vec<(&[u8], &[u8])> =
            vec![(&a, &a), (&a, &b), (&a, &c), (&[], &[]), (&short, &a[..4])];
        assert_eq!(
            differing_pairs(&pairs, &bar),
            vec![false, true, true, false, true]
        );
    }
}
