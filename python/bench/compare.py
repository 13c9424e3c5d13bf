#!/usr/bin/env python3
"""ggufkit against gguf-py (PyPI ``gguf`` 0.19.0), side by side in one interleaved run.

Three parts, each a markdown table on stdout (and all of it as JSON with ``--json-out FILE``):

1. **walk** -- open a file and read everything in it. ggufkit: ``ggufkit.open``, every metadata
   value (string arrays as ``tolist()``: every token a ``str``; numeric arrays touched with
   ``.sum()``), every tensor's name, type, shape, n_elements and offset. gguf-py:
   ``GGUFReader(path)``, ``contents()`` of every field, every tensor's name, type, shape,
   n_elements and data offset. Target: ggufkit >= 100x faster, its peak memory beyond the
   interpreter <= 2x the header.
2. **dump** -- what ``gguf-dump`` prints: gguf-py's own ``gguf.scripts.gguf_dump.dump_metadata``
   run with ``ggufkit.compat.GGUFReader`` and with gguf-py's ``GGUFReader`` (stdout to a
   StringIO). The two outputs are compared. Target: >= 20x. SKIP when ``ggufkit.compat`` is
   absent (``--compat-from PATH`` loads a ``compat.py`` from another checkout instead).
3. **numpy** -- ``Tensor.numpy()`` against ``gguf.quants.dequantize(tensor.data, type)`` for
   every type gguf-py can dequantize: one tensor per type (``--elements``, 4096x1024 by default)
   in a file written by ``ggufkit.Writer`` (values quantized by ``ggufkit.quantize`` from seeded
   normal noise; the few types ggufkit cannot quantize get seeded random blocks with a sane
   scale). ggufkit is timed with one thread (``RAYON_NUM_THREADS=1``) and with every core; the
   floats of both contenders are compared bit for bit. Target: >= 10x with one thread.

How it measures:

- Time: the median of ``-n`` repetitions. Timing runs in worker processes that stay alive for
  the whole run (one with ``RAYON_NUM_THREADS=1``, one with rayon's default of every core); the
  parent sends each worker one job at a time, and each repetition runs every contender on every
  file once, in an order rotated at each repetition, so a loaded moment falls on all alike.
  Only the job itself is inside the timer (not the pipe).
- Peak memory: ``VmHWM`` of a fresh child process (``compare.py --peak``) that imports ggufkit,
  gguf and numpy, runs the job once as a warm-up (so the code pages it faults in count as the
  interpreter's, not the file's), resets its high-water mark (``/proc/self/clear_refs``), takes
  ``VmRSS`` as the baseline, runs the job again and reads ``VmHWM``: the figure is the peak beyond the
  interpreter's baseline, shown beside the header's size (``tensor_data_offset``).
- Agreement: before timing, each part runs once with a full comparison (every value of every
  key, every tensor field; the dump's text; every float's bits). A disagreement is reported in
  the notes, never hidden, and with ``--quick`` it fails the run (exit 1), as does any failure.

Setup (one interpreter holding both packages, so both run under the same Python and numpy)::

    python3 -m venv /tmp/venv-bench
    /tmp/venv-bench/bin/pip install maturin numpy gguf==0.19.0
    cd python && VIRTUAL_ENV=/tmp/venv-bench PATH=/tmp/venv-bench/bin:$PATH \\
        maturin develop --release
    /tmp/venv-bench/bin/python python/bench/compare.py -n 5 --json-out pybench.json

``--files`` defaults to the Gemma 3 270M model (``$GGUF_GEMMA`` or
``/tmp/gemma/gemma-3-270m-q4_k_m.gguf``), ``../shared/corpus/vocab/ggml-vocab-gemma-4.gguf``
and ``../shared/corpus/synthetic/bench_many_tensors.gguf`` (relative to the repository); absent
files are skipped with a ``SKIP:`` line. ``--quick`` is the CI smoke mode: tiny files written
here, one repetition, a few seconds.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
DEFAULT_FILES = [
    os.environ.get("GGUF_GEMMA", "/tmp/gemma/gemma-3-270m-q4_k_m.gguf"),
    str(SHARED / "corpus/vocab/ggml-vocab-gemma-4.gguf"),
    str(SHARED / "corpus/synthetic/bench_many_tensors.gguf"),
]
TARGETS = {"walk": 100.0, "dump": 20.0, "numpy": 10.0}
ONE_BLAS_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
# gguf-py's first three fields are the header's own counts, not metadata keys
GGUFPY_PSEUDO_FIELDS = ("GGUF.version", "GGUF.tensor_count", "GGUF.kv_count")


# ----------------------------------------------------------------------------------------------
# The jobs: what each contender does. Each returns a small digest (counts) that must be equal
# between contenders; `full=True` returns everything it read, for the comparison before timing.


_COMPAT: dict[str, Any] = {}


def _compat_module(compat_from: str | None) -> Any:
    """`ggufkit.compat`, or a compat.py loaded as that module from `compat_from`; None if absent.
    Loaded once per process."""
    key = compat_from or ""
    if key not in _COMPAT:
        _COMPAT[key] = _load_compat(compat_from)
    return _COMPAT[key]


def _load_compat(compat_from: str | None) -> Any:
    import importlib
    import importlib.util

    if compat_from:
        spec = importlib.util.spec_from_file_location("ggufkit.compat", compat_from)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {compat_from}")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["ggufkit.compat"] = mod
        spec.loader.exec_module(mod)
        return mod
    try:
        return importlib.import_module("ggufkit.compat")
    except ModuleNotFoundError as e:
        if e.name == "ggufkit.compat":
            return None
        raise


def _touch_ggufkit(v: Any, counts: list[int], iterate: bool = False) -> Any:
    """Reads the value `v` the way a user does; counts [strings, numbers]. String arrays are
    read whole with `tolist()`, or with `iterate` one `str` at a time (`for s in tokens`)."""
    import numpy as np
    import ggufkit

    if isinstance(v, ggufkit.StringArray):
        if iterate:
            n = 0
            for _s in v:
                n += 1
            counts[0] += n
            return None
        items = v.tolist()
        counts[0] += len(items)
        return items
    if isinstance(v, np.ndarray):
        v.sum()
        counts[1] += int(v.size)
        return v
    if isinstance(v, list):
        return [_touch_ggufkit(x, counts, iterate) for x in v]
    if isinstance(v, str):
        counts[0] += 1
    else:
        counts[1] += 1
    return v


def _touch_ggufpy(v: Any, counts: list[int]) -> None:
    if isinstance(v, list):
        for x in v:
            _touch_ggufpy(x, counts)
    elif isinstance(v, str):
        counts[0] += 1
    else:
        counts[1] += 1


def walk_ggufkit(path: str, full: bool = False, iterate: bool = False) -> Any:
    import ggufkit

    f = ggufkit.open(path)
    counts = [0, 0]
    keys = 0
    values = {}
    for k, v in f.metadata.items():
        keys += 1
        got = _touch_ggufkit(v, counts, iterate)
        if full:
            values[k] = _plain(got)
    tensors = []
    dims = 0
    for t in f.tensors:
        row = (t.name, t.type, t.shape, t.n_elements, t.offset)
        dims += sum(row[2])
        if full:
            tensors.append((t.name, t.type_id, tuple(t.shape), t.n_elements, t.data_offset))
    digest = {"keys": keys, "strings": counts[0], "numbers": counts[1], "tensors": len(f.tensors),
              "dims": dims}
    if full:
        return digest, values, tensors
    return digest


def walk_ggufkit_iter(path: str) -> Any:
    """The walk with every string array iterated (`for s in tokens`) instead of `tolist()`."""
    return walk_ggufkit(path, iterate=True)


def walk_ggufpy(path: str, full: bool = False) -> Any:
    from gguf import GGUFReader

    r = GGUFReader(path)
    counts = [0, 0]
    keys = 0
    values = {}
    for i, (name, field) in enumerate(r.fields.items()):
        v = field.contents()
        if i < 3 and name in GGUFPY_PSEUDO_FIELDS:
            continue
        keys += 1
        _touch_ggufpy(v, counts)
        if full:
            values[name] = v
    tensors = []
    dims = 0
    for t in r.tensors:
        row = (t.name, t.tensor_type, t.shape, t.n_elements, t.data_offset)
        dims += int(row[2].sum())
        if full:
            tensors.append((t.name, int(t.tensor_type), tuple(int(d) for d in t.shape),
                            t.n_elements, t.data_offset))
    digest = {"keys": keys, "strings": counts[0], "numbers": counts[1], "tensors": len(r.tensors),
              "dims": dims}
    if full:
        return digest, values, tensors
    return digest


def _plain(v: Any) -> Any:
    """A ggufkit value as the plain Python gguf-py's contents() gives."""
    import numpy as np

    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _dump_args(path: str) -> argparse.Namespace:
    return argparse.Namespace(model=path, no_tensors=False, json=False, json_array=False,
                              data_offset=False, data_alignment=False, markdown=False,
                              verbose=False)


