"""ggufkit.compat.GGUFReader against gguf-py's GGUFReader: gguf-py's own gguf-dump renderers over
the shared corpus (and the Gemma 3 model when present) with each reader must print the same, and
unit tests of the reader on the repository's sample and on files made with ggufkit.Writer."""

import hashlib
import json
import os
import queue
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

import ggufkit
from ggufkit import compat

from conftest import corpus_files as shared_corpus_files, need, shared_or_skip

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GGUFPY = os.environ.get("GGUFPY_PYTHON", "/tmp/ggufpy/bin/python")
PER_FILE_TIMEOUT = 180  # seconds; gguf-py needs ~40 s for four renderings of the Gemma header



def known_difference(f, mode, ggufpy_out, compat_out):
    """Where gguf-py is wrong the outputs may differ, in these ways only. With no tensors there is
    no data section and no padding before it (the spec's `if: num_tensor_infos != 0`; the corpus
    README), but gguf-py pads its data offset anyway. (gguf-py's other known errors, q8_1's size
    and the missing q2_0, are in files it cannot open.)"""
    if mode != "offsets":
        return False
    g = ggufkit.open(f, permissive=True)
    if g.tensors:
        return False
    a, b = ggufpy_out.split(), compat_out.split()
    align = int(a[1])
    assert int(b[0]) == g.tensor_data_offset, f
    return a[1:] == b[1:] and int(a[0]) == (int(b[0]) + align - 1) // align * align


# gguf-py takes 20 s to 100 s on each of the largest files (the gemma-4 vocabulary alone: 96 s),
# which is most of the 13 minutes of the whole corpus: they run when GGUFKIT_BIG_TESTS is set
BIG = 4 << 20


def corpus_files():
    files = [str(p) for p in shared_corpus_files()]
    if not os.environ.get("GGUFKIT_BIG_TESTS"):
        big = [f for f in files if os.path.getsize(f) > BIG]
        if big:
            print("left out (set GGUFKIT_BIG_TESTS=1): " + ", ".join(Path(f).name for f in big))
        files = [f for f in files if os.path.getsize(f) <= BIG]
    return files


