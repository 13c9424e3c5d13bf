#!/usr/bin/env python3
"""Tokenizing beside llama.cpp's and HF ``tokenizers``, in one run, on a 1 MB mixed text (seeded:
English with contractions and numbers, source code, a dozen scripts, emoji sequences, whitespace
runs; ``mixed_text``), add_special and parse_special false, model load excluded everywhere.

- **ggufkit**: the release example ``tokenize_speed`` (``Tokenizer::encode`` of the whole text and
  ``Tokenizer::encode_batch`` of its lines, with ``RAYON_NUM_THREADS=1`` for one core and again
  on rayon's pool), its ids written out and compared here; the Python binding too
  (``ggufkit.Tokenizer``) when it is importable.
- **llama.cpp**: node-llama-cpp 3.21.1's prebuilt libllama: ``llama_tokenize`` through ctypes
  (the call alone, into a buffer made beforehand) and its JavaScript ``model.tokenize``; the
  lines one after the other (llama.cpp has no batch call).
- **HF tokenizers**: ``Tokenizer.from_file`` of a ``tokenizer.json`` that transformers makes from
  the same GGUF (``AutoTokenizer.from_pretrained(dir, gguf_file=...)``, or where that cannot read
  the model's config, as for gemma-4, its tokenizer half ``convert_gguf_tokenizer``; both need PyPI ``gguf``:
  installed once with ``pip --target`` into ``~/.cache/ggufkit/tokbench-gguf``; the JSON files are
  cached in ``~/.cache/ggufkit/tokbench``); ``encode`` of the whole text and ``encode_batch`` of the
  lines (its own thread pool). Its ids are compared with llama.cpp's (they may differ: another
  implementation of another file format).
- **build**: the release example ``tokenizer_build``: ``Tokenizer::from_gguf`` and the first
  ``encode``, best of N, their peak heap (a counting allocator) beside the vocabulary's bytes.
- **gguf tokenize**: the release binary as a whole process: ``--count`` of the 1 MB file, and
  ``--jsonl`` of its lines ten times on one thread and on every core, beside its start alone.

One thread against rayon's pool is compared in alternating processes (``--rounds`` of each), the
best of all, in process and as a whole process.

usage: bench_tokenize.py [-n N] [--rounds R] [--json-out FILE] [--no-hf] [--no-js]
Run it with the reference venv's python (``reference-env.sh --python --node``; transformers and
tokenizers), after ``cargo build --release -p gguf-cli`` and ``cargo build --release -p ggufkit
--example tokenize_speed --example tokenizer_build``.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts/tokref"))
import gen_cases  # noqa: E402
import llama_ref  # noqa: E402

VOCABS = ["llama-bpe", "qwen2", "llama-spm", "gemma-4"]
JSONL_COPIES = 10
HF_CACHE = Path.home() / ".cache/ggufkit/tokbench"
GGUF_PY = Path.home() / ".cache/ggufkit/tokbench-gguf"

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


def fastest(a: dict, b: dict) -> dict:
    """Two runs' figures for one vocabulary, each time the lower."""
    return {k: min(v, b[k]) if k.endswith("_ms") else v for k, v in a.items()}


def json_lines(out: str) -> list[dict]:
    return [json.loads(l) for l in out.splitlines() if l.startswith("{")]


def llama_c(vocab, data: bytes, n: int) -> tuple[float, list[int]]:
    """Best time of the ``llama_tokenize`` call alone, and its ids."""
    cap = len(data) + 8
    buf = (ctypes.c_int32 * cap)()
    lib = vocab.lib
    def call():
        return lib.llama_tokenize(vocab.vocab, data, len(data), buf, cap, False, False)
    t, k = best(call, n)
    if k < 0:
        raise RuntimeError("llama_tokenize failed")
    return t, list(buf[:k])


