#!/usr/bin/env bash
# The chat-template reference of crates/ggufkit/tests/chat_transformers.rs: transformers'
# apply_chat_template over every real template we have (scripts/chat_reference.py), written once
# per transformers version into a cache outside the clone and reused while the script is the
# same (its SHA-256 in cases.jsonl.key).
#
#   scripts/chat-reference.sh      prints the path of the cases file (the test's default path)
#
# Needs ../shared/tools/reference-env.sh (the venv with transformers, llama.cpp's sources).
# The Gemma 3 model joins when assembled ($GGUF_GEMMA, else /tmp/gemma or ~/.cache/ggufkit/gemma);
# its GGUF (gemma-3-270m Q4_K_M) carries no chat template, so it adds no case today.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${XDG_CACHE_HOME:-$HOME/.cache}
ref=$(bash ../shared/tools/reference-env.sh --python --sdist)
python=$(printf '%s\n' "$ref" | sed -n 's/^python=//p')
src=$(printf '%s\n' "$ref" | sed -n 's/^llama_cpp_src=//p')
version=$("$python" -c 'import transformers; print(transformers.__version__)')
out="$cache/ggufkit/chat-reference/transformers-$version/cases.jsonl"
gemma=${GGUF_GEMMA:-}
for g in /tmp/gemma/gemma-3-270m-q4_k_m.gguf "$cache/ggufkit/gemma/gemma-3-270m-q4_k_m.gguf"; do
  [ -z "$gemma" ] && [ -f "$g" ] && gemma=$g
done
# the cases are kept while the generator is the same (its hash beside them: a fresh clone's
# files are all new, so their dates say nothing)
key=$(sha256sum scripts/chat_reference.py | cut -d' ' -f1)
if [ -s "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
  echo "$out"
  exit 0
fi
args=("$out" --corpus ../shared/corpus --llama-cpp-src "$src")
[ -n "$gemma" ] && args+=(--gemma "$gemma")
"$python" scripts/chat_reference.py "${args[@]}" >&2
echo "$key" > "$out.key"
echo "$out"
