#!/usr/bin/env python3
"""Tokenizing beside llama.cpp, in one run: ggufkit's tokenizer against llama.cpp's own (the
prebuilt libllama of node-llama-cpp 3.21.1: its JavaScript ``model.tokenize`` and, for the cost of
the call alone, ``llama_tokenize`` through ctypes), on a 1 MB mixed text (seeded: English with
contractions and numbers, source code, a dozen scripts, emoji sequences, whitespace runs).

Rows, for each vocabulary (llama-bpe, qwen2, llama-spm, gemma-4 of ../shared/corpus/vocab):

- **one core**: the whole text in one call, best of N, model load excluded; the ids are compared.
- **both cores**: the text as lines (about 1,000), ``encode_batch`` against llama.cpp's
  ``tokenize`` of each line in turn (its call has no batch form; node-llama-cpp's is one thread).
- **build**: ``File.tokenizer`` on an opened file (and the first ``encode``, which builds the lazy
  indexes), best of N; the header's bytes beside it.
- **gguf tokenize --count**: the whole process on the 1 MB file, best of N.

usage: bench_tokenize.py [-n N] [--gguf PATH-TO-RELEASE-gguf] [--json-out FILE]
(ggufkit importable, built --release; node on PATH; node-llama-cpp from reference-env.sh --node)
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ggufkit

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts/tokref"))
import gen_cases  # noqa: E402
import llama_ref  # noqa: E402

VOCABS = ["llama-bpe", "qwen2", "llama-spm", "gemma-4"]

NODE_SCRIPT = r"""
const [nodeModules, modelPath, textPath, n] = process.argv.slice(2);
const { pathToFileURL } = await import("node:url");
const fs = await import("node:fs");
const { getLlama } = await import(pathToFileURL(nodeModules + "/node-llama-cpp/dist/index.js").href);
const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" });
const model = await llama.loadModel({ modelPath, vocabOnly: true });
const text = fs.readFileSync(textPath, "utf8");
const lines = text.split("\n");
model.tokenize(text.slice(0, 10000), false);
let whole = Infinity, count = 0, batch = Infinity, batchCount = 0;
for (let i = 0; i < Number(n); i++) {
  let t0 = performance.now();
  const ids = model.tokenize(text, false);
  whole = Math.min(whole, performance.now() - t0);
  count = ids.length;
  t0 = performance.now();
  let c = 0;
  for (const l of lines) c += model.tokenize(l, false).length;
  batch = Math.min(batch, performance.now() - t0);
  batchCount = c;
}
console.log(JSON.stringify({ whole_ms: whole, count, batch_ms: batch, batch_count: batchCount }));
await model.dispose();
await llama.dispose();
"""


def mixed_text(size: int = 1 << 20, seed: int = 1) -> str:
    """About `size` bytes of mixed text, one piece per line."""
    rng = random.Random(seed)
    lines, n = [], 0
    while n < size:
        line = "".join(gen_cases.piece(rng, []) for _ in range(rng.randint(3, 12)))
        line = line.replace("\n", " ")
        lines.append(line)
        n += len(line.encode()) + 1
    return "\n".join(lines)


def best(fn, n):
    out, t = None, float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--gguf", default=str(REPO / "target/release/gguf"))
    ap.add_argument("--json-out")
    a = ap.parse_args()
    node_modules = llama_ref.node_modules_from(None)
    vocab_dir = Path(os.environ.get("GGUFKIT_SHARED", REPO.parent / "shared")) / "corpus/vocab"
    text = mixed_text()
    data = text.encode()
    tmp = Path(tempfile.mkdtemp())
    (tmp / "text.txt").write_bytes(data)
    (tmp / "bench.mjs").write_text(NODE_SCRIPT)
    lines = text.split("\n")
    llama = llama_ref.Llama(node_modules)
    results = []
    print(f"text: {len(data):,} bytes, {len(lines):,} lines; best of {a.n}\n")
    print("| vocabulary | tokens | ggufkit 1 core (ms) | llama.cpp JS tokenize (ms) | llama_tokenize C (ms) "
          "| x JS | x C | ggufkit encode_batch 2 cores (ms) | llama.cpp lines (ms) | x |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in VOCABS:
        path = vocab_dir / f"ggml-vocab-{name}.gguf"
        tok = ggufkit.Tokenizer.from_file(path)
        tok.encode("warm up", False, False)
        ours_t, ours = best(lambda: tok.encode(text, False, False), a.n)
        batch_t, batch = best(lambda: tok.encode_batch(lines, False, False), a.n)
        v = llama.load_vocab(path)
        c_t, theirs = best(lambda: v.tokenize(text, False, False), a.n)
        v.close()
        js = json.loads(subprocess.run(
            ["node", str(tmp / "bench.mjs"), str(node_modules), str(path), str(tmp / "text.txt"), str(a.n)],
            capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
        same = ours.tolist() == theirs and js["count"] == len(theirs)
        same_batch = sum(len(b) for b in batch) == js["batch_count"]
        r = dict(vocab=name, tokens=len(ours), identical=same, batch_identical_count=same_batch,
                 ours_ms=ours_t * 1e3, js_ms=js["whole_ms"], c_ms=c_t * 1e3,
                 batch_ms=batch_t * 1e3, js_lines_ms=js["batch_ms"])
        results.append(r)
        print(f"| {name} | {len(ours):,}{'' if same else ' (DIFFERENT)'} | {r['ours_ms']:.1f} | {r['js_ms']:.1f} "
              f"| {r['c_ms']:.1f} | {r['js_ms'] / r['ours_ms']:.2f} | {r['c_ms'] / r['ours_ms']:.2f} "
              f"| {r['batch_ms']:.1f}{'' if same_batch else ' (DIFFERENT)'} | {r['js_lines_ms']:.1f} "
              f"| {r['js_lines_ms'] / r['batch_ms']:.2f} |")

    print("\n| build | ms (best) | ms with first encode | header bytes |\n|---|---|---|---|")
    for name in ("gemma-4", "llama-bpe", "qwen2"):
        path = vocab_dir / f"ggml-vocab-{name}.gguf"
        f = ggufkit.open(path)
        hdr = f.tensor_data_offset
        # a fresh File each time: File.tokenizer is built once per file
        files = [ggufkit.open(path) for _ in range(a.n)]
        it = iter(files)
        build_t, _ = best(lambda: next(it).tokenizer, a.n)
        files = [ggufkit.open(path) for _ in range(a.n)]
        it = iter(files)
        first_t, _ = best(lambda: next(it).tokenizer.encode("Hello world, 123 <b>"), a.n)
        results.append(dict(build=name, ms=build_t * 1e3, first_encode_ms=first_t * 1e3, header_bytes=hdr))
        print(f"| {name} | {build_t * 1e3:.2f} | {first_t * 1e3:.2f} | {hdr:,} |")

    gguf = Path(a.gguf)
    if gguf.is_file():
        print("\n| gguf tokenize --count of 1 MB (whole process) | ms (best) | tokens |\n|---|---|---|")
        for name in VOCABS:
            path = vocab_dir / f"ggml-vocab-{name}.gguf"
            cmd = [str(gguf), "tokenize", str(path), "--file", str(tmp / "text.txt"), "--count"]
            t, out = best(lambda: subprocess.run(cmd, capture_output=True, text=True, check=True).stdout, a.n)
            results.append(dict(count_process=name, ms=t * 1e3, tokens=int(out)))
            print(f"| {name} | {t * 1e3:.1f} | {int(out):,} |")
    else:
        print(f"\n(gguf tokenize --count: SKIP, no release binary at {gguf})")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
