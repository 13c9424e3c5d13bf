"""convert_hf_to_gguf.py's split outputs (--split-max-size, --split-max-tensors,
--no-tensor-first-split) of a few of make_checkpoints.py's tiny checkpoints: the reference of
crates/ggufkit/tests/convert_split.rs.

    split_reference.py OUT LLAMA_CPP_SRC MODELS_DIR

writes OUT/<case>/model*.gguf (the script's shards, named after --outfile OUT/<case>/model.gguf)
and OUT/cases.json (each case: the checkpoint's folder, the --outtype, the split options). What exists is kept: the
folder is a cache keyed by this script's hash and the checkpoints' (see split_reference.sh). Run
by the reference python (torch, transformers).
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

# name: (checkpoint of make_checkpoints.py, --outtype, extra arguments)
CASES = {
    # the tensor count rule, spm vocabulary, 16-bit
    "llama2-spm-f16.tensors8": ("llama2-spm-f16", "f16", ["--split-max-tensors", "8"]),
    # the size rule over expert stacks
    "mixtral-bf16.size2M": ("mixtral-bf16", "bf16", ["--split-max-size", "2M"]),
    # the size rule over quantized tensors
    "mistral-f16-yarn.q8_0.size3M": ("mistral-f16-yarn", "q8_0", ["--split-max-size", "3M"]),
    # a limit under every tensor's size: one tensor a shard
    "llama2-spm-f16.size1": ("llama2-spm-f16", "f16", ["--split-max-size", "1"]),
    # the first shard holds the metadata only
    "qwen3-bf16.tensors10.first-empty": ("qwen3-bf16", "auto",
                                         ["--split-max-tensors", "10", "--no-tensor-first-split"]),
    # a limit no tensor reaches: one file, as if not split
    "phi3-bf16.tensors1000": ("phi3-bf16", "auto", ["--split-max-tensors", "1000"]),
}


def log(msg: str) -> None:
    print(f"split_reference: {msg}", file=sys.stderr, flush=True)


def main() -> None:
    out, src, models = (Path(a) for a in sys.argv[1:4])
    out.mkdir(parents=True, exist_ok=True)
    for case, (checkpoint, outtype, extra) in CASES.items():
        target = out / case
        if target.is_dir():
            continue
        folder = models / checkpoint
        if not (folder / "config.json").is_file():
            log(f"no checkpoint {folder}: {case} not made")
            continue
        tmp = out / (case + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        cmd = [sys.executable, str(src / "convert_hf_to_gguf.py"), str(folder),
               "--outfile", str(tmp / "model.gguf"), "--outtype", outtype, *extra]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            (out / f"{case}.error.txt").write_text(r.stderr[-4000:])
            log(f"convert_hf_to_gguf.py failed on {case}: {r.stderr[-600:]}")
            shutil.rmtree(tmp, ignore_errors=True)
            continue
        tmp.rename(target)
        log(f"wrote {target}: {sorted(p.name for p in target.iterdir())}")
    cases = {c: {"folder": str(models / ck), "outtype": t, "args": a}
             for c, (ck, t, a) in CASES.items() if (out / c).is_dir()}
    # renamed into place: a test reading it meanwhile sees the old file or the new one
    tmp = out / "cases.json.tmp"
    tmp.write_text(json.dumps(cases, indent=1))
    tmp.rename(out / "cases.json")


if __name__ == "__main__":
    main()
