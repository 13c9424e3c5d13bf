// The ggufkit page: a GGUF file opened, checked, tokenized and edited in the tab, over the
// ggufkit-wasm package. Everything the page shows is the package's answer (the `gguf` command's
// JSON); this file only renders it.
//
// A classic script, not a module: a page opened from file:// cannot load module scripts by URL in
// Chromium, nor fetch a .wasm. scripts/build_web.sh writes ggufkit-bundle.js, which holds the
// package's two ES modules as text and the .wasm as base64 (GGUFKIT_BUNDLE); they are imported
// here from blob: URLs, which works over file:// and over any static host alike.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { pkg: null, file: null, blob: null, tokenizer: null, dump: null, tensors: [], sort: { key: "offset", dir: 1 } };

function status(text, isError = false) {
  const el = $("status");
  el.textContent = text;
  el.classList.toggle("error", isError);
}

// ---- the package --------------------------------------------------------------------------------

async function loadPackage() {
  const b = globalThis.GGUFKIT_BUNDLE;
  if (!b) throw new Error("ggufkit-bundle.js is missing: build the page with scripts/build_web.sh");
  // each module imports only earlier ones: their relative names become the earlier blob: URLs
  const made = [];
  let entry = null;
  for (const [path, source] of b.modules) {
    let text = source;
    // only in `from "..."` (the glue also names its snippets as the .wasm's import modules)
    for (const [p, u] of made) text = text.split(`from "${p}"`).join(`from "${u}"`).split(`from '${p}'`).join(`from '${u}'`);
    entry = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    made.push([path, entry]);
  }
  const pkg = await import(entry);
  const bin = atob(b.wasm);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  await pkg.load(bytes);
  return pkg;
}

// ---- opening ----------------------------------------------------------------------------------------

async function openWith(what, opener) {
  status(`Opening ${what}…`);
  const t0 = performance.now();
  let file;
  try {
    file = await opener();
  } catch (e) {
    showError(e);
    return;
  }
  const ms = performance.now() - t0;
  if (state.file) state.file.free();
  if (state.tokenizer) state.tokenizer.free();
  state.file = file;
  state.tokenizer = null;
  state.meta = null;
  const t1 = performance.now();
  render();
  const shownMs = performance.now() - t1;
  document.body.dataset.renderMs = shownMs.toFixed(2);
  document.body.dataset.openMs = ms.toFixed(2);
  status(`Opened ${file.name || what}: header read in ${ms.toFixed(1)} ms, shown in ${shownMs.toFixed(0)} ms more`);
}

function showError(e) {
  const parts = [e && e.message ? e.message : String(e)];
  if (e && e.rule) parts.push(`rule ${e.rule}`);
  if (e && e.offset !== null && e.offset !== undefined) parts.push(`at byte ${e.offset}`);
  status(parts.join(" · "), true);
}

function openBlob(blob) {
  state.blob = blob;
  return openWith(blob.name || "the file", () => state.pkg.GgufFile.fromBlob(blob, { permissive: true }));
}

function openUrl(u) {
  state.blob = null;
  return openWith(u, () => state.pkg.GgufFile.fromUrl(u, { permissive: true }));
}

// ---- rendering --------------------------------------------------------------------------------------

function render() {
  $("main").hidden = false;
  renderSummary();
  renderMetadata();
  renderTensors();
  renderFindings();
  renderTokenizer();
  renderChat();
  $("strip").replaceChildren();
  $("regions").tBodies[0].replaceChildren();
  if (!$("panel-layout").hidden) renderLayout();
}

const fmtInt = (n) => (typeof n === "number" ? n.toLocaleString("en") : String(n));
function fmtBytes(n) {
  if (typeof n !== "number") return String(n);
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return u === 0 ? `${n} B` : `${v.toFixed(2)} ${units[u]} (${fmtInt(n)} B)`;
}

function row(cells, tag = "td") {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement(tag);
    if (c instanceof Node) td.append(c); else td.textContent = c;
    tr.append(td);
  }
  return tr;
}

