"""Every crafted file of the Rust hostile suites (`hostile_cases`, `hostile_alloc`, written out by
the test kit with GGUFKIT_CASES_DIR) and every malformed corpus file, through Python: strict
opening fails with the Rust suite's rule and offset as a `FormatError` (or opens where it must),
permissive opening and `validate` never raise anything but ggufkit exceptions, and touching
everything an opened file exposes never crashes. The files run in a child interpreter that must
exit normally, so a crash is a failure that names the file, not a dead test run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO, need, shared_or_skip

CHILD = textwrap.dedent(
    r"""
    import json, sys
    import numpy as np
    import ggufkit

    def touch(f):
        for k in f.metadata:
            v = f.metadata[k]
            if isinstance(v, ggufkit.StringArray):
                v.tolist()
                if len(v):
                    v[len(v) - 1]
            elif isinstance(v, np.ndarray):
                v.sum()
            f.field(k)
        for t in f.tensors:
            (t.name, t.type, t.shape, t.n_elements, t.nbytes, t.offset, t.data_offset)
            for what in ("raw", "numpy"):
                try:
                    a = t.raw if what == "raw" else t.numpy()
                    a.sum()
                except (ggufkit.GGUFError, MemoryError):
                    pass
        f.summary()
        f.report()

    for line in sys.stdin:
        path = line.strip()
        print("START", path, flush=True)
        out = {"file": path}
        data = open(path, "rb").read()
        for mode in ("path", "bytes"):
            try:
                f = ggufkit.open(path if mode == "path" else data)
                out[mode] = "opens"
                touch(f)
                f.close()
            except ggufkit.FormatError as e:
                out[mode] = [e.rule, e.offset]
                assert isinstance(e, ValueError) and e.message and path in str(e) or mode == "bytes"
        try:
            with ggufkit.open(path, permissive=True) as f:
                touch(f)
                out["permissive"] = "opens"
        except ggufkit.FormatError as e:
            out["permissive"] = [e.rule, e.offset]
        r = ggufkit.validate(path)
        rb = ggufkit.validate(data)
        assert (r.valid, r.ggml_compatible) == (rb.valid, rb.ggml_compatible)
        out["validate"] = [r.errors[0].rule, r.errors[0].offset] if r.errors else "valid"
        print("DONE", json.dumps(out), flush=True)
    """
)


def cases_dir(tmp_path_factory) -> Path:
    """The cases the Rust suites wrote: $GGUFKIT_CASES_DIR, or written now by running them."""
    if os.environ.get("GGUFKIT_CASES_DIR"):
        d = Path(os.environ["GGUFKIT_CASES_DIR"])
        if (d / "cases.tsv").is_file():
            return d
    d = tmp_path_factory.mktemp("cases")
    env = dict(os.environ, GGUFKIT_CASES_DIR=str(d))
    try:
        r = subprocess.run(
            ["cargo", "test", "-q", "-p", "ggufkit", "--test", "hostile_cases", "--test", "hostile_alloc"],
            cwd=REPO, env=env, capture_output=True, timeout=1800,
        )
    except FileNotFoundError:
        need("hostile-cases", "cargo not found and GGUFKIT_CASES_DIR not set: no hostile cases to run")
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    return d


def run_child(paths):
    """Runs the files through the child; returns (results by path, the file it died on)."""
    p = subprocess.run(
        [sys.executable, "-c", CHILD], input="\n".join(map(str, paths)) + "\n",
        capture_output=True, text=True, timeout=1800,
    )
    results, started = {}, None
    for line in p.stdout.splitlines():
        if line.startswith("START "):
            started = line[6:]
        elif line.startswith("DONE "):
            r = json.loads(line[5:])
            results[r["file"]] = r
            started = None
    assert p.returncode == 0 and started is None, (
        f"the child died (exit {p.returncode}) on {started}:\n{p.stderr[-3000:]}"
    )
    return results


def test_rust_hostile_cases_through_python(tmp_path_factory):
    d = cases_dir(tmp_path_factory)
    expected = {}
    for line in (d / "cases.tsv").read_text().splitlines():
        name, suite, verdict, rule, offset = line.split("\t")
        expected[str(d / name)] = (suite, verdict, rule, offset)
    assert len(expected) > 100, "the Rust suites wrote too few cases"
    results = run_child(sorted(expected))
    for path, (suite, verdict, rule, offset) in expected.items():
        r = results[path]
        if verdict == "opens":
            assert r["path"] == "opens" and r["validate"] == "valid", (suite, r)
        elif verdict == "fails":
            assert r["path"] == [rule, int(offset)], (suite, r)
            assert r["bytes"] == r["path"] and r["validate"] == r["path"], (suite, r)


def test_malformed_corpus_through_python():
    d = shared_or_skip("")
    paths = sorted(p for sub in ("corpus/malformed", "corpus/synthetic/malformed", "corpus/synthetic/edge")
                   for p in (d / sub).rglob("*") if p.is_file() and p.suffix in (".gguf", ".bin", ""))
    if not paths:
        need("shared", "no malformed corpus files in ../shared/corpus")
    results = run_child(paths)
    assert len(results) == len(paths)