def dump_with(reader_class: Callable[[str], Any], path: str) -> str:
    from gguf.scripts.gguf_dump import dump_metadata

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        dump_metadata(reader_class(path), _dump_args(path))
    return out.getvalue()


def dump_ggufkit(path: str, compat_from: str | None = None) -> str:
    mod = _compat_module(compat_from)
    if mod is None:
        raise ModuleNotFoundError("ggufkit.compat is absent")
    return dump_with(mod.GGUFReader, path)


def dump_ggufpy(path: str, compat_from: str | None = None) -> str:
    from gguf import GGUFReader

    return dump_with(GGUFReader, path)


# ----------------------------------------------------------------------------------------------
# Part 3's jobs keep their opened file between calls: the open is not what is timed.

_OPENED: dict[tuple[str, str], Any] = {}


def _deq_tensor(contender: str, path: str, name: str) -> Any:
    key = (contender, path)
    if key not in _OPENED:
        if contender == "ggufkit":
            import ggufkit

            f = ggufkit.open(path)
            _OPENED[key] = {t.name: t for t in f.tensors}
        else:
            from gguf import GGUFReader

            _OPENED[key] = {t.name: t for t in GGUFReader(path).tensors}
    return _OPENED[key][name]


def deq_ggufkit(path: str, name: str) -> Any:
    return _deq_tensor("ggufkit", path, name).numpy()


