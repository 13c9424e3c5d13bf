"""What the Python tests share: the repository, the shared corpus beside it, the Gemma 3 model,
the `gguf` CLI they compare against, and how a test skips for want of any of them.

Skips that cannot hide (the same rules as the Rust tests' `ggufkit_testkit::skip`):

- a test that lacks something from outside the repository calls ``need(NAME, WHY)`` (or a finder
  below that calls it: ``shared_or_skip``, ``gemma_or_skip``, ``import_or_skip``, the ``gguf``
  fixture). It skips with the reason ``[NAME] WHY``, and fails instead when ``$GGUFKIT_REQUIRE``
  (a list separated by commas or spaces, or ``all``) names NAME: CI lists there what it set up;
- every skip of the run (these and any other) is appended to ``$GGUFKIT_SKIP_LOG`` as
  ``NAME<TAB>TEST<TAB>WHY`` (``other`` when the reason names no need); ``scripts/test.sh`` prints
  them all and one summary line at the end;
- a list of files that silently leaves out what is absent (``corpus_files``) says so through
  ``note_missing``: logged as a skip, and a collection error when required.

NAMEs are the Rust ones (``shared``, ``gemma``, ``gguf-py``, ``llama-cpp-src``, ``ref-python``,
``node-llama-cpp``, ...) plus the Python-only ``gguf-cli``, ``hostile-cases``, ``pyarrow``,
``duckdb``, ``ray``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, NoReturn, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "samples" / "tiny-llama.gguf"
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"


def required(name: str) -> bool:
    """Whether ``$GGUFKIT_REQUIRE`` names ``name`` (or says ``all``)."""
    listed = os.environ.get("GGUFKIT_REQUIRE", "").replace(",", " ").split()
    return name != "platform" and (name in listed or "all" in listed)


def need(name: str, why: str) -> NoReturn:
    """The calling test skips for want of ``name`` (``why``: what is missing, where it was looked
    for, how to get it), or fails when ``$GGUFKIT_REQUIRE`` names it."""
    why = " ".join(why.split())
    if required(name):
        pytest.fail(f"needs {name}, which GGUFKIT_REQUIRE says was set up, but it is unavailable: {why}",
                    pytrace=False)
    pytest.skip(f"[{name}] {why}", allow_module_level=True)


def _log_skip(name: str, test: str, why: str) -> None:
    log = os.environ.get("GGUFKIT_SKIP_LOG")
    if log:
        line = "%s\t%s\t%s\n" % (name, test, " ".join(why.split()))
        with open(log, "a", encoding="utf-8") as f:
            f.write(line)


_noted = set()


def note_missing(name: str, why: str) -> None:
    """For lists of inputs that leave out what is absent: logs (once) that the tests using the
    list run without it; raises (a collection error) when ``$GGUFKIT_REQUIRE`` names ``name``."""
    if (name, why) in _noted:
        return
    _noted.add((name, why))
    if required(name):
        raise RuntimeError(f"{name} is required by GGUFKIT_REQUIRE but unavailable: {why}")
    print(f"SKIPPED (part of the inputs): [{name}] {why}", file=sys.stderr)
    _log_skip(name, "python: inputs", why)


def _skip_reason(longrepr) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _log_report(test: str, longrepr) -> None:
    why = _skip_reason(longrepr)
    if why.startswith("Skipped: "):
        why = why[len("Skipped: "):]
    name = "other"
    if why.startswith("[") and "] " in why:
        name, why = why[1:].split("] ", 1)
    _log_skip(name, test, why)


def pytest_runtest_logreport(report) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _log_report(report.nodeid, report.longrepr)


def pytest_collectreport(report) -> None:
    if report.skipped:
        _log_report(report.nodeid, report.longrepr)


def shared_dir() -> Optional[Path]:
    """`../shared` beside the repository (or $GGUFKIT_SHARED), when present."""
    d = Path(os.environ.get("GGUFKIT_SHARED", REPO.parent / "shared"))
    return d if d.is_dir() else None


def shared_or_skip(sub: str) -> Path:
    """`../shared/<sub>`, or a skip (``need("shared")``)."""
    d = shared_dir()
    if d is None or not (d / sub).exists():
        need("shared", f"../shared/{sub} not found (it lives beside the repository; or set GGUFKIT_SHARED)")
    return d / sub


def gemma_path() -> Optional[Path]:
    """Gemma 3 270M Q4_K_M where the Rust tests find it: $GGUF_GEMMA, else /tmp/gemma, else
    ${XDG_CACHE_HOME:-~/.cache}/ggufkit/gemma (where .ci/run assembles it)."""
    if os.environ.get("GGUF_GEMMA"):
        p = Path(os.environ["GGUF_GEMMA"])
        return p if p.is_file() else None
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    for p in (Path("/tmp/gemma") / GEMMA_FILE, cache / "ggufkit" / "gemma" / GEMMA_FILE):
        if p.is_file():
            return p
    return None


GEMMA_WHY = ("Gemma 3 270M is absent: $GGUF_GEMMA is not set and neither /tmp/gemma nor "
             "~/.cache/ggufkit/gemma holds it (bash ../shared/corpus/get-gemma3-270m.sh DIR assembles it)")


def gemma_or_skip() -> Path:
    p = gemma_path()
    if p is None:
        need("gemma", GEMMA_WHY)
    return p


def import_or_skip(module: str, name: str, install: str):
    """``pytest.importorskip`` through ``need(name)``: the module, or a skip (a failure when
    required). Usable at module level."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError as e:
        need(name, f"{module} cannot be imported ({e}); {install}")


def corpus_files() -> List[Path]:
    """Every .gguf of the shared corpus (recursively), plus the Gemma 3 model; what is absent is
    left out and noted (``note_missing``)."""
    d = shared_dir()
    files: List[Path] = []
    if d is not None and (d / "corpus").is_dir():
        files = sorted(p for p in (d / "corpus").rglob("*.gguf") if p.is_file())
    else:
        note_missing("shared", "../shared/corpus not found: the tests over corpus files run on the sample only")
    gemma = gemma_path()
    if gemma is not None:
        files.append(gemma)
    else:
        note_missing("gemma", GEMMA_WHY + ": the tests over corpus files run without it")
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
        need("gguf-cli", "the gguf CLI is not built (cargo build -p gguf-cli, or set GGUF_BIN)")
    return p


def run_cli(gguf: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(gguf), *args], capture_output=True, timeout=600)