function renderSummary() {
  const s = state.file.summary();
  const dl = $("summary");
  dl.replaceChildren();
  const add = (k, v, id) => {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    if (id) dd.dataset.field = id;
    dl.append(dt, dd);
  };
  add("file", s.file, "file");
  add("valid", s.valid ? "yes" : "no", "valid");
  add("llama.cpp compatible", s.ggml_compatible ? "yes" : "no", "ggml_compatible");
  add("GGUF version", s.version, "version");
  add("byte order", s.endian, "endian");
  add("architecture", s.architecture ?? "—", "architecture");
  add("name", s.name ?? "—", "name");
  add("file type", s.file_type ? s.file_type.name : "—", "file_type");
  add("parameters", fmtInt(s.parameters), "parameters");
  add("bits per weight", typeof s.bits_per_weight === "number" ? s.bits_per_weight.toFixed(3) : "—", "bits_per_weight");
  add("metadata keys", s.kv_count, "kv_count");
  add("tensors", s.tensor_count, "tensor_count");
  add("alignment", s.alignment, "alignment");
  add("tensor data offset", fmtInt(s.tensor_data_offset), "tensor_data_offset");
  add("tensor data", fmtBytes(s.tensor_data_size), "tensor_data_size");
  add("file size", fmtBytes(s.file_size), "file_size");
  if (s.hyperparameters) {
    for (const [k, v] of Object.entries(s.hyperparameters)) add(k.replaceAll("_", " "), v ?? "—", `hp.${k}`);
  }
  if (s.kv_cache && s.kv_cache.bytes_at_context_length != null) {
    add("KV cache at context length", fmtBytes(s.kv_cache.bytes_at_context_length), "kv_cache");
  }
  if (s.tokenizer) {
    add("tokenizer", `${s.tokenizer.model ?? "—"}${s.tokenizer.pre ? ` (pre: ${s.tokenizer.pre})` : ""}, ${fmtInt(s.tokenizer.vocab_size)} tokens`, "tokenizer");
  }
  const tb = $("summary-types").tBodies[0];
  tb.replaceChildren(...(s.types || []).map((t) => row([t.type, t.tensors, fmtInt(t.n_elements), fmtInt(t.size), t.percent.toFixed(2)])));
}

// ---- metadata and the virtualised array list ------------------------------------------------------

const ARRAY_INLINE = 16;

// a float32 as the shortest decimal that reads back to it (as `gguf dump` writes it), not the
// float64 digits of its widened value
function f32Text(x) {
  if (!Number.isFinite(x)) return String(x);
  for (let p = 1; p < 10; p++) {
    const t = x.toPrecision(p);
    if (Math.fround(Number(t)) === x) return String(Number(t));
  }
  return String(x);
}

// one value as the dump's JSON writes it: strings quoted, 64-bit integers exact (BigInt),
// float32 shortest; `type` is the element type for array elements
function valueText(v, type) {
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return type === "float32" ? f32Text(v) : String(v);
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const elem = elemType(type);
    return `[${Array.from(v, (e) => valueText(e, elem)).join(",")}]`;
  }
  return JSON.stringify(v);
}

// `array[T]` → T (nested arrays: `array`)
function elemType(type) {
  const m = /^array\[(.*)\]$/.exec(type ?? "");
  return m ? m[1] : null;
}

// the metadata tab reads every value through metadata()'s fast path (typed arrays, strings
// sliced from one string), not the dump's JSON
function renderMetadata() {
  state.meta = state.file.metadataEntries();
  $("array-view").hidden = true;
  filterMetadata();
}

