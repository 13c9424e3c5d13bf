#!/usr/bin/env bash
# `gguf quantize` beside llama.cpp's `llama-quantize`, interleaved in one run: Gemma 3 270M F16
# to Q4_K_M, Q8_0 and IQ4_XS, each without and with the importance matrix of
# ../shared/vectors/quantize, on 1 and 2 threads. Wall time and peak RSS of each process
# (/usr/bin/time), and a check that both outputs are the same bytes. Prints a Markdown table.
#
#   scripts/bench_quantize.sh [RUNS]          (RUNS per case, default 1; the table shows the median)
#
# Needs target/release/gguf's sources, llama-quantize (GGUFKIT_LLAMA_QUANTIZE, else
# $TMPDIR/llama-quantize/build/bin/llama-quantize, built by ../shared/tools/llama-quantize.sh) and
# the F16 Gemma (GEMMA_F16, else /tmp/gemma/gemma-3-270m-f16.gguf: `gguf convert --type f16` of
# the Q4_K_M original, then `gguf meta set -t uint32 --in-place F general.file_type 1`).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1}
TMP=${TMPDIR:-/tmp}
LQ=${GGUFKIT_LLAMA_QUANTIZE:-$TMP/llama-quantize/build/bin/llama-quantize}
SRC=${GEMMA_F16:-/tmp/gemma/gemma-3-270m-f16.gguf}
IM=../shared/vectors/quantize/gemma-3-270m-f16.imatrix.gguf
for need in "$LQ" "$SRC" "$IM" /usr/bin/time; do
    if [ ! -e "$need" ]; then
        echo "SKIPPED: $need is absent"
        exit 0
    fi
done
cargo build --release -q -p gguf-cli
GGUF=$PWD/target/release/gguf
WORK=$(mktemp -d "$TMP/gguf-qbench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# both tools run in WORK on the names the vectors' commands use (the imatrix path is recorded)
ln -s "$(readlink -f "$SRC")" "$WORK/gemma-3-270m-f16.gguf"
ln -s "$(readlink -f "$IM")" "$WORK/gemma-3-270m-f16.imatrix.gguf"
cat "$SRC" "$IM" >/dev/null

# runs "$@" in WORK; appends "seconds max_rss_kib" to the file $OUT_TIMES
timed() {
    (cd "$WORK" && /usr/bin/time -f '%e %M' -o "$WORK/t" "$@" >/dev/null 2>"$WORK/log") || {
        echo "failed: $*" >&2
        cat "$WORK/log" >&2
        exit 1
    }
    cat "$WORK/t" >>"$OUT_TIMES"
    cp "$WORK/log" "$WORK/last-$(basename "$1").log"
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gguf: $("$GGUF" --version) ($(git rev-parse --short HEAD))"
echo
echo "| preset | imatrix | threads | llama-quantize s | gguf s | gguf / lq | llama-quantize MiB | gguf MiB | same bytes |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
for preset in Q4_K_M Q8_0 IQ4_XS; do
    for im in no yes; do
        for th in 1 2; do
            args=()
            [ "$im" = yes ] && args=(--imatrix gemma-3-270m-f16.imatrix.gguf)
            : >"$WORK/lq.times"
            : >"$WORK/us.times"
            same=yes
            for run in $(seq "$RUNS"); do
                rm -f "$WORK/lq.gguf" "$WORK/us.gguf"
                # alternate which tool goes first, so neither always gets the warmer machine
                if [ $((run % 2)) -eq 1 ]; then order="lq us"; else order="us lq"; fi
                for who in $order; do
                    if [ "$who" = lq ]; then
                        OUT_TIMES=$WORK/lq.times timed "$LQ" "${args[@]}" gemma-3-270m-f16.gguf lq.gguf "$preset" "$th"
                    else
                        OUT_TIMES=$WORK/us.times timed "$GGUF" quantize "${args[@]}" gemma-3-270m-f16.gguf us.gguf "$preset" "$th"
                    fi
                done
                cmp -s "$WORK/lq.gguf" "$WORK/us.gguf" || same=NO
            done
            lq_s=$(cut -d' ' -f1 "$WORK/lq.times" | median)
            us_s=$(cut -d' ' -f1 "$WORK/us.times" | median)
            lq_m=$(cut -d' ' -f2 "$WORK/lq.times" | median)
            us_m=$(cut -d' ' -f2 "$WORK/us.times" | median)
            printf '| %s | %s | %s | %.2f | %.2f | %.2f | %.0f | %.0f | %s |\n' \
                "$preset" "$im" "$th" "$lq_s" "$us_s" "$(awk "BEGIN {print $us_s/$lq_s}")" \
                "$(awk "BEGIN {print $lq_m/1024}")" "$(awk "BEGIN {print $us_m/1024}")" "$same"
        done
    done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "llama-quantize: $(grep -m1 '^version:' "$WORK/last-llama-quantize.log" || echo unknown)"
