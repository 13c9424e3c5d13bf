//! The page of `gguf report`: one self-contained HTML document (no network, no external script
//! or style) with the model summary, searchable metadata and tensor tables (a little inline
//! JavaScript), pictures of where the bytes go (inline SVG, in `svg.rs`) and the byte layout.

use std::fmt::Write as _;

use ggufkit::layout::{ByteLayout, FieldValue};
use ggufkit::summary::{Summary, TypeShare};
use ggufkit::{Gguf, Report, Value};

use super::markup::esc;
use super::summary::{kv_formula, KV_TOKENS};
use super::svg::{bars, layer_chart, strip, Palette};
use super::value::human_value;
use super::{counted, grouped, human_bytes, shape_text, short_count, shorten};

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
#meta td:first-child{white-space:nowrap;overflow-wrap:normal}
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

/// Rows each table of the page shows at most. A hostile header of a million tiny fields would
/// otherwise make a page many times its own size that no browser opens; a real model's tables
/// stay far below it (5,000 tensors lay out in about 40,000 fields).
const MAX_ROWS: usize = 50_000;

/// The footer of a table that shows `shown` of `total` rows: how many are left out, and the
/// command that lists every one. Outside the body, so the filter neither hides nor counts it.
fn rows_left_out(h: &mut String, shown: usize, total: usize, columns: usize, command: &str) {
    if total > shown {
        let _ = write!(
            h,
            "<tfoot><tr><td colspan=\"{columns}\">{} more not shown: <code>{command}</code> lists every one</td></tr></tfoot>",
            grouped((total - shown) as u64)
        );
    }
}

fn filter_box(id: &str, table: &str, count: &str, placeholder: &str) -> String {
    format!(
        r#"<input class="filter" id="{id}" data-table="{table}" data-count="{count}" placeholder="{placeholder}" type="search"><span class="count" id="{count}"></span>"#
    )
}

/// The page for the file `file_name`: its summary `m`, its tables and its byte layout.
pub fn page(file_name: &str, g: &Gguf<'_>, m: &Summary, layout: &ByteLayout<'_>) -> String {
    let mut h = String::with_capacity(1 << 16);
    let f = &m.format;
    let title = m.name.as_deref().unwrap_or(file_name);
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
        f.version,
        f.endian
    );
    summary_section(&mut h, g.report(), m);
    let palette = Palette::new(types_by_size(m).iter().map(|t| t.ggml_type.name()));
    if !m.types.is_empty() {
        bytes_section(&mut h, m, &palette);
    }
    metadata_section(&mut h, g);
    tensors_section(&mut h, g);
    layout_section(&mut h, g, layout, &palette);
    h.push_str("</main>\n<script>");
    h.push_str(SCRIPT);
    h.push_str("</script></body></html>\n");
    h
}