function filterMetadata() {
  const q = $("meta-filter").value.trim().toLowerCase();
  const rows = [];
  for (const kv of state.meta) {
    if (q && !kv.key.toLowerCase().includes(q)) continue;
    const isArray = Array.isArray(kv.value) || ArrayBuffer.isView(kv.value);
    let cell;
    if (isArray && kv.value.length > ARRAY_INLINE) {
      cell = document.createElement("span");
      const elem = elemType(kv.type);
      const head = Array.from(kv.value.slice(0, 5), (e) => valueText(e, elem)).join(", ");
      cell.append(`${fmtInt(kv.value.length)} values: [${head}, …] `);
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = "show all";
      b.setAttribute("aria-label", `show all ${kv.value.length} values of ${kv.key}`);
      b.addEventListener("click", () => showArray(kv));
      cell.append(b);
    } else {
      cell = valueText(kv.value, kv.type);
    }
    const tr = row([kv.key, kv.type, cell]);
    tr.dataset.key = kv.key;
    rows.push(tr);
  }
  $("metadata").tBodies[0].replaceChildren(...rows);
}

const ROW_H = 22;
let arrayValues = [];

let arrayType = null;

function showArray(kv) {
  arrayValues = kv.value;
  arrayType = elemType(kv.type);
  $("array-view").hidden = false;
  $("array-title").textContent = `${kv.key}: ${fmtInt(arrayValues.length)} values`;
  const list = $("array-list");
  list.querySelector(".vlist-spacer").style.height = `${arrayValues.length * ROW_H}px`;
  list.scrollTop = 0;
  $("array-goto").max = String(arrayValues.length - 1);
  drawArray();
  list.focus();
}

// only the rows in view (plus a margin) exist in the document: 262,144 tokens scroll smoothly
function drawArray() {
  const list = $("array-list");
  const first = Math.max(0, Math.floor(list.scrollTop / ROW_H) - 10);
  const last = Math.min(arrayValues.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW_H) + 10);
  const spacer = list.querySelector(".vlist-spacer");
  const rows = [];
  for (let i = first; i < last; i++) {
    const d = document.createElement("div");
    d.className = "vrow";
    d.setAttribute("role", "listitem");
    d.style.top = `${i * ROW_H}px`;
    const n = document.createElement("span");
    n.className = "idx";
    n.textContent = i;
    d.append(n, valueText(arrayValues[i], arrayType));
    rows.push(d);
  }
  list.replaceChildren(spacer, ...rows);
}

// ---- tensors ------------------------------------------------------------------------------------------

function renderTensors() {
  state.tensors = state.file.tensors().tensors;
  drawTensors();
}

function drawTensors() {
  const q = $("tensor-filter").value.trim().toLowerCase();
  const { key, dir } = state.sort;
  let list = state.tensors;
  if (q) list = list.filter((t) => t.name.toLowerCase().includes(q) || t.type.toLowerCase() === q);
  const val = (t) => (key === "shape" ? t.shape.reduce((a, b) => a * b, 1) : t[key]);
  list = list.slice().sort((a, b) => {
    const x = val(a);
    const y = val(b);
    return (x < y ? -1 : x > y ? 1 : 0) * dir;
  });
  const shown = list.slice(0, 2000);
  $("tensors").tBodies[0].replaceChildren(...shown.map((t) => row([t.name, t.type, `[${t.shape.join(", ")}]`, fmtInt(t.n_elements), fmtInt(t.size), fmtInt(t.offset)])));
  $("tensor-count").textContent = `${list.length} of ${state.tensors.length} tensors${list.length > shown.length ? ` (first ${shown.length} shown)` : ""}`;
  for (const th of $("tensors").tHead.rows[0].cells) {
    const k = th.querySelector("button").dataset.key;
    th.setAttribute("aria-sort", k === key ? (dir > 0 ? "ascending" : "descending") : "none");
  }
}

// ---- layout --------------------------------------------------------------------------------------------

