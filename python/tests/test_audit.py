"""`ggufkit.audit`: the library's findings as `AuditFinding` objects, the same as `gguf audit
--json` gives, on files written with our own Writer; the severity filter; an open File; a file
that breaks the spec audited with its violations as findings, one that is not GGUF raising
FormatError."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Optional

import numpy as np
import pytest

import ggufkit

HOSTILE = "{% for m in messages %}\n{{ m.content.__class__ }}{% endfor %}"


def model(path: Path, arch: str = "llama", template: Optional[str] = None) -> Path:
    """A tiny llama model llama.cpp loads (every tensor its llama loader requires, a small BPE
    vocabulary), its architecture named `arch`, with a template."""
    w = ggufkit.Writer(path)
    w.add("general.architecture", arch)
    for key, value in [
        ("context_length", 16),
        ("embedding_length", 8),
        ("block_count", 1),
        ("feed_forward_length", 16),
        ("attention.head_count", 2),
    ]:
        w.add(f"{arch}.{key}", value, type="uint32")
    w.add(f"{arch}.attention.layer_norm_rms_epsilon", 1e-5, type="float32")
    w.add("tokenizer.ggml.model", "gpt2")
    w.add("tokenizer.ggml.tokens", ["a", "b", "ab"])
    w.add("tokenizer.ggml.merges", ["a b"])
    if template is not None:
        w.add("tokenizer.chat_template", template)
    # numpy's shapes are ggml's reversed: token_embd is [n_embd, n_vocab]
    shapes = {
        "token_embd.weight": (3, 8),
        "output_norm.weight": (8,),
        "blk.0.attn_norm.weight": (8,),
        "blk.0.attn_q.weight": (8, 8),
        "blk.0.attn_k.weight": (8, 8),
        "blk.0.attn_v.weight": (8, 8),
        "blk.0.attn_output.weight": (8, 8),
        "blk.0.ffn_norm.weight": (8,),
        "blk.0.ffn_gate.weight": (16, 8),
        "blk.0.ffn_down.weight": (8, 16),
        "blk.0.ffn_up.weight": (16, 8),
    }
    for name, shape in shapes.items():
        w.add_tensor(name, np.zeros(shape, dtype=np.float32))
    w.close()
    return path


def test_a_clean_file_has_no_finding(tmp_path: Path) -> None:
    assert ggufkit.audit(model(tmp_path / "clean.gguf")) == []


def test_a_hostile_template_is_found_with_its_place(tmp_path: Path) -> None:
    p = model(tmp_path / "h.gguf", template=HOSTILE)
    found = ggufkit.audit(p)
    d = next(f for f in found if f.rule == "template.dunder")
    assert isinstance(d, ggufkit.AuditFinding)
    assert (d.severity, d.subject, d.line, d.column) == ("error", "tokenizer.chat_template", 2, 14)
    assert d.offset > 24
    assert str(d).startswith("error [template.dunder] tokenizer.chat_template at byte ")
    assert "(template 2:14): access to `__class__`" in str(d)
    # bytes and an open File give the same findings
    assert ggufkit.audit(p.read_bytes()) == found
    with ggufkit.open(p) as f:
        assert ggufkit.audit(f) == found


def test_the_severity_filter(tmp_path: Path) -> None:
    p = model(tmp_path / "odd.gguf", arch="frobnicator")
    assert ggufkit.audit(p) == []
    notes = ggufkit.audit(p, severity="note")
    # and the note of the oldest llama.cpp release that reads its types and pre-tokenizer
    assert [f.rule for f in notes] == ["model.unknown-arch", "model.oldest-release"]
    assert notes[0].line is None and notes[0].column is None
    assert ggufkit.audit(p, severity="error") == []
    with pytest.raises(ValueError):
        ggufkit.audit(p, severity="loud")


def test_a_file_that_breaks_the_spec_is_audited(tmp_path: Path) -> None:
    p = model(tmp_path / "c.gguf", template=HOSTILE)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(p.read_bytes()[:-100])
    found = ggufkit.audit(cut)
    assert found[0].rule == "spec.violation" and found[0].severity == "error"
    assert "template.dunder" in [f.rule for f in found]
    with ggufkit.open(cut, permissive=True) as f:
        assert ggufkit.audit(f) == found
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a gguf file at all")
    with pytest.raises(ggufkit.FormatError):
        ggufkit.audit(junk)
    with pytest.raises(FileNotFoundError):
        ggufkit.audit(tmp_path / "missing.gguf")


def test_the_cli_agrees(tmp_path: Path) -> None:
    gguf = os.environ.get("GGUF_BIN")
    if not gguf or not Path(gguf).is_file():
        need("gguf-cli", "GGUF_BIN (the gguf CLI) is not set (scripts/test.sh sets it)")
    p = model(tmp_path / "h.gguf", template=HOSTILE)
    out = subprocess.run(
        [gguf, "audit", "--json", "--severity", "note", str(p)], capture_output=True, text=True
    )
    cli = json.loads(out.stdout)["findings"]
    py = ggufkit.audit(p, severity="note")
    assert [
        (f.rule, f.severity, f.subject, f.offset, f.line, f.column, f.message) for f in py
    ] == [
        (f["rule"], f["severity"], f["subject"], f["offset"], f["line"], f["column"], f["message"])
        for f in cli
    ]