def run_reader(which, files, out):
    """Runs the renderers with one reader in the gguf-py venv. A file that hangs is killed after
    PER_FILE_TIMEOUT and the rest go on in a new process. Returns {file: (ok, error)}."""
    env = dict(os.environ, PYTHONPATH=str(Path(ggufkit.__file__).parent.parent))
    results, todo = {}, list(files)
    while todo:
        proc = subprocess.Popen(
            [GGUFPY, str(HERE / "compat_dump_runner.py"), which, str(out), *todo],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
        lines: queue.Queue = queue.Queue()

        def pump():
            for x in proc.stdout:
                lines.put(x)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        current = None
        while True:
            try:
                line = lines.get(timeout=PER_FILE_TIMEOUT)
            except queue.Empty:
                proc.kill()
                results[current] = (False, "hang: no answer in %d s" % PER_FILE_TIMEOUT)
                break
            if line is None:
                break
            rec = json.loads(line)
            if "start" in rec:
                current = rec["start"]
            else:
                results[rec["done"]] = (rec["ok"], rec["error"])
        proc.wait()
        if current is not None and current not in results:
            results[current] = (False, "the reader's process died (exit %s)" % proc.returncode)
        todo = [f for f in todo if f not in results]
    return results


def output_of(out, f, mode):
    tag = hashlib.sha1(f.encode()).hexdigest()[:16]
    return (out / ("%s.%s.txt" % (tag, mode))).read_text(encoding="utf-8", errors="surrogateescape")


def test_gguf_dump_output_is_the_same_with_either_reader(tmp_path):
    if not Path(GGUFPY).exists():
        need("gguf-py", f"no gguf-py at {GGUFPY} (bash scripts/setup-ggufpy.sh prints the interpreter to set as GGUFPY_PYTHON)")
    shared_or_skip("corpus")
    files = corpus_files()
    outs = {}
    for which in ("gguf", "compat"):
        d = tmp_path / which
        d.mkdir()
        outs[which] = (d, run_reader(which, files, d))
    compared, skipped, failures = 0, [], []
    modes = ("text", "json", "json_array", "markdown", "offsets")
    for f in files:
        g_ok, g_err = outs["gguf"][1][f]
        c_ok, c_err = outs["compat"][1][f]
        if not g_ok:
            skipped.append("%s: gguf-py cannot read it (%s); compat: %s" % (f, g_err, "reads it" if c_ok else c_err))
            if c_ok is False:
                # a ggufkit exception, or the exception gguf-py raises itself (a tensor type id
                # that the permissive reading keeps and GGMLQuantizationType refuses: the same
                # class and words, whatever repr the id has)
                same_as_ggufpy = (c_err.split(":")[0] == g_err.split(":")[0]
                                  and "is not a valid GGMLQuantizationType" in c_err
                                  and "is not a valid GGMLQuantizationType" in g_err)
                assert "FormatError" in c_err or "UnicodeDecodeError" in c_err or same_as_ggufpy, (f, c_err, g_err)
            continue
        if not c_ok:
            # gguf-py reads files that break the spec badly enough for ggufkit to refuse even
            # permissively (more than 4 dimensions, offsets that overlap or are misaligned)
            assert c_err.startswith("FormatError"), (f, c_err)
            skipped.append("%s: ggufkit refuses it (%s)" % (f, c_err[:120]))
            continue
        for mode in modes:
            a = output_of(outs["gguf"][0], f, mode)
            b = output_of(outs["compat"][0], f, mode)
            if a != b and not known_difference(f, mode, a, b):
                al, bl = a.splitlines(), b.splitlines()
                i = next((i for i, (x, y) in enumerate(zip(al, bl)) if x != y), min(len(al), len(bl)))
                failures.append("%s [%s] line %d:\n  gguf-py: %r\n  compat:  %r" % (
                    f, mode, i + 1, (al[i:i + 1] or [""])[0][:300], (bl[i:i + 1] or [""])[0][:300]))
        compared += 1
    print("compared %d files; skipped:\n  %s" % (compared, "\n  ".join(skipped)))
    assert not failures, "\n".join(failures)
    assert compared >= (40 if os.environ.get("GGUFKIT_BIG_TESTS") else 30)


# ---- unit tests -----------------------------------------------------------------------------

SAMPLE = REPO / "samples" / "tiny-llama.gguf"


def test_sample_fields_and_tensors():
    r = compat.GGUFReader(str(SAMPLE))
    f = ggufkit.open(str(SAMPLE))
    assert list(r.fields)[:3] == ["GGUF.version", "GGUF.tensor_count", "GGUF.kv_count"]
    assert list(r.fields)[3:] == list(f.metadata)
    assert r.fields["GGUF.version"].contents() == 3
    assert r.byte_order == "I" and r.endianess == compat.GGUFEndian.LITTLE
    assert r.data_offset == f.tensor_data_offset and int(r.alignment) == f.alignment
    tokens = r.fields["tokenizer.ggml.tokens"]
    assert tokens.types == [compat.GGUFValueType.ARRAY, compat.GGUFValueType.STRING]
    assert tokens.contents() == list(f.metadata["tokenizer.ggml.tokens"])
    assert tokens.contents(1) == f.metadata["tokenizer.ggml.tokens"][1]
    # the parts: key length, key, type, element type, count, then (length, bytes) per string
    p = tokens.parts
    assert len(p) == 5 + 2 * len(tokens.data)
    assert int(p[0][0]) == len("tokenizer.ggml.tokens") and p[1].tobytes() == b"tokenizer.ggml.tokens"
    assert int(p[2][0]) == 9 and int(p[3][0]) == 8 and int(p[4][0]) == len(tokens.data)
    assert bytes(p[tokens.data[2]]).decode() == tokens.contents(2) and int(p[tokens.data[2] - 1][0]) == len(p[tokens.data[2]])
    scores = r.get_field("tokenizer.ggml.scores")
    np.testing.assert_array_equal(scores.contents(), f.metadata["tokenizer.ggml.scores"])
    assert scores.parts[scores.data[3]].dtype == np.float32
    eps = r.fields["llama.attention.layer_norm_rms_epsilon"]
    assert eps.contents() == float(np.float32(1e-5)) and eps.parts[-1].dtype == np.float32
    assert r.get_field("absent") is None
    for i, t in enumerate(f.tensors):
        c = r.get_tensor(i)
        assert c.name == t.name and c.tensor_type.name.lower() == t.type
        assert c.shape.tolist() == list(t.shape) and c.shape.dtype == np.uint64
        assert c.n_elements == t.n_elements and c.n_bytes == t.nbytes and c.data_offset == t.data_offset
        assert np.shares_memory(c.data, r._file.tensors[i].raw)  # a view of the reader's own map
        assert c.field.name == t.name and c.field.data == [1, 3, 4, 5]
        assert int(c.field.parts[5][0]) == t.offset and c.field.parts[3].tolist() == list(t.shape)
        assert c.data.nbytes == t.nbytes
        if t.type == "f32":
            np.testing.assert_array_equal(c.data, t.numpy())


@pytest.mark.parametrize("endian", ["little", "big"])
def test_writer_files_both_byte_orders(tmp_path, endian):
    path = tmp_path / ("w-%s.gguf" % endian)
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    with ggufkit.Writer(str(path), alignment=64, endian=endian) as w:
        w.add("general.architecture", "test")
        w.add("test.u16", 513, type="uint16")
        w.add("test.f64", 0.1, type="float64")
        w.add("test.flag", True)
        w.add("test.words", ["a", "bé", ""])
        w.add("test.ints", np.array([1, -2, 3], dtype=np.int32))
        w.add_tensor("x", x)
        w.add_tensor("h", x.astype(np.float16))
    r = compat.GGUFReader(str(path))
    assert r.byte_order == ("S" if endian == "big" else "I")
    assert r.endianess.name == endian.upper()
    assert r.alignment == 64 and r.data_offset % 64 == 0
    assert r.fields["test.u16"].contents() == 513
    assert r.fields["test.u16"].parts[-1].dtype.byteorder == (">" if endian == "big" else "=")
    assert r.fields["test.f64"].contents() == 0.1
    assert r.fields["test.flag"].contents() is True
    assert r.fields["test.words"].contents() == ["a", "bé", ""]
    assert r.fields["test.words"].contents(slice(1, None)) == ["bé", ""]
    assert r.fields["test.ints"].contents() == [1, -2, 3]
    assert r.fields["test.ints"].contents(-1) == 3
    t = r.tensors[0]
    assert t.tensor_type == compat.GGMLQuantizationType.F32 and t.shape.tolist() == [6, 4]
    np.testing.assert_array_equal(t.data, x)
    np.testing.assert_array_equal(r.tensors[1].data, x.astype(np.float16))
    assert t.field.offset < r.tensors[1].field.offset < r.data_offset
    assert [f.offset for f in r.fields.values()] == sorted(f.offset for f in r.fields.values())


def test_a_bad_file_raises_a_ggufkit_error(tmp_path):
    p = tmp_path / "bad.gguf"
    p.write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 16)
    with pytest.raises(ggufkit.GGUFError):
        compat.GGUFReader(str(p))


