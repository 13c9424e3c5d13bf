//! `gguf report FILE -o report.html`: one self-contained HTML page — no network, no external
//! script or style — with the summary, searchable metadata and tensor tables (a little inline
//! JavaScript), pictures of where the bytes go (by tensor type and by layer, inline SVG) and the
//! byte layout.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use ggufkit::{Gguf, Value};

use super::layout::{self, FieldValue};
use super::{open_reporting, CliError, CmdResult, OK};
use crate::facts;
use crate::output::value::human_value;
use crate::output::{grouped, human_bytes, shape_text, short_count};

#[derive(clap::Args)]
pub struct Args {
    /// The file to describe.
    file: PathBuf,
    /// Where to write the HTML page.
    #[arg(short, long, value_name = "OUT.html")]
    output: PathBuf,
}

pub fn run(args: Args) -> CmdResult {
    let g = open_reporting(&args.file)?;
    let name = args
        .file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| args.file.display().to_string());
    let html = page(&name, &g);
    std::fs::write(&args.output, html)
        .map_err(|e| CliError::failed(format!("{}: cannot write: {e}", args.output.display())))?;
    Ok(OK)
}

/// HTML-escapes text for element content and quoted attributes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn cut(s: String, max: usize) -> String {
    if s.chars().count() > max {
        let c: String = s.chars().take(max - 3).collect();
        format!("{c}...")
    } else {
        s
    }
}

