#!/usr/bin/env python3
"""Times gguf-py's GGUFReader opening and fully walking one GGUF file; prints one JSON object.

Run by the ggufkit-bench `compare` runner: `python3 gguf_py_walk.py FILE N BUDGET_SECONDS`.
It times up to N runs (at least one; it stops early once BUDGET_SECONDS have gone by), each one
`GGUFReader(FILE)` followed by a walk of everything it parsed: every key, every array element
(strings decoded as UTF-8 `str`, numbers converted to Python numbers) and every tensor info.

The counts it reports (keys, values, strings, tensors, sum of dims) are the ones the Rust walkers
report, so the runner can check that every parser saw the same things.
"""

import json
import resource
import sys
import time


def peak_kb():
    # VmHWM is this process's own peak; ru_maxrss is not usable here, as Linux carries it over
    # exec from the runner that forked this process
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def walk(reader, GGUFValueType):
    keys = values = strings = string_bytes = tensors = dims = 0
    for name, field in reader.fields.items():
        # the header's own fields (version, counts) are listed as pseudo-fields
        if name.startswith("GGUF."):
            continue
        keys += 1
        if not field.types:
            continue
        leaf = field.types[-1]
        if field.types[0] == GGUFValueType.ARRAY:
            items = field.contents()
        else:
            items = [field.contents()]
        for v in items:
            values += 1
            if leaf == GGUFValueType.STRING:
                strings += 1
                string_bytes += len(v.encode("utf-8"))
    for t in reader.tensors:
        tensors += 1
        # name, type, shape, element count, offset: everything a tensor info holds
        _ = (t.name, int(t.tensor_type), t.n_elements, t.data_offset)
        dims += sum(int(d) for d in t.shape.tolist())
    return {
        "keys": keys,
        "values": values,
        "strings": strings,
        "string_bytes": string_bytes,
        "tensors": tensors,
        "dims": dims,
    }


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    out = {"parser": "gguf-py", "ok": False}
    try:
        import gguf
        from gguf import GGUFReader, GGUFValueType
    except Exception as e:  # noqa: BLE001 - reported, not raised
        out["error"] = f"cannot import gguf: {e}"
        print(json.dumps(out))
        return 0
    out["version"] = getattr(gguf, "__version__", None) or _dist_version()
    out["baseline_kb"] = peak_kb()
    times = []
    stats = None
    start = time.perf_counter()
    try:
        for _ in range(max(n, 1)):
            t0 = time.perf_counter()
            reader = GGUFReader(path)
            stats = walk(reader, GGUFValueType)
            times.append((time.perf_counter() - t0) * 1e3)
            del reader
            if time.perf_counter() - start > budget:
                break
        out["ok"] = True
    except BaseException as e:  # noqa: BLE001 - a failure is a result
        out["error"] = f"{type(e).__name__}: {e}"[:500]
    out["times_ms"] = times
    out["stats"] = stats
    out["peak_kb"] = peak_kb()
    print(json.dumps(out))
    return 0


def _dist_version():
    try:
        from importlib.metadata import version

        return version("gguf")
    except Exception:  # noqa: BLE001
        return None


if __name__ == "__main__":
    sys.exit(main())