def deq_ggufpy(path: str, name: str) -> Any:
    from gguf.quants import dequantize

    t = _deq_tensor("gguf-py", path, name)
    return dequantize(t.data, t.tensor_type)


def deq_check(path: str, name: str) -> dict:
    """Both contenders' floats for one tensor, compared bit for bit."""
    import numpy as np

    a = np.asarray(deq_ggufkit(path, name))
    b = np.asarray(deq_ggufpy(path, name))
    out: dict[str, Any] = {"shape_ggufkit": list(a.shape), "shape_ggufpy": list(b.shape)}
    if a.size != b.size:
        out.update(equal=False, note=f"sizes differ: {a.size} against {b.size}")
        return out
    a = a.reshape(-1).astype(np.float32, copy=False)
    b = b.reshape(-1).astype(np.float32, copy=False)
    diff = a.view(np.uint32) != b.view(np.uint32)
    both_nan = np.isnan(a) & np.isnan(b)
    bits = int(np.count_nonzero(diff))
    values = int(np.count_nonzero(diff & ~both_nan))
    out.update(equal=bits == 0, differing_bits=bits, differing_values=values, n=int(a.size))
    if values:
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
        d = d[np.isfinite(d)]
        out["max_abs_diff"] = float(d.max()) if d.size else float("nan")
        i = int(np.flatnonzero(diff & ~both_nan)[0])
        out["first"] = {"index": i, "ggufkit": float(a[i]), "ggufpy": float(b[i])}
    out["shapes_equal"] = out["shape_ggufkit"] == out["shape_ggufpy"]
    return out


JOBS: dict[tuple[str, str], Callable[..., Any]] = {
    ("walk", "ggufkit"): walk_ggufkit,
    ("walk", "ggufkit-iter"): walk_ggufkit_iter,
    ("walk", "gguf-py"): walk_ggufpy,
    ("dump", "ggufkit"): dump_ggufkit,
    ("dump", "gguf-py"): dump_ggufpy,
    ("numpy", "ggufkit"): deq_ggufkit,
    ("numpy", "gguf-py"): deq_ggufpy,
}


def _digest(part: str, result: Any) -> Any:
    if part == "walk":
        return result
    if part == "dump":
        return {"lines": result.count("\n"), "sha256": hashlib.sha256(result.encode()).hexdigest()}
    return {"shape": list(result.shape), "dtype": str(result.dtype)}


# ----------------------------------------------------------------------------------------------
# Worker and peak processes


def _status(field: str) -> int:
    """A `/proc/self/status` figure in bytes."""
    with open("/proc/self/status") as s:
        for line in s:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _import_all() -> None:
    import numpy  # noqa: F401
    import gguf  # noqa: F401
    import gguf.quants  # noqa: F401
    import gguf.scripts.gguf_dump  # noqa: F401
    import ggufkit  # noqa: F401