// regions from `gguf layout --json`: the fixed header, each metadata pair, the tensor infos, the
// padding, each tensor's data
function regionsOf(layout, fileSize) {
  const regions = [];
  const add = (name, kind, start, end) => {
    const last = regions[regions.length - 1];
    if (last && last.name === name) last.end = Math.max(last.end, end);
    else regions.push({ name, kind, start, end });
  };
  const keys = state.meta.map((kv) => kv.key);
  for (const f of layout) {
    const end = f.offset + f.length;
    let m;
    if ((m = /^kv_pairs\[(\d+)\]/.exec(f.path))) add(`metadata: ${keys[Number(m[1])] ?? m[1]}`, "kv", f.offset, end);
    else if (f.path.startsWith("tensor_infos")) add("tensor infos", "info", f.offset, end);
    else if ((m = /^tensor_data\[(\d+)\]$/.exec(f.path))) add(`tensor: ${typeof f.value === "string" ? f.value : m[1]}`, "data", f.offset, end);
    else if (/padding/.test(f.path)) { if (f.length) add("padding", "pad", f.offset, end); }
    else add("header", "header", f.offset, end);
  }
  const last = regions.length ? regions[regions.length - 1].end : 0;
  if (last < fileSize) regions.push({ name: "after the data", kind: "pad", start: last, end: fileSize });
  return regions;
}

function renderLayout() {
  if ($("strip").childElementCount) return;
  const fileSize = state.file.fileSize;
  const regions = regionsOf(state.file.layout(), fileSize);
  const strip = $("strip");
  const frag = [];
  // a strip of at most ~400 pieces: neighbours of one kind that are each tiny are merged
  const minShare = 0.002;
  let merged = [];
  for (const r of regions) {
    const prev = merged[merged.length - 1];
    if (prev && prev.kind === r.kind && (r.end - r.start) / fileSize < minShare && (prev.end - prev.start) / fileSize < minShare) {
      prev.end = r.end;
      prev.count = (prev.count || 1) + 1;
    } else merged.push({ ...r });
  }
  for (const r of merged) {
    const d = document.createElement("div");
    d.className = `region ${r.kind}`;
    d.setAttribute("role", "listitem");
    d.tabIndex = 0;
    const share = (r.end - r.start) / Math.max(1, fileSize);
    d.style.flexGrow = String(Math.max(share, minShare));
    const label = `${r.count ? `${r.count} ${r.kind === "kv" ? "metadata pairs" : "regions"} from ${r.name}` : r.name}: bytes ${fmtInt(r.start)}–${fmtInt(r.end)} (${fmtBytes(r.end - r.start)})`;
    d.title = label;
    d.setAttribute("aria-label", label);
    frag.push(d);
  }
  strip.replaceChildren(...frag);
  const tb = $("regions").tBodies[0];
  tb.replaceChildren(...merged.slice(0, 3000).map((r) => row([r.count ? `${r.name} (+${r.count - 1} more)` : r.name, fmtInt(r.start), fmtInt(r.end - r.start)])));
}

// ---- validation and audit -----------------------------------------------------------------------------

function findingItem(f, severity) {
  const li = document.createElement("li");
  li.className = severity;
  const where = f.offset !== null && f.offset !== undefined ? ` at byte ${fmtInt(f.offset)}` : "";
  const what = [f.rule, f.key, f.tensor].filter(Boolean).join(" · ");
  const strong = document.createElement("strong");
  strong.textContent = `${severity}${what ? ` [${what}]` : ""}${where}: `;
  li.append(strong, f.message ?? JSON.stringify(f));
  return li;
}

function renderFindings() {
  const v = state.file.validate();
  $("verdict").textContent = `${v.valid ? "Valid" : "Not valid"} under the spec; ${v.ggml_compatible ? "llama.cpp (ggml) reads it" : "llama.cpp (ggml) refuses it"}.`;
  const items = [...v.errors.map((f) => findingItem(f, "error")), ...v.warnings.map((f) => findingItem(f, "warning"))];
  if (!items.length) { const li = document.createElement("li"); li.textContent = "No findings."; items.push(li); }
  $("validation").replaceChildren(...items);
  renderAudit();
}

function renderAudit() {
  let a;
  try {
    a = state.file.audit({ severity: $("audit-severity").value });
  } catch (e) {
    $("audit").replaceChildren(findingItem({ message: e.message }, "error"));
    return;
  }
  const items = a.findings.map((f) => findingItem(f, f.severity || "note"));
  if (!items.length) { const li = document.createElement("li"); li.textContent = `No findings at ${a.severity} or above.`; items.push(li); }
  $("audit").replaceChildren(...items);
}

