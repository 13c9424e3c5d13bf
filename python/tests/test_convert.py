"""ggufkit.convert: a Hugging Face checkpoint folder to GGUF, and to a llama-quantize preset in one
pass, through the library; the output must be the ``gguf`` CLI's bytes (``gguf convert HF_DIR``,
``gguf quantize HF_DIR``), which the Rust suite compares with convert_hf_to_gguf.py and
llama-quantize. The checkpoints are the convert reference's (scripts/hf_reference/
make_checkpoints.sh, cached; ``$GGUFKIT_HF_REFERENCE`` names another folder)."""

from __future__ import annotations

import os
import struct
import subprocess
import threading
from pathlib import Path

import pytest

import ggufkit
from conftest import REPO, need, run_cli

# the smallest checkpoints of the reference: one MoE with a BPE vocabulary, one SentencePiece
CASES = ["mixtral-bf16", "llama2-spm-f16"]

_reference: list = []


def reference_dir() -> Path:
    """The reference folder (made once per session), or a skip naming what is missing."""
    if _reference:
        return _reference[0]
    env = os.environ.get("GGUFKIT_HF_REFERENCE")
    if env:
        d = Path(env)
    else:
        script = REPO / "scripts" / "hf_reference" / "make_checkpoints.sh"
        r = subprocess.run(["bash", str(script)], capture_output=True, text=True)
        if r.returncode != 0:
            tail = (r.stderr.strip().splitlines() or [""])[-1]
            need("ref-python", f"make_checkpoints.sh failed: {tail}")
        lines = [l[4:] for l in r.stdout.splitlines() if l.startswith("dir=")]
        if not lines:
            need("ref-python", "make_checkpoints.sh printed no dir= line")
        d = Path(lines[0])
    _reference.append(d)
    return d


def checkpoint(name: str) -> Path:
    folder = reference_dir() / "models" / name
    if not folder.is_dir():
        need("ref-python", f"{folder} was not generated")
    return folder


def legacy_imatrix(path: Path, gguf_path: Path) -> None:
    """A llama-imatrix .dat file for every matrix of ``gguf_path`` (ne0 x ne2 positive values)."""
    f = ggufkit.open(gguf_path)
    entries = []
    for t in f.tensors:
        if len(t.shape) < 2 or not t.name.endswith(".weight"):
            continue
        # ggml's order: ne0 (the row) first, ne2 (the experts) third
        ne0 = t.shape[0]
        ne2 = t.shape[2] if len(t.shape) >= 3 else 1
        n = ne0 * ne2
        entries.append((t.name, [0.05 + ((i * 7919 + len(t.name)) % 1000) / 250.0 for i in range(n)]))
    b = bytearray(struct.pack("<i", len(entries)))
    for name, values in entries:
        raw = name.encode()
        b += struct.pack("<i", len(raw)) + raw + struct.pack("<ii", 1, len(values))
        b += struct.pack(f"<{len(values)}f", *values)
    b += struct.pack("<ii", 8, 9) + b"calib.txt"
    path.write_bytes(bytes(b))


@pytest.mark.parametrize("case", CASES)
def test_convert_is_the_clis(case: str, gguf: Path, tmp_path: Path) -> None:
    folder = checkpoint(case)
    for outtype in ["auto", "q8_0"]:
        ours = tmp_path / f"{case}.{outtype}.py.gguf"
        cli = tmp_path / f"{case}.{outtype}.cli.gguf"
        assert ggufkit.convert(folder, ours, outtype=outtype) == str(ours)
        r = run_cli(gguf, "convert", str(folder), "-o", str(cli), "--outtype", outtype)
        assert r.returncode == 0, r.stderr
        assert ours.read_bytes() == cli.read_bytes(), f"{case} --outtype {outtype}"
        script = reference_dir() / "ref" / f"{case}.{outtype}.gguf"
        if script.is_file():
            assert ours.read_bytes() == script.read_bytes(), f"{case} --outtype {outtype}: not the script's"


