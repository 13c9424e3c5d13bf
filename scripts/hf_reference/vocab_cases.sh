#!/usr/bin/env bash
# vocab_cases.sh [KIND...]: the vocabulary differential test's folders and convert_hf_to_gguf.py's
# --vocab-only outputs (vocab_cases.py), made once with the reference python of
# ../shared/tools/reference-env.sh and cached in
#   ~/.cache/ggufkit/hf-vocab/<sdist version>/<hash of the generator scripts>/
# Prints `dir=THAT_FOLDER` on stdout (logs on stderr); exits non-zero saying why when it cannot.
set -euo pipefail
. "$(dirname "$0")/reference_python.sh"
hash=$(cat "$here/vocab_cases.py" "$here/tokenizers.py" | sha256sum | cut -c1-16)
out=${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/hf-vocab/$version/$hash
mkdir -p "$out"
PYTHONPATH="$src/gguf-py" "$python" "$here/vocab_cases.py" "$out" "$src" "$shared/corpus/vocab" "$@" >&2
echo "dir=$out"