// ---- tokenizer ------------------------------------------------------------------------------------------

function tokenizer() {
  if (!state.tokenizer) state.tokenizer = state.file.tokenizer();
  return state.tokenizer;
}

function renderTokenizer() {
  const out = $("tok-pieces");
  let tok;
  try {
    tok = tokenizer();
  } catch (e) {
    $("tok-count").textContent = `No tokenizer: ${e.message}`;
    out.replaceChildren();
    $("tok-ids").value = "";
    return;
  }
  let ids;
  try {
    ids = tok.encode($("tok-text").value, { addSpecial: $("tok-add-special").checked, parseSpecial: $("tok-parse-special").checked });
  } catch (e) {
    $("tok-count").textContent = `Cannot tokenize: ${e.message}`;
    return;
  }
  $("tok-count").textContent = `${ids.length} tokens (vocabulary of ${fmtInt(tok.vocabSize)})`;
  const spans = [];
  ids.forEach((id, i) => {
    const s = document.createElement("span");
    s.className = "piece";
    s.style.setProperty("--hue", String((i * 67) % 360));
    const piece = tok.token(id) ?? "";
    s.textContent = piece.replaceAll("\n", "↵").replaceAll(" ", "·") || "∅";
    s.title = `id ${id}`;
    s.setAttribute("aria-label", `token ${i}: ${JSON.stringify(piece)}, id ${id}`);
    spans.push(s);
  });
  out.replaceChildren(...spans);
  $("tok-ids").value = Array.from(ids).join(" ");
}

// ---- chat template -------------------------------------------------------------------------------------

function renderChat() {
  const sel = $("chat-template");
  let names = [];
  try { names = state.file.chatTemplates(); } catch { names = []; }
  const option = (value, text) => { const o = document.createElement("option"); o.value = value; o.textContent = text; return o; };
  const options = names.map((n) => option(n, `${n} (tokenizer.chat_template.${n})`));
  // the unnamed template is the default one (transformers' pick without tools)
  if (state.meta.some((kv) => kv.key === "tokenizer.chat_template")) options.unshift(option("", "default (tokenizer.chat_template)"));
  sel.replaceChildren(...options);
  sel.disabled = options.length === 0;
  drawChat();
}

function drawChat() {
  const out = $("chat-out");
  if ($("chat-template").disabled) { out.textContent = "This file has no chat template (tokenizer.chat_template)."; return; }
  try {
    const messages = JSON.parse($("chat-messages").value);
    const name = $("chat-template").value;
    const opts = { addGenerationPrompt: $("chat-gen").checked };
    if (name) opts.template = name;
    out.textContent = state.file.applyChatTemplate(messages, opts);
    out.classList.remove("error");
  } catch (e) {
    out.textContent = e.message;
    out.classList.add("error");
  }
}

// ---- edit ------------------------------------------------------------------------------------------------

function addEditRow(key = "", value = "") {
  const i = $("edit-rows").childElementCount;
  const div = document.createElement("div");
  div.className = "edit-row";
  div.innerHTML = `<label for="edit-key-${i}">key</label><input id="edit-key-${i}" class="edit-key" size="30">
    <label for="edit-value-${i}">value</label><input id="edit-value-${i}" class="edit-value" size="30">
    <button type="button" class="edit-del" aria-label="remove this row">×</button>`;
  div.querySelector(".edit-key").value = key;
  div.querySelector(".edit-value").value = value;
  div.querySelector(".edit-del").addEventListener("click", () => div.remove());
  $("edit-rows").append(div);
}

