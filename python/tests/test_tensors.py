"""Tensors: `numpy()` is `gguf export` bit for bit for every type (ggml's reference vectors and
every corpus file); `raw` is a read-only view of the map shared by every view of a tensor, and
touching every view reads nothing; views keep their file alive after `close()`; the codecs
round-trip against ggml's vectors."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ggufkit
from conftest import SAMPLE, corpus_files, note_missing, run_cli, shared_dir, shared_or_skip

SAFETENSORS_DTYPES = {"F32": "<f4", "I8": "<i1", "I16": "<i2", "I32": "<i4", "I64": "<i8"}


def read_safetensors(path):
    """name -> numpy array of a .safetensors file."""
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    body = memoryview(data)[8 + n :]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        out[name] = np.frombuffer(body[a:b], dtype=SAFETENSORS_DTYPES[e["dtype"]]).reshape(e["shape"])
    return out


def vector_files():
    d = shared_dir()
    if d is None or not (d / "vectors" / "dequant").is_dir():
        note_missing("shared", "../shared/vectors/dequant not found: the tensor tests run without ggml's vectors")
        return []
    return sorted((d / "vectors" / "dequant").glob("*.gguf"))


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Bit for bit, except that NaNs match by class: the sign of a NaN that arithmetic makes is
    unspecified and differs between optimised and unoptimised builds (ggml's vectors, case 3)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return a.tobytes() == b.tobytes()
    nan = np.isnan(a)
    return bool((nan == np.isnan(b)).all()) and a[~nan].tobytes() == b[~nan].tobytes()


@pytest.mark.parametrize("path", vector_files(), ids=lambda p: p.name)
def test_numpy_matches_ggml_vectors(path):
    """`case0.input` dequantized is ggml's own output, `case0.expected`, bit for bit."""
    with ggufkit.open(path) as f:
        got = f.tensor("case0.input").numpy()
        want = f.tensor("case0.expected").numpy()
        assert same_bits(got.reshape(want.shape), want), path.name


def with_tensors(paths):
    """The files that open strictly and hold tensors."""
    out = []
    for p in paths:
        try:
            with ggufkit.open(p) as f:
                if f.tensors:
                    out.append(p)
        except ggufkit.GGUFError:
            pass
    return out


BIG = 64 << 20


@pytest.mark.parametrize(
    "path", with_tensors([SAMPLE] + vector_files() + corpus_files()), ids=lambda p: p.name
)
def test_numpy_is_gguf_export(gguf, tmp_path, path):
    """Every tensor against one .safetensors export of the file; for files over 64 MB, one
    tensor of each type against its .npy export."""
    f = ggufkit.open(path)
    big = path.stat().st_size > BIG
    exported = None
    if not big:
        out = tmp_path / "all.safetensors"
        r = run_cli(gguf, "export", str(path), "-o", str(out))
        exported = read_safetensors(out) if r.returncode == 0 else None
    checked, types = 0, set()
    for t in f.tensors:
        if big and t.type in types:
            continue
        types.add(t.type)
        try:
            got = t.numpy()
        except ggufkit.GGUFError as e:
            # a type without a float form: the CLI refuses it too
            one = tmp_path / "one.npy"
            rr = run_cli(gguf, "export", str(path), "--tensor", t.name, "-o", str(one), "--force")
            assert rr.returncode != 0, (t.name, e)
            continue
        if exported is None:  # the CLI refused the whole file (or it is big): this tensor alone
            one = tmp_path / "one.npy"
            rr = run_cli(gguf, "export", str(path), "--tensor", t.name, "-o", str(one), "--force")
            assert rr.returncode == 0, rr.stderr
            want = np.load(one)
        else:
            want = exported[t.name]
        assert same_bits(got, want.astype(want.dtype.newbyteorder("="))), t.name
        assert got.flags.writeable and got.flags.c_contiguous
        checked += 1
    assert checked > 0


def test_raw_is_a_shared_read_only_view():
    f = ggufkit.open(SAMPLE)
    t = f.tensor("token_embd.weight")
    a, b = t.raw, f.tensor("token_embd.weight").raw
    assert np.shares_memory(a, b)
    assert a.dtype == np.uint8 and a.shape == (t.nbytes,) and not a.flags.writeable
    with pytest.raises(ValueError):
        a[0] = 1
    data = SAMPLE.read_bytes()
    assert a.tobytes() == data[t.data_offset : t.data_offset + t.nbytes]
    # metadata arrays are views of the map too
    s1, s2 = f.metadata["tokenizer.ggml.scores"], f.metadata["tokenizer.ggml.scores"]
    assert np.shares_memory(s1, s2) and not s1.flags.writeable


def test_views_keep_the_file_alive_after_close():
    f = ggufkit.open(SAMPLE)
    raw = f.tensors[0].raw
    t = f.tensors[1]
    toks = f.metadata["tokenizer.ggml.tokens"]
    want = raw.tobytes()
    f.close()
    assert f.closed
    with pytest.raises(ValueError):
        f.metadata["general.name"]
    import gc

    gc.collect()
    assert raw.tobytes() == want  # still mapped: the view holds the map
    assert t.numpy().size == t.n_elements and toks[1] == "<s>"
    with ggufkit.open(SAMPLE) as g:
        assert g.version == 3
    assert g.closed


