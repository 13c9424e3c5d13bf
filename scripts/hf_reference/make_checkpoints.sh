#!/usr/bin/env bash
# make_checkpoints.sh [CASE...]: the differential test's Hugging Face checkpoints and
# convert_hf_to_gguf.py's outputs (make_checkpoints.py), made once with the reference python of
# ../shared/tools/reference-env.sh and cached in
#   ~/.cache/ggufkit/hf-reference/<sdist version>/<hash of the generator scripts>/
# Prints `dir=THAT_FOLDER` on stdout (logs on stderr); exits non-zero saying why when it cannot.
set -euo pipefail
. "$(dirname "$0")/reference_python.sh"
hash=$(cat "$here/make_checkpoints.py" "$here/tokenizers.py" | sha256sum | cut -c1-16)
out=${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/hf-reference/$version/$hash
mkdir -p "$out"
PYTHONPATH="$src/gguf-py" "$python" "$here/make_checkpoints.py" "$out" "$src" "$shared/corpus/vocab" "$@" >&2
echo "dir=$out"
