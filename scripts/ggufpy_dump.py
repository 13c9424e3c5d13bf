#!/usr/bin/env python3
"""Dump GGUF files as gguf-py (PyPI `gguf`, GGUFReader) reads them, in the shape of
`gguf dump --json` (shared/docs/cli-contract.md), for the differential tests.

For each FILE, one JSON line: {"file": ..., "ok": true|false, "error": null|"text", "dump": {...}}.

Values are rebuilt from the parts GGUFReader split each field into (nested arrays kept nested:
GGUFReader.contents() flattens them). Numbers follow the contract: integers exact, a float32 as
the shortest decimal that reads back to the same float32, NaN and infinities as "nan", "inf",
"-inf"; a string that is not UTF-8 as {"hex": ...}. `file_size` and `size` are what gguf-py's
own numbers imply (its data offset and its tensor byte sizes), so its known differences show.

usage: ggufpy_dump.py FILE...     (run it with the venv python that scripts/setup-ggufpy.sh prints)
exit: 0 when every file was read, 1 when some were not.
"""
import json
import math
import sys

import numpy as np
from gguf import GGUFReader, GGUFValueType, GGMLQuantizationType


def f32(x):
    x = np.float32(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(np.format_float_scientific(x, unique=True))


def f64(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def text(b):
    b = bytes(b)
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": b.hex()}


class Parts:
    """Walks a field's parts in file order."""

    def __init__(self, parts, i):
        self.parts = parts
        self.i = i

    def take(self):
        p = self.parts[self.i]
        self.i += 1
        return p

    def value(self, vt):
        """Returns (json value, element type name or None)."""
        vt = GGUFValueType(int(vt))
        if vt == GGUFValueType.STRING:
            self.take()  # length
            return text(self.take().tobytes()), None
        if vt == GGUFValueType.ARRAY:
            et = GGUFValueType(int(self.take()[0]))
            n = int(self.take()[0])
            out = []
            for _ in range(n):
                v, sub = self.value(et)
                out.append({"element_type": sub, "value": v} if sub is not None else v)
            return out, et.name.lower().replace("uint", "uint")
        raw = self.take()[0]
        if vt == GGUFValueType.FLOAT32:
            return f32(raw), None
        if vt == GGUFValueType.FLOAT64:
            return f64(raw), None
        if vt == GGUFValueType.BOOL:
            return bool(int(raw) != 0), None
        return int(raw), None


TYPE_NAMES = {
    "UINT8": "uint8", "INT8": "int8", "UINT16": "uint16", "INT16": "int16",
    "UINT32": "uint32", "INT32": "int32", "FLOAT32": "float32", "BOOL": "bool",
    "STRING": "string", "ARRAY": "array", "UINT64": "uint64", "INT64": "int64",
    "FLOAT64": "float64",
}


def type_name(vt):
    return TYPE_NAMES[GGUFValueType(int(vt)).name]


def fix_names(v):
    """Element type names as the contract spells them, inside nested arrays too."""
    if isinstance(v, list):
        return [fix_names(e) for e in v]
    if isinstance(v, dict) and "element_type" in v:
        return {"element_type": TYPE_NAMES[v["element_type"].upper()], "value": fix_names(v["value"])}
    return v


def dump(path):
    r = GGUFReader(path, "r")
    meta = []
    version = None
    for name, f in r.fields.items():
        if name == "GGUF.version":
            version = int(f.parts[0][0])
            continue
        if name.startswith("GGUF."):
            continue  # the reader's own entries for the header counts
        # parts: key length, key bytes, value type, then the value
        p = Parts(f.parts, 3)
        vt = f.parts[2][0]
        val, et = p.value(vt)
        item = {"key": text(f.parts[1].tobytes()), "type": type_name(vt)}
        if et is not None:
            item["element_type"] = TYPE_NAMES[et.upper()]
        item["value"] = fix_names(val)
        meta.append(item)
    tensors = []
    end = 0
    for t in r.tensors:
        parts = t.field.parts  # name length, name, n_dims, dims, type, offset
        offset = int(parts[5][0])
        tensors.append({
            "name": text(parts[1].tobytes()),
            "type": GGMLQuantizationType(int(parts[4][0])).name.lower(),
            "shape": [int(d) for d in parts[3]],
            "offset": offset,
            "size": int(t.n_bytes),
        })
        a = int(r.alignment)
        end = (offset + int(t.n_bytes) + a - 1) // a * a
    return {
        "version": version,
        "endian": "big" if int(r.endianess) == 1 else "little",
        "alignment": int(r.alignment),
        "tensor_data_offset": int(r.data_offset),
        "file_size": int(r.data_offset) + end,
        "metadata": meta,
        "tensors": tensors,
    }


def main(paths):
    status = 0
    for path in paths:
        rec = {"file": path, "ok": False, "error": None}
        try:
            rec["dump"] = dump(path)
            rec["ok"] = True
        except Exception as e:  # every failure of the reader is a verdict
            rec["error"] = "%s: %s" % (type(e).__name__, e)
            status = 1
        try:
            line = json.dumps(rec, allow_nan=False)
        except (TypeError, ValueError) as e:
            line = json.dumps({"file": path, "ok": False, "error": "dump: %s" % e})
        print(line, flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