def hf_json(name: str, path: Path) -> Path | None:
    """The cached ``tokenizer.json`` transformers makes of ``path``; None when it cannot."""
    out = HF_CACHE / f"{name}.tokenizer.json"
    if out.is_file():
        return out
    HF_CACHE.mkdir(parents=True, exist_ok=True)
    if not (GGUF_PY / "gguf").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--target", str(GGUF_PY), "gguf==0.19.0"], check=True)
    # AutoTokenizer reads the model's config too, which fails for gemma-4 (per-layer head
    # counts); its tokenizer half alone (the same conversion AutoTokenizer runs) does not
    code = ("import sys, os\n"
            "from transformers.integrations.gguf import convert_gguf_tokenizer, get_gguf_tokenizer\n"
            "try:\n"
            "    from transformers import AutoTokenizer\n"
            "    t = AutoTokenizer.from_pretrained(sys.argv[1], gguf_file=sys.argv[2])\n"
            "    t.backend_tokenizer.save(sys.argv[3])\n"
            "except Exception:\n"
            "    arch, d, _ = get_gguf_tokenizer(os.path.join(sys.argv[1], sys.argv[2]))\n"
            "    convert_gguf_tokenizer(arch, d)[0].save(sys.argv[3])\n")
    env = dict(os.environ, PYTHONPATH=str(GGUF_PY))
    r = subprocess.run([sys.executable, "-c", code, str(path.parent), path.name, str(out)],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"(HF tokenizers, {name}: transformers cannot make a tokenizer.json: "
              f"{r.stderr.strip().splitlines()[-1][:200]})")
        return None
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3,
                    help="processes of each kind for the one-thread/pool comparisons (alternating)")
    ap.add_argument("--json-out")
    ap.add_argument("--no-hf", action="store_true")
    ap.add_argument("--no-js", action="store_true")
    a = ap.parse_args()
    release = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release"
    speed, build = release / "examples/tokenize_speed", release / "examples/tokenizer_build"
    gguf = release / "gguf"
    for exe in (speed, build, gguf):
        if not exe.is_file():
            print(f"missing {exe}: build it with --release first", file=sys.stderr)
            return 2
    node_modules = llama_ref.node_modules_from(None)
    shared = Path(os.environ.get("GGUFKIT_SHARED", REPO.parent / "shared"))
    vocab_dir = shared / "corpus/vocab"
    paths = {v: vocab_dir / f"ggml-vocab-{v}.gguf" for v in VOCABS}
    text = mixed_text()
    data = text.encode()
    lines = text.split("\n")
    tmp = Path(tempfile.mkdtemp())
    (tmp / "text.txt").write_bytes(data)
    (tmp / "bench.mjs").write_text(NODE_SCRIPT)
    # the batch of `--jsonl`: the lines ten times (the batch modes are for many lines: a model's
    # fixed start is then a small part, as in the comparisons above, where load is excluded)
    (tmp / "lines.jsonl").write_text("".join(json.dumps({"text": l}) + "\n" for l in lines) * JSONL_COPIES)
    results: dict = {"text_bytes": len(data), "lines": len(lines), "n": a.n, "rows": []}
    print(f"text: {len(data):,} bytes, {len(lines):,} lines; best of {a.n}; "
          f"load average {os.getloadavg()[0]:.1f}\n")

    # ggufkit in-process: one thread and rayon's pool, in alternating processes (--rounds of each),
    # the best of all: a process whose two threads happen to share the host's core less well
    # would otherwise decide the speed-up
    vocab_args = [str(paths[v]) for v in VOCABS]
    cmd = [str(speed), str(tmp / "text.txt"), *vocab_args, "-n", str(a.n), "--json"]
    ours = ours1 = None
    for k in range(a.rounds):
        ids_dir = ["--ids-dir", str(tmp)] if k == 0 else []
        pool = json_lines(subprocess.run(cmd + ids_dir, capture_output=True, text=True, check=True).stdout)
        one = json_lines(subprocess.run(cmd, capture_output=True, text=True, check=True,
                                        env=dict(os.environ, RAYON_NUM_THREADS="1")).stdout)
        ours = pool if ours is None else [fastest(x, y) for x, y in zip(ours, pool)]
        ours1 = one if ours1 is None else [fastest(x, y) for x, y in zip(ours1, one)]
    try:
        import ggufkit  # the Python binding, when built into this interpreter
    except ImportError:
        ggufkit = None
    hf = None
    if not a.no_hf:
        try:
            import tokenizers as hf
        except ImportError:
            print("(HF tokenizers: not importable here; run with the reference venv)")
    llama = llama_ref.Llama(node_modules)
    for name, o, o1 in zip(VOCABS, ours, ours1):
        path = paths[name]
        ids = list(memoryview((tmp / f"ggml-vocab-{name}.ids").read_bytes()).cast("I"))
        v = llama.load_vocab(path)
        c_t, theirs = llama_c(v, data, a.n)
        c_lines_t, _ = best(lambda: [v.tokenize(l, False, False) for l in lines], 1)
        v.close()
        row = dict(vocab=name, tokens=len(ids), identical=ids == theirs,
                   ours_ms=o1["whole_ms"], ours_pool_ms=o["whole_ms"], ours_batch_ms=o["batch_ms"], ours_batch_threads=o["threads"],
                   ours_batch_1thread_ms=o1["batch_ms"], llama_c_ms=c_t * 1e3,
                   llama_c_lines_ms=c_lines_t * 1e3)
        if not a.no_js:
            js = json.loads(subprocess.run(
                ["node", str(tmp / "bench.mjs"), str(node_modules), str(path), str(tmp / "text.txt"), str(a.n)],
                capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
            row.update(llama_js_ms=js["whole_ms"], llama_js_lines_ms=js["batch_ms"],
                       llama_js_identical_count=js["count"] == len(theirs))
        if hf is not None:
            j = hf_json(name, path)
            if j is not None:
                t = hf.Tokenizer.from_file(str(j))
                t.encode("warm up", add_special_tokens=False)
                hf_t, enc = best(lambda: t.encode(text, add_special_tokens=False), a.n)
                hf_b, _ = best(lambda: t.encode_batch(lines, add_special_tokens=False), a.n)
                row.update(hf_ms=hf_t * 1e3, hf_batch_ms=hf_b * 1e3, hf_tokens=len(enc.ids),
                           hf_identical=enc.ids == theirs)
        if ggufkit is not None:
            tok = ggufkit.Tokenizer.from_file(path)
            py_t, py_ids = best(lambda: tok.encode(text, False, False), a.n)
            py_b, _ = best(lambda: tok.encode_batch(lines, False, False), a.n)
            row.update(py_ms=py_t * 1e3, py_batch_ms=py_b * 1e3, py_identical=py_ids.tolist() == theirs)
        results["rows"].append(row)

    f = lambda x: "—" if x is None else f"{x:.1f}"  # noqa: E731
    r = lambda a_, b_: "—" if a_ is None or b_ is None else f"{a_ / b_:.2f}x"  # noqa: E731
    print("One core, the whole text in one call (ms, best of n); and ggufkit's `encode` of it on "
          "rayon's pool (a long text's words split across the threads):\n")
    print("| vocabulary | tokens | ggufkit | llama_tokenize (C) | llama.cpp JS | HF tokenizers "
          "| vs C | vs JS | vs HF | ggufkit, pool |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in results["rows"]:
        hf_note = "" if row.get("hf_identical", True) else f" ({row['hf_tokens']:,} tokens, ids differ)"
        print(f"| {row['vocab']} | {row['tokens']:,}{'' if row['identical'] else ' (DIFFERENT from llama.cpp)'} "
              f"| {f(row['ours_ms'])} | {f(row['llama_c_ms'])} | {f(row.get('llama_js_ms'))} "
              f"| {f(row.get('hf_ms'))}{hf_note} | {r(row['llama_c_ms'], row['ours_ms'])} "
              f"| {r(row.get('llama_js_ms'), row['ours_ms'])} | {r(row.get('hf_ms'), row['ours_ms'])} "
              f"| {f(row['ours_pool_ms'])} ({row['ours_batch_threads']} threads) |")
    print("\nThe lines, one text each (ms): ggufkit `encode_batch` on rayon's pool and on one thread; "
          "llama.cpp one after the other; HF `encode_batch` on its pool:\n")
    print("| vocabulary | ggufkit batch, 1 thread | ggufkit batch, pool | speed-up | llama_tokenize lines (C) "
          "| llama.cpp JS lines | HF encode_batch |")
    print("|---|---|---|---|---|---|---|")
    for row in results["rows"]:
        print(f"| {row['vocab']} | {f(row['ours_batch_1thread_ms'])} | {f(row['ours_batch_ms'])} "
              f"({row['ours_batch_threads']} threads) | {r(row['ours_batch_1thread_ms'], row['ours_batch_ms'])} "
              f"| {f(row['llama_c_lines_ms'])} | {f(row.get('llama_js_lines_ms'))} | {f(row.get('hf_batch_ms'))} |")
    if ggufkit is not None:
        print("\n| vocabulary | Python `encode` | Python `encode_batch` | identical |\n|---|---|---|---|")
        for row in results["rows"]:
            print(f"| {row['vocab']} | {f(row['py_ms'])} | {f(row['py_batch_ms'])} | {row['py_identical']} |")

    builds = [str(paths["gemma-4"])]
    gemma3 = Path(os.environ.get("GGUF_GEMMA", Path.home() / ".cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf"))
    if gemma3.is_file():
        builds.append(str(gemma3))
    builds += [str(paths[v]) for v in ("llama-bpe", "qwen2", "llama-spm")]
    out = subprocess.run([str(build), *builds, "-n", str(max(a.n, 11)), "--json"],
                         capture_output=True, text=True, check=True).stdout
    results["build"] = json_lines(out)
    print("\nBuilding the tokenizer (`Tokenizer::from_gguf` on an opened file; best of n):\n")
    print("| file | build (ms) | first encode (ms) | heap of the build | with the first encode "
          "| vocabulary arrays | heap / arrays |")
    print("|---|---|---|---|---|---|---|")
    for b in results["build"]:
        print(f"| {Path(b['path']).name} | {b['build_ms']:.2f} | {b['first_encode_ms']:.2f} "
              f"| {b['build_heap'] / 1e6:.1f} MB | {b['heap_with_first_encode'] / 1e6:.1f} MB "
              f"| {b['vocab_bytes'] / 1e6:.1f} MB | {b['heap_with_first_encode'] / b['vocab_bytes']:.2f}x |")

    print(f"\n`gguf tokenize` as a whole process (ms, best of n): `--count` of the 1 MB file and of the "
          f"empty text; `--jsonl` of the lines {JSONL_COPIES} times ({len(lines) * JSONL_COPIES:,} lines, "
          f"{(tmp / 'lines.jsonl').stat().st_size / 1e6:.1f} MB) on one thread and on every core "
          f"(alternating, best of {a.n * a.rounds}), and its start (`--jsonl` of no line: the header's parse "
          f"and the tokenizer's build); the speed-up of the whole process and of the batch after "
          f"the start:\n")
    print("| vocabulary | --count 1 MB | --count empty | --jsonl start, 1 thread / pool "
          "| --jsonl 1 thread | --jsonl pool | speed-up | after the start |")
    print("|---|---|---|---|---|---|---|---|")
    results["process"] = []
    lines_path = tmp / "lines.jsonl"
    one = dict(os.environ, RAYON_NUM_THREADS="1")
    for name in VOCABS:
        path = str(paths[name])
        count = [str(gguf), "tokenize", path, "--file", str(tmp / "text.txt"), "--count"]
        t, out = best(lambda: subprocess.run(count, capture_output=True, text=True, check=True).stdout, a.n)
        empty = [str(gguf), "tokenize", path, "", "--count"]
        te, _ = best(lambda: subprocess.run(empty, capture_output=True, check=True), a.n)
        jl = [str(gguf), "tokenize", path, "--jsonl"]

        def run_jl(path, env):
            # input from the file and the answers to /dev/null: no pipe for this process to
            # drain, which would take a core from the pool (and not from one thread)
            with open(path, "rb") as f:
                subprocess.run(jl, stdin=f, stdout=subprocess.DEVNULL, check=True, env=env)

        s1, _ = best(lambda: run_jl(os.devnull, one), a.n)
        sp, _ = best(lambda: run_jl(os.devnull, dict(os.environ)), a.n)
        t1 = tp = float("inf")
        for _ in range(a.rounds):
            t1 = min(t1, best(lambda: run_jl(lines_path, one), a.n)[0])
            tp = min(tp, best(lambda: run_jl(lines_path, dict(os.environ)), a.n)[0])
        p = dict(vocab=name, count_ms=t * 1e3, tokens=int(out), empty_ms=te * 1e3,
                 jsonl_start_1thread_ms=s1 * 1e3, jsonl_start_ms=sp * 1e3,
                 jsonl_1thread_ms=t1 * 1e3, jsonl_ms=tp * 1e3, jsonl_lines=len(lines) * JSONL_COPIES)
        results["process"].append(p)
        print(f"| {name} | {p['count_ms']:.1f} | {p['empty_ms']:.1f} | {s1 * 1e3:.1f} / {sp * 1e3:.1f} "
              f"| {p['jsonl_1thread_ms']:.1f} | {p['jsonl_ms']:.1f} | {t1 / tp:.2f}x | {(t1 - s1) / (tp - sp):.2f}x |")
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
