// ggufkit-wasm beside @huggingface/gguf under Node, in one run, on the same bytes in memory: open
// each of the corpus's vocabularies and Gemma 3, and read every metadata value into JavaScript.
// ggufkit-wasm validates every rule of the spec on the way (strict opening), then hands every
// value over (`metadata()`: typed arrays for numbers, strings sliced from one string); @huggingface/gguf parses the header from its range reads (served from
// the same bytes by a fetch function, no network) and returns its metadata object, whose
// values are then all touched.
//
//   node crates/ggufkit-wasm/node-tests/bench.mjs [RUNS]
//
// GGUFKIT_WASM_PKG: the built package (default target/wasm-pkg); HF_GGUF: @huggingface/gguf's
// folder (default ~/.cache/ggufkit/wasm-tools/node_modules/@huggingface/gguf, where
// scripts/build_wasm.sh's tools live; install it there with `npm install @huggingface/gguf@0.4.6`).
// Prints one line per file (RUNS of each, default 5, alternating after one warm-up each: the
// median and the best of each, and their ratios), the totals and the machine's load.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const pkg = process.env.GGUFKIT_WASM_PKG ?? path.join(repo, "target/wasm-pkg");
const hf = process.env.HF_GGUF ?? path.join(os.homedir(), ".cache/ggufkit/wasm-tools/node_modules/@huggingface/gguf");
const runs = Number(process.argv[2] ?? 5);

const { GgufFile } = await import(pathToFileURL(path.join(pkg, "index.js")).href);
const hfPkg = JSON.parse(fs.readFileSync(path.join(hf, "package.json"), "utf8"));
const { gguf } = await import(pathToFileURL(path.join(hf, "dist/index.mjs")).href);

const files = [];
const vocab = path.resolve(repo, "../shared/corpus/vocab");
if (fs.existsSync(vocab)) {
  for (const f of fs.readdirSync(vocab).sort()) if (f.endsWith(".gguf")) files.push(path.join(vocab, f));
}
const gemma = process.env.GGUF_GEMMA ?? path.join(os.homedir(), ".cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf");
if (fs.existsSync(gemma)) files.push(gemma);
if (!files.length) {
  console.log("SKIPPED the benchmark: no ../shared/corpus/vocab and no Gemma 3");
  process.exit(0);
}

/** Touches every value (nested arrays included), as a program that reads them all does. */
function touch(v) {
  if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    let n = 0;
    for (const e of v) n += touch(e);
    return n;
  }
  return typeof v === "string" ? v.length : 1;
}

async function ours(bytes) {
  const f = GgufFile.fromBytes(bytes, { name: "x" });
  const metadata = f.metadata();
  f.free();
  let n = 0;
  for (const v of Object.values(metadata)) n += touch(v);
  return n;
}

async function theirs(bytes) {
  // their reader asks for ranges; they come from the same bytes in memory
  const fetchBytes = async (_url, init) => {
    const m = /bytes=(\d+)-(\d+)/.exec(init?.headers?.Range ?? init?.headers?.range ?? "");
    const [s, e] = m ? [Number(m[1]), Math.min(Number(m[2]) + 1, bytes.length)] : [0, bytes.length];
    return new Response(bytes.subarray(s, e), {
      status: m ? 206 : 200,
      headers: { "Content-Range": `bytes ${s}-${e - 1}/${bytes.length}`, "Content-Length": String(e - s) },
    });
  };
  const { metadata } = await gguf("https://example.invalid/x.gguf", { fetch: fetchBytes });
  let n = 0;
  for (const v of Object.values(metadata)) n += touch(v);
  return n;
}

/** Times both readers RUNS times each, alternating (one warm-up each first), so that the load of
 * a shared machine falls on both alike; gives each one's median and best. */
async function timings(bytes) {
  await theirs(bytes);
  await ours(bytes);
  const t = { ours: [], theirs: [] };
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of i % 2 ? [["ours", ours], ["theirs", theirs]] : [["theirs", theirs], ["ours", ours]]) {
      const t0 = performance.now();
      await fn(bytes);
      t[k].push(performance.now() - t0);
    }
  }
  const stat = (a) => {
    a.sort((x, y) => x - y);
    return { median: a[Math.floor(a.length / 2)], best: a[0] };
  };
  return { ours: stat(t.ours), theirs: stat(t.theirs) };
}

console.log(`ggufkit-wasm vs @huggingface/gguf ${hfPkg.version}, Node ${process.versions.node}, ${runs} runs each, alternating; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
console.log(`${"file".padEnd(36)} ${"header".padStart(9)} ${"ours median".padStart(12)} ${"theirs median".padStart(14)} ${"ratio".padStart(7)}  ${"ours best".padStart(10)} ${"theirs best".padStart(12)} ${"ratio".padStart(7)}`);
const sum = { om: 0, tm: 0, ob: 0, tb: 0 };
let worst = Infinity;
for (const p of files) {
  const bytes = new Uint8Array(fs.readFileSync(p));
  let header;
  try {
    const f = GgufFile.fromBytes(bytes, { name: "x" });
    header = f.dataOffset;
    f.free();
  } catch (e) {
    console.log(`${path.basename(p)}: ggufkit-wasm refuses it (${e.message}); left out`);
    continue;
  }
  let t;
  try {
    t = await timings(bytes);
  } catch (e) {
    console.log(`${path.basename(p)}: a reader fails (${e.message}); left out`);
    continue;
  }
  sum.om += t.ours.median;
  sum.tm += t.theirs.median;
  sum.ob += t.ours.best;
  sum.tb += t.theirs.best;
  worst = Math.min(worst, t.theirs.median / t.ours.median);
  const ms = (x) => `${x.toFixed(2)} ms`;
  console.log(`${path.basename(p, ".gguf").padEnd(36)} ${String(header).padStart(9)} ${ms(t.ours.median).padStart(12)} ${ms(t.theirs.median).padStart(14)} ${(t.theirs.median / t.ours.median).toFixed(2).padStart(6)}×  ${ms(t.ours.best).padStart(10)} ${ms(t.theirs.best).padStart(12)} ${(t.theirs.best / t.ours.best).toFixed(2).padStart(6)}×`);
}
const ms = (x) => `${x.toFixed(1)} ms`;
console.log(`${"total".padEnd(36)} ${"".padStart(9)} ${ms(sum.om).padStart(12)} ${ms(sum.tm).padStart(14)} ${(sum.tm / sum.om).toFixed(2).padStart(6)}×  ${ms(sum.ob).padStart(10)} ${ms(sum.tb).padStart(12)} ${(sum.tb / sum.ob).toFixed(2).padStart(6)}×`);
console.log(`lowest ratio of medians: ${worst.toFixed(2)}×; load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}`);
