#!/usr/bin/env bash
# Every test: the Rust workspace (`cargo test --workspace`), then the Python package's pytest suite
# against the same build. The README's test command; CI runs it too.
#
#   scripts/test.sh [PYTEST-ARGS...]
#
# The Python package is built into a venv outside the clone, made once and reused:
# $GGUFKIT_VENV, else ${XDG_CACHE_HOME:-~/.cache}/ggufkit/venv (maturin, numpy, pytest from PyPI).
# The Rust hostile suites write their crafted files to a temporary GGUFKIT_CASES_DIR on the way,
# and the Python tests run those very files through Python.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

venv=${GGUFKIT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" numpy pytest

cases=$(mktemp -d)
trap 'rm -rf "$cases"' EXIT

echo "== cargo test --workspace"
GGUFKIT_CASES_DIR="$cases" cargo test --workspace

echo "== the gguf CLI the Python tests compare against"
cargo build -q -p gguf-cli
target=${CARGO_TARGET_DIR:-$repo/target}

echo "== the Python package (maturin develop into $venv)"
(cd python && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --quiet)

echo "== pytest"
cd python
GGUFKIT_CASES_DIR="$cases" GGUF_BIN="$target/debug/gguf" "$venv/bin/python" -m pytest -q -rs "$@"
