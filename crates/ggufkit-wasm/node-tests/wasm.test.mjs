// The WebAssembly package under Node 20 (`node --test`), against the `gguf` command's output:
// every corpus file and Gemma 3 (dump, info, validate, audit, layout, tensors JSON byte for
// byte), every hostile case of the Rust suite (a GgufError, never a trap), edits (the bytes of
// `gguf meta set`/`rm`), Blob reads that stop at the header, and URLs over a local HTTP server
// that honours ranges, ignores them, or lies about lengths.
//
// Environment (scripts/test.sh sets it): GGUFKIT_WASM_PKG the built package (scripts/build_wasm.sh),
// GGUF_BIN the CLI, GGUFKIT_CASES_DIR the Rust suite's hostile cases, GGUF_GEMMA the model,
// GGUFKIT_SKIP_LOG / GGUFKIT_REQUIRE as for the Rust and Python tests (skips are said, and fail
// when CI set the thing up).

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const pkg = process.env.GGUFKIT_WASM_PKG ?? path.join(repo, "target/wasm-pkg");
const gguf = process.env.GGUF_BIN ?? path.join(repo, "target/debug/gguf");
const shared = path.resolve(repo, "../shared");

const { GgufFile, GgufError } = await import(pathToFileURL(path.join(pkg, "index.js")).href);

// ---- skips that cannot hide (crates/ggufkit-testkit/src/skip.rs) ------------------------------

function skip(t, need, why) {
  const required = (process.env.GGUFKIT_REQUIRE ?? "").split(/[\s,]+/);
  if (required.includes(need) || required.includes("all")) {
    assert.fail(`${t.name}: [${need}] ${why} (GGUFKIT_REQUIRE names ${need})`);
  }
  console.log(`SKIPPED ${t.name}: [${need}] ${why}`);
  if (process.env.GGUFKIT_SKIP_LOG) {
    fs.appendFileSync(process.env.GGUFKIT_SKIP_LOG, `${need}\twasm::${t.name}\t${why}\n`);
  }
  t.skip(why);
}

// ---- the CLI --------------------------------------------------------------------------------

