#!/usr/bin/env bash
# Writer benchmarks against `cp` on a real model: full rewrite, in-place metadata edit, byte-order
# conversion, split and merge. Prints the median of N runs of each (page cache warm for all).
#
#   scripts/bench_writer.sh [MODEL] [RUNS]
#
# MODEL defaults to Gemma 3 270M Q4_K_M, assembled with ../shared/corpus/get-gemma3-270m.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${1:-/tmp/gemma/gemma-3-270m-q4_k_m.gguf}
RUNS=${2:-5}
if [ ! -f "$MODEL" ]; then
    echo "SKIPPED: $MODEL is absent (bash ../shared/corpus/get-gemma3-270m.sh /tmp/gemma)"
    exit 0
fi
cargo build --release -q -p gguf-cli
GGUF=$PWD/target/release/gguf
WORK=$(mktemp -d "${TMPDIR:-/tmp}/gguf-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SIZE=$(stat -c %s "$MODEL")

# median wall time in ms of RUNS runs of "$@" (after a cleanup command in $PRE)
median_ms() {
    local times=()
    for _ in $(seq "$RUNS"); do
        eval "${PRE:-true}"
        local t0 t1
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1
        t1=$(date +%s%N)
        times+=($(( (t1 - t0) / 1000 )))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.2f", m/1000}'
}

cat "$MODEL" >/dev/null
echo "model: $MODEL ($SIZE bytes), median of $RUNS runs, warm page cache"
PRE="rm -f $WORK/cp.gguf"; cp_ms=$(median_ms cp "$MODEL" "$WORK/cp.gguf")
PRE="rm -f $WORK/rw.gguf"; rw_ms=$(median_ms "$GGUF" convert "$MODEL" -o "$WORK/rw.gguf")
cmp "$MODEL" "$WORK/rw.gguf"
PRE="rm -f $WORK/cp.gguf; cat /dev/null"; cpsync_ms=$(median_ms sh -c "cp '$MODEL' '$WORK/cp.gguf' && sync '$WORK/cp.gguf'")
echo "cp:                          $cp_ms ms"
echo "cp + sync:                   $cpsync_ms ms"
echo "gguf convert (rewrite):      $rw_ms ms  ($(awk "BEGIN {printf \"%.2f\", $rw_ms/$cpsync_ms}")x cp+sync, $(awk "BEGIN {printf \"%.2f\", $rw_ms/$cp_ms}")x cp), output identical"

cp "$MODEL" "$WORK/edit.gguf"
NAME=$("$GGUF" dump "$WORK/edit.gguf" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(next(k["value"] for k in d["metadata"] if k["key"]=="general.name"))')
ALT=$(python3 -c "import sys; s=sys.argv[1]; print(s[:-1] + ('X' if s[-1] != 'X' else 'Y'))" "$NAME")
# each timed run changes the name back from the original, so every run writes
PRE="$GGUF meta set '$WORK/edit.gguf' general.name '$NAME' --in-place 2>/dev/null"
edit_ms=$(median_ms "$GGUF" meta set "$WORK/edit.gguf" general.name "$ALT" --in-place)
eval "$PRE"
"$GGUF" meta set "$WORK/edit.gguf" general.name "$ALT" --in-place 2>&1 | sed 's/^/  /'
echo "meta set --in-place (whole process: parse, edit, fdatasync): $edit_ms ms"

PRE="rm -f $WORK/be.gguf"; be_ms=$(median_ms "$GGUF" convert "$MODEL" --endian big -o "$WORK/be.gguf")
echo "convert --endian big:        $be_ms ms"

PRE="rm -f $WORK/s-*.gguf"; split_ms=$(median_ms "$GGUF" split "$MODEL" --max-size 100M -o "$WORK/s")
"$GGUF" split "$MODEL" --max-size 100M -o "$WORK/s" --force >/dev/null
FIRST=$(ls "$WORK"/s-00001-of-*.gguf)
PRE="rm -f $WORK/merged.gguf"; merge_ms=$(median_ms "$GGUF" merge "$FIRST" -o "$WORK/merged.gguf")
cmp "$MODEL" "$WORK/merged.gguf"
echo "split --max-size 100M:       $split_ms ms ($(ls "$WORK"/s-*.gguf | wc -l) shards; $(awk "BEGIN {printf \"%.2f\", $split_ms/$cpsync_ms}")x cp+sync)"
echo "merge:                       $merge_ms ms ($(awk "BEGIN {printf \"%.2f\", $merge_ms/$cpsync_ms}")x cp+sync), output identical to the model"