def worker_main() -> None:
    """Runs jobs sent as JSON lines on stdin; answers each with one JSON line on stdout."""
    _import_all()
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing a job prints may corrupt the answers
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["op"] == "quit":
            break
        try:
            if cmd["op"] == "check":
                answer: dict[str, Any] = {"ok": True, "result": _check(cmd)}
            else:
                fn = JOBS[(cmd["part"], cmd["contender"])]
                t0 = time.perf_counter()
                result = fn(*cmd["args"])
                seconds = time.perf_counter() - t0
                answer = {"ok": True, "seconds": seconds, "digest": _digest(cmd["part"], result)}
                del result
        except Exception as e:  # reported as the contender's failure, with its message
            answer = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


def _check(cmd: dict) -> Any:
    part, args = cmd["part"], cmd["args"]
    if part == "walk":
        dk, vk, tk = walk_ggufkit(args[0], full=True)
        dp, vp, tp = walk_ggufpy(args[0], full=True)
        notes = []
        if list(vk) != list(vp):
            notes.append(f"keys differ: {len(vk)} against {len(vp)}")
        for k in vk:
            if k in vp and not _same(vk[k], vp[k]):
                notes.append(f"value of {k} differs: {_short(vk[k])} against {_short(vp[k])}")
        if tk != tp:
            bad = next((a, b) for a, b in zip(tk + [None] * len(tp), tp + [None] * len(tk))
                       if a != b)
            notes.append(f"tensors differ: first {bad[0]} against {bad[1]}")
        if dk != dp:
            notes.append(f"counts differ: {dk} against {dp}")
        return {"equal": not notes, "notes": notes[:5], "n_notes": len(notes)}
    if part == "dump":
        a = dump_ggufkit(*args)
        b = dump_ggufpy(*args)
        if a == b:
            return {"equal": True, "notes": []}
        la, lb = a.splitlines(), b.splitlines()
        diff = [(i, x, y) for i, (x, y) in enumerate(zip(la, lb)) if x != y]
        notes = [f"line {i + 1}: {x!r} against {y!r}" for i, x, y in diff[:5]]
        if len(la) != len(lb):
            notes.append(f"{len(la)} lines against {len(lb)}")
        return {"equal": False, "notes": notes, "n_notes": len(diff)}
    return deq_check(*args)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def peak_main(part: str, contender: str, args: list[str]) -> None:
    """One job once in this fresh process; prints its peak memory beyond the baseline as JSON."""
    _import_all()
    import gc

    # one warm-up run of the same job first, its result dropped: the code pages of the extension
    # and of numpy it faults in (about 5 MB of file-backed RSS, whatever the file) belong to the
    # interpreter's baseline, not to the file
    with contextlib.suppress(Exception):
        JOBS[(part, contender)](*args)
    gc.collect()
    reset = True
    try:
        with open("/proc/self/clear_refs", "w") as c:
            c.write("5")  # resets VmHWM to the current VmRSS (Linux 4.0+)
    except OSError:
        reset = False
    base = _status("VmRSS") if reset else _status("VmHWM")
    try:
        result = JOBS[(part, contender)](*args)
        _digest(part, result)
        ok, error = True, None
    except Exception as e:
        ok, error = False, f"{type(e).__name__}: {e}"
    hwm = _status("VmHWM")
    print(json.dumps({"ok": ok, "error": error, "baseline": base, "hwm": hwm,
                      "peak": hwm - base, "hwm_reset": reset}))


class Worker:
    def __init__(self, label: str, env: dict[str, str]):
        self.label = label
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env={**os.environ, **env})

    def ask(self, cmd: dict) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            raise RuntimeError(f"worker {self.label} died (exit status {code}) on {cmd}")
        return json.loads(line)

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=60)


