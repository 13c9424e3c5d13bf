#!/usr/bin/env bash
# Are two revisions' outputs byte-identical? Builds each git revision (in a temporary worktree,
# release, one shared target folder) as the `gguf` CLI and the Python package, runs every command
# of the CLI in each of its forms and the Python package's main calls on every file of
# ../shared/corpus and on the Gemma 3 model, and reports each (file, command) whose stdout,
# stderr, exit code or written files differ. Exit 0 when nothing differs, 1 otherwise.
#
#   scripts/compare_outputs.sh BASE [HEAD]
#     BASE, HEAD   git revisions (HEAD defaults to HEAD); the same revision twice checks the
#                  comparison itself (it must report nothing)
#   scripts/compare_outputs.sh OLD_GGUF NEW_GGUF
#                  two `gguf` binaries already built: the CLI only (no build, no Python), their
#                  outputs in a temporary folder
#   JOBS=2           files run at once
#   ONLY=REGEX       only the files whose path (relative to the corpus) matches
#   GGUF_GEMMA=PATH  the model (else ../shared/corpus/get-gemma3-270m.sh assembles it into
#                    ~/.cache/ggufkit/gemma, where .ci/run keeps it)
#
# Cached under ${XDG_CACHE_HOME:-~/.cache}/ggufkit/outputs: per commit the binary, a venv with the
# wheel, and the outputs (made once per commit; delete $cache/<sha>/out to run again; a
# revision against itself is run twice, into out and out-again); a
# venv with maturin; the shared target folder. The run's commands are listed in
# scripts/compare_outputs.py. Expect about 10-20 minutes per cold revision on two cores.
set -euo pipefail
shopt -s inherit_errexit  # a failed build inside $(build ...) stops the run
cd "$(dirname "$0")/.."
repo=$(pwd)

base=${1:?usage: compare_outputs.sh BASE [HEAD] | OLD_GGUF NEW_GGUF}
head=${2:-HEAD}
# resolved once: a branch that moves during the run is compared at the commit it had here
if ! [ -x "$base" ]; then base=$(git rev-parse --verify "$base^{commit}"); fi
if ! [ -x "$head" ]; then head=$(git rev-parse --verify "$head^{commit}"); fi
jobs=${JOBS:-2}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/outputs
mkdir -p "$cache"
shared=$(cd "$repo/../shared" && pwd)
corpus=$shared/corpus

tools=$cache/tools-venv
if [ ! -x "$tools/bin/maturin" ]; then
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2"
fi

# the model where .ci/run and the tests keep it (assembled there when absent)
gemma=${GGUF_GEMMA:-}
if [ -z "$gemma" ]; then
  gemma=$(bash "$corpus/get-gemma3-270m.sh" "${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/gemma")
fi

# Builds the CLI and the Python package of a commit unless cached; prints the commit.
build() {
  local sha wt dir
  sha=$(git rev-parse --verify "$1^{commit}")
  dir=$cache/$sha
  if [ ! -f "$dir/.built" ]; then
    echo "building $1 ($sha)" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    wt=$(mktemp -d)
    git worktree add --detach "$wt" "$sha" >/dev/null 2>&1
    if ! (cd "$wt" && CARGO_TARGET_DIR="$cache/target" cargo build --release -q -p gguf-cli) >&2 ||
       ! cp "$cache/target/release/gguf" "$dir/gguf" ||
       ! (cd "$wt/python" && CARGO_TARGET_DIR="$cache/target" "$tools/bin/maturin" build \
            --release --quiet -o "$dir/wheel") >&2 ||
       ! python3 -m venv "$dir/venv" ||
       ! "$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check numpy \
            "$dir"/wheel/*.whl >&2; then
      git worktree remove --force "$wt"
      echo "compare_outputs.sh: $1 ($sha) does not build" >&2
      exit 2
    fi
    git worktree remove --force "$wt"
    touch "$dir/.built"
  fi
  echo "$sha"
}

# Runs every command on every file with a commit's build into $cache/<sha>/<out>, unless done.
outputs() {
  local sha=$1 out=$cache/$1/$2
  if [ ! -f "$out/.complete" ]; then
    echo "running the commands of $sha into $out" >&2
    rm -rf "$out"
    python3 "$repo/scripts/compare_outputs.py" run --gguf "$cache/$sha/gguf" \
      --python "$cache/$sha/venv/bin/python" --corpus "$corpus" --gemma "$gemma" \
      --sample "$repo/samples/tiny-llama.gguf" --jobs "$jobs" --only "${ONLY:-}" --out "$out"
    touch "$out/.complete"
  fi
}

if [ -f "$base" ] && [ -x "$base" ] && [ -f "$head" ] && [ -x "$head" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  for side in base head; do
    bin=$base
    [ $side = head ] && bin=$head
    python3 "$repo/scripts/compare_outputs.py" run --gguf "$bin" --no-python --corpus "$corpus" \
      --gemma "$gemma" --sample "$repo/samples/tiny-llama.gguf" --jobs "$jobs" \
      --only "${ONLY:-}" --out "$out/$side"
  done
  python3 "$repo/scripts/compare_outputs.py" compare "$out/base" "$out/head" --names old new
  exit
fi

base_sha=$(build "$base")
head_sha=$(build "$head")
outputs "$base_sha" out
head_out=out
# one revision against itself: a second run, so that the comparison checks that outputs are
# deterministic and that it reports nothing where nothing changed
[ "$head_sha" = "$base_sha" ] && head_out=out-again
outputs "$head_sha" "$head_out"
python3 "$repo/scripts/compare_outputs.py" compare "$cache/$base_sha/out" "$cache/$head_sha/$head_out" \
  --names "$(git rev-parse --short "$base_sha")" "$(git rev-parse --short "$head_sha")"