function cli(...args) {
  const r = spawnSync(gguf, args, { maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout.toString("utf8"), err: r.stderr.toString("utf8"), raw: r.stdout };
}

function haveCli(t) {
  if (!fs.existsSync(gguf)) {
    skip(t, "gguf-cli", `no gguf binary at ${gguf} (cargo build -p gguf-cli)`);
    return false;
  }
  return true;
}

/** Whether `e` is a trap or any error other than the package's own. */
function assertGgufError(e, what) {
  assert.ok(!(e instanceof WebAssembly.RuntimeError), `${what}: a WebAssembly trap: ${e && e.stack}`);
  assert.ok(e instanceof GgufError, `${what}: not a GgufError: ${e && e.stack}`);
}

function corpusFiles() {
  const root = path.join(shared, "corpus");
  if (!fs.existsSync(root)) return null;
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && (p.endsWith(".gguf") || p.endsWith(".bin"))) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

function gemmaPath() {
  const p = process.env.GGUF_GEMMA ?? path.join(os.homedir(), ".cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf");
  return fs.existsSync(p) ? p : null;
}

/** Every JSON output of the package for `file` equals the CLI's for `p`. */
function compareOutputs(p, file) {
  const pairs = [
    ["dump", () => file.toJSONText(), ["dump", "--json", p]],
    ["info", () => file.summaryText(), ["info", "--json", p]],
    ["info --context", () => file.summaryText({ context: 4096 }), ["info", "--json", "--context", "4096", p]],
    ["audit", () => file.auditText(), ["audit", "--json", p]],
    ["audit --severity note", () => file.auditText({ severity: "note" }), ["audit", "--json", "--severity", "note", p]],
    ["layout", () => file.layoutText(), ["layout", "--json", p]],
    ["tensors", () => file.tensorsText(), ["tensors", "--json", p]],
    ["validate", () => file.validateText(), ["validate", "--json", p]],
  ];
  for (const [what, ours, args] of pairs) {
    const theirs = cli(...args);
    assert.equal(ours(), theirs.out, `${p}: ${what} differs from gguf ${args.join(" ")}`);
  }
}

/** A split model's first shard: `gguf info` describes the whole model, the package one file. */
function isFirstShard(p) {
  return /-00001-of-\d{5}\.gguf$/.test(p);
}

// ---- the corpus -----------------------------------------------------------------------------

test("corpus: every output equals the CLI's", (t) => {
  if (!haveCli(t)) return;
  const files = corpusFiles();
  if (!files) return skip(t, "shared", "no ../shared/corpus");
  let opened = 0;
  for (const p of files) {
    const bytes = new Uint8Array(fs.readFileSync(p));
    // validation of any file, opened or not
    assert.equal(GgufFile.validateBytes(bytes, { name: p }), cli("validate", "--json", p).out, `${p}: validate`);
    let strict = null;
    try {
      strict = GgufFile.fromBytes(bytes, { name: p });
    } catch (e) {
      assertGgufError(e, p);
      const first = JSON.parse(cli("validate", "--json", p).out).errors[0];
      assert.ok(first, `${p}: strict opening failed (${e.message}) but the CLI finds no error`);
      assert.deepEqual([e.rule, e.offset], [first.rule, first.offset], `${p}: the GgufError's rule and offset`);
    }
    if (strict) strict.free();
    let file;
    try {
      file = GgufFile.fromBytes(bytes, { name: p, permissive: true });
    } catch (e) {
      assertGgufError(e, p);
      assert.notEqual(cli("dump", "--json", p).code, 0, `${p}: the CLI dumps what the package refuses`);
      continue;
    }
    if (isFirstShard(p)) {
      for (const [what, ours, args] of [
        ["dump", () => file.toJSONText(), ["dump", "--json", p]],
        ["audit", () => file.auditText(), ["audit", "--json", p]],
        ["validate", () => file.validateText(), ["validate", "--json", p]],
      ]) {
        assert.equal(ours(), cli(...args).out, `${p}: ${what}`);
      }
    } else {
      compareOutputs(p, file);
    }
    file.free();
    opened++;
  }
  assert.ok(opened > 20, `only ${opened} corpus files opened`);
});

test("Gemma 3: every output equals the CLI's, read from a Blob that only gives its header", async (t) => {
  if (!haveCli(t)) return;
  const p = gemmaPath();
  if (!p) return skip(t, "gemma", "no Gemma 3 270M (set GGUF_GEMMA or run ../shared/corpus/get-gemma3-270m.sh)");
  const blob = await fs.openAsBlob(p);
  const counted = countingBlob(blob);
  const file = await GgufFile.fromBlob(counted, { name: p });
  assert.ok(counted.read <= file.dataOffset + (1 << 20) * 2, `read ${counted.read} bytes of a ${file.dataOffset}-byte header`);
  compareOutputs(p, file);
  tokenizerAsCli(p, file);
  file.free();
});

/** Tokenizing, detokenizing and the chat template of `file` as `gguf tokenize`, `detokenize`
 * and `chat` give them for `p`. */
function tokenizerAsCli(p, file) {
  const tok = file.tokenizer();
  const text = "Hello, world! GGUF in the browser: ça marche 🚀 <|im_end|>\n  12345";
  for (const [opts, flags] of [[{}, []], [{ addSpecial: false, parseSpecial: true }, ["--no-add-special", "--parse-special"]]]) {
    const ids = Array.from(tok.encode(text, opts));
    assert.equal(ids.join(" ") + "\n", cli("tokenize", p, text, "--ids", ...flags).out, `${p}: tokenize ${flags.join(" ")}`);
    assert.equal(tok.decode(ids), cli("detokenize", p, ...ids.map(String)).out, `${p}: detokenize`);
  }
  if (file.chatTemplates().length) {
    const messages = [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi there" }, { role: "assistant", content: "Hello!" }, { role: "user", content: "How are you?" }];
    const m = path.join(os.tmpdir(), `wasm-chat-${process.pid}.json`);
    fs.writeFileSync(m, JSON.stringify(messages));
    const theirs = cli("chat", p, "--messages", m, "--add-generation-prompt");
    fs.rmSync(m);
    let ours;
    try {
      ours = file.applyChatTemplate(messages, { addGenerationPrompt: true });
    } catch (e) {
      assertGgufError(e, p);
      assert.notEqual(theirs.code, 0, `${p}: the package cannot render (${e.message}); the CLI can`);
      return tok.free();
    }
    assert.equal(ours, theirs.out, `${p}: chat`);
  }
  tok.free();
}

test("tokenizer and chat template: every corpus vocabulary as the CLI", (t) => {
  if (!haveCli(t)) return;
  const files = (corpusFiles() ?? []).filter((p) => p.includes("/vocab/"));
  if (!files.length) return skip(t, "shared", "no ../shared/corpus/vocab");
  for (const p of files) {
    const file = GgufFile.fromBytes(new Uint8Array(fs.readFileSync(p)), { name: p, permissive: true });
    tokenizerAsCli(p, file);
    file.free();
  }
});

test("metadata(): every value as dump --json has it, typed", (t) => {
  const files = corpusFiles();
  if (!files) return skip(t, "shared", "no ../shared/corpus");
  const same = (a, b, what) => {
    if (typeof a === "bigint") return assert.equal(a, BigInt(b), what);
    if (typeof a === "number" && typeof b === "string") return assert.equal(String(a).toLowerCase().replace("infinity", "inf"), b, what);
    if (typeof a === "number") return assert.equal(a, Math.fround(b) === a ? Math.fround(b) : b, what);
    if (ArrayBuffer.isView(a) || Array.isArray(a)) {
      const list = Array.isArray(b) ? b : b.value;
      assert.equal(a.length, list.length, what);
      for (let i = 0; i < a.length; i++) same(a[i], list[i], `${what}[${i}]`);
      return;
    }
    if (b && typeof b === "object" && "hex" in b) return; // not UTF-8: lossy in metadata()
    assert.equal(a, b, what);
  };
  for (const p of files.filter((f) => !/malformed|big_endian|BE\.gguf|bench_/.test(f)).slice(0, 40)) {
    let file;
    try {
      file = GgufFile.fromBytes(new Uint8Array(fs.readFileSync(p)), { name: p });
    } catch {
      continue;
    }
    const m = file.metadata();
    for (const kv of file.toJSON().metadata) {
      // JSON.parse rounds 64-bit integers past 2^53
      if (/int64/.test(kv.type) || /int64/.test(JSON.stringify(kv.value)) || /int64/.test(kv.element_type ?? "")) continue;
      same(m[kv.key], kv.value, `${p}: ${kv.key}`);
    }
    file.free();
  }
});

// ---- the Rust suite's hostile cases ---------------------------------------------------------

test("hostile cases: a GgufError with the Rust suite's rule and offset, never a trap", (t) => {
  const dir = process.env.GGUFKIT_CASES_DIR;
  if (!dir || !fs.existsSync(path.join(dir, "cases.tsv"))) {
    return skip(t, "hostile-cases", "GGUFKIT_CASES_DIR holds no cases.tsv (scripts/test.sh writes it with the Rust suite)");
  }
  const lines = fs.readFileSync(path.join(dir, "cases.tsv"), "utf8").split("\n").filter(Boolean);
  assert.ok(lines.length > 100, "the Rust suites wrote too few cases");
  const seen = new Set();
  for (const line of lines) {
    const [name, suite, verdict, rule, offset] = line.split("\t");
    if (seen.has(name)) continue;
    seen.add(name);
    const bytes = new Uint8Array(fs.readFileSync(path.join(dir, name)));
    const what = `${suite} ${name}`;
    // validation never throws
    const report = JSON.parse(GgufFile.validateBytes(bytes, { name }));
    let file = null;
    let error = null;
    try {
      file = GgufFile.fromBytes(bytes, { name });
    } catch (e) {
      assertGgufError(e, what);
      error = e;
    }
    if (verdict === "opens") {
      assert.ok(file, `${what}: expected to open, got ${error && error.message}`);
      assert.equal(report.valid, true, what);
    } else if (verdict === "fails") {
      assert.ok(error, `${what}: expected ${rule} at ${offset}, but it opened`);
      assert.deepEqual([error.rule, error.offset], [rule, Number(offset)], what);
      assert.deepEqual([report.errors[0].rule, report.errors[0].offset], [rule, Number(offset)], what);
    }
    if (file) {
      // everything a page shows, without a trap
      for (const f of [() => file.toJSONText(), () => file.summaryText(), () => file.auditText({ severity: "note" }), () => file.layoutText(), () => file.tensorsText()]) {
        try {
          f();
        } catch (e) {
          assertGgufError(e, what);
        }
      }
      try {
        file.tokenizer().encode("hello world");
      } catch (e) {
        assertGgufError(e, what);
      }
      file.free();
    }
    // permissive opening too
    try {
      GgufFile.fromBytes(bytes, { name, permissive: true }).free();
    } catch (e) {
      assertGgufError(e, what);
    }
  }
});

// ---- edits ----------------------------------------------------------------------------------

test("edits: the Blob's bytes are gguf meta set's and rm's, and validate", async (t) => {
  if (!haveCli(t)) return;
  const files = corpusFiles();
  if (!files) return skip(t, "shared", "no ../shared/corpus");
  const picks = files.filter((p) => /models\/|vocab\/ggml-vocab-(llama-spm|gpt-2|bert-bge)|synthetic\/(align_|header_only|kv_all)/.test(p));
  assert.ok(picks.length >= 4, "too few corpus files to edit");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wasm-edit-"));
  let n = 0;
  try {
    for (const p of picks) {
      const bytes = new Uint8Array(fs.readFileSync(p));
      const blob = await fs.openAsBlob(p);
      const edits = [
        [{ set: { "general.name": "edited in a browser" } }, ["meta", "set", p, "general.name", "edited in a browser"]],
        [{ set: { "wasm.test.count": "42" } }, ["meta", "set", p, "wasm.test.count", "42"]],
        [{ set: { "wasm.test.list": { type: "array[uint16]", value: "[1, 2, 3]" } } }, ["meta", "set", p, "wasm.test.list", "[1, 2, 3]", "--type", "array[uint16]"]],
        [{ set: { "general.alignment": "64" } }, ["meta", "set", p, "general.alignment", "64"]],
      ];
      const file = GgufFile.fromBytes(bytes, { name: p, permissive: true });
      const removable = JSON.parse(file.toJSONText()).metadata.map((kv) => kv.key).find((k) => k !== "general.architecture");
      if (removable) edits.push([{ remove: [removable] }, ["meta", "rm", p, removable]]);
      const fromBlob = await GgufFile.fromBlob(blob, { name: p, permissive: true });
      for (const [edit, args] of edits) {
        const out = path.join(tmp, `out-${n++}.gguf`);
        const r = cli(...args, "-o", out);
        let ours;
        try {
          ours = new Uint8Array(await file.edit(edit).arrayBuffer());
        } catch (e) {
          assertGgufError(e, `${p} ${args.join(" ")}`);
          assert.notEqual(r.code, 0, `${p}: the package refused ${args.join(" ")} (${e.message}); the CLI did it`);
          continue;
        }
        assert.equal(r.code, 0, `${p}: the CLI refused ${args.join(" ")} (${r.err}); the package did it`);
        const theirs = new Uint8Array(fs.readFileSync(out));
        assert.ok(Buffer.from(ours).equals(Buffer.from(theirs)), `${p}: ${args.join(" ")}: the edited bytes differ`);
        const viaBlob = new Uint8Array(await fromBlob.edit(edit).arrayBuffer());
        assert.ok(Buffer.from(viaBlob).equals(Buffer.from(theirs)), `${p}: ${args.join(" ")}: the Blob-sourced edit differs`);
        const v = JSON.parse(GgufFile.validateBytes(ours, { name: out }));
        assert.equal(v.valid, JSON.parse(cli("validate", "--json", p).out).valid, `${p}: the edit changed the verdict`);
      }
      file.free();
      fromBlob.free();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("a 20 GB file: its header read alone, its edit made of the original's range", async (t) => {
  // a Blob-like 20 GB file (Node's Blob stops at 4 GiB; a browser's File does not): a header
  // declaring one 20 GB tensor, then zeros that are never read
  const size = 20e9;
  const header = bigHeader(size);
  const big = virtualBlob(header, header.length + size);
  const t0 = performance.now();
  const file = await GgufFile.fromBlob(big, { name: "big.gguf" });
  const opened = performance.now() - t0;
  assert.ok(big.read <= (1 << 20), `opening read ${big.read} bytes`);
  assert.equal(file.validate().valid, true);
  const t1 = performance.now();
  const pieces = file.editPieces({ set: { "general.name": "renamed in a browser" } });
  const ms = performance.now() - t1;
  assert.equal(pieces.length, 2, "a new header, then the original's data");
  assert.ok(pieces[0] instanceof Uint8Array);
  assert.deepEqual(pieces[1], [header.length, header.length + size]);
  console.log(`# 20 GB file: header opened in ${opened.toFixed(1)} ms reading ${big.read} bytes; the edit's pieces in ${ms.toFixed(1)} ms`);
  file.free();
});

test("edits: a 3 GB file's edited Blob is the new header and a slice of the original", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wasm-big-"));
  const p = path.join(dir, "big.gguf");
  try {
    const size = 3e9;
    const header = bigHeader(size);
    fs.writeFileSync(p, header);
    try {
      fs.truncateSync(p, header.length + size);
    } catch (e) {
      return skip(t, "platform", `a sparse 3 GB file cannot be made here: ${e.message}`);
    }
    const blob = countingBlob(await fs.openAsBlob(p));
    const file = await GgufFile.fromBlob(blob, { name: p });
    const read = blob.read;
    const t1 = performance.now();
    const edited = file.edit({ set: { "general.name": "renamed in a browser" } });
    const ms = performance.now() - t1;
    assert.equal(blob.read, read, "the edit read bytes of the file");
    assert.ok(edited.size > size, `the edited Blob is ${edited.size} bytes`);
    const again = await GgufFile.fromBlob(edited, { name: "edited" });
    assert.equal(again.validate().valid, true);
    assert.equal(again.toJSON().metadata.find((kv) => kv.key === "general.name").value, "renamed in a browser");
    console.log(`# 3 GB file: edited Blob assembled in ${ms.toFixed(1)} ms`);
    file.free();
    again.free();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A Blob-like object of `size` bytes: `head`, then zeros; counts the bytes read. */
function virtualBlob(head, size) {
  const w = {
    read: 0,
    size,
    slice(start, end) {
      const s = Math.max(0, Math.min(start, size));
      const e = Math.max(s, Math.min(end, size));
      return {
        size: e - s,
        arrayBuffer: async () => {
          w.read += e - s;
          const out = new Uint8Array(e - s);
          if (s < head.length) out.set(head.subarray(s, Math.min(e, head.length)));
          return out.buffer;
        },
      };
    },
  };
  return w;
}

/** A GGUF v3 header with general.architecture and one f32 tensor of `bytes` bytes. */
function bigHeader(bytes) {
  const parts = [];
  const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); parts.push(b); };
  const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); parts.push(b); };
  const str = (s) => { u64(Buffer.byteLength(s)); parts.push(Buffer.from(s)); };
  parts.push(Buffer.from("GGUF"));
  u32(3);
  u64(1); // tensors
  u64(1); // pairs
  str("general.architecture");
  u32(8);
  str("llama");
  str("big.weight");
  u32(1);
  u64(bytes / 4);
  u32(0); // f32
  u64(0);
  const h = Buffer.concat(parts);
  return Buffer.concat([h, Buffer.alloc((32 - (h.length % 32)) % 32)]);
}

/** A Blob-like wrapper that counts the bytes read through it (its slices are the real Blob's,
 * so an edit's Blob made of them holds the file by reference). */
function countingBlob(blob) {
  const w = {
    read: 0,
    size: blob.size,
    name: blob.name,
    slice(start, end) {
      const s = blob.slice(start, end);
      return new Proxy(s, {
        get(b, q) {
          if (q === "arrayBuffer") {
            return async () => {
              w.read += b.size;
              return b.arrayBuffer();
            };
          }
          const v = Reflect.get(b, q);
          return typeof v === "function" ? v.bind(b) : v;
        },
      });
    },
  };
  return w;
}

// ---- URLs -----------------------------------------------------------------------------------

/** A local server of `bytes` in one of the modes: `ranges` (honours Range), `ignore` (answers
 * 200 with the whole object), `short` (announces more than it sends), `grow` (a later answer
 * says another length), `wrong-range` (sends other bytes than asked), `first-short` (the first
 * answer is cut). Counts requests and bytes. */
async function serve(bytes, mode) {
  const stats = { requests: 0, sent: 0 };
  const server = http.createServer((req, res) => {
    stats.requests++;
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    res.on("error", () => {});
    req.socket.on("error", () => {});
    if (!m || mode === "ignore") {
      res.writeHead(200, { "Content-Length": bytes.length, ETag: '"v1"' });
      // write in pieces so that a reader that stops early is seen
      let at = 0;
      const pump = () => {
        while (at < bytes.length) {
          const chunk = bytes.subarray(at, Math.min(at + 65536, bytes.length));
          at += chunk.length;
          stats.sent += chunk.length;
          if (!res.write(chunk)) return res.once("drain", pump);
        }
        res.end();
      };
      res.on("close", () => { at = bytes.length; });
      return pump();
    }
    let start = Number(m[1]);
    let end = Math.min(Number(m[2]) + 1, bytes.length);
    let total = bytes.length;
    if (mode === "grow" && stats.requests > 1) total += 1;
    if (mode === "wrong-range" && stats.requests > 1) start += 1;
    const body = bytes.subarray(start, end);
    if ((mode === "short" && stats.requests > 1) || mode === "first-short") {
      res.writeHead(206, { "Content-Range": `bytes ${start}-${end - 1}/${total}`, "Content-Length": body.length, ETag: '"v1"' });
      res.write(body.subarray(0, Math.floor(body.length / 2)));
      stats.sent += Math.floor(body.length / 2);
      return res.destroy();
    }
    res.writeHead(206, { "Content-Range": `bytes ${start}-${end - 1}/${total}`, "Content-Length": body.length, ETag: '"v1"' });
    stats.sent += body.length;
    res.end(body);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}/model.gguf`;
  return { url, stats, close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

/** The biggest-header corpus file, and the model (more than one round of requests). */
function urlFiles() {
  const out = [];
  const g = gemmaPath();
  if (g) out.push(g);
  const files = corpusFiles() ?? [];
  const vocab = files.filter((p) => p.includes("/vocab/")).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size);
  if (vocab.length) out.push(vocab[0]);
  const model = files.find((p) => p.endsWith("models/llama-2-tiny-random.gguf"));
  if (model) out.push(model);
  return out;
}

test("URLs: ranges honoured, ignored, and lied about", async (t) => {
  if (!haveCli(t)) return;
  const files = urlFiles();
  if (!files.length) return skip(t, "shared", "no corpus file or Gemma 3 to serve");
  for (const p of files) {
    const bytes = fs.readFileSync(p);
    const local = GgufFile.fromBytes(new Uint8Array(bytes), { name: "x", permissive: true });
    const expected = JSON.parse(local.toJSONText());
    const expectedValid = local.validate();
    local.free();
    for (const mode of ["ranges", "ignore"]) {
      const s = await serve(bytes, mode);
      try {
        const file = await GgufFile.fromUrl(s.url, { name: "x", permissive: true });
        const got = JSON.parse(file.toJSONText());
        assert.ok(got.remote && got.remote.requests >= 1, `${p} ${mode}: the cost is said`);
        delete got.remote;
        assert.deepEqual(got, expected, `${p} ${mode}: the header differs`);
        const v = file.validate();
        delete v.remote;
        assert.deepEqual(v, expectedValid, `${p} ${mode}: the verdicts differ`);
        if (mode === "ranges") {
          assert.ok(s.stats.requests <= 4, `${p}: ${s.stats.requests} requests`);
          assert.ok(s.stats.sent <= file.dataOffset + (2 << 20), `${p}: ${s.stats.sent} bytes sent for a ${file.dataOffset}-byte header`);
        }
        file.free();
      } finally {
        await s.close();
      }
    }
    // a header read in one request: only a first answer can lie
    const modes = expected.tensor_data_offset > (1 << 20) ? ["short", "first-short", "grow", "wrong-range"] : ["first-short"];
    for (const mode of modes) {
      const s = await serve(bytes, mode);
      try {
        await assert.rejects(GgufFile.fromUrl(s.url, { name: "x" }), (e) => {
          assertGgufError(e, `${p} ${mode}`);
          return true;
        }, `${p} ${mode}: expected a GgufError`);
      } finally {
        await s.close();
      }
    }
  }
});

// ---- URLs: edits, and cuts past the first chunk ------------------------------------------------

/** Everything a ReadableStream gives, as one Uint8Array, and the largest chunk. */
async function drain(stream) {
  const parts = [];
  let largest = 0;
  for await (const c of stream) {
    parts.push(c);
    largest = Math.max(largest, c.length);
  }
  return { bytes: new Uint8Array(Buffer.concat(parts)), largest };
}

test("URLs: an edit is the new header and the data fetched by ranges (gguf meta set's bytes)", async (t) => {
  if (!haveCli(t)) return;
  const files = [];
  const tiny = path.join(shared, "corpus/models/llama-2-tiny-random.gguf");
  if (fs.existsSync(tiny)) files.push(tiny);
  const g = gemmaPath();
  if (g) files.push(g);
  if (!files.length) return skip(t, "shared", "no corpus model and no Gemma 3 to serve");
  if (!g) console.log("SKIPPED the Gemma 3 part of the URL edit: no model (scripts get-gemma3-270m.sh)");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wasm-url-edit-"));
  try {
    for (const p of files) {
      const bytes = fs.readFileSync(p);
      const out = path.join(tmp, `out-${path.basename(p)}`);
      const r = cli("meta", "set", p, "general.name", "edited over HTTP", "-o", out);
      assert.equal(r.code, 0, r.err);
      const theirs = fs.readFileSync(out);
      for (const mode of ["ranges", "ignore"]) {
        const s = await serve(bytes, mode);
        try {
          const file = await GgufFile.fromUrl(s.url, { name: "x" });
          const sentBefore = s.stats.sent;
          const blob = await file.edit({ set: { "general.name": "edited over HTTP" } });
          assert.ok(blob instanceof Blob, `${p} ${mode}: edit() of a URL resolves to a Blob`);
          const ours = Buffer.from(await blob.arrayBuffer());
          assert.ok(ours.equals(theirs), `${p} ${mode}: the edited bytes differ from gguf meta set's`);
          // the stream in small chunks: each chunk bounded, each request of the data one chunk
          const chunk = p === tiny ? 4096 : 4 << 20;
          const cost = { requests: 0, bytes: 0 };
          const requests = s.stats.requests;
          const { bytes: streamed, largest } = await drain(file.editStream({ set: { "general.name": "edited over HTTP" } }, { chunk, cost }));
          assert.ok(Buffer.from(streamed).equals(theirs), `${p} ${mode}: the streamed edit differs`);
          const header = theirs.length - (bytes.length - file.dataOffset);
          assert.ok(largest <= Math.max(chunk, header), `${p} ${mode}: a chunk of ${largest} bytes`);
          if (mode === "ranges") {
            const data = bytes.length - file.dataOffset;
            assert.equal(cost.requests, Math.ceil(data / chunk), `${p}: ${cost.requests} range requests for ${data} bytes in ${chunk}-byte chunks`);
            assert.equal(s.stats.requests - requests, cost.requests, `${p}: the cost counts every request`);
            assert.equal(cost.bytes, data, `${p}: ${cost.bytes} bytes fetched for ${data} bytes of data`);
          } else {
            assert.equal(cost.requests, 1, `${p}: one plain request from a server that ignores Range`);
          }
          assert.ok(s.stats.sent > sentBefore, "the data was fetched");
          const again = GgufFile.fromBytes(new Uint8Array(ours), { name: "edited" });
          assert.equal(again.validate().valid, true);
          again.free();
          file.free();
        } finally {
          await s.close();
        }
      }
    }
    // the object changes between the header's reading and the edit's: a GgufError in the stream
    if (fs.existsSync(tiny)) {
      const s = await serve(fs.readFileSync(tiny), "grow");
      try {
        const file = await GgufFile.fromUrl(s.url, { name: "x" });
        await assert.rejects(file.edit({ set: { "general.name": "x" } }), (e) => {
          assertGgufError(e, "grow");
          assert.match(e.message, /changed while it was being read/);
          return true;
        });
        file.free();
      } finally {
        await s.close();
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("URLs: a field cut short past the first chunk is the local reader's error, word for word", async (t) => {
  if (!haveCli(t)) return;
  const big = path.join(shared, "corpus/vocab/ggml-vocab-llama-bpe.gguf");
  if (!fs.existsSync(big)) return skip(t, "shared", "no ../shared/corpus/vocab/ggml-vocab-llama-bpe.gguf");
  const whole = fs.readFileSync(big);
  const first = JSON.parse(GgufFile.fromBytes(new Uint8Array(whole), { name: "x" }).toJSONText());
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "wasm-cut-"));
  try {
    // cuts inside a token string (1.5 MB), the merges' declared size (3 MB), inside a merge
    // string near the end of the header, and a byte before the header ends
    const cuts = [1_500_001, 3_000_000, first.tensor_data_offset - 1000, first.tensor_data_offset - 1];
    for (const cut of cuts) {
      assert.ok(cut > (1 << 20), "each cut is past the first chunk");
      const bytes = whole.subarray(0, cut);
      const p = path.join(tmp, `cut-${cut}.gguf`);
      fs.writeFileSync(p, bytes);
      const cliLine = JSON.parse(cli("validate", "--json", p).out);
      assert.equal(cliLine.valid, false, `${cut}: the CLI found the cut`);
      const cliError = cli("info", p).err.trim();
      let local;
      try {
        GgufFile.fromBytes(new Uint8Array(bytes), { name: p });
        assert.fail(`${cut}: fromBytes opened a cut file`);
      } catch (e) {
        assertGgufError(e, `${cut} bytes`);
        local = e;
      }
      // the CLI prints `gguf: ` and the error's text (`LOCATION: at byte N: MESSAGE [rule]`)
      assert.equal(`gguf: ${local.message}`, cliError, `${cut}: fromBytes' error is not the CLI's`);
      assert.equal(local.rule, cliLine.errors[0].rule);
      assert.equal(local.offset, cliLine.errors[0].offset);
      for (const mode of ["ranges", "ignore"]) {
        const s = await serve(bytes, mode);
        try {
          await assert.rejects(GgufFile.fromUrl(s.url, { name: p }), (e) => {
            assertGgufError(e, `${cut} ${mode}`);
            assert.equal(e.message, local.message, `${cut} ${mode}: the URL's error differs from the local one`);
            assert.equal(e.rule, local.rule);
            assert.equal(e.offset, local.offset);
            return true;
          });
          const v = await GgufFile.validateUrl(s.url, { name: p });
          delete v.remote;
          assert.deepEqual(v, cliLine, `${cut} ${mode}: validateUrl differs from gguf validate --json`);
        } finally {
          await s.close();
        }
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
