#!/usr/bin/env python3
"""llama.cpp's answers for the tokenizer's differential tests, made once and cached.

    reference.py build VOCAB.gguf [--seed S] [--texts N] [--cache DIR]
        prints the path of a JSON Lines file: a header line, then the generated encode and
        decode cases (gen_cases.py) each with llama.cpp's answer (llama_ref.py). Cached in
        DIR (default ${XDG_CACHE_HOME:-~/.cache}/ggufkit/tokref) under a name made of the
        node-llama-cpp version, the vocabulary's sha256, the seed, the text count and the
        generator's version, so a cached file is reused only for the same question.
    reference.py vectors LLAMA_CPP_SRC
        checks that the harness agrees with llama.cpp's own test vectors
        (models/ggml-vocab-*.gguf.inp/.out, add_special and parse_special false).

Exits 3, saying why on stderr, when node-llama-cpp is not installed (callers skip on it).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_cases  # noqa: E402
import llama_ref  # noqa: E402

SKIP = 3


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ggufkit" / "tokref"


def open_llama(node_modules: Path) -> llama_ref.Llama:
    pkg = node_modules / "node-llama-cpp/package.json"
    if not pkg.is_file():
        print(f"node-llama-cpp is not installed in {node_modules} "
              "(bash ../shared/tools/reference-env.sh --node)", file=sys.stderr)
        sys.exit(SKIP)
    return llama_ref.Llama(node_modules)


def build(a) -> int:
    node_modules = llama_ref.node_modules_from(a.node_modules)
    open_llama_check = node_modules / "node-llama-cpp/package.json"
    if not open_llama_check.is_file():
        open_llama(node_modules)
    version = llama_ref.installed_version(node_modules)
    digest = sha256(a.vocab)
    name = (f"nlc-{version}_{digest[:20]}_seed{a.seed}_n{a.texts}"
            f"_gen{gen_cases.GENERATOR_VERSION}.jsonl")
    out = Path(a.cache or default_cache()) / name
    if out.is_file():
        print(out)
        return 0
    vocab = open_llama(node_modules).load_vocab(a.vocab)
    specials = vocab.special_texts()
    special_ids = [t for t in range(vocab.n_tokens)
                   if vocab.attr(t) & (llama_ref.ATTR_CONTROL | llama_ref.ATTR_USER_DEFINED)]
    header = {"vocab": a.vocab.name, "sha256": digest, "node_llama_cpp": version,
              "seed": a.seed, "texts": a.texts, "generator": gen_cases.GENERATOR_VERSION,
              "n_vocab": vocab.n_tokens}
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=".tmp-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as w:
            w.write(json.dumps(header) + "\n")
            encoded = []
            for c in gen_cases.encode_cases(a.seed, a.texts, specials):
                r = llama_ref.answer(vocab, c)
                encoded.append(r["expect_ids"])
                w.write(json.dumps(r, ensure_ascii=False) + "\n")
            short = [ids for ids in encoded if 0 < len(ids) <= 64]
            for c in gen_cases.decode_cases(a.seed, a.texts // 2, vocab.n_tokens, special_ids, short):
                w.write(json.dumps(llama_ref.answer(vocab, c)) + "\n")
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise
    finally:
        vocab.close()
    print(out)
    return 0


def read_vectors(inp: Path, out: Path) -> list[tuple[str, list[int]]]:
    """test-tokenizer-0's files: inputs separated by a marker line, one output line each."""
    raw = inp.read_bytes().decode("utf-8")
    sep = "\n__ggml_vocab_test__\n"
    texts, pos = [], 0
    while pos < len(raw):
        nxt = raw.find(sep, pos)
        if nxt < 0:
            texts.append(raw[pos:])
            break
        texts.append(raw[pos:nxt])
        pos = nxt + len(sep)
    lines = out.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(texts):
        raise ValueError(f"{inp}: {len(texts)} inputs but {len(lines)} outputs")
    return [(t, [int(x) for x in line.split()]) for t, line in zip(texts, lines)]


def vectors(a) -> int:
    llama = open_llama(llama_ref.node_modules_from(a.node_modules))
    models = Path(a.llama_cpp_src) / "models"
    total = bad = 0
    for inp in sorted(models.glob("ggml-vocab-*.gguf.inp")):
        gguf = inp.with_suffix("")
        cases = read_vectors(inp, gguf.with_suffix(".gguf.out"))
        vocab = llama.load_vocab(gguf)
        diff = [(t, want, got) for t, want in cases
                if (got := vocab.tokenize(t, False, False)) != want]
        vocab.close()
        total += len(cases)
        bad += len(diff)
        print(f"{gguf.name}: {len(cases)} cases, {len(diff)} differ")
        if diff:
            t, want, got = diff[0]
            print(f"  first: {t!r}\n    vectors {want}\n    llama.cpp {got}")
    print(f"{total - bad} passed, {bad} failed")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--node-modules")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("vocab", type=Path)
    b.add_argument("--seed", type=int, default=1)
    b.add_argument("--texts", type=int, default=400)
    b.add_argument("--cache")
    v = sub.add_parser("vectors")
    v.add_argument("llama_cpp_src")
    a = ap.parse_args(argv)
    return build(a) if a.cmd == "build" else vectors(a)


if __name__ == "__main__":
    sys.exit(main())