async function doEdit() {
  const set = {};
  for (const r of $("edit-rows").children) {
    const k = r.querySelector(".edit-key").value.trim();
    if (k) set[k] = r.querySelector(".edit-value").value;
  }
  const remove = $("edit-remove").value.split(",").map((s) => s.trim()).filter(Boolean);
  let blob;
  try {
    const t0 = performance.now();
    // a file opened from a URL: the tensor data is fetched by range requests into the Blob
    if (!state.file.source) $("edit-status").textContent = "Fetching the tensor data by range requests…";
    blob = await state.file.edit({ set, remove });
    $("edit-status").textContent = `Edited in ${(performance.now() - t0).toFixed(1)} ms: ${fmtBytes(blob.size)}.`;
    $("edit-status").classList.remove("error");
  } catch (e) {
    $("edit-status").textContent = e.message;
    $("edit-status").classList.add("error");
    return;
  }
  const a = $("edit-link");
  if (a.href) URL.revokeObjectURL(a.href);
  a.href = URL.createObjectURL(blob);
  const base = (state.file.name || "model.gguf").split(/[\\/]/).pop().replace(/\.gguf$/i, "");
  a.download = `${base}.edited.gguf`;
  a.textContent = `Save ${a.download} again`;
  a.hidden = false;
  a.click();
}

// ---- wiring -------------------------------------------------------------------------------------------------

function selectTab(tab) {
  for (const t of document.querySelectorAll('[role="tab"]')) {
    const on = t === tab;
    t.setAttribute("aria-selected", String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute("aria-controls")).hidden = !on;
  }
  tab.focus();
  if (tab.id === "tab-layout" && state.file) renderLayout();
}

function wire() {
  // the value is cleared once taken, so that choosing the same file again opens it again
  $("file-input").addEventListener("change", (e) => { const f = e.target.files[0]; e.target.value = ""; if (f) openBlob(f); });
  $("open-form").addEventListener("submit", (e) => { e.preventDefault(); const u = $("url-input").value.trim(); if (u) openUrl(u); });
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer.files[0];
    if (f) openBlob(f);
  });
  drop.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("file-input").click(); } });
  drop.addEventListener("click", () => $("file-input").click());

  const tabs = [...document.querySelectorAll('[role="tab"]')];
  for (const t of tabs) {
    t.addEventListener("click", () => selectTab(t));
    t.addEventListener("keydown", (e) => {
      const i = tabs.indexOf(t);
      const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
      if (to !== undefined) { e.preventDefault(); selectTab(tabs[(to + tabs.length) % tabs.length]); }
    });
  }

  $("meta-filter").addEventListener("input", filterMetadata);
  $("array-list").addEventListener("scroll", drawArray);
  $("array-goto").addEventListener("change", () => { $("array-list").scrollTop = Number($("array-goto").value) * ROW_H; drawArray(); });
  $("tensor-filter").addEventListener("input", drawTensors);
  for (const b of $("tensors").tHead.querySelectorAll("button")) {
    b.addEventListener("click", () => {
      const k = b.dataset.key;
      state.sort = { key: k, dir: state.sort.key === k ? -state.sort.dir : 1 };
      drawTensors();
    });
  }
  $("audit-severity").addEventListener("change", renderAudit);
  for (const id of ["tok-text", "tok-add-special", "tok-parse-special"]) $(id).addEventListener("input", renderTokenizer);
  for (const id of ["chat-template", "chat-messages", "chat-gen"]) $(id).addEventListener("input", drawChat);
  $("edit-add").addEventListener("click", () => addEditRow());
  $("edit-go").addEventListener("click", doEdit);
  addEditRow("general.name", "");
}

wire();
loadPackage().then(
  (pkg) => {
    state.pkg = pkg;
    globalThis.ggufkit = pkg; // for the console (and the browser test)
    globalThis.ggufkitPage = { openBlob, openUrl, state };
    document.body.dataset.ready = "true";
    status("Ready: open a GGUF file (nothing leaves this machine).");
    const u = new URLSearchParams(location.search).get("url");
    if (u) { $("url-input").value = u; openUrl(u); }
  },
  (e) => { document.body.dataset.ready = "error"; status(`The WebAssembly package did not load: ${e.message}`, true); },
);