def peak(part: str, contender: str, args: list[str]) -> dict:
    p = subprocess.run([sys.executable, __file__, "--peak", part, contender, *args],
                       capture_output=True, text=True, env={**os.environ, "RAYON_NUM_THREADS": "", **ONE_BLAS_THREAD})
    if p.returncode != 0:
        return {"ok": False, "error": f"exit status {p.returncode}: {p.stderr.strip()[-300:]}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------------------------
# The runner


def header_bytes(path: str) -> int:
    import ggufkit

    with ggufkit.open(path) as f:
        return int(f.tensor_data_offset)


def median_ms(xs: list[float]) -> float | None:
    return statistics.median(xs) * 1e3 if xs else None


def fmt_ms(x: float | None) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_mb(b: int | None) -> str:
    return "-" if b is None else f"{b / 1e6:.2f}"


def run_timed(jobs: list[dict], workers: dict[str, Worker], reps: int,
              failures: list[str]) -> None:
    """Each repetition runs every job once, in an order rotated at each repetition."""
    for rep in range(reps):
        k = rep % len(jobs) if jobs else 0
        for job in jobs[k:] + jobs[:k]:
            if job.get("failed"):
                continue
            a = workers[job["worker"]].ask({"op": "time", "part": job["part"],
                                            "contender": job["contender"], "args": job["args"]})
            if not a["ok"]:
                job["failed"] = a["error"]
                failures.append(f"{job['label']} failed: {a['error']}")
                continue
            job["times"].append(a["seconds"])
            job["digest"] = a["digest"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=5, help="repetitions (median taken), default 5")
    ap.add_argument("--files", nargs="+", help="GGUF files for parts 1 and 2")
    ap.add_argument("--parts", default="walk,dump,numpy", help="comma-separated: walk,dump,numpy")
    ap.add_argument("--types", help="comma-separated ggml types for part 3 (default: every type "
                                    "gguf-py dequantizes)")
    ap.add_argument("--elements", default="4096x1024",
                    help="part 3's tensor shape as NE0xNE1 (default 4096x1024)")
    ap.add_argument("--compat-from", help="a compat.py to load as ggufkit.compat (before merge)")
    ap.add_argument("--no-peak", action="store_true", help="skip the peak-memory children")
    ap.add_argument("--quick", action="store_true",
                    help="smoke mode for CI: tiny files, 1 repetition, exit 1 on any failure or "
                         "disagreement")
    ap.add_argument("--json-out", help="write every figure as JSON here")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--peak", nargs="+", help=argparse.SUPPRESS)
    opts = ap.parse_args()

    if opts.worker:
        worker_main()
        return 0
    if opts.peak:
        peak_main(opts.peak[0], opts.peak[1], opts.peak[2:])
        return 0

    try:
        _import_all()
    except ImportError as e:
        print(f"error: this interpreter needs ggufkit, gguf (0.19.0) and numpy: {e}",
              file=sys.stderr)
        return 2
    import gguf
    import ggufkit
    import importlib.metadata

    parts = [p.strip() for p in opts.parts.split(",") if p.strip()]
    reps = 1 if opts.quick else max(1, opts.n)
    tmp = tempfile.TemporaryDirectory(prefix="pybench-")
    started = time.time()
    load_before = os.getloadavg()
    failures: list[str] = []
    disagreements: list[str] = []
    report: dict[str, Any] = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "python": platform.python_version(),
        "ggufkit": ggufkit.__version__,
        "gguf": importlib.metadata.version("gguf"),
        "numpy": importlib.metadata.version("numpy"),
        "repetitions": reps,
        "cpus": os.cpu_count(),
        "parts": {},
    }

    if opts.quick:
        files = [make_quick_file(Path(tmp.name))]
        ne = (256, 8)
    else:
        files = []
        for f in opts.files or DEFAULT_FILES:
            if Path(f).is_file():
                files.append(f)
            else:
                print(f"SKIP: {f} is absent")
        ne = tuple(int(x) for x in opts.elements.lower().split("x"))  # type: ignore[assignment]

    compat_present = _compat_module(opts.compat_from) is not None
    # rayon reads RAYON_NUM_THREADS at its first use, so the thread count is the process's
    # (neither contender uses BLAS: its threads are kept from spinning beside rayon's)
    workers = {
        "all": Worker("all", {"RAYON_NUM_THREADS": "", **ONE_BLAS_THREAD}),
        "1t": Worker("1t", {"RAYON_NUM_THREADS": "1", **ONE_BLAS_THREAD}),
    }
    try:
        headers = {f: header_bytes(f) for f in files}
        if "walk" in parts:
            report["parts"]["walk"] = run_file_part("walk", files, headers, workers, reps, opts,
                                                    failures, disagreements)
        if "dump" in parts:
            if compat_present:
                report["parts"]["dump"] = run_file_part("dump", files, headers, workers, reps,
                                                        opts, failures, disagreements)
            else:
                print("SKIP: part 2 (dump): ggufkit.compat is absent (not merged yet); "
                      "--compat-from PATH to load one")
                report["parts"]["dump"] = {"skipped": "ggufkit.compat is absent"}
        if "numpy" in parts:
            report["parts"]["numpy"] = run_numpy_part(Path(tmp.name), ne, workers, reps, opts,
                                                      failures, disagreements)
    finally:
        for w in workers.values():
            w.close()
        tmp.cleanup()

    load_after = os.getloadavg()
    report["load_before"], report["load_after"] = load_before, load_after
    report["seconds"] = round(time.time() - started, 1)
    report["failures"], report["disagreements"] = failures, disagreements
    print()
    print(f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"load average {' '.join(f'{x:.2f}' for x in load_before)} before, "
          f"{' '.join(f'{x:.2f}' for x in load_after)} after; {report['seconds']} s in all; "
          f"Python {report['python']}, numpy {report['numpy']}, gguf {report['gguf']}, "
          f"ggufkit {report['ggufkit']}.")
    for line in failures:
        print(f"FAIL: {line}")
    for line in disagreements:
        print(f"DISAGREE: {line}")
    if opts.json_out:
        Path(opts.json_out).write_text(json.dumps(report, indent=2) + "\n")
    if opts.quick and (failures or disagreements):
        return 1
    return 0


