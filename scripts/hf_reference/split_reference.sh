#!/usr/bin/env bash
# split_reference.sh: convert_hf_to_gguf.py's split outputs (split_reference.py) of a few of the
# tiny checkpoints make_checkpoints.sh makes, made once with the reference python and cached in
#   ~/.cache/ggufkit/hf-split-reference/<sdist version>/<checkpoints' hash>-<this stage's hash>/
# (its own cache: the checkpoints' generator and its hash are left as they are). Prints
# `dir=THAT_FOLDER` on stdout (logs on stderr); exits non-zero saying why when it cannot.
set -euo pipefail
. "$(dirname "$0")/reference_python.sh"
checkpoints=${GGUFKIT_HF_REFERENCE:-}
if [ -z "$checkpoints" ]; then
    checkpoints=$(bash "$here/make_checkpoints.sh" | sed -n 's/^dir=//p')
fi
[ -d "$checkpoints/models" ] || { echo "split_reference.sh: no checkpoints (make_checkpoints.sh)" >&2; exit 1; }
hash=$(sha256sum "$here/split_reference.py" | cut -c1-16)
out=${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/hf-split-reference/$version/$(basename "$checkpoints")-$hash
mkdir -p "$out"
PYTHONPATH="$src/gguf-py" "$python" "$here/split_reference.py" "$out" "$src" "$checkpoints/models" >&2
echo "dir=$out"