/// A colour per tensor type, stable across reports.
fn colour(name: &str) -> String {
    let h = name
        .bytes()
        .fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    format!("hsl({}, 62%, 52%)", h % 360)
}

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}header p{margin:4px 0 0;color:#b8c0cc}
main{padding:8px 28px 40px;max-width:1400px}
section{background:#fff;border:1px solid #dde1e7;border-radius:8px;margin:18px 0;padding:14px 18px}
h2{font-size:17px;margin:2px 0 10px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eceef2;vertical-align:top}
th{background:#f0f2f5;position:sticky;top:0}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
code,td.m{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;overflow-wrap:anywhere}
.summary td:first-child{color:#5a6372;width:180px}
input.filter{width:320px;padding:5px 8px;border:1px solid #c5cbd5;border-radius:5px;margin:0 10px 8px 0}
.count{color:#5a6372}
.scroll{max-height:520px;overflow:auto;border:1px solid #eceef2}
.bad{color:#b3261e;font-weight:600}.warn{color:#8a5a00}
.legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px;border-radius:2px}
svg text{font:11px system-ui,sans-serif;fill:#1d2330}
"#;

const SCRIPT: &str = r#"
(function(){
  function wire(input){
    var table=document.getElementById(input.dataset.table);
    var count=document.getElementById(input.dataset.count);
    var rows=table.tBodies[0].rows;
    function apply(){
      var q=input.value.toLowerCase(),shown=0;
      for(var i=0;i<rows.length;i++){
        var hit=!q||rows[i].textContent.toLowerCase().indexOf(q)>=0;
        rows[i].style.display=hit?'':'none';if(hit)shown++;
      }
      count.textContent=shown+' of '+rows.length+' shown';
    }
    input.addEventListener('input',apply);
    return apply;
  }
  var inputs=document.querySelectorAll('input.filter'),appliers={};
  for(var i=0;i<inputs.length;i++){appliers[inputs[i].id]=wire(inputs[i]);}
  // #tensor-filter=blk.0&meta-filter=general prefills the filters
  var h=decodeURIComponent(location.hash.replace(/^#/,''));
  h.split('&').forEach(function(kv){
    var p=kv.split('=');var el=document.getElementById(p[0]);
    if(el&&p.length>1){el.value=p.slice(1).join('=');}
  });
  for(var k in appliers){appliers[k]();}
  document.body.setAttribute('data-ready','1');
})();
"#;

/// Horizontal bars: one labelled bar per (label, bytes, colour).
fn bars(items: &[(String, u64, String)], total: u64) -> String {
    let w = 900.0;
    let label_w = 190.0;
    let bar_w = w - label_w - 170.0;
    let h = 20.0;
    let max = items.iter().map(|i| i.1).max().unwrap_or(1).max(1) as f64;
    let mut s = format!(
        r#"<svg width="{w}" height="{}" role="img">"#,
        h * items.len() as f64 + 4.0
    );
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

/// Vertical bars per layer, stacked by tensor type.
fn layer_chart(layers: &BTreeMap<u64, BTreeMap<String, u64>>) -> String {
    let n = layers.len().max(1) as f64;
    let w = 900.0;
    let h = 180.0;
    let left = 60.0;
    let step = (w - left - 10.0) / n;
    let max = layers
        .values()
        .map(|m| m.values().sum::<u64>())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut s = format!(r#"<svg width="{w}" height="{}" role="img">"#, h + 36.0);
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
                colour(ty),
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

/// The file as one strip: header parts and each tensor's data, to scale.
fn strip(g: &Gguf<'_>) -> String {
    let total = g.expected_len().max(1) as f64;
    let w = 900.0;
    let mut s = format!(r#"<svg width="{w}" height="46" role="img">"#);
    let kv_end = g
        .metadata()
        .last()
        .map(|kv| kv.offset + kv.raw.len() as u64)
        .unwrap_or(24);
    let info_end = g
        .tensors()
        .last()
        .map(|t| {
            t.info_offset() + 8 + t.name_bytes().len() as u64 + 4 + 8 * u64::from(t.n_dims()) + 12
        })
        .unwrap_or(kv_end);
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
    seg(&mut s, 0, 24, "#1d2330", "fixed header");
    seg(&mut s, 24, kv_end, "#6b7a90", "metadata");
    seg(&mut s, kv_end, info_end, "#9aa7b8", "tensor infos");
    seg(&mut s, info_end, g.data_offset(), "#d5dae1", "padding");
    for t in g.tensors() {
        let name = format!("{} ({})", t.name(), t.ggml_type().name());
        seg(
            &mut s,
            t.absolute_offset(),
            t.absolute_offset() + t.size(),
            &colour(t.ggml_type().name()),
            &name,
        );
    }
    let _ = write!(
        s,
        r#"<text x="0" y="43">0</text><text x="{w}" y="43" text-anchor="end">{} bytes</text></svg>"#,
        grouped(g.expected_len())
    );
    s
}

fn filter_box(id: &str, table: &str, count: &str, placeholder: &str) -> String {
    format!(
        r#"<input class="filter" id="{id}" data-table="{table}" data-count="{count}" placeholder="{placeholder}" type="search"><span class="count" id="{count}"></span>"#
    )
}

pub fn page(file_name: &str, g: &Gguf<'_>) -> String {
    let mut h = String::with_capacity(1 << 16);
    let title = g.model_name().unwrap_or(file_name);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{} — gguf report</title><style>{STYLE}</style></head><body>\n",
        esc(title)
    );
    let _ = writeln!(
        h,
        "<header><h1>{}</h1><p>{} · GGUF v{} · {}-endian · written by <code>gguf report</code></p></header><main>",
        esc(title),
        esc(file_name),
        g.version(),
        g.endian()
    );

    // summary
    let params = g.parameter_count();
    let data = g.tensor_data_size();
    let mut rows: Vec<(String, String)> = Vec::new();
    let report = g.report();
    rows.push((
        "status".into(),
        match (report.valid(), report.ggml_compatible()) {
            (true, true) => "valid, ggml-compatible".into(),
            (true, false) => "<span class=\"warn\">valid, not loadable by ggml</span>".into(),
            (false, _) => format!(
                "<span class=\"bad\">INVALID at byte {}: {}</span>",
                report.errors[0].offset,
                esc(&report.errors[0].message)
            ),
        },
    ));
    if let Some(a) = g.architecture() {
        rows.push(("architecture".into(), format!("<code>{}</code>", esc(a))));
    }
    rows.push((
        "parameters".into(),
        format!("{} ({})", grouped(params), short_count(params)),
    ));
    rows.push((
        "file size".into(),
        format!(
            "{} ({} bytes)",
            human_bytes(g.expected_len()),
            grouped(g.expected_len())
        ),
    ));
    rows.push((
        "header".into(),
        format!(
            "{} ({} key-value pairs, {} tensors)",
            human_bytes(g.data_offset()),
            g.kv_count(),
            g.tensor_count()
        ),
    ));
    if params > 0 {
        rows.push((
            "memory to load".into(),
            format!(
                "{} of tensor data, {:.2} bits per weight (KV cache and compute buffers come on top)",
                human_bytes(data),
                data as f64 * 8.0 / params as f64
            ),
        ));
    }
    for (label, v) in [
        ("context length", g.context_length()),
        ("embedding length", g.embedding_length()),
        ("blocks", g.block_count()),
        ("attention heads", g.head_count()),
        ("kv heads", g.head_count_kv()),
    ] {
        if let Some(v) = v {
            rows.push((label.into(), grouped(v)));
        }
    }
    if let Some(kv) = facts::kv_cache(g) {
        let at = kv
            .at_context()
            .map(|b| format!("; {} at the full context", human_bytes(b)))
            .unwrap_or_default();
        rows.push((
            "kv cache (f16)".into(),
            format!(
                "{} per {} tokens{at}<br><small>{}</small>",
                human_bytes(kv.per_1k()),
                grouped(facts::KV_TOKENS),
                esc(&kv.formula())
            ),
        ));
    }
    if let Some(t) = facts::tokenizer(g) {
        let mut s = esc(t.model.as_deref().unwrap_or("unknown"));
        if let Some(n) = t.vocab_size {
            let _ = write!(s, ", {} tokens", grouped(n));
        }
        if let Some(m) = t.merges {
            let _ = write!(s, ", {} merges", grouped(m));
        }
        rows.push(("tokenizer".into(), s));
        if !t.special.is_empty() {
            let sp: Vec<String> = t
                .special
                .iter()
                .map(|x| match &x.text {
                    Some(text) => format!("{} <code>{}</code> ({})", x.role, esc(text), x.id),
                    None => format!("{} ({}, not in the vocabulary)", x.role, x.id),
                })
                .collect();
            rows.push(("special tokens".into(), sp.join(", ")));
        }
    }
    h.push_str("<section><h2>Summary</h2><table class=\"summary\" id=\"summary\"><tbody>");
    for (k, v) in rows {
        let _ = write!(h, "<tr><td>{}</td><td>{v}</td></tr>", esc(&k));
    }
    h.push_str("</tbody></table></section>\n");

    // where the bytes go
    if g.tensor_count() > 0 {
        let mut by_type: BTreeMap<&'static str, u64> = BTreeMap::new();
        let mut layers: BTreeMap<u64, BTreeMap<String, u64>> = BTreeMap::new();
        let mut other: BTreeMap<String, u64> = BTreeMap::new();
        for t in g.tensors() {
            let ty = t.ggml_type().name();
            *by_type.entry(ty).or_default() += t.size();
            let name = t.name();
            let layer = name
                .strip_prefix("blk.")
                .and_then(|r| r.split('.').next())
                .and_then(|n| n.parse::<u64>().ok());
            match layer {
                Some(l) => {
                    *layers
                        .entry(l)
                        .or_default()
                        .entry(ty.to_string())
                        .or_default() += t.size()
                }
                None => {
                    *other
                        .entry(name.split('.').next().unwrap_or("").to_string())
                        .or_default() += t.size()
                }
            }
        }
        let mut types: Vec<(String, u64, String)> = by_type
            .into_iter()
            .map(|(t, b)| (t.to_string(), b, colour(t)))
            .collect();
        types.sort_by_key(|t| std::cmp::Reverse(t.1));
        h.push_str("<section id=\"bytes\"><h2>Where the bytes go</h2><h3>By tensor type</h3>");
        h.push_str(&bars(&types, data));
        if !layers.is_empty() {
            let _ = write!(h, "<h3>By layer ({} layers)</h3>", layers.len());
            h.push_str("<p class=\"legend\">");
            for (t, _, c) in &types {
                let _ = write!(h, "<span><i style=\"background:{c}\"></i>{}</span>", esc(t));
            }
            h.push_str("</p>");
            h.push_str(&layer_chart(&layers));
            let layer_total: u64 = layers.values().flat_map(|m| m.values()).sum();
            let mut rest: Vec<(String, u64, String)> = other
                .into_iter()
                .map(|(n, b)| (n, b, "#6b7a90".to_string()))
                .collect();
            rest.sort_by_key(|t| std::cmp::Reverse(t.1));
            rest.insert(0, ("all layers".into(), layer_total, "#3d6fb6".into()));
            h.push_str("<h3>Layers and the tensors outside them</h3>");
            h.push_str(&bars(&rest, data));
        }
        h.push_str("</section>\n");
    }

    // metadata
    let _ = write!(
        h,
        "<section><h2>Metadata ({} keys)</h2>{}<div class=\"scroll\"><table id=\"meta\"><thead><tr><th>key</th><th>type</th><th>value</th></tr></thead><tbody>",
        g.kv_count(),
        filter_box("meta-filter", "meta", "meta-count", "filter keys and values")
    );
    for kv in g.metadata() {
        let ty = match kv.value {
            Value::Array(a) => format!("{}[{}]", a.element_type().name(), grouped(a.len())),
            _ => kv.value_type().name().to_string(),
        };
        let v = match kv.value {
            Value::String(s) => cut(s.to_string_lossy().into_owned(), 400),
            v => cut(human_value(&v, 16), 400),
        };
        let _ = write!(
            h,
            "<tr><td class=\"m\">{}</td><td>{}</td><td class=\"m\">{}</td></tr>",
            esc(&kv.key()),
            esc(&ty),
            esc(&v)
        );
    }
    h.push_str("</tbody></table></div></section>\n");

    // tensors
    let _ = write!(
        h,
        "<section><h2>Tensors ({})</h2>{}<div class=\"scroll\"><table id=\"tensors\"><thead><tr><th>name</th><th>type</th><th>shape</th><th class=\"n\">elements</th><th class=\"n\">bytes</th><th class=\"n\">offset</th></tr></thead><tbody>",
        g.tensor_count(),
        filter_box("tensor-filter", "tensors", "tensor-count", "filter names and types")
    );
    for t in g.tensors() {
        let _ = write!(
            h,
            "<tr><td class=\"m\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            esc(&t.name()),
            t.ggml_type().name(),
            shape_text(t.shape()),
            grouped(t.n_elements()),
            grouped(t.size()),
            grouped(t.offset())
        );
    }
    h.push_str("</tbody></table></div></section>\n");

    // layout
    let o = ggufkit::outline(g.as_bytes());
    let fields = layout::fields(g.as_bytes(), &o);
    let _ = write!(
        h,
        "<section><h2>Byte layout ({} fields)</h2>{}{}<div class=\"scroll\"><table id=\"layout\"><thead><tr><th class=\"n\">offset</th><th class=\"n\">length</th><th>field</th><th>value</th></tr></thead><tbody>",
        fields.len(),
        strip(g),
        filter_box("layout-filter", "layout", "layout-count", "filter fields")
    );
    for f in &fields {
        let v = match &f.value {
            FieldValue::None => String::new(),
            FieldValue::Int(n) => n.to_string(),
            FieldValue::Name(s) => s.to_string(),
            FieldValue::Elements(n) => format!("{} elements", grouped(*n)),
            FieldValue::Text(b) => cut(format!("{:?}", String::from_utf8_lossy(b)), 120),
            FieldValue::Value(v) => cut(human_value(v, 8), 120),
        };
        let marks: String = f
            .errors
            .iter()
            .map(|d| {
                format!(
                    "<br><span class=\"bad\">{} [{}]</span>",
                    esc(&d.message),
                    d.rule
                )
            })
            .collect();
        let _ = write!(
            h,
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"m\">{}</td><td class=\"m\">{}{marks}</td></tr>",
            grouped(f.offset),
            grouped(f.length),
            esc(&f.path),
            esc(&v)
        );
    }
    h.push_str("</tbody></table></div></section>\n</main>\n<script>");
    h.push_str(SCRIPT);
    h.push_str("</script></body></html>\n");
    h
}
