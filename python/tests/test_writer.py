"""The writer and `edit`: files written from Python read back with every value, type and tensor
as given, in both byte orders, and pass `gguf validate`; numpy arrays keep their dtype or are
quantized bit-exactly as `quantize` does; writing is atomic (an exception in the `with` block, or
a failed write, leaves the target as it was); `edit` changes metadata in place or into a copy."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ggufkit
from conftest import SAMPLE, run_cli

VALUES = [
    ("s", "héllo", None, "string"),
    ("i", -5, None, "int32"),
    ("big", 1 << 40, None, "int64"),
    ("huge", (1 << 64) - 1, None, "uint64"),
    ("f", 0.25, None, "float32"),
    ("b", True, None, "bool"),
    ("u8", 200, "uint8", "uint8"),
    ("f64", 1e300, "float64", "float64"),
    ("ints", [1, 2, 3], None, "array"),
    ("toks", ["a", "bb", ""], None, "array"),
    ("nested", [[1, 2], ["x"]], None, "array"),
    ("np", np.arange(5, dtype=np.uint16), None, "array"),
    ("empty", [], "array[float32]", "array"),
]


@pytest.mark.parametrize("endian", ["little", "big"])
def test_round_trip(gguf, tmp_path, endian):
    path = tmp_path / "m.gguf"
    w = ggufkit.Writer(path, endian=endian, alignment=64)
    w.add("general.architecture", "llama")
    for key, v, ty, _ in VALUES:
        w.add(key, v, type=ty)
    f32 = np.arange(512, dtype=np.float32).reshape(2, 256) / 7
    tensors = {
        "f32": f32,
        "f16": f32.astype(np.float16),
        "i32": np.arange(-6, 6, dtype=np.int32).reshape(3, 4),
        "i8": np.arange(-3, 3, dtype=np.int8),
    }
    for name, a in tensors.items():
        w.add_tensor(name, a)
    w.add_tensor("q", f32, type="q8_0")
    q4 = ggufkit.quantize(f32, "q4_k")
    w.add_tensor("raw", raw=q4, type="q4_k", shape=(2, 256))
    w.close()
    assert not list(tmp_path.glob(".*")), "no temporary file left behind"

    v = json.loads(run_cli(gguf, "validate", "--json", str(path)).stdout.splitlines()[0])
    assert v["valid"], v
    f = ggufkit.open(path)
    assert (f.endian, f.alignment) == (endian, 64)
    md = f.metadata
    for key, val, _, ty in VALUES:
        assert f.field(key).type == ty, key
        got = md[key]
        if isinstance(val, np.ndarray):
            assert got.dtype.newbyteorder("=") == val.dtype and got.tolist() == val.tolist()
            assert got.dtype.byteorder in ("=", "|", "<" if endian == "little" else ">")
        elif isinstance(val, list) and key == "nested":
            assert [list(x) for x in got] == [[1, 2], ["x"]]
        elif isinstance(val, list):
            assert list(got) == val or got.tolist() == val, key
        elif isinstance(val, float) and ty == "float32":
            assert got == np.float32(val)
        else:
            assert got == val and type(got) is type(val), key
    assert f.field("ints").element_type == "int32"
    assert f.field("empty").element_type == "float32"
    for name, a in tensors.items():
        t = f.tensor(name)
        assert t.shape == tuple(reversed(a.shape))
        assert np.array_equal(t.numpy(), a.astype(np.float32) if a.dtype == np.float16 else a)
    assert f.tensor("q").type == "q8_0"
    assert np.array_equal(f.tensor("q").numpy(), ggufkit.dequantize(ggufkit.quantize(f32, "q8_0"), "q8_0", (2, 256)))
    if endian == "little":
        assert f.tensor("raw").raw.tobytes() == q4.tobytes()
    assert np.array_equal(f.tensor("raw").numpy(), ggufkit.dequantize(q4, "q4_k", (2, 256)))


def test_writer_refuses_what_it_cannot_write(tmp_path):
    w = ggufkit.Writer(tmp_path / "x.gguf")
    w.add("a", 1)
    with pytest.raises(ValueError):
        w.add("a", 2)
    with pytest.raises(ValueError):
        w.add("b", 300, type="uint8")
    with pytest.raises(ValueError):
        w.add("c", [1, "x"])
    with pytest.raises(ValueError):
        w.add("d", [], type=None)
    with pytest.raises(ValueError):
        w.add("e", 1, type="no_such_type")
    deep = []
    for _ in range(10000):
        deep = [deep]
    with pytest.raises(ValueError):
        w.add("deep", deep)
    with pytest.raises(TypeError):
        w.add_tensor("t", np.zeros(4, dtype=np.complex64))
    with pytest.raises(ggufkit.GGUFError):
        w.add_tensor("q", np.zeros(100, dtype=np.float32), type="q4_k")
    with pytest.raises(TypeError):
        w.add_tensor("r", raw=b"\0" * 4)
    # a removed type id is refused by its name, with the reason
    with pytest.raises(ValueError, match="removed from ggml"):
        w.add_tensor("r", raw=b"\0" * 18, type="q4_0_4_4", shape=(32,))
    # a refused value does not take its key; a tensor name is taken once
    w.add("b", 3, type="uint8")
    w.add_tensor("t", np.zeros(4, dtype=np.float32))
    with pytest.raises(ValueError):
        w.add_tensor("t", np.zeros(4, dtype=np.float32))
    # the alignment given to the constructor is a key already added
    with pytest.raises(ValueError):
        ggufkit.Writer(tmp_path / "z.gguf", alignment=64).add("general.alignment", 64, type="uint32")
    with pytest.raises(ValueError):
        ggufkit.Writer(tmp_path / "y.gguf", alignment=3)
    with pytest.raises(ValueError):
        ggufkit.Writer(tmp_path / "y.gguf", endian="middle")


def test_writing_is_atomic(tmp_path):
    path = tmp_path / "keep.gguf"
    path.write_bytes(SAMPLE.read_bytes())
    with pytest.raises(RuntimeError):
        with ggufkit.Writer(path) as w:
            w.add("general.architecture", "x")
            raise RuntimeError("interrupted")
    assert path.read_bytes() == SAMPLE.read_bytes(), "an interrupted write leaves the target as it was"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.gguf"]
    with pytest.raises(OSError):
        with ggufkit.Writer(tmp_path / "no" / "such" / "dir.gguf") as w:
            w.add("general.architecture", "x")
    with ggufkit.Writer(path) as w:
        w.add("general.architecture", "new")
    assert ggufkit.open(path).architecture == "new"


def test_edit_in_place_and_into_a_copy(gguf, tmp_path):
    path = tmp_path / "m.gguf"
    path.write_bytes(SAMPLE.read_bytes())
    out = tmp_path / "out.gguf"
    assert ggufkit.edit(path, set={"general.name": "x" * 200}, output=out) == "written"
    assert ggufkit.open(path).metadata["general.name"] != "x" * 200  # the input only read
    assert ggufkit.open(out).metadata["general.name"] == "x" * 200
    # an existing key keeps its type; a short change fits in place
    assert ggufkit.edit(path, set={"llama.context_length": 4096}) == "in_place"
    f = ggufkit.open(path)
    assert f.metadata["llama.context_length"] == 4096 and f.field("llama.context_length").type == "uint32"
    f.close()
    assert ggufkit.edit(path, set={"new.key": 1.5}, remove=["general.name"],
                        types={"new.key": "float64"}) == "rewritten"
    f = ggufkit.open(path)
    assert "general.name" not in f.metadata and f.field("new.key").type == "float64"
    assert json.loads(run_cli(gguf, "validate", "--json", str(path)).stdout.splitlines()[0])["valid"]
    with pytest.raises(KeyError):
        ggufkit.edit(path, remove=["no.such.key"])
    with pytest.raises(ValueError):
        ggufkit.edit(path, set={"llama.context_length": -1})


def test_edit_types_a_new_key_as_meta_set_does(gguf, tmp_path):
    """A new key takes the type the well-known key table gives it (as `gguf meta set`), else its
    value's own: one library rule for both."""
    path = tmp_path / "m.gguf"
    path.write_bytes(SAMPLE.read_bytes())
    ggufkit.edit(path, remove=["llama.context_length"])
    ggufkit.edit(path, set={"llama.context_length": 4096, "my.count": 4096})
    with ggufkit.open(path) as f:
        assert f.field("llama.context_length").type == "uint32"
        assert f.field("my.count").type == "int32"
    cli = tmp_path / "cli.gguf"
    assert run_cli(gguf, "meta", "set", "-o", str(cli), str(SAMPLE), "my.count", "4096").returncode == 0
    with ggufkit.open(cli) as f:
        assert f.field("my.count").type == "int32"
