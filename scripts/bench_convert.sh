#!/usr/bin/env bash
# gguf convert beside llama.cpp's convert_hf_to_gguf.py, and the one-step quantize beside
# convert + llama-quantize: wall time and peak RSS (GNU time) of each, one run, on generated
# bf16 Llama checkpoints of two sizes (scripts/hf_reference/make_bench_checkpoint.py; cached in
# ${XDG_CACHE_HOME:-~/.cache}/ggufkit/convert-bench). Figures go to BENCHMARKS.md (convert).
#
#   scripts/bench_convert.sh [LAYERS...]     (default: 8 16, about 330 and 540 MB)
#
# Needs the release build of gguf (cargo build --release -p gguf-cli), the reference python and
# llama.cpp sources (../shared/tools/reference-env.sh --python --sdist), llama-quantize
# (../shared/tools/llama-quantize.sh), the convert reference's tokenizer (make_checkpoints.sh).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
gguf=${GGUF_BIN:-$repo/target/release/gguf}
[ -x "$gguf" ] || { echo "bench_convert: no $gguf (cargo build --release -p gguf-cli)" >&2; exit 2; }
env_out=$(bash "$repo/../shared/tools/reference-env.sh" --python --sdist 2>/dev/null)
py=$(sed -n 's/^python=//p' <<<"$env_out")
src=$(sed -n 's/^llama_cpp_src=//p' <<<"$env_out")
lq=${GGUFKIT_LLAMA_QUANTIZE:-${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/llama-quantize/build/bin/llama-quantize}
[ -x "$lq" ] || { echo "bench_convert: no llama-quantize at $lq (../shared/tools/llama-quantize.sh)" >&2; exit 2; }
ref=$(bash "$repo/scripts/hf_reference/make_checkpoints.sh" 2>/dev/null | sed -n 's/^dir=//p')
tok="$ref/models/llama2-spm-f16"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/convert-bench
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_convert.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache"

# one measured run: prints "seconds peak_MiB"
measure() {
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
    echo "bench_convert: failed: $*" >&2; tail -3 "$work/err" >&2; exit 1; }
  awk '{printf "%.2f %.0f", $1, $2/1024}' "$work/time"
}

printf '%-8s %-8s %-44s %9s %10s\n' layers MB run seconds peak_MiB
for layers in "${@:-8 16}"; do
  for n in $layers; do
    dir="$cache/llama-bf16-$n"
    "$py" "$repo/scripts/hf_reference/make_bench_checkpoint.py" "$tok" "$dir" "$n"
    mb=$(du -sm "$dir" | cut -f1)
    row() { read -r s m <<<"$2"; printf '%-8s %-8s %-44s %9s %10s\n' "$n" "$mb" "$1" "$s" "$m"; }
    row "gguf convert --outtype bf16" "$(measure "$gguf" convert "$dir" -o "$work/ours.gguf" --outtype bf16 --force)"
    row "convert_hf_to_gguf.py --outtype bf16" "$(measure "$py" "$src/convert_hf_to_gguf.py" "$dir" --outfile "$work/script.gguf" --outtype bf16)"
    cmp -s "$work/ours.gguf" "$work/script.gguf" && row "(identical files)" "- -" || row "(FILES DIFFER)" "- -"
    row "gguf quantize HF_DIR Q4_K_M (one step)" "$(measure "$gguf" quantize "$dir" "$work/one.gguf" Q4_K_M --force)"
    row "llama-quantize bf16 -> Q4_K_M" "$(measure "$lq" "$work/script.gguf" "$work/lq.gguf" Q4_K_M 2)"
    cmp -s "$work/one.gguf" "$work/lq.gguf" && row "(identical files)" "- -" || row "(FILES DIFFER)" "- -"
    rm -f "$work"/*.gguf
  done
done
