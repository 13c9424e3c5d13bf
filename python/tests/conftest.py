"""What the Python tests share: the repository, the shared corpus beside it (or a SKIP), the
`gguf` CLI they compare against, and small helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "tiny-llama.gguf"


def shared_dir() -> Optional[Path]:
    """`../shared` beside the repository (or $GGUFKIT_SHARED), when present."""
    d = Path(os.environ.get("GGUFKIT_SHARED", REPO.parent / "shared"))
    return d if d.is_dir() else None


def shared_or_skip(sub: str) -> Path:
    d = shared_dir()
    if d is None or not (d / sub).exists():
        pytest.skip(f"SKIP: {sub} of ../shared not found (set GGUFKIT_SHARED)")
    return d / sub


def corpus_files() -> List[Path]:
    """Every .gguf of the shared corpus (recursively), plus the Gemma 3 model when present."""
    d = shared_dir()
    files: List[Path] = []
    if d is not None and (d / "corpus").is_dir():
        files = sorted(p for p in (d / "corpus").rglob("*.gguf") if p.is_file())
    gemma = Path(os.environ.get("GGUF_GEMMA", "/tmp/gemma/gemma-3-270m-q4_k_m.gguf"))
    if gemma.is_file():
        files.append(gemma)
    return files


def gguf_bin() -> Optional[Path]:
    """The `gguf` CLI: $GGUF_BIN, else the workspace's target/{release,debug}/gguf."""
    if os.environ.get("GGUF_BIN"):
        return Path(os.environ["GGUF_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    for profile in ("release", "debug"):
        p = target / profile / "gguf"
        if p.is_file():
            return p
    found = shutil.which("gguf")
    return Path(found) if found else None


@pytest.fixture(scope="session")
def gguf() -> Path:
    p = gguf_bin()
    if p is None:
        pytest.skip("SKIP: the gguf CLI is not built (cargo build -p gguf-cli, or set GGUF_BIN)")
    return p


def run_cli(gguf: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(gguf), *args], capture_output=True, timeout=600)
