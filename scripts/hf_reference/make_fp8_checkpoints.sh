#!/usr/bin/env bash
# make_fp8_checkpoints.sh [CASE...]: the quantized (FP8) and fused-expert Hugging Face checkpoints
# and convert_hf_to_gguf.py's outputs (make_fp8_checkpoints.py), made once with the reference
# python of ../shared/tools/reference-env.sh and cached, apart from make_checkpoints.sh's, in
#   ~/.cache/ggufkit/hf-fp8/<sdist version>/<hash of the generator scripts>/
# Prints `dir=THAT_FOLDER` on stdout (logs on stderr); exits non-zero saying why when it cannot.
set -euo pipefail
. "$(dirname "$0")/reference_python.sh"
hash=$(cat "$here/make_fp8_checkpoints.py" "$here/tokenizers.py" | sha256sum | cut -c1-16)
out=${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/hf-fp8/$version/$hash
mkdir -p "$out"
PYTHONPATH="$src/gguf-py" "$python" "$here/make_fp8_checkpoints.py" "$out" "$src" "$shared/corpus/vocab" "$@" >&2
echo "dir=$out"