def run_file_part(part: str, files: list[str], headers: dict[str, int], workers: dict[str, Worker],
                  reps: int, opts: argparse.Namespace, failures: list[str],
                  disagreements: list[str]) -> dict:
    # the first contender is the one the target is about; the last is the peer
    contenders = ["ggufkit", "ggufkit-iter", "gguf-py"] if part == "walk" else ["ggufkit", "gguf-py"]
    peer = contenders[-1]
    extra = [opts.compat_from or ""] if part == "dump" else []
    jobs = []
    for f in files:
        for c in contenders:
            jobs.append({"part": part, "contender": c, "file": f, "args": [f, *extra],
                         "worker": "all", "times": [], "label": f"{part} {c} {Path(f).name}"})
    checks = {}
    for f in files:
        a = workers["all"].ask({"op": "check", "part": part, "args": [f, *extra]})
        if not a["ok"]:
            failures.append(f"{part} check on {Path(f).name}: {a['error']}")
            continue
        checks[f] = a["result"]
        if not a["result"]["equal"]:
            for n in a["result"]["notes"]:
                disagreements.append(f"{part} {Path(f).name}: {n}")
    run_timed(jobs, workers, reps, failures)
    peaks: dict[tuple[str, str], dict] = {}
    if not opts.no_peak:
        for f in files:
            for c in contenders:
                p = peak(part, c, [f, *extra])
                peaks[(f, c)] = p
                if not p["ok"]:
                    failures.append(f"{part} {c} {Path(f).name} (peak child): {p['error']}")

    def job(f: str, c: str) -> dict:
        return next(j for j in jobs if j["file"] == f and j["contender"] == c)

    for f in files:
        dp = job(f, peer).get("digest")
        for c in contenders[:-1]:
            dk = job(f, c).get("digest")
            if dk and dp and dk != dp:
                disagreements.append(f"{part} {c} {Path(f).name}: digests {dk} against {dp}")

    title = {"walk": "open + read everything", "dump": "what gguf-dump does"}[part]
    target = TARGETS[part]
    ours = contenders[:-1]
    print()
    print(f"### Part {1 if part == 'walk' else 2}: {title} (median ms of {reps}, interleaved; "
          f"speed-up = {peer}'s time / ours)")
    print()
    print("| file | header MB | " + " | ".join(f"{c} ms" for c in contenders) + " | " +
          " | ".join(f"speed-up {c}" for c in ours) + " | same values | target |")
    print("|---|---:|" + "---:|" * (len(contenders) + len(ours)) + "---|---|")
    rows = []
    for f in files:
        ms = {c: median_ms(job(f, c)["times"]) for c in contenders}
        speed = {c: (ms[peer] / ms[c] if ms[c] and ms[peer] else None) for c in ours}
        pk = {c: peaks.get((f, c), {}) for c in contenders}
        pb = {c: (pk[c].get("peak") if pk[c].get("ok") else None) for c in contenders}
        over = {c: (pb[c] / headers[f] if pb[c] is not None and headers[f] else None)
                for c in contenders}
        # each of our contenders judged alone; the row says which meet the target and why not
        misses = {}
        for c in ours:
            met_speed = speed[c] is not None and speed[c] >= target
            met_mem = part != "walk" or opts.no_peak or (over[c] is not None and over[c] <= 2.0)
            misses[c] = [x for x, ok in ((f"speed < {target:.0f}x", met_speed),
                                         ("memory > 2x header", met_mem)) if not ok]
        met_by = [c for c in ours if not misses[c]]
        if len(met_by) == len(ours):
            verdict = "met"
        elif met_by:
            verdict = f"met by {', '.join(met_by)}; " + "; ".join(
                f"{c}: {', '.join(m)}" for c, m in misses.items() if m)
        else:
            verdict = "NOT met: " + "; ".join(f"{c}: {', '.join(m)}" for c, m in misses.items())
        agree = checks.get(f, {}).get("equal")
        agree_s = "yes" if agree else ("no" if agree is not None else "-")
        print(f"| {Path(f).name} | {headers[f] / 1e6:.2f} | " +
              " | ".join(fmt_ms(ms[c]) for c in contenders) + " | " +
              " | ".join("-" if speed[c] is None else f"{speed[c]:.0f}x" for c in ours) +
              f" | {agree_s} | {verdict} |")
        rows.append({"file": f, "header_bytes": headers[f], "ms": ms, "speedup": speed,
                     "times_s": {c: job(f, c)["times"] for c in contenders},
                     "peak": pk, "peak_over_header": over, "check": checks.get(f),
                     "digest": {c: job(f, c).get("digest") for c in contenders},
                     "target": target, "met": verdict == "met", "met_by": met_by, "verdict": verdict})
    if peaks:
        print()
        print(f"Peak memory (MB) beyond the interpreter's baseline, each contender alone in a "
              f"fresh process, and its ratio to the header:")
        print()
        print("| file | header MB | " + " | ".join(f"{c} MB" for c in contenders) + " |")
        print("|---|---:|" + "---:|" * len(contenders))
        for r in rows:
            cells = []
            for c in contenders:
                b_ = r["peak"][c].get("peak") if r["peak"][c].get("ok") else None
                o = r["peak_over_header"][c]
                cells.append("fails" if b_ is None else f"{b_ / 1e6:.1f} (x{o:.1f})")
            print(f"| {Path(r['file']).name} | {r['header_bytes'] / 1e6:.2f} | " +
                  " | ".join(cells) + " |")
        base = next((p["baseline"] for p in peaks.values() if p.get("ok")), None)
        if base:
            print()
            print(f"Interpreter baseline (ggufkit, gguf and numpy imported): {base / 1e6:.1f} MB.")
    return {"target": target, "contenders": contenders, "rows": rows}