fn summary_section(h: &mut String, report: &Report, m: &Summary) {
    let f = &m.format;
    let params = m.parameters;
    let data = m.tensor_data_bytes;
    let mut rows: Vec<(String, String)> = Vec::new();
    rows.push((
        "status".into(),
        match (
            report.valid(),
            report.ggml_compatible(),
            report.errors.first(),
        ) {
            (true, true, _) => "valid, ggml-compatible".into(),
            (true, false, _) => "<span class=\"warn\">valid, not loadable by ggml</span>".into(),
            // the error line as everywhere else: the diagnostic's own Display
            (false, _, Some(e)) => {
                format!("<span class=\"bad\">INVALID {}</span>", esc(&e.to_string()))
            }
            // stopped at the reader's limits without a broken rule
            (false, _, None) => "<span class=\"bad\">INVALID</span>".into(),
        },
    ));
    if let Some(a) = &m.architecture {
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
            human_bytes(f.file_size),
            grouped(f.file_size)
        ),
    ));
    rows.push((
        "header".into(),
        format!(
            "{} ({}, {})",
            human_bytes(f.header_bytes),
            super::counted(f.kv_count, "key-value pair", "key-value pairs"),
            super::counted(m.tensor_count(), "tensor", "tensors")
        ),
    ));
    if let Some(bpw) = m.bits_per_weight() {
        rows.push((
            "memory to load".into(),
            format!(
                "{} of tensor data, {bpw:.2} bits per weight (KV cache and compute buffers come on top)",
                human_bytes(data),
            ),
        ));
    }
    let hp = &m.hyperparameters;
    for (label, v) in [
        ("context length", hp.context_length),
        ("embedding length", hp.embedding_length),
        ("blocks", hp.block_count),
        ("attention heads", hp.head_count),
        ("kv heads", hp.head_count_kv),
    ] {
        if let Some(v) = v {
            rows.push((label.into(), grouped(v)));
        }
    }
    if let Some(kv) = &m.kv_cache {
        let at = kv
            .at_full_context()
            .map(|b| format!("; {} at the full context", human_bytes(b)))
            .unwrap_or_default();
        rows.push((
            "kv cache (f16)".into(),
            format!(
                "{} per {} tokens{at}<br><small>{}</small>",
                human_bytes(kv.bytes_for(KV_TOKENS)),
                grouped(KV_TOKENS),
                esc(&kv_formula(kv))
            ),
        ));
    }
    if let Some(t) = &m.tokenizer {
        let mut s = esc(t.model.as_deref().unwrap_or("unknown"));
        if let Some(n) = t.vocab_size {
            let _ = write!(s, ", {} tokens", grouped(n));
        }
        if let Some(n) = t.merges {
            let _ = write!(s, ", {} merges", grouped(n));
        }
        rows.push(("tokenizer".into(), s));
        if !t.special.is_empty() {
            let sp: Vec<String> = t
                .special
                .iter()
                .map(|x| match &x.text {
                    Some(text) => {
                        format!("{} <code>{}</code> ({})", x.role.name(), esc(text), x.id)
                    }
                    None => format!("{} ({}, not in the vocabulary)", x.role.name(), x.id),
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
}

/// The model's tensor types, the largest first, ties in the order of the type names (as the
/// legend, the bars and the palette show them).
fn types_by_size(m: &Summary) -> Vec<&TypeShare> {
    let mut by_name: Vec<_> = m.types.iter().collect();
    by_name.sort_by_key(|t| t.ggml_type.name());
    by_name.sort_by_key(|t| std::cmp::Reverse(t.bytes));
    by_name
}

/// Where the bytes go: by tensor type, by layer, and the layers against the tensors outside them.
fn bytes_section(h: &mut String, m: &Summary, palette: &Palette) {
    let data = m.tensor_data_bytes;
    let types: Vec<(String, u64, String)> = types_by_size(m)
        .iter()
        .map(|t| {
            let name = t.ggml_type.name();
            (
                t.ggml_type.to_string(),
                t.bytes,
                palette.of(name).to_string(),
            )
        })
        .collect();
    h.push_str("<section id=\"bytes\"><h2>Where the bytes go</h2><h3>By tensor type</h3>");
    h.push_str(&bars(&types, data));
    if !m.layers.is_empty() {
        let _ = write!(
            h,
            "<h3>By layer ({})</h3>",
            counted(m.layers.len() as u64, "layer", "layers")
        );
        h.push_str("<p class=\"legend\">");
        for (t, _, c) in &types {
            let _ = write!(h, "<span><i style=\"background:{c}\"></i>{}</span>", esc(t));
        }
        h.push_str("</p>");
        let stacks: Vec<(u64, Vec<(&str, u64)>)> = m
            .layers
            .iter()
            .map(|l| {
                let mut types: Vec<(&str, u64)> =
                    l.by_type.iter().map(|(t, b)| (t.name(), *b)).collect();
                types.sort_by_key(|t| t.0);
                (l.layer, types)
            })
            .collect();
        h.push_str(&layer_chart(&stacks, palette));
        let layer_total = m
            .layers
            .iter()
            .fold(0u64, |a, l| a.saturating_add(l.bytes()));
        let mut rest: Vec<(String, u64, String)> =
            vec![("all layers".into(), layer_total, "#3d6fb6".into())];
        rest.extend(
            m.outside_layers
                .iter()
                .map(|p| (p.prefix.clone(), p.bytes, "#6b7a90".to_string())),
        );
        h.push_str("<h3>Layers and the tensors outside them</h3>");
        h.push_str(&bars(&rest, data));
    }
    h.push_str("</section>\n");
}

fn metadata_section(h: &mut String, g: &Gguf<'_>) {
    let _ = write!(
        h,
        "<section><h2>Metadata ({})</h2>{}<div class=\"scroll\"><table id=\"meta\"><thead><tr><th>key</th><th>type</th><th>value</th></tr></thead><tbody>",
        counted(g.kv_count() as u64, "key", "keys"),
        filter_box("meta-filter", "meta", "meta-count", "filter keys and values")
    );
    for kv in g.metadata().take(MAX_ROWS) {
        let ty = match kv.value {
            Value::Array(a) => format!("{}[{}]", a.element_type().name(), grouped(a.len())),
            _ => kv.value_type().name().to_string(),
        };
        let v = match kv.value {
            Value::String(s) => shorten(s.to_string_lossy().into_owned(), 400),
            v => shorten(human_value(&v, 16), 400),
        };
        let _ = write!(
            h,
            "<tr><td class=\"m\">{}</td><td>{}</td><td class=\"m\">{}</td></tr>",
            esc(&kv.key()),
            esc(&ty),
            esc(&v)
        );
    }
    h.push_str("</tbody>");
    rows_left_out(h, MAX_ROWS, g.kv_count(), 3, "gguf dump FILE");
    h.push_str("</table></div></section>\n");
}

fn tensors_section(h: &mut String, g: &Gguf<'_>) {
    let _ = write!(
        h,
        "<section><h2>Tensors ({})</h2>{}<div class=\"scroll\"><table id=\"tensors\"><thead><tr><th>name</th><th>type</th><th>shape</th><th class=\"n\">elements</th><th class=\"n\">bytes</th><th class=\"n\">offset</th></tr></thead><tbody>",
        g.tensor_count(),
        filter_box("tensor-filter", "tensors", "tensor-count", "filter names and types")
    );
    for t in g.tensors().take(MAX_ROWS) {
        let _ = write!(
            h,
            "<tr><td class=\"m\">{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            esc(&t.name()),
            esc(&t.tensor_type().to_string()),
            shape_text(t.shape()),
            grouped(t.n_elements()),
            grouped(t.size()),
            grouped(t.offset())
        );
    }
    h.push_str("</tbody>");
    rows_left_out(h, MAX_ROWS, g.tensor_count(), 6, "gguf tensors FILE");
    h.push_str("</table></div></section>\n");
}

fn layout_section(h: &mut String, g: &Gguf<'_>, layout: &ByteLayout<'_>, palette: &Palette) {
    let fields = &layout.fields;
    let _ = write!(
        h,
        "<section><h2>Byte layout ({})</h2>{}{}<div class=\"scroll\"><table id=\"layout\"><thead><tr><th class=\"n\">offset</th><th class=\"n\">length</th><th>field</th><th>value</th></tr></thead><tbody>",
        counted(fields.len() as u64, "field", "fields"),
        strip(g, layout, palette),
        filter_box("layout-filter", "layout", "layout-count", "filter fields")
    );
    for f in fields.iter().take(MAX_ROWS) {
        let v = match &f.value {
            FieldValue::None => String::new(),
            FieldValue::Int(n) => n.to_string(),
            FieldValue::ValueType(t) => t.name().to_string(),
            FieldValue::TensorType(t) => t.to_string(),
            FieldValue::Elements(n) => format!("{} elements", grouped(*n)),
            FieldValue::Text(b) => shorten(format!("{:?}", String::from_utf8_lossy(b)), 120),
            FieldValue::Value(v) => shorten(human_value(v, 8), 120),
        };
        let marks: String = f
            .findings
            .iter()
            .map(|x| {
                format!(
                    "<br><span class=\"bad\">{} [{}]</span>",
                    esc(&x.diagnostic.message),
                    x.diagnostic.rule
                )
            })
            .collect();
        let _ = write!(
            h,
            "<tr><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"m\">{}</td><td class=\"m\">{}{marks}</td></tr>",
            grouped(f.offset),
            grouped(f.length),
            esc(&f.path.to_string()),
            esc(&v)
        );
    }
    h.push_str("</tbody>");
    rows_left_out(h, MAX_ROWS, fields.len(), 4, "gguf layout FILE");
    h.push_str("</table></div></section>\n");
}
