//! The pictures of `gguf report`, as inline SVG: bars by size, bars per layer stacked by tensor
//! type, and the file as one strip to scale.

use std::fmt::Write as _;

use ggufkit::layout::ByteLayout;
use ggufkit::Gguf;

use super::markup::esc;
use super::{grouped, human_bytes};

/// The colours of one report's tensor types, far apart from each other: a qualitative palette of
/// ten for the types in order (the largest first), hues spread evenly when there are more.
pub struct Palette(Vec<(String, String)>);

const QUALITATIVE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

impl Palette {
    /// Colours for `names`, in that order (repeats keep their first colour).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Palette {
        let mut unique: Vec<&str> = Vec::new();
        for n in names {
            if !unique.contains(&n) {
                unique.push(n);
            }
        }
        let n = unique.len();
        let colours = unique
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let c = match QUALITATIVE.get(i) {
                    Some(c) if n <= QUALITATIVE.len() => c.to_string(),
                    _ => format!("hsl({:.0}, 62%, 50%)", i as f64 * 360.0 / n as f64),
                };
                (name.to_string(), c)
            })
            .collect();
        Palette(colours)
    }

    /// The colour of type `name` (grey for a type the palette was not made with).
    pub fn of(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map_or("#8a93a0", |(_, c)| c.as_str())
    }
}

/// An SVG drawn in a `w`-wide coordinate space that scales to the width of the page.
fn svg_open(w: f64, h: f64) -> String {
    format!(
        r#"<svg viewBox="0 0 {w} {h}" width="100%" preserveAspectRatio="xMinYMin meet" role="img">"#
    )
}

/// Horizontal bars: one labelled bar per (label, bytes, colour), with its share of `total`.
pub fn bars(items: &[(String, u64, String)], total: u64) -> String {
    let w = 900.0;
    let label_w = 190.0;
    let bar_w = w - label_w - 170.0;
    let h = 20.0;
    let max = items.iter().map(|i| i.1).max().unwrap_or(1).max(1) as f64;
    let mut s = svg_open(w, h * items.len() as f64 + 4.0);
    for (k, (label, bytes, col)) in items.iter().enumerate() {
        let y = k as f64 * h + 2.0;
        let len = (*bytes as f64 / max * bar_w).max(1.0);
        let share = if total > 0 {
            *bytes as f64 * 100.0 / total as f64
        } else {
            0.0
        };
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text><rect x="{label_w}" y="{y}" width="{len:.1}" height="{}" fill="{col}" rx="2"><title>{}: {} ({share:.1}%)</title></rect><text x="{}" y="{}">{} ({share:.1}%)</text>"#,
            label_w - 6.0,
            y + 13.0,
            esc(label),
            h - 5.0,
            esc(label),
            human_bytes(*bytes),
            label_w + len + 6.0,
            y + 13.0,
            human_bytes(*bytes)
        );
    }
    s.push_str("</svg>");
    s
}

/// Vertical bars per layer, each stacked by tensor type: (layer, [(type name, bytes)]).
pub fn layer_chart(layers: &[(u64, Vec<(&str, u64)>)], palette: &Palette) -> String {
    let n = layers.len().max(1) as f64;
    let w = 900.0;
    let h = 180.0;
    let left = 60.0;
    let step = (w - left - 10.0) / n;
    let max = layers
        .iter()
        .map(|(_, types)| types.iter().fold(0u64, |a, t| a.saturating_add(t.1)))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut s = svg_open(w, h + 36.0);
    let _ = write!(
        s,
        r#"<text x="{}" y="12" text-anchor="end">{}</text><text x="{}" y="{}" text-anchor="end">0</text><line x1="{left}" y1="{h}" x2="{}" y2="{h}" stroke="silver"/>"#,
        left - 6.0,
        human_bytes(max as u64),
        left - 6.0,
        h,
        w - 10.0
    );
    for (k, (layer, types)) in layers.iter().enumerate() {
        let x = left + k as f64 * step;
        let mut y = h;
        for (ty, bytes) in types {
            let bh = *bytes as f64 / max * (h - 10.0);
            y -= bh;
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{bh:.1}" fill="{}"><title>layer {layer} {}: {}</title></rect>"#,
                (step * 0.8).max(1.0),
                palette.of(ty),
                esc(ty),
                human_bytes(*bytes)
            );
        }
        if layers.len() <= 40 || k % (layers.len() / 20).max(1) == 0 {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{}" text-anchor="middle">{layer}</text>"#,
                x + step * 0.4,
                h + 14.0
            );
        }
    }
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">layer (blk.N)</text></svg>"#,
        left + (w - left) / 2.0,
        h + 32.0
    );
    s
}

/// Tensors the strip draws one by one; the rest share a segment. The strip is 900 units wide, so
/// more could not be told apart, and a hostile header of 100,000 empty tensors would otherwise
/// fill the page with rectangles.
const MAX_STRIP_TENSORS: usize = 10_000;

/// The file as one strip: the header's parts and each tensor's data (the first
/// [`MAX_STRIP_TENSORS`] one by one), to scale.
pub fn strip(g: &Gguf<'_>, layout: &ByteLayout<'_>, palette: &Palette) -> String {
    let total = g.expected_len().max(1) as f64;
    let w = 900.0;
    let mut s = svg_open(w, 46.0);
    let seg = |s: &mut String, from: u64, to: u64, col: &str, what: &str| {
        let x = from as f64 / total * w;
        let len = ((to - from.min(to)) as f64 / total * w).max(0.5);
        let _ = write!(
            s,
            r#"<rect x="{x:.2}" y="4" width="{len:.2}" height="26" fill="{col}"><title>{}: bytes {from}..{to} ({})</title></rect>"#,
            esc(what),
            human_bytes(to - from.min(to))
        );
    };
    let fixed_end = layout.fixed_end();
    let kv_end = layout.metadata_end();
    let info_end = layout.tensor_infos_end();
    seg(&mut s, 0, fixed_end, "#1d2330", "fixed header");
    seg(&mut s, fixed_end, kv_end, "#6b7a90", "metadata");
    seg(&mut s, kv_end, info_end, "#9aa7b8", "tensor infos");
    seg(&mut s, info_end, g.data_offset(), "#d5dae1", "padding");
    for t in g.tensors().take(MAX_STRIP_TENSORS) {
        let name = format!("{} ({})", t.name(), t.tensor_type());
        seg(
            &mut s,
            t.absolute_offset(),
            t.absolute_offset() + t.size(),
            palette.of(t.tensor_type().name()),
            &name,
        );
    }
    // the rest as one grey segment over the bytes they span
    let rest = g.tensors().skip(MAX_STRIP_TENSORS);
    let span = rest.fold(None, |span: Option<(u64, u64)>, t| {
        let (from, to) = (t.absolute_offset(), t.absolute_offset() + t.size());
        Some(span.map_or((from, to), |(a, b)| (a.min(from), b.max(to))))
    });
    if let Some((from, to)) = span {
        let more = g.tensor_count() - MAX_STRIP_TENSORS;
        seg(
            &mut s,
            from,
            to,
            "#9aa7b8",
            &format!("{} more tensors", grouped(more as u64)),
        );
    }
    let _ = write!(
        s,
        r#"<text x="0" y="43">0</text><text x="{w}" y="43" text-anchor="end">{} bytes</text></svg>"#,
        grouped(g.expected_len())
    );
    s
}
