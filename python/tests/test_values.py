"""Every value Python reads is the value `gguf dump --json` prints, on every corpus file (and the
Gemma 3 model when present): format facts, every metadata value with its type, every tensor's
description; `summary()` is `gguf info --json`; strict opening fails where the CLI does, with the
CLI's rule and offset."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import ggufkit
from conftest import SAMPLE, corpus_files, run_cli

FILES = [SAMPLE] + corpus_files()
INTS = {"uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64"}
DTYPES = {
    "uint8": "u1", "int8": "i1", "uint16": "u2", "int16": "i2", "uint32": "u4", "int32": "i4",
    "uint64": "u8", "int64": "i8", "float32": "f4", "float64": "f8",
}


def json_float(v) -> float:
    return float(v) if isinstance(v, str) else v


def same_string(py, j) -> bool:
    if isinstance(j, dict):  # not UTF-8: the raw bytes, which surrogateescape gives back
        return py.encode("utf-8", "surrogateescape").hex() == j["hex"]
    return py == j


def check_scalar(py, ty: str, j, where: str) -> None:
    if ty in INTS:
        assert type(py) is int and py == j, where
    elif ty == "bool":
        assert type(py) is bool and py == j, where
    elif ty == "string":
        assert isinstance(py, str) and same_string(py, j), where
    elif ty == "float32":
        want = np.float32(json_float(j))
        got = np.float32(py)
        assert (math.isnan(want) and math.isnan(got)) or got.tobytes() == want.tobytes(), where
    elif ty == "float64":
        want = json_float(j)
        assert (math.isnan(want) and math.isnan(py)) or py == want, where
    else:
        raise AssertionError(f"{where}: unknown type {ty}")


def check_array(py, elem: str, items, where: str, top: bool = True) -> None:
    if elem == "string":
        # a pair's string array is lazy; inside arrays of arrays, string arrays are lists
        assert isinstance(py, ggufkit.StringArray if top else list), where
        assert len(py) == len(items), where
        got = list(py)
        bad = [i for i, (a, b) in enumerate(zip(got, items)) if not same_string(a, b)]
        assert not bad, f"{where}: strings {bad[:5]} differ"
        if items:  # random access agrees with the walk
            assert py[len(items) - 1] == got[-1] and py[0] == got[0] and py[-1] == got[-1]
    elif elem == "array":
        assert isinstance(py, list) and len(py) == len(items), where
        for i, (a, b) in enumerate(zip(py, items)):
            check_array(a, b["element_type"], b["value"], f"{where}[{i}]", top=False)
    elif elem == "bool":
        assert isinstance(py, np.ndarray) and py.dtype == np.bool_, where
        assert py.tolist() == items, where
    else:
        assert isinstance(py, np.ndarray), where
        assert py.dtype.kind + str(py.dtype.itemsize) == DTYPES[elem][0] + DTYPES[elem][1], where
        assert not py.flags.writeable, f"{where}: arrays of the file are read-only"
        if elem in ("float32", "float64"):
            want = np.array([json_float(v) for v in items], dtype=py.dtype.newbyteorder("="))
            assert np.array_equal(py.astype(want.dtype), want, equal_nan=True), where
        else:
            assert py.tolist() == items, where


def check_against_dump(f: ggufkit.File, dump: dict) -> None:
    assert (f.version, f.endian, f.alignment) == (dump["version"], dump["endian"], dump["alignment"])
    assert (f.tensor_data_offset, f.file_size) == (dump["tensor_data_offset"], dump["file_size"])
    md = f.metadata
    # the last occurrence of a repeated key (permissive files) is the one the mapping holds
    last = {}
    for e in dump["metadata"]:
        key = e["key"] if isinstance(e["key"], str) else None
        if key is not None:
            last[key] = e
    assert list(md) == list(last)
    for key, e in last.items():
        v = md[key]
        field = f.field(key)
        assert field.type == e["type"], key
        if e["type"] == "array":
            assert field.element_type == e["element_type"], key
            check_array(v, e["element_type"], e["value"], key)
        else:
            assert field.element_type is None, key
            check_scalar(v, e["type"], e["value"], key)
    assert len(f.tensors) == len(dump["tensors"])
    for t, d in zip(f.tensors, dump["tensors"]):
        assert same_string(t.name, d["name"])
        assert (t.type, list(t.shape), t.offset, t.nbytes) == (
            d["type"], d["shape"], d["offset"], d["size"]), t.name
        assert t.data_offset == f.tensor_data_offset + t.offset
        assert t.n_elements == math.prod(t.shape)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_values_are_the_clis(gguf, path):
    out = run_cli(gguf, "dump", "--json", str(path))
    if out.returncode != 0:
        # an invalid file: strict opening fails with the first error `gguf validate` reports
        v = json.loads(run_cli(gguf, "validate", "--json", str(path)).stdout.splitlines()[0])
        with pytest.raises(ggufkit.FormatError) as e:
            ggufkit.open(path)
        first = v["errors"][0]
        assert (e.value.rule, e.value.offset) == (first["rule"], first["offset"])
        assert str(path) in str(e.value) and e.value.message == first["message"]
        r = ggufkit.validate(path)
        assert not r.valid and r.errors[0].rule == first["rule"]
        out = run_cli(gguf, "dump", "--json", "--permissive", str(path))
        if out.returncode != 0:
            return
        with ggufkit.open(path, permissive=True) as f:
            check_against_dump(f, json.loads(out.stdout))
            assert not f.report().valid
        return
    with ggufkit.open(path) as f:
        check_against_dump(f, json.loads(out.stdout))
        out = run_cli(gguf, "info", "--json", str(path))
        # the first shard of a split model describes the whole model in both
        assert out.returncode == 0, out.stderr
        assert f.summary() == json.loads(out.stdout)
        assert f.report().valid and ggufkit.validate(path).valid


def test_bytes_and_paths_agree():
    data = SAMPLE.read_bytes()
    a, b, c = ggufkit.open(SAMPLE), ggufkit.open(data), ggufkit.open(memoryview(bytearray(data)))
    for f in (b, c):
        assert list(f.metadata) == list(a.metadata)
        assert [t.name for t in f.tensors] == [t.name for t in a.tensors]
        assert all(np.array_equal(x.raw, y.raw) for x, y in zip(f.tensors, a.tensors))
    assert b.name == "<bytes>"


def test_iterating_a_vocabulary_stays_near_the_header(tmp_path):
    """A loop over every token of the largest vocabulary (each str dropped as it goes) grows the
    process by less than twice the header: only the strings' positions are kept. In a child, so
    the figure is its own."""
    import subprocess
    import sys
    import textwrap

    from conftest import shared_or_skip

    path = shared_or_skip("corpus/vocab/ggml-vocab-gemma-4.gguf")
    code = textwrap.dedent(
        f"""
        import numpy, ggufkit
        def peak():
            for line in open("/proc/self/status"):
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        open("/proc/self/clear_refs", "w").write("5")
        before = peak()
        f = ggufkit.open({str(path)!r})
        n = sum(len(s) for s in f.metadata["tokenizer.ggml.tokens"])
        print(peak() - before, f.tensor_data_offset, n)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    grew, header, n = map(int, out.stdout.split())
    assert n > 0 and grew < 2 * header, f"grew {grew} bytes for a {header}-byte header"
