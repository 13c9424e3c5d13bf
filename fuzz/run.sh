#!/usr/bin/env bash
# Runs every fuzz target of ggufkit for a bounded time, one at a time, and fails on a crash.
#
# usage: fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]
#   SECONDS_PER_TARGET  default $FUZZ_SECONDS or 30
#   TARGET              default: every target in fuzz/fuzz_targets/
#
# Seeds: fuzz/seeds/ (small files our own encoder generates, committed) plus the small files of
# ../shared/corpus when it exists, copied at run time into fuzz/corpus/TARGET/ (git-ignored:
# nothing from ../shared is ever committed). What a run discovers stays in fuzz/corpus/.
# Needs the nightly toolchain and cargo-fuzz (installed here when missing).
# A crash leaves its input in fuzz/artifacts/TARGET/ and makes this script exit 1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
secs="${1:-${FUZZ_SECONDS:-30}}"
shift || true

if ! cargo +nightly --version >/dev/null 2>&1; then
  echo "fuzz/run.sh: the nightly toolchain is missing (rustup toolchain install nightly)" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz >&2
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$here"/fuzz_targets/*.rs; do
    targets+=("$(basename "$f" .rs)")
  done
fi

shared="$root/../shared/corpus"
cd "$root"
cargo +nightly fuzz build -O >&2

status=0
for t in "${targets[@]}"; do
  dir="$here/corpus/$t"
  mkdir -p "$dir"
  seeds=("$here"/seeds/*.gguf)
  if [ -d "$shared" ]; then
    # the small files only: a fuzzer's speed follows its largest inputs
    while IFS= read -r -d '' f; do seeds+=("$f"); done \
      < <(find "$shared" -name '*.gguf' -size -64k -print0)
  fi
  for f in "${seeds[@]}"; do
    [ -f "$f" ] || continue
    name="$(basename "$(dirname "$f")")-$(basename "$f")"
    if [ "$t" = stream ] || [ "$t" = dequant ]; then
      # these targets read a control byte first (chunk sizes, type and byte order)
      { printf '\x48'; cat "$f"; } > "$dir/$name"
    elif [ "$t" = edit ]; then
      # this one reads the edit from the last 9 bytes
      { cat "$f"; printf '\x01\x02\0\0\0\0\0\0\0'; } > "$dir/$name"
    else
      cp -f "$f" "$dir/$name"
    fi
  done
  echo "fuzz/run.sh: $t for ${secs}s over $(ls "$dir" | wc -l) seeds"
  # optimised, with debug assertions and overflow checks: the reader's debug checks (every string
  # it hands out as text is checked again) run on every input
  if ! cargo +nightly fuzz run -O -a "$t" "$dir" -- \
      -max_total_time="$secs" -max_len=65536 -rss_limit_mb=1024 -malloc_limit_mb=256 \
      -timeout=10 -print_final_stats=1 2>"$here/$t.log"; then
    echo "fuzz/run.sh: $t FAILED; the end of its log:" >&2
    tail -n 60 "$here/$t.log" >&2
    status=1
  else
    grep -E '^(stat::number_of_executed_units|stat::new_units_added|Done)' "$here/$t.log" || true
  fi
done
exit $status