# ----------------------------------------------------------------------------------------------
# Part 3


def make_types_file(dirpath: Path, ne: tuple[int, int], types: list[Any]) -> tuple[str, dict]:
    """One tensor per type, shape (ne1, ne0) in numpy's order; returns the path and how each
    tensor's blocks were made."""
    import numpy as np
    import ggufkit
    from gguf.constants import GGML_QUANT_SIZES

    rng = np.random.default_rng(20261203)
    x = rng.standard_normal(ne[0] * ne[1]).astype(np.float32)
    made = {}
    path = dirpath / "types.gguf"
    with ggufkit.Writer(str(path)) as w:
        w.add("general.architecture", "bench")
        for t in types:
            name = t.name.lower()
            try:
                raw = ggufkit.quantize(x, name)
                made[name] = "ggufkit.quantize"
            except ggufkit.GGUFError:
                block, size = GGML_QUANT_SIZES[t]
                nblocks = ne[0] * ne[1] // block
                blocks = rng.integers(0, 256, size=(nblocks, size), dtype=np.uint8)
                # every such block (iq2_xxs, iq2_xs, iq1_s) starts with its f16 scale
                d = rng.uniform(0.001, 0.1, nblocks).astype("<f2")
                blocks[:, :2] = d.view(np.uint8).reshape(nblocks, 2)
                raw = blocks.reshape(-1)
                made[name] = "random blocks (no quantizer in ggufkit), f16 scale in [0.001, 0.1)"
            w.add_tensor(name, raw=raw, type=name, shape=[ne[1], ne[0]])
    return str(path), made


def dequantizable_types(only: str | None) -> list[Any]:
    from gguf import GGMLQuantizationType as Q
    from gguf.quants import _type_traits

    types = [Q.F32, Q.F16] + [t for t in _type_traits if t not in (Q.F32, Q.F16)]
    if only:
        want = {s.strip().lower() for s in only.split(",")}
        types = [t for t in types if t.name.lower() in want]
    return types