def test_split_options_are_the_clis(gguf: Path, tmp_path: Path) -> None:
    """split_max_tensors / split_max_size (bytes or the script's text) / no_tensor_first_split
    write the CLI's shards and return the first; sizes the script would not read and a preset
    are refused."""
    folder = checkpoint("llama2-spm-f16")
    for name, kw, cli_args in [
        ("tensors8", dict(split_max_tensors=8), ["--split-max-tensors", "8"]),
        ("size2M", dict(split_max_size="2M"), ["--split-max-size", "2M"]),
        ("bytes", dict(split_max_size=2_000_000, no_tensor_first_split=True),
         ["--split-max-size", "2000000", "--no-tensor-first-split"]),
    ]:
        py_dir, cli_dir = tmp_path / f"{name}.py", tmp_path / f"{name}.cli"
        py_dir.mkdir()
        cli_dir.mkdir()
        first = ggufkit.convert(folder, py_dir / "model.gguf", outtype="f16", **kw)
        r = run_cli(gguf, "convert", str(folder), "-o", str(cli_dir / "model.gguf"),
                    "--outtype", "f16", *cli_args)
        assert r.returncode == 0, r.stderr
        names = sorted(p.name for p in cli_dir.iterdir())
        assert len(names) > 1 and names[0].startswith("model-00001-of-"), names
        assert sorted(p.name for p in py_dir.iterdir()) == names
        assert first == str(py_dir / names[0])
        for n in names:
            assert (py_dir / n).read_bytes() == (cli_dir / n).read_bytes(), f"{name}: {n}"
    with pytest.raises(ValueError, match="--split-max-size '2MB'"):
        ggufkit.convert(folder, tmp_path / "bad.gguf", split_max_size="2MB")
    with pytest.raises(ValueError, match="with a preset"):
        ggufkit.convert(folder, tmp_path / "q.gguf", preset="Q4_K_M", split_max_tensors=8)
    assert not (tmp_path / "bad.gguf").exists() and not (tmp_path / "q.gguf").exists()


@pytest.mark.parametrize("case", CASES)
def test_one_step_is_the_clis(case: str, gguf: Path, tmp_path: Path) -> None:
    folder = checkpoint(case)
    ours = tmp_path / "py.gguf"
    cli = tmp_path / "cli.gguf"
    ggufkit.convert(folder, ours, preset="Q4_K_M")
    r = run_cli(gguf, "quantize", str(folder), str(cli), "Q4_K_M")
    assert r.returncode == 0, r.stderr
    assert ours.read_bytes() == cli.read_bytes()
    # an importance matrix, an outtype and llama-quantize's options, named alike
    converted = tmp_path / "converted.gguf"
    ggufkit.convert(folder, converted)
    im = tmp_path / "im.dat"
    legacy_imatrix(im, converted)
    ggufkit.convert(
        folder,
        ours,
        outtype="f16",
        preset="IQ2_XS",
        imatrix=im,
        tensor_types=["ffn_down=q5_0"],
        output_tensor_type="q8_0",
    )
    r = run_cli(
        gguf, "quantize", "--outtype", "f16", "--imatrix", str(im), "--tensor-type", "ffn_down=q5_0",
        "--output-tensor-type", "q8_0", str(folder), str(cli), "IQ2_XS", "--force",
    )
    assert r.returncode == 0, r.stderr
    assert ours.read_bytes() == cli.read_bytes()
    f = ggufkit.open(ours)
    assert f.metadata["quantize.imatrix.file"] == str(im)


def test_the_gil_is_released(tmp_path: Path) -> None:
    folder = checkpoint("mixtral-bf16")
    done = threading.Event()
    errors = []

    def work() -> None:
        try:
            ggufkit.convert(folder, tmp_path / "q.gguf", preset="Q8_0")
        except Exception as e:  # reported below
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=work)
    ticks = 0
    t.start()
    # Python code runs in this thread while the conversion runs in the other
    while not done.wait(0.001):
        ticks += 1
    t.join()
    assert not errors, errors
    assert ticks > 0


def test_refusals_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out.gguf"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ggufkit.GGUFError, match="no config.json"):
        ggufkit.convert(tmp_path / "empty", out)
    with pytest.raises(ggufkit.GGUFError, match="not a folder"):
        ggufkit.convert(tmp_path / "absent", out)
    folder = checkpoint("mixtral-bf16")
    with pytest.raises(ValueError, match="outtype"):
        ggufkit.convert(folder, out, outtype="q4_k")
    with pytest.raises(ValueError, match="preset"):
        ggufkit.convert(folder, out, preset="Q4_K_Z")
    with pytest.raises(ValueError, match="preset"):
        ggufkit.convert(folder, out, pure=True)
    with pytest.raises(ValueError, match="type"):
        ggufkit.convert(folder, out, preset="Q4_K_M", output_tensor_type="q9_9")
    bad = tmp_path / "bad.dat"
    bad.write_bytes(b"\x01\x00")
    with pytest.raises(ggufkit.GGUFError, match="bad.dat"):
        ggufkit.convert(folder, out, preset="Q4_K_M", imatrix=bad)
    assert not out.exists()
    # an existing output is kept unless overwrite
    out.write_bytes(b"keep")
    with pytest.raises(ggufkit.GGUFError, match="exists"):
        ggufkit.convert(folder, out, preset="Q8_0", overwrite=False)
    assert out.read_bytes() == b"keep"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