def test_touching_every_view_reads_nothing(tmp_path):
    """Memory after taking the raw view of every tensor of a 96 MB file stays near the header:
    the views map, they do not read. Run in a child so the figure is its own."""
    path = tmp_path / "big.gguf"
    with ggufkit.Writer(path) as w:
        w.add("general.architecture", "llama")
        for i in range(24):
            w.add_tensor(f"blk.{i}.w", np.full((1024, 1024), i, dtype=np.float32))
    code = textwrap.dedent(
        f"""
        import numpy, ggufkit
        def rss():
            for line in open("/proc/self/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        f = ggufkit.open({str(path)!r})
        first = f.tensors[0].raw  # the first view's one-time costs (numpy's C API) come first
        before = rss()
        views = [t.raw for t in f.tensors]
        assert sum(v.nbytes for v in views) == 24 << 22
        after = rss()
        print(after - before)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    grew = int(out.stdout.strip())
    assert grew < 4 << 20, f"taking 96 MB of views grew the process by {grew} bytes"


def test_quantize_dequantize_against_ggml_vectors():
    quant = shared_or_skip("vectors/quant")
    checked = 0
    for path in sorted(quant.glob("*.gguf")):
        f = ggufkit.open(path)
        names = {t.name for t in f.tensors}
        if "case0.input" not in names or "case0.expected" not in names:
            continue
        x = f.tensor("case0.input").numpy()
        exp = f.tensor("case0.expected")
        got = ggufkit.quantize(x, exp.type)
        assert got.tobytes() == exp.raw.tobytes(), path.name
        back = ggufkit.dequantize(got, exp.type, x.shape)
        assert back.shape == x.shape and back.dtype == np.float32
        assert same_bits(back, exp.numpy().reshape(x.shape))
        checked += 1
    assert checked > 0


def test_codec_errors_are_exceptions():
    with pytest.raises(ggufkit.GGUFError):
        ggufkit.quantize(np.zeros(100, dtype=np.float32), "q4_k")  # not whole blocks
    with pytest.raises(ValueError, match="not a ggml tensor type"):
        ggufkit.quantize(np.zeros(256, dtype=np.float32), "no_such_type")
    # a removed id is refused by name, with the reason the library's type table gives
    with pytest.raises(ValueError, match="no longer have: removed from ggml in December 2024"):
        ggufkit.quantize(np.zeros(256, dtype=np.float32), "Q4_0_4_4")
    with pytest.raises(ValueError, match="never supported"):
        ggufkit.dequantize(b"\x00" * 144, "iq4_nl_8_8")
    with pytest.raises(ggufkit.GGUFError):
        ggufkit.dequantize(b"\x00" * 100, "q4_k")
    with pytest.raises(ValueError):
        ggufkit.dequantize(b"\x00" * 144, "q4_k", (3, 3))


def _typed_file(tmp_path):
    """A file with one f32, one q4_0 and one int16 tensor, written by ggufkit."""
    path = tmp_path / "typed.gguf"
    x = np.random.default_rng(7).standard_normal((4, 64)).astype(np.float32)
    with ggufkit.Writer(path) as w:
        w.add("general.architecture", "llama")
        w.add_tensor("f", x)
        w.add_tensor("q", x, type="q4_0")
        w.add_tensor("i", np.arange(-128, 128, dtype=np.int16).reshape(4, 64))
    return ggufkit.open(path), x


def test_numpy_into_out_reuses_the_callers_buffer(tmp_path):
    f, x = _typed_file(tmp_path)
    for name in ("f", "q", "i"):
        t = f.tensor(name)
        want = t.numpy()
        out = np.full(want.shape, 7, dtype=want.dtype)
        got = t.numpy(out=out)
        assert got is out and same_bits(out, want)
    q = f.tensor("q")
    bad = [
        np.empty((64, 4), np.float32),  # wrong shape
        np.empty((4, 64), np.float64),  # wrong dtype
        np.empty((64, 4), np.float32).T,  # not C-contiguous
        [[0.0] * 64] * 4,  # not an array
    ]
    for out in bad:
        with pytest.raises(ValueError, match="out must be"):
            q.numpy(out=out)
    ro = np.empty((4, 64), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        q.numpy(out=ro)
    with pytest.raises(ValueError):
        q.numpy(out=np.empty((4, 64), np.float32), copy=False)


def test_numpy_copy_follows_numpys_convention(tmp_path):
    f, x = _typed_file(tmp_path)
    t, q, i = f.tensor("f"), f.tensor("q"), f.tensor("i")
    # copy=True (the default): a new, writeable array
    a = t.numpy()
    assert a.flags.writeable and not np.shares_memory(a, t.raw)
    # copy=None / False: the map itself where the bytes already are the values
    for copy in (None, False):
        v = t.numpy(copy=copy)
        assert np.shares_memory(v, t.raw) and not v.flags.writeable
        assert same_bits(v, x)
        iv = i.numpy(copy=copy)
        assert iv.dtype == np.int16 and np.shares_memory(iv, i.raw)
        assert np.array_equal(iv, np.arange(-128, 128, dtype=np.int16).reshape(4, 64))
    # a quantized tensor needs a copy: None makes one, False refuses
    assert same_bits(q.numpy(copy=None), q.numpy())
    with pytest.raises(ValueError, match="without a copy"):
        q.numpy(copy=False)
