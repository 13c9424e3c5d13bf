#!/usr/bin/env bash
# Two revisions of ggufkit measured in one interleaved run: each revision's `compare` binary times
# ggufkit against the map floor (floor-map) on the same files, and the rounds alternate between
# the revisions, so a slower moment of the machine falls on both. The figure that matters is each
# revision's ratio to floor-map (a ratio taken within one process), compared across revisions.
#
#   scripts/compare_revisions.sh BASE [HEAD] [-- COMPARE-ARGS...]
#     BASE, HEAD      git revisions (HEAD defaults to the working tree's HEAD)
#     COMPARE-ARGS    passed to `compare` (default: --all --no-python)
#   ROUNDS=5 REPS=11  rounds per revision, repetitions per round
#
# The binaries are built once per commit under ${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/revisions.
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:?usage: compare_revisions.sh BASE [HEAD] [-- COMPARE-ARGS...]}
shift
head=HEAD
if [ $# -gt 0 ] && [ "$1" != "--" ]; then head=$1; shift; fi
[ "${1:-}" = "--" ] && shift
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(--all --no-python)
rounds=${ROUNDS:-5}
reps=${REPS:-11}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/revisions
mkdir -p "$cache"

# Builds `compare` at a commit (in a temporary worktree) unless the cache has it; prints its path.
build() {
  local sha bin wt
  sha=$(git rev-parse --verify "$1^{commit}")
  bin="$cache/$sha/compare"
  if [ ! -x "$bin" ]; then
    wt=$(mktemp -d)
    git worktree add --detach "$wt" "$sha" >/dev/null
    (cd "$wt" && CARGO_TARGET_DIR="$cache/target" cargo build --release -q -p ggufkit-bench --bin compare) >&2
    mkdir -p "$cache/$sha"
    cp "$cache/target/release/compare" "$bin"
    git worktree remove --force "$wt"
  fi
  echo "$bin"
}

base_bin=$(build "$base")
head_bin=$(build "$head")
out=$(mktemp -d)
for r in $(seq 1 "$rounds"); do
  for rev in base head; do
    bin=$base_bin
    [ $rev = head ] && bin=$head_bin
    echo "round $r/$rounds: $rev" >&2
    "$bin" "${args[@]}" --parsers ggufkit,floor-map -n "$reps" --json-out "$out/$rev-$r.json" >/dev/null
  done
done

python3 - "$out" "$rounds" "$(git rev-parse --short "$base")" "$(git rev-parse --short "$head")" <<'PY'
import json, statistics, sys
out, rounds, base, head = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ratios = {}  # file -> rev -> [ratio per round]
for rev in ("base", "head"):
    for r in range(1, rounds + 1):
        doc = json.load(open(f"{out}/{rev}-{r}.json"))
        for f in doc["files"]:
            cells = dict(f["cells"])
            g, m = cells["ggufkit"].get("median_ms"), cells["floor-map"].get("median_ms")
            if g and m:
                ratios.setdefault(f["name"], {}).setdefault(rev, []).append(g / m)
print(f"| file | {base} ggufkit / floor-map | {head} ggufkit / floor-map | change |")
print("|---|---:|---:|---:|")
for name, by in ratios.items():
    b, h = statistics.median(by.get("base", [0])), statistics.median(by.get("head", [0]))
    change = f"{(h / b - 1) * 100:+.1f}%" if b else "?"
    print(f"| {name} | {b:.2f}× | {h:.2f}× | {change} |")
PY
