"""Runs gguf-py's own gguf-dump renderers (text, JSON, JSON with arrays, markdown, data offset,
alignment) over GGUF files with one reader, gguf-py's or ggufkit.compat's, writing each output to
OUT/<sha1 of the path>.<mode>.txt and one JSON line per file to stdout ("start" before, "done" after).

usage: compat_dump_runner.py gguf|compat OUT FILE...   (run by the gguf-py venv's python)
"""
import argparse
import hashlib
import contextlib
import io
import json
import os
import sys

from gguf.scripts import gguf_dump


def reader_class(which):
    if which == "gguf":
        from gguf import GGUFReader
        return GGUFReader
    from ggufkit.compat import GGUFReader
    return GGUFReader


def render(reader, path):
    outs = {}
    for mode, fn, json_array in (
        ("text", gguf_dump.dump_metadata, False),
        ("json", gguf_dump.dump_metadata_json, False),
        ("json_array", gguf_dump.dump_metadata_json, True),
        ("markdown", gguf_dump.dump_markdown_metadata, False),
    ):
        args = argparse.Namespace(model=path, no_tensors=False, json_array=json_array)
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                fn(reader, args)
        except Exception as e:  # the renderer's own failure is part of the output
            buf.write("\n!! %s: %s" % (type(e).__name__, e))
        outs[mode] = buf.getvalue()
    outs["offsets"] = "%s\n%s\n" % (reader.data_offset, reader.alignment)
    return outs


def main():
    which, out = sys.argv[1], sys.argv[2]
    cls = reader_class(which)
    for path in sys.argv[3:]:
        tag = hashlib.sha1(path.encode()).hexdigest()[:16]
        print(json.dumps({"start": path}), flush=True)
        rec = {"done": path, "ok": False, "error": None}
        try:
            reader = cls(path, "r")
            for mode, text in render(reader, path).items():
                with open(os.path.join(out, "%s.%s.txt" % (tag, mode)), "w", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(text)
            rec["ok"] = True
        except Exception as e:
            rec["error"] = "%s: %s" % (type(e).__name__, e)
        print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