def test_mode_r_plus_edits_in_place_like_gguf_set_metadata(tmp_path):
    p = tmp_path / "rw.gguf"
    p.write_bytes(SAMPLE.read_bytes())
    r = compat.GGUFReader(str(p), "r+")
    f = r.fields["llama.context_length"]
    f.parts[f.data[0]][0] = 4096  # what gguf-py's gguf_set_metadata does
    r.data.flush()
    assert r.tensors[1].data.flags.writeable
    del r, f
    assert ggufkit.open(str(p)).metadata["llama.context_length"] == 4096
    ro = compat.GGUFReader(str(p))
    assert not ro.tensors[1].data.flags.writeable


@pytest.mark.parametrize("endian", ["little", "big"])
def test_a_shape_is_a_uint64_array_that_iterates_as_ints(tmp_path, endian):
    path = tmp_path / ("s-%s.gguf" % endian)
    with ggufkit.Writer(str(path), endian=endian) as w:
        w.add("general.architecture", "test")
        w.add_tensor("m", np.zeros((3, 5, 7), dtype=np.float32))
        w.add_tensor("v", np.zeros(4, dtype=np.float32))
    r = compat.GGUFReader(str(path))
    m, v = r.tensors
    assert isinstance(m.shape, np.ndarray) and m.shape.dtype.kind == "u" and m.shape.dtype.itemsize == 8
    assert list(m.shape) == [7, 5, 3] and all(type(d) is int for d in m.shape)
    assert tuple(v.shape) == (4,) and len(m.shape) == 3
    assert isinstance(m.shape[0], np.unsignedinteger) and int(m.shape[0]) == 7  # indexing is numpy's
    assert m.shape.tolist() == [7, 5, 3] and int(np.prod(m.shape)) == 105
    assert repr(m.shape) == repr(np.array([7, 5, 3], dtype=m.shape.dtype))
    assert ", ".join("{0:5}".format(d) for d in list(m.shape)) == "    7,     5,     3"


def test_reader_tensor_behaves_as_gguf_pys_named_tuple():
    r = compat.GGUFReader(str(SAMPLE))
    t = r.tensors[0]
    assert isinstance(t, compat.ReaderTensor)
    name, tensor_type, shape, n_elements, n_bytes, data_offset, data, field = t
    assert (name, tensor_type, n_elements, n_bytes, data_offset) == (
        t.name, t.tensor_type, t.n_elements, t.n_bytes, t.data_offset)
    assert shape is t.shape and data is t.data and field is t.field  # made once, kept
    assert compat.ReaderTensor._fields == ("name", "tensor_type", "shape", "n_elements", "n_bytes",
                                           "data_offset", "data", "field")
    assert repr(t).startswith("ReaderTensor(name=%r, tensor_type=" % t.name)


def test_a_tensor_keeps_its_reader_and_the_cycle_is_collected():
    import gc
    import weakref

    r = compat.GGUFReader(str(SAMPLE))
    t = r.tensors[1]
    gone = weakref.ref(r)
    del r
    gc.collect()
    assert gone() is not None and t.data.nbytes == t.n_bytes  # the tensor keeps its reader
    del t
    gc.collect()
    assert gone() is None  # reader <-> tensors is a cycle the collector sees through
