"""gguf-dump's work (open, then its text and markdown renderings) with gguf-py's GGUFReader and
with ggufkit.compat.GGUFReader, interleaved in one run, best of N each.

usage: GGUFPY_PYTHON bench_compat_dump.py [-n N] FILE...   (ggufkit importable, e.g. PYTHONPATH)
"""
import argparse
import contextlib
import io
import time

from gguf import GGUFReader as GgufPyReader
from gguf.scripts import gguf_dump

from ggufkit.compat import GGUFReader as CompatReader


def dump(cls, path):
    r = cls(path, "r")
    args = argparse.Namespace(model=path, no_tensors=False, json_array=False)
    with contextlib.redirect_stdout(io.StringIO()):
        gguf_dump.dump_metadata(r, args)
        gguf_dump.dump_markdown_metadata(r, args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    print("| file | gguf-py (s) | compat (s) | ratio |\n|---|---|---|---|")
    for path in a.files:
        best = {"gguf": float("inf"), "compat": float("inf")}
        for _ in range(a.n):
            for name, cls in (("gguf", GgufPyReader), ("compat", CompatReader)):
                t = time.perf_counter()
                dump(cls, path)
                best[name] = min(best[name], time.perf_counter() - t)
        print("| %s | %.3f | %.4f | %.0f× |" % (path.rsplit("/", 1)[-1], best["gguf"], best["compat"], best["gguf"] / best["compat"]), flush=True)


if __name__ == "__main__":
    main()