def run_numpy_part(dirpath: Path, ne: tuple[int, int], workers: dict[str, Worker], reps: int,
                   opts: argparse.Namespace, failures: list[str], disagreements: list[str]) -> dict:
    types = dequantizable_types(None if opts.quick else opts.types)
    if opts.quick:
        types = [t for t in types if t.name.lower() in ("f16", "q4_0", "q4_k", "q8_0", "iq2_xxs")]
    path, made = make_types_file(dirpath, ne, types)
    names = [t.name.lower() for t in types]
    checks: dict[str, dict] = {}
    for n in names:
        for w in ("1t", "all"):
            a = workers[w].ask({"op": "check", "part": "numpy", "args": [path, n]})
            if not a["ok"]:
                failures.append(f"numpy {n} check ({w}): {a['error']}")
                continue
            checks.setdefault(n, {})[w] = a["result"]
            if not a["result"]["equal"] or not a["result"].get("shapes_equal", True):
                r = a["result"]
                disagreements.append(
                    f"numpy {n} ({'1 thread' if w == '1t' else 'every core'}): "
                    f"{r.get('differing_values', '?')} of {r.get('n', '?')} values differ "
                    f"({r.get('differing_bits', '?')} with NaN payloads), max abs diff "
                    f"{r.get('max_abs_diff', '-')}, first {r.get('first')}; shapes "
                    f"{r['shape_ggufkit']} against {r['shape_ggufpy']}")
    jobs = []
    for n in names:
        for label, contender, worker in (("ggufkit-1t", "ggufkit", "1t"),
                                         ("ggufkit-all", "ggufkit", "all"),
                                         ("gguf-py", "gguf-py", "1t")):
            jobs.append({"part": "numpy", "contender": contender, "type": n, "key": label,
                         "args": [path, n], "worker": worker, "times": [],
                         "label": f"numpy {label} {n}"})
    run_timed(jobs, workers, reps, failures)

    print()
    print(f"### Part 3: Tensor.numpy() against gguf.quants.dequantize, {ne[0]}x{ne[1]} elements "
          f"(median ms of {reps}; ggufkit with 1 thread and with every core of "
          f"{os.cpu_count()})")
    print()
    print("| type | gguf-py ms | ggufkit 1 thread ms | speed-up | ggufkit all cores ms | "
          "speed-up | same floats | target (1 thread) |")
    print("|---|---:|---:|---:|---:|---:|---|---|")
    rows = []
    target = TARGETS["numpy"]
    for n in names:
        m = {j["key"]: median_ms(j["times"]) for j in jobs if j["type"] == n}
        p, k1, ka = m["gguf-py"], m["ggufkit-1t"], m["ggufkit-all"]
        s1 = p / k1 if p and k1 else None
        sa = p / ka if p and ka else None
        c = checks.get(n, {})
        same = all(r.get("equal") and r.get("shapes_equal", True) for r in c.values()) and \
            len(c) == 2
        met = s1 is not None and s1 >= target
        print(f"| {n} | {fmt_ms(p)} | {fmt_ms(k1)} | {'-' if s1 is None else f'{s1:.1f}x'} | "
              f"{fmt_ms(ka)} | {'-' if sa is None else f'{sa:.1f}x'} | "
              f"{'yes' if same else 'NO'} | {'met' if met else 'NOT met'} |")
        rows.append({"type": n, "made_by": made[n], "ggufpy_ms": p, "ggufkit_1t_ms": k1,
                     "ggufkit_all_ms": ka, "speedup_1t": s1, "speedup_all": sa,
                     "times_s": {j["key"]: j["times"] for j in jobs if j["type"] == n},
                     "check": c, "same": same, "target": target, "met": met})
    random_made = [n for n in names if not made[n].startswith("ggufkit")]
    if random_made:
        print()
        print(f"Random blocks (ggufkit has no quantizer for them): {', '.join(random_made)}.")
    return {"target": target, "shape_ne": list(ne), "rows": rows}


def make_quick_file(dirpath: Path) -> str:
    """A tiny file with every kind of value the walk and the dump meet."""
    import numpy as np
    import ggufkit

    path = dirpath / "quick.gguf"
    rng = np.random.default_rng(1)
    with ggufkit.Writer(str(path)) as w:
        w.add("general.architecture", "llama")
        w.add("general.name", "quick")
        w.add("llama.context_length", 4096, type="uint32")
        w.add("llama.rope.freq_base", 10000.0, type="float32")
        w.add("general.flag", True)
        w.add("tokenizer.ggml.tokens", [f"tok{i}\u00e9" for i in range(300)])
        w.add("tokenizer.ggml.scores", rng.standard_normal(300).astype(np.float32))
        w.add("tokenizer.ggml.token_type", np.arange(300, dtype=np.int32))
        for i in range(4):
            w.add_tensor(f"blk.{i}.w", rng.standard_normal((8, 256)).astype(np.float32),
                         type="q4_k")
        w.add_tensor("norm", rng.standard_normal(256).astype(np.float32))
    return str(path)


if __name__ == "__main__":
    sys.exit(main())
