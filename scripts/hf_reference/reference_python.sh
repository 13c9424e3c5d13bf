# Sourced by the generators' wrappers here (make_checkpoints.sh, make_fp8_checkpoints.sh,
# vocab_cases.sh, split_reference.sh): finds the reference python and llama.cpp sources of
# ../shared/tools/reference-env.sh and sets
#   here, root, shared     this folder, the repository, ../shared (or $GGUFKIT_SHARED)
#   python, src, version   the reference python, the sdist's llama.cpp, the sdist's version
# or exits non-zero saying why, in the name of the calling script.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=${GGUFKIT_SHARED:-$root/../shared}
ref_out=$(bash "$shared/tools/reference-env.sh" --python --sdist)
python=$(printf '%s\n' "$ref_out" | sed -n 's/^python=//p')
src=$(printf '%s\n' "$ref_out" | sed -n 's/^llama_cpp_src=//p')
[ -x "$python" ] && [ -d "$src" ] || { echo "$(basename "$0"): no reference python or llama.cpp sources" >&2; exit 1; }
version=$(basename "$(dirname "$(dirname "$src")")")
