#!/usr/bin/env bash
# The local-scan benchmark of `gguf scan` (issue 19): N generated files (small headers, a mix of
# valid and broken, made by our writer from samples/tiny-llama.gguf), scanned with `gguf scan` on
# JOBS threads, against opening and walking them one by one in one process (`gguf info --json
# FILE...`, which opens each file, parses and summarises it). Peak memory (max RSS) of each.
#
#   scripts/scan_bench.sh [N] [JOBS] [GGUF]     defaults: 10000, 2, target/release/gguf
set -euo pipefail
N=${1:-10000}
JOBS=${2:-2}
GGUF=${3:-target/release/gguf}
SAMPLE=samples/tiny-llama.gguf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 16 variants written by our writer (`meta set`), 4 of them broken (cut short, or not GGUF)
mkdir -p "$work/v" "$work/files"
for i in $(seq 0 11); do
  "$GGUF" meta set "$SAMPLE" general.name "bench-$i" -o "$work/v/$i.gguf" >/dev/null 2>&1
done
head -c 100 "$SAMPLE" >"$work/v/12.gguf"
head -c 1000 "$SAMPLE" >"$work/v/13.gguf"
size=$(stat -c %s "$SAMPLE")
head -c $((size - 7)) "$SAMPLE" >"$work/v/14.gguf"
printf 'not a gguf' >"$work/v/15.gguf"
for i in $(seq 0 $((N - 1))); do
  cp "$work/v/$((i % 16)).gguf" "$work/files/f$(printf %06d "$i").gguf"
done
sync

measure() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1 || true
  read -r secs kib < <(tail -n 1 "$work/t")
  printf '%-28s %8s s %8s KiB max RSS  %8.0f files/s\n' "$label" "$secs" "$kib" \
    "$(echo "$N / $secs" | bc -l 2>/dev/null || echo 0)"
}

echo "N=$N files, jobs=$JOBS, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# warm the page cache
cat "$work"/files/*.gguf >/dev/null
measure "one by one (info --json)" bash -c "ls -d $work/files/*.gguf | xargs -s 2000000 $GGUF info --json"
measure "scan jsonl" "$GGUF" scan "$work/files" -o "$work/out-j" --format jsonl --jobs "$JOBS"
measure "scan parquet" "$GGUF" scan "$work/files" -o "$work/out-p" --format parquet --jobs "$JOBS"
measure "scan again (all skipped)" "$GGUF" scan "$work/files" -o "$work/out-p" --jobs "$JOBS"
du -sh "$work/out-j" "$work/out-p" | sed 's|'"$work"'/||'
