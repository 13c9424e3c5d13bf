#!/usr/bin/env python3
"""The outputs `scripts/compare_outputs.sh` compares between two revisions.

  compare_outputs.py run --gguf BIN (--python PY | --no-python) --corpus DIR --gemma FILE
                         --sample FILE --out DIR
      runs every CLI command of COMMANDS and the Python calls of PY_CALLS on each file of DIR
      (every *.gguf, recursively) and on FILE, one record per (file, command) under --out
  compare_outputs.py compare OUT_A OUT_B [--names A B]
      reports each (file, command) whose record differs, and those present on one side only
  compare_outputs.py pycalls FILE OUT_DIR          (run by `run` with the revision's Python)

A record holds the exit code, stdout, stderr (whole when under 1 MiB, else their sha256 and
length; durations and rates replaced by a placeholder) and the name, size and sha256 of every
file the command wrote (in the temporary folder: a 253 MB model's exports need about 2 GB free
there; TMPDIR chooses it). Each file is linked
under its own name into a fresh folder that is the command's working folder, so that paths in the
outputs are the same in both runs. Commands and calls that a revision does not have (a newer
subcommand, a newer Python attribute) leave no record there: they are listed as "only in".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BIG = 1 << 20
SAMPLE = "sample.gguf"
TIMEOUT = 1800

# (id, steps): each step is a list of arguments; "{f}" is the file's name, "{t}" the name of its
# first tensor, "{shard}" the first shard `split` wrote. A step beginning with ">NAME" writes its
# stdout to NAME; "copy" works on a writable copy named w.gguf.
COMMANDS = [
    ("info", [["info", "{f}"]]),
    ("info-json", [["info", "--json", "{f}"]]),
    ("info-context", [["info", "--context", "4096", "{f}"]]),
    ("info-context-json", [["info", "--json", "--context", "4096", "{f}"]]),
    ("info-two", [["info", "{f}", SAMPLE]]),
    ("dump", [["dump", "{f}"]]),
    ("dump-json", [["dump", "--json", "{f}"]]),
    ("dump-markdown", [["dump", "--markdown", "{f}"]]),
    ("dump-short", [["dump", "--max-elements", "2", "--max-chars", "12", "{f}"]]),
    ("validate", [["validate", "{f}"]]),
    ("validate-json", [["validate", "--json", "{f}"]]),
    ("validate-two", [["validate", "{f}", SAMPLE]]),
    ("audit", [["audit", "{f}"]]),
    ("audit-json", [["audit", "--json", "{f}"]]),
    ("audit-sarif", [["audit", "--sarif", "{f}"]]),
    ("audit-note", [["audit", "--severity", "note", "{f}"]]),
    ("audit-note-json", [["audit", "--json", "--severity", "note", "{f}"]]),
    ("audit-error", [["audit", "--severity", "error", "{f}"]]),
    ("meta-get", [["meta", "get", "{f}", "general.architecture"]]),
    ("meta-get-json", [["meta", "get", "--json", "{f}", "general.architecture"]]),
    ("meta-get-tokens", [["meta", "get", "{f}", "tokenizer.ggml.tokens"]]),
    ("meta-get-tokens-json", [["meta", "get", "--json", "{f}", "tokenizer.ggml.tokens"]]),
    ("meta-get-absent", [["meta", "get", "{f}", "no.such.key"]]),
    ("meta-set", [["meta", "set", "{f}", "general.name", "compared", "-o", "o.gguf"]]),
    ("meta-set-new", [["meta", "set", "{f}", "compare.text", "text", "-o", "o.gguf"]]),
    ("meta-set-number", [["meta", "set", "{f}", "compare.number", "7", "-o", "o.gguf"]]),
    ("meta-set-float", [["meta", "set", "{f}", "compare.float", "0.5", "-o", "o.gguf"]]),
    ("meta-set-typed", [["meta", "set", "{f}", "compare.n", "7", "--type", "uint64", "-o", "o.gguf"]]),
    ("meta-set-array", [["meta", "set", "{f}", "compare.ids", "[1, 106]", "--type", "array[uint32]",
                         "-o", "o.gguf"]]),
    ("meta-set-array-untyped", [["meta", "set", "{f}", "compare.list", '["a", "b"]', "-o", "o.gguf"]]),
    ("meta-set-known", [["meta", "set", "{f}", "llama.context_length", "8192", "-o", "o.gguf"]]),
    ("meta-set-in-place", [["copy"], ["meta", "set", "w.gguf", "general.name", "in place", "--in-place"]]),
    ("meta-set-grow-in-place", [["copy"], ["meta", "set", "w.gguf", "compare.long", "x" * 5000,
                                           "--in-place"]]),
    ("meta-rm", [["meta", "rm", "{f}", "general.name", "general.alignment", "-o", "o.gguf"]]),
    ("meta-rm-in-place", [["copy"], ["meta", "rm", "w.gguf", "general.name", "--in-place"]]),
    ("convert", [["convert", "{f}", "-o", "o.gguf"]]),
    ("convert-big", [["convert", "{f}", "--endian", "big", "-o", "o.gguf"]]),
    ("convert-big-back", [["convert", "{f}", "--endian", "big", "-o", "b.gguf"],
                          ["convert", "b.gguf", "--endian", "little", "-o", "o.gguf"]]),
    ("convert-f16", [["convert", "{f}", "--type", "f16", "-o", "o.gguf"]]),
    ("convert-bf16", [["convert", "{f}", "--type", "bf16", "-o", "o.gguf"]]),
    ("convert-q8_0", [["convert", "{f}", "--type", "q8_0", "-o", "o.gguf"]]),
    ("convert-q4_k", [["convert", "{f}", "--type", "q4_k", "-o", "o.gguf"]]),
    ("convert-q4_k-all", [["convert", "{f}", "--type", "q4_k", "--all", "-o", "o.gguf"]]),
    ("convert-iq4_xs", [["convert", "{f}", "--type", "iq4_xs", "-o", "o.gguf"]]),
    ("convert-iq1_m-all", [["convert", "{f}", "--type", "iq1_m", "--all", "-o", "o.gguf"]]),
    ("convert-f32-all", [["convert", "{f}", "--type", "f32", "--all", "-o", "o.gguf"]]),
    ("quantize", [["quantize", "{f}", "o.gguf", "Q4_K_M"]]),
    ("quantize-requantize", [["quantize", "--allow-requantize", "{f}", "o.gguf", "Q4_K_M"]]),
    ("quantize-dry-run", [["quantize", "--dry-run", "--allow-requantize", "{f}", "o.gguf", "Q4_K_M"]]),
    ("quantize-q8_0", [["quantize", "--allow-requantize", "{f}", "o.gguf", "Q8_0"]]),
    ("quantize-iq4_xs", [["quantize", "--allow-requantize", "{f}", "o.gguf", "IQ4_XS"]]),
    ("quantize-pure", [["quantize", "--pure", "--allow-requantize", "{f}", "o.gguf", "Q5_K_M"]]),
    ("quantize-options", [["quantize", "--allow-requantize", "--leave-output-tensor",
                           "--token-embedding-type", "q8_0", "--tensor-type", "attn_v=q6_k",
                           "--override-kv", "compare.flag=bool:true", "{f}", "o.gguf", "Q3_K_M"]]),
    ("quantize-output-type", [["quantize", "--allow-requantize", "--output-tensor-type", "f16",
                               "{f}", "o.gguf", "Q4_0"]]),
    ("quantize-prune", [["quantize", "--allow-requantize", "--prune-layers", "0", "{f}", "o.gguf",
                         "Q8_0"]]),
    ("quantize-weights", [["quantize", "--allow-requantize", "--exclude-weights", "blk.0.",
                           "{f}", "o.gguf", "Q6_K"]]),
    ("recipe", [["recipe", "{f}"]]),
    ("recipe-json", [["recipe", "--json", "{f}"]]),
    ("recipe-file", [[">r.txt", "recipe", "{f}"],
                     ["quantize", "--allow-requantize", "--tensor-type-file", "r.txt", "{f}",
                      "o.gguf", "Q8_0"]]),
    ("split-tensors", [["split", "{f}", "--max-tensors", "8", "-o", "s"]]),
    ("split-size", [["split", "{f}", "--max-size", "1M", "-o", "s"]]),
    ("split-dry-run", [["split", "{f}", "--max-tensors", "8", "--dry-run", "-o", "s"]]),
    ("split-no-tensor-first", [["split", "{f}", "--max-tensors", "8", "--no-tensor-first-split",
                                "-o", "s"]]),
    ("split-merge", [["split", "{f}", "--max-tensors", "8", "-o", "s"],
                     ["merge", "{shard}", "-o", "m.gguf"]]),
    ("merge", [["merge", "{f}", "-o", "m.gguf"]]),
    ("quantize-keep-split", [["split", "{f}", "--max-tensors", "8", "-o", "s"],
                             ["quantize", "--allow-requantize", "--keep-split", "{shard}", "q.gguf",
                              "Q8_0"]]),
    ("carve", [["container"], ["carve", "c.bin", "-o", "o.gguf"]]),
    ("export", [["export", "{f}", "-o", "o.safetensors"]]),
    ("export-f16", [["export", "{f}", "--dtype", "f16", "-o", "o.safetensors"]]),
    ("export-bf16", [["export", "{f}", "--dtype", "bf16", "-o", "o.safetensors"]]),
    ("export-tensor", [["export", "{f}", "--tensor", "{t}", "-o", "o.npy"]]),
    ("tensors", [["tensors", "{f}"]]),
    ("tensors-json", [["tensors", "--json", "{f}"]]),
    ("tensors-two", [["tensors", "{f}", SAMPLE]]),
    ("tensors-name", [["tensors", "--sort", "name", "{f}"]]),
    ("tensors-size", [["tensors", "--sort", "size", "{f}"]]),
    ("tensors-type", [["tensors", "--sort", "type", "{f}"]]),
    ("tensors-filter", [["tensors", "--filter", "blk.0.*", "{f}"]]),
    ("tensors-stats", [["tensors", "--stats", "{f}"]]),
    ("tensors-stats-json", [["tensors", "--stats", "--json", "{f}"]]),
    ("tensors-stats-one", [["tensors", "--stats", "--tensor", "*norm*", "{f}"]]),
    ("diff", [["diff", "{f}", SAMPLE]]),
    ("diff-json", [["diff", "--json", "{f}", SAMPLE]]),
    ("diff-self", [["diff", "{f}", "{f}"]]),
    ("diff-edited", [["meta", "set", "{f}", "general.name", "other", "-o", "e.gguf"],
                     ["diff", "--json", "{f}", "e.gguf"]]),
    ("hash", [["hash", "{f}"]]),
    ("hash-sha256", [["hash", "--algo", "sha256", "{f}"]]),
    ("hash-check", [[">m.txt", "hash", "{f}"], ["hash", "--check", "m.txt"]]),
    ("layout", [["layout", "{f}"]]),
    ("layout-json", [["layout", "--json", "{f}"]]),
    ("report", [["report", "{f}", "-o", "o.html"]]),
    ("scan-jsonl", [["scan", "{f}", "--format", "jsonl", "--jobs", "1", "-o", "scan"]]),
    ("scan-full", [["scan", "{f}", SAMPLE, "--format", "jsonl", "--jobs", "1", "--full-arrays",
                    "--full-audit", "-o", "scan"]]),
    ("scan-parquet", [["scan", "{f}", "--jobs", "1", "-o", "scan"]]),
]

PY_CALLS = ["open", "fields", "tensors", "numpy", "summary", "report", "permissive", "bytes",
            "validate", "audit", "compat", "edit", "writer", "tokenizer", "codecs"]


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


def file_sha(p: Path) -> str:
    h = hashlib.sha256()
    with open(p, "rb") as f:
        while chunk := f.read(1 << 22):
            h.update(chunk)
    return h.hexdigest()


# what differs from run to run by nature, replaced before the comparison: durations and rates
VOLATILE = [(re.compile(rb"\bin [0-9]+(\.[0-9]+)? ?(s|ms|\xc2\xb5s)\b"), b"in <time>"),
            (re.compile(rb"[0-9]+(\.[0-9]+)? ?(MiB|MB|GiB|files)/s\b"), b"<rate>")]


def steady(b: bytes) -> bytes:
    for pattern, repl in VOLATILE:
        b = pattern.sub(repl, b)
    return b


def stream(name: str, b: bytes) -> bytes:
    b = steady(b)
    if len(b) < BIG:
        return b"--- %s\n" % name.encode() + b
    return b"--- %s: %d bytes, sha256 %s\n" % (name.encode(), len(b), sha(b).encode())


# a scan's JSON Lines rows carry each file's modification time, which differs between the two
# revisions' checkouts of the repository's sample
MTIME = re.compile(rb'"mtime_ns":[0-9]+')


def written(work: Path, before: set) -> bytes:
    lines = []
    for p in sorted(work.rglob("*")):
        rel = str(p.relative_to(work))
        if p.is_file() and not p.is_symlink() and rel not in before:
            if rel.endswith(".jsonl"):
                digest = sha(MTIME.sub(b'"mtime_ns":<mtime>', p.read_bytes()))
            else:
                digest = file_sha(p)
            lines.append("%s %d %s" % (rel, p.stat().st_size, digest))
    return ("--- files\n" + "\n".join(lines) + "\n").encode()


def tensor_name(gguf: str, work: Path, name: str) -> str:
    out = subprocess.run([gguf, "tensors", "--json", name], cwd=work, capture_output=True, timeout=TIMEOUT)
    try:
        return json.loads(out.stdout.splitlines()[0])["tensors"][0]["name"]
    except Exception:  # noqa: BLE001 - no tensor: the command's own error is what is recorded
        return "none"


def run_commands(gguf: str, src: Path, sample: Path, out: Path) -> None:
    help_text = subprocess.run([gguf, "--help"], capture_output=True).stdout.decode()
    have = {line.split()[0] for line in help_text.splitlines() if line.startswith("  ") and line.split()}
    name = src.name
    for cid, steps in COMMANDS:
        if steps[0][0] not in ("copy", "container") and not steps[0][0].startswith(">") \
                and steps[0][0] not in have:
            continue
        with tempfile.TemporaryDirectory(prefix="cmp-") as d:
            work = Path(d)
            (work / name).symlink_to(src)
            if name != SAMPLE:
                (work / SAMPLE).symlink_to(sample)
            before = {name, SAMPLE}
            record = b""
            t = None
            for step in steps:
                if step == ["copy"]:
                    shutil.copyfile(src, work / "w.gguf")
                    continue
                if step == ["container"]:
                    with open(work / "c.bin", "wb") as c:
                        c.write(b"\0" * 100 + src.read_bytes() + b"trailing bytes")
                    before.add("c.bin")
                    continue
                to = None
                if step[0].startswith(">"):
                    to, step = step[0][1:], step[1:]
                if any("{t}" in a for a in step) and t is None:
                    t = tensor_name(gguf, work, name)
                shards = sorted(p.name for p in work.glob("s-00001-of-*.gguf"))
                args = [a.replace("{f}", name).replace("{t}", t or "").replace(
                    "{shard}", shards[0] if shards else "s-00001-of-00001.gguf") for a in step]
                try:
                    r = subprocess.run([gguf, *args], cwd=work, capture_output=True, timeout=TIMEOUT,
                                       env=dict(os.environ, NO_COLOR="1"))
                    code, so, se = r.returncode, r.stdout, r.stderr
                except subprocess.TimeoutExpired:
                    code, so, se = "timeout", b"", b""
                if to:
                    (work / to).write_bytes(so)
                    before.add(to)
                record += b"=== %s\nexit: %s\n" % (" ".join(args).encode(), str(code).encode())
                record += stream("stdout", so) + stream("stderr", se)
            record += written(work, before)
            (out / (cid + ".txt")).write_bytes(record)


def run_pycalls(python: str, src: Path, out: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="cmp-py-") as d:
        work = Path(d)
        (work / src.name).symlink_to(src)
        r = subprocess.run([python, os.path.abspath(__file__), "pycalls", src.name, str(out)],
                           cwd=work, capture_output=True, timeout=TIMEOUT)
        if r.returncode != 0:
            (out / "py-crashed.txt").write_bytes(b"exit: %d\n" % r.returncode + r.stderr[-4000:])


def run(a) -> None:
    corpus = Path(a.corpus)
    files = sorted(p for p in corpus.rglob("*.gguf") if p.is_file())
    rels = [str(p.relative_to(corpus)) for p in files]
    files.append(Path(a.gemma))
    rels.append("gemma/" + Path(a.gemma).name)
    if a.only:
        keep = [i for i, r in enumerate(rels) if re.search(a.only, r)]
        files, rels = [files[i] for i in keep], [rels[i] for i in keep]
    root = Path(a.out)
    sample = Path(a.sample).resolve()
    a.gguf = os.path.abspath(a.gguf)
    a.python = os.path.abspath(a.python) if a.python else None

    def one(i: int) -> None:
        out = root / rels[i]
        out.mkdir(parents=True, exist_ok=True)
        run_commands(a.gguf, files[i].resolve(), sample, out)
        if a.python:
            run_pycalls(a.python, files[i].resolve(), out)
        print("done %s" % rels[i], file=sys.stderr, flush=True)

    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        list(ex.map(one, range(len(files))))


# ---- the Python calls, run with the revision's interpreter ------------------------------------

def describe(v, depth: int = 0):
    """A value as text that is the same whenever the value is: arrays by dtype, shape and bytes."""
    import numpy as np
    if isinstance(v, np.ndarray):
        return "ndarray %s %s %s" % (v.dtype.str, v.shape, sha(np.ascontiguousarray(v).tobytes()))
    if isinstance(v, (str, bytes, int, float, bool)) or v is None:
        return "%s %r" % (type(v).__name__, v)
    if isinstance(v, dict):
        return {str(k): describe(x, depth + 1) for k, x in v.items()}
    if hasattr(v, "tolist") and not isinstance(v, (list, tuple)):
        return "%s %s" % (type(v).__name__, sha(json.dumps(v.tolist()).encode()))
    if isinstance(v, (list, tuple)) or hasattr(v, "__len__") and hasattr(v, "__getitem__"):
        items = [describe(x, depth + 1) for x in list(v)]
        if len(items) > 64:
            return "%s of %d: %s" % (type(v).__name__, len(items), sha(json.dumps(items).encode()))
        return items
    return "%s %r" % (type(v).__name__, v)


def findings(items) -> list:
    return [{k: describe(getattr(f, k)) for k in dir(f) if not k.startswith("_")
             and not callable(getattr(f, k))} for f in items]


def pycalls(name: str, out: Path) -> None:
    import numpy as np
    import ggufkit

    def call(cid: str, fn) -> None:
        try:
            res = fn()
        except Exception as e:  # noqa: BLE001 - what a call raises is an output too
            res = {"raised": "%s: %s" % (type(e).__name__, e)}
        text = json.dumps(res, indent=1, default=str)
        (out / ("py-%s.txt" % cid)).write_text(text + "\n", encoding="utf-8", errors="surrogateescape")

    def opened(permissive=False):
        return ggufkit.open(name, permissive=permissive)

    def header(f):
        return {k: describe(getattr(f, k)) for k in
                ("version", "endian", "alignment", "tensor_data_offset", "file_size", "architecture")}

    def open_():
        with opened() as f:
            return {"header": header(f), "metadata": {k: describe(v) for k, v in f.metadata.items()}}

    def fields():
        with opened() as f:
            res = []
            for k in f.metadata:
                x = f.field(k)
                res.append([x.key, x.type, x.element_type, x.offset])
            return res

    def tensors():
        with opened() as f:
            return [[t.name, t.type, t.type_id, list(t.shape), t.n_elements, t.nbytes, t.offset,
                     t.data_offset, describe(t.raw)] for t in f.tensors]

    def numpy_():
        with opened() as f:
            res = []
            for t in f.tensors:
                try:
                    res.append([t.name, describe(t.numpy())])
                except Exception as e:  # noqa: BLE001
                    res.append([t.name, "raised %s: %s" % (type(e).__name__, e)])
            return res

    def summary():
        with opened() as f:
            return describe(f.summary())

    def report(permissive=False):
        with opened(permissive) as f:
            r = f.report()
            return {"valid": r.valid, "ggml_compatible": r.ggml_compatible,
                    "errors": findings(r.errors), "warnings": findings(r.warnings)}

    def permissive():
        with opened(True) as f:
            return {"header": header(f), "summary": describe(f.summary()), "report": report(True),
                    "metadata": {k: describe(v) for k, v in f.metadata.items()}}

    def from_bytes():
        with open(name, "rb") as fh:
            data = fh.read()
        with ggufkit.open(data) as f:
            return {"header": header(f), "summary": describe(f.summary())}

    def validate():
        r = ggufkit.validate(name)
        return {"valid": r.valid, "ggml_compatible": r.ggml_compatible,
                "errors": findings(r.errors), "warnings": findings(r.warnings)}

    def audit():
        return findings(ggufkit.audit(name, severity="note"))

    def compat():
        from ggufkit import compat as c
        r = c.GGUFReader(name)
        res = {"byte_order": describe(r.byte_order), "alignment": describe(r.alignment),
               "data_offset": describe(r.data_offset), "fields": [], "tensors": []}
        for k, fl in r.fields.items():
            res["fields"].append([k, fl.offset, fl.name, [int(x) for x in fl.types],
                                  describe(fl.parts), describe(fl.data), describe(fl.contents())])
        for t in r.tensors:
            res["tensors"].append([t.name, t.tensor_type.name, describe(t.shape), int(t.n_elements),
                                   int(t.n_bytes), int(t.data_offset), describe(t.data)])
        return res

    def edit():
        shutil.copyfile(name, "w.gguf")
        ggufkit.edit("w.gguf", set={"general.name": "compared", "compare.text": "text",
                                    "compare.number": 7, "compare.float": 0.5,
                                    "compare.list": [1, 2, 3], "llama.context_length": 8192},
                     remove=["general.alignment"], output="o.gguf")
        res = {"output": file_sha(Path("o.gguf"))}
        ggufkit.edit("w.gguf", set={"general.name": "in place"})
        res["in_place"] = file_sha(Path("w.gguf"))
        return res

    def writer():
        with opened() as f:
            w = ggufkit.Writer("o.gguf", alignment=f.alignment or 32)
            for k, v in f.metadata.items():
                if k != "general.alignment":
                    w.add(k, v, type=f.field(k).type if f.field(k).type != "array" else None)
            for t in list(f.tensors)[:8]:
                w.add_tensor(t.name, raw=t.raw, type=t.type, shape=t.shape)
            w.close()
        return {"output": file_sha(Path("o.gguf"))}

    def tokenizer():
        with opened() as f:
            tok = f.tokenizer
            texts = ["Hello world", " leading space", "multi\nline\ttabs", "unicode: héllo 世界 🤗",
                     "<s>special</s>", ""]
            res = {"vocab_size": tok.vocab_size, "bos": tok.bos_id, "eos": tok.eos_id,
                   "model": tok.model, "pre": tok.pre, "encode": []}
            for s in texts:
                for add in (False, True):
                    for parse in (False, True):
                        ids = tok.encode(s, add_special=add, parse_special=parse)
                        res["encode"].append([s, add, parse, [int(i) for i in ids],
                                              tok.decode(ids), tok.decode(ids, remove_special=True)])
            return res

    def codecs():
        rng = np.random.default_rng(7)
        x = (rng.standard_normal(4096) * 3).astype(np.float32)
        res = {}
        for ty in ("q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k",
                   "iq4_nl", "iq4_xs", "iq2_xxs", "iq2_xs", "iq2_s", "iq3_xxs", "iq3_s", "iq1_s",
                   "iq1_m", "tq1_0", "tq2_0", "f16", "bf16"):
            try:
                q = ggufkit.quantize(x, ty)
                res[ty] = [describe(q), describe(ggufkit.dequantize(q, ty, (4096,)))]
            except Exception as e:  # noqa: BLE001
                res[ty] = "raised %s: %s" % (type(e).__name__, e)
        return res

    table = {"open": open_, "fields": fields, "tensors": tensors, "numpy": numpy_,
             "summary": summary, "report": report, "permissive": permissive, "bytes": from_bytes,
             "validate": validate, "audit": audit, "compat": compat, "edit": edit,
             "writer": writer, "tokenizer": tokenizer, "codecs": codecs}
    # calls a revision may not have: no record there (listed as "only in")
    available = {"tokenizer": hasattr(ggufkit.File, "tokenizer"),
                 "codecs": name.startswith("gemma")}
    for cid in PY_CALLS:
        if not available.get(cid, True):
            continue
        for p in Path(".").glob("*"):
            if p.name != name:
                p.unlink()
        call(cid, table[cid])


# ---- comparing ---------------------------------------------------------------------------------

def compare(a, b, names) -> int:
    ra, rb = Path(a), Path(b)
    fa = {str(p.relative_to(ra)) for p in ra.rglob("*.txt")}
    fb = {str(p.relative_to(rb)) for p in rb.rglob("*.txt")}
    differ = sorted(p for p in fa & fb if (ra / p).read_bytes() != (rb / p).read_bytes())
    only_a, only_b = sorted(fa - fb), sorted(fb - fa)

    def split(p):
        f, c = p.rsplit("/", 1)
        return f, c[:-4]

    for p in differ:
        f, c = split(p)
        full = b"No space left on device" in (ra / p).read_bytes() + (rb / p).read_bytes()
        print("DIFFERS  %-50s %s%s" % (f, c, "  (a side ran out of disk space: run it again)"
                                        if full else ""))
    for p in only_a:
        print("ONLY IN %s  %s %s" % (names[0], *split(p)))
    for p in only_b:
        print("ONLY IN %s  %s %s" % (names[1], *split(p)))
    crashed = sorted(p for p in fa | fb if p.endswith("/py-crashed.txt"))
    for p in crashed[:5]:
        print("WARNING  the Python calls crashed on %s (see py-crashed.txt)" % split(p)[0])
    if len(crashed) > 5:
        print("WARNING  ... and on %d more files" % (len(crashed) - 5))
    files = {split(p)[0] for p in fa | fb}
    print("%d files, %d records compared (%s vs %s): %d differ, %d only in %s, %d only in %s"
          % (len(files), len(fa & fb), names[0], names[1], len(differ), len(only_a), names[0],
             len(only_b), names[1]))
    if differ or only_a or only_b:
        print("see a difference with: diff %s/FILE/COMMAND.txt %s/FILE/COMMAND.txt" % (a, b))
    return 1 if differ or only_a or only_b else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    for opt in ("--gguf", "--corpus", "--gemma", "--sample", "--out"):
        r.add_argument(opt, required=True)
    r.add_argument("--python", help="the revision's Python with ggufkit installed")
    r.add_argument("--no-python", dest="python", action="store_const", const=None,
                   help="the CLI only")
    r.add_argument("--jobs", type=int, default=2)
    r.add_argument("--only", default="")
    c = sub.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--names", nargs=2, default=["A", "B"])
    p = sub.add_parser("pycalls")
    p.add_argument("file")
    p.add_argument("out")
    a = ap.parse_args()
    if a.cmd == "run":
        run(a)
        return 0
    if a.cmd == "compare":
        return compare(a.a, a.b, a.names)
    pycalls(a.file, Path(a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
