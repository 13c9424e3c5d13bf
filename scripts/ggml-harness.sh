#!/usr/bin/env bash
# ggml-harness.sh: build `quantize_chunk` (scripts/ggml-harness/quantize_chunk.c), a tiny program
# calling ggml's ggml_quantize_chunk(type, src, dst, 0, nrows, n_per_row, imatrix), against the
# ggml-base sources of the same llama-cpp-python sdist that ../shared/tools/llama-quantize.sh
# builds llama-quantize from. The quantization tests (crates/ggufkit/tests/ggml_quantize.rs)
# compare ggufkit's codecs with it, with and without an importance matrix.
#
# Usage:   scripts/ggml-harness.sh [DIR]
#          DIR is llama-quantize.sh's folder (default ${TMPDIR:-/tmp}/llama-quantize). The sdist
#          is taken from DIR/dl or DIR/src when llama-quantize.sh already fetched it; otherwise
#          llama-quantize.sh is run first (LLAMA_QUANTIZE_SH names it; default
#          ../shared/tools/llama-quantize.sh beside the repository).
#          ggml-base is compiled as its CMake Release build does: -O3 -DNDEBUG, C11, x86-64
#          baseline (no -march=native: the quantizers live in ggml-base, built without it).
#          It also builds `codec_bench` (scripts/ggml-harness/codec_bench.c), ggml's side of the
#          codec speed comparison of crates/ggufkit-bench (`--bin codecs`): a subprocess timing
#          ggml's to_float and ggml_quantize_chunk, linked against the same objects.
# Output:  ggml-quantize-chunk=DIR/harness/quantize_chunk   (point GGUFKIT_GGML_HARNESS at it,
#          or leave it at the default DIR, where the tests look)
#          ggml-codec-bench=DIR/harness/codec_bench        (GGUFKIT_GGML_CODEC_BENCH, same default)
set -euo pipefail

VER=0.3.36
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-${TMPDIR:-/tmp}/llama-quantize}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
OUT="$DIR/harness"
BIN="$OUT/quantize_chunk"
log() { printf 'ggml-harness.sh: %s\n' "$*" >&2; }

SRC="$DIR/src/llama_cpp_python-$VER/vendor/llama.cpp"
SDIST="$DIR/dl/llama_cpp_python-$VER.tar.gz"
if [[ ! -f "$SRC/ggml/src/ggml-quants.c" || ! -f "$DIR/src/.unpacked" ]]; then
    if [[ ! -s "$SDIST" ]]; then
        LQ=${LLAMA_QUANTIZE_SH:-$HERE/../../shared/tools/llama-quantize.sh}
        [[ -f "$LQ" ]] || { log "no sdist in $DIR/dl and no llama-quantize.sh at $LQ"; exit 1; }
        log "fetching the sdist with $LQ $DIR"
        bash "$LQ" "$DIR" >&2
    fi
    if [[ ! -f "$SRC/ggml/src/ggml-quants.c" ]]; then
        # Only ggml's sources, into the harness folder (llama-quantize.sh unpacks all of it).
        SRC="$OUT/src/llama_cpp_python-$VER/vendor/llama.cpp"
        if [[ ! -f "$OUT/src/.unpacked" ]]; then
            log "unpacking ggml from $SDIST"
            rm -rf "$OUT/src" "$OUT/src.tmp"
            mkdir -p "$OUT/src.tmp"
            tar -xzf "$SDIST" -C "$OUT/src.tmp" "llama_cpp_python-$VER/vendor/llama.cpp/ggml"
            mv "$OUT/src.tmp" "$OUT/src"
            touch "$OUT/src/.unpacked"
        fi
    fi
fi
G="$SRC/ggml"

BENCH="$OUT/codec_bench"
fresh() { [[ -x "$1" && "$1" -nt "$2" ]]; }
if fresh "$BIN" "$HERE/ggml-harness/quantize_chunk.c" && fresh "$BENCH" "$HERE/ggml-harness/codec_bench.c"; then
    echo "ggml-quantize-chunk=$BIN"
    echo "ggml-codec-bench=$BENCH"
    exit 0
fi

mkdir -p "$OUT/obj"
printf '#pragma once\n#define GGML_VERSION "harness"\n#define GGML_COMMIT "harness"\n' >"$OUT/obj/ggml-version.h"
DEFS=(-DNDEBUG -D_XOPEN_SOURCE=600 -D_GNU_SOURCE -DGGML_SCHED_MAX_COPIES=4 -DGGML_BUILD)
INC=(-I"$G/include" -I"$G/src" -I"$OUT/obj")
CC=${CC:-cc}
CXX=${CXX:-c++}
# ggml-base's objects, compiled once (each is kept when newer than its source).
objs=()
for f in ggml.c ggml-alloc.c ggml-quants.c; do
    o="$OUT/obj/${f%.*}.o"
    if [[ ! -s "$o" || ! "$o" -nt "$G/src/$f" ]]; then
        log "compiling $f"
        "$CC" -O3 -std=gnu11 "${DEFS[@]}" "${INC[@]}" -c "$G/src/$f" -o "$o"
    fi
    objs+=("$o")
done
for f in ggml.cpp ggml-backend.cpp ggml-backend-meta.cpp ggml-opt.cpp ggml-threading.cpp gguf.cpp; do
    [[ -f "$G/src/$f" ]] || continue
    o="$OUT/obj/${f%.*}-cpp.o"
    if [[ ! -s "$o" || ! "$o" -nt "$G/src/$f" ]]; then
        log "compiling $f"
        "$CXX" -O3 -std=gnu++17 "${DEFS[@]}" "${INC[@]}" -c "$G/src/$f" -o "$o"
    fi
    objs+=("$o")
done
# The two drivers, each linked when absent or older than its source.
for prog in quantize_chunk codec_bench; do
    out="$OUT/$prog"
    fresh "$out" "$HERE/ggml-harness/$prog.c" && continue
    "$CC" -O3 -std=gnu11 "${DEFS[@]}" "${INC[@]}" -c "$HERE/ggml-harness/$prog.c" -o "$OUT/obj/$prog.o"
    "$CXX" -o "$out.tmp" "$OUT/obj/$prog.o" "${objs[@]}" -lm -lpthread
    mv "$out.tmp" "$out"
    log "built $out"
done
echo "ggml-quantize-chunk=$BIN"
echo "ggml-codec-bench=$BENCH"
