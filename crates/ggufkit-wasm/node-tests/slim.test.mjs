// The slim build (scripts/build_wasm.sh --slim: no tokenizer, no chat rendering) under Node 20:
// every corpus file and Gemma 3 give the same dump, info, validate, audit, layout and tensors
// JSON as the `gguf` command, byte for byte, and `tokenizer()` / `applyChatTemplate()` throw a
// GgufError saying they are not in this build.
//
// Environment (scripts/test.sh sets it): GGUFKIT_WASM_SLIM_PKG the slim package (default
// target/wasm-pkg-slim), GGUF_BIN the CLI, GGUF_GEMMA the model; skips as in wasm.test.mjs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const pkg = process.env.GGUFKIT_WASM_SLIM_PKG ?? path.join(repo, "target/wasm-pkg-slim");
const gguf = process.env.GGUF_BIN ?? path.join(repo, "target/debug/gguf");
const shared = path.resolve(repo, "../shared");

function skip(t, need, why) {
  const required = (process.env.GGUFKIT_REQUIRE ?? "").split(/[\s,]+/);
  if (required.includes(need) || required.includes("all")) {
    assert.fail(`${t.name}: [${need}] ${why} (GGUFKIT_REQUIRE names ${need})`);
  }
  console.log(`SKIPPED ${t.name}: [${need}] ${why}`);
  if (process.env.GGUFKIT_SKIP_LOG) {
    fs.appendFileSync(process.env.GGUFKIT_SKIP_LOG, `${need}\twasm-slim::${t.name}\t${why}\n`);
  }
  t.skip(why);
}

const slim = fs.existsSync(path.join(pkg, "index.js"))
  ? await import(pathToFileURL(path.join(pkg, "index.js")).href)
  : null;

function cli(...args) {
  const r = spawnSync(gguf, args, { maxBuffer: 1 << 30 });
  if (r.error) throw r.error;
  return r.stdout.toString("utf8");
}

function ready(t) {
  if (!slim) {
    skip(t, "wasm", `no slim package at ${pkg} (scripts/build_wasm.sh --slim)`);
    return false;
  }
  if (!fs.existsSync(gguf)) {
    skip(t, "gguf-cli", `no gguf binary at ${gguf} (cargo build -p gguf-cli)`);
    return false;
  }
  return true;
}

function files() {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && p.endsWith(".gguf")) out.push(p);
    }
  };
  if (fs.existsSync(path.join(shared, "corpus"))) walk(path.join(shared, "corpus"));
  out.sort();
  const g = process.env.GGUF_GEMMA ?? path.join(os.homedir(), ".cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf");
  if (fs.existsSync(g)) out.push(g);
  return out;
}

test("slim: features() is empty; tokenizer() and applyChatTemplate() say they are not in this build", (t) => {
  if (!ready(t)) return;
  const { GgufFile, GgufError, features, Tokenizer } = slim;
  assert.deepEqual(features(), []);
  assert.equal(Tokenizer, undefined);
  const p = path.join(shared, "corpus/models/llama-2-tiny-random.gguf");
  if (!fs.existsSync(p)) return skip(t, "shared", `no ${p}`);
  const file = GgufFile.fromBytes(new Uint8Array(fs.readFileSync(p)), { name: "tiny.gguf" });
  assert.throws(() => file.tokenizer(), (e) => {
    assert.ok(e instanceof GgufError, `not a GgufError: ${e && e.stack}`);
    assert.equal(e.message, "tiny.gguf: tokenizer() is not in this build of ggufkit-wasm (built without its `tokenizer` feature, scripts/build_wasm.sh --slim); the full package has it");
    return true;
  });
  assert.throws(() => file.applyChatTemplate([{ role: "user", content: "hi" }], {}), (e) => {
    assert.ok(e instanceof GgufError);
    assert.match(e.message, /applyChatTemplate\(\) is not in this build of ggufkit-wasm/);
    return true;
  });
  file.free();
});

test("slim: dump, info, validate, audit, layout and tensors equal the CLI's on the corpus and Gemma 3", (t) => {
  if (!ready(t)) return;
  const { GgufFile } = slim;
  const list = files();
  if (!list.length) return skip(t, "shared", "no ../shared/corpus and no Gemma 3");
  let opened = 0;
  for (const p of list) {
    const bytes = new Uint8Array(fs.readFileSync(p));
    assert.equal(GgufFile.validateBytes(bytes, { name: p }), cli("validate", "--json", p), `${p}: validate`);
    let file;
    try {
      file = GgufFile.fromBytes(bytes, { name: p });
    } catch {
      continue; // a file the spec refuses: its validation is compared above
    }
    if (/-00001-of-\d{5}\.gguf$/.test(p)) {
      file.free();
      continue; // gguf info describes the whole split model
    }
    opened++;
    assert.equal(file.toJSONText(), cli("dump", "--json", p), `${p}: dump`);
    assert.equal(file.summaryText(), cli("info", "--json", p), `${p}: info`);
    assert.equal(file.validateText(), cli("validate", "--json", p), `${p}: validate`);
    assert.equal(file.auditText(), cli("audit", "--json", p), `${p}: audit`);
    assert.equal(file.layoutText(), cli("layout", "--json", p), `${p}: layout`);
    assert.equal(file.tensorsText(), cli("tensors", "--json", p), `${p}: tensors`);
    file.free();
  }
  assert.ok(opened >= 20, `only ${opened} files opened`);
});
