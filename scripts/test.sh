#!/usr/bin/env bash
# Every test: the Rust workspace (`cargo test --workspace`), then the Python package's pytest suite
# against the same build, then the WebAssembly package's Node tests (scripts/build_wasm.sh builds
# it). The README's test command; CI runs it too.
#
#   scripts/test.sh [PYTEST-ARGS...]
#
# The Python package is built into a venv outside the clone, made once and reused:
# $GGUFKIT_VENV, else ${XDG_CACHE_HOME:-~/.cache}/ggufkit/venv (maturin, numpy, pytest from PyPI).
# The Rust hostile suites write their crafted files to a temporary GGUFKIT_CASES_DIR on the way,
# and the Python tests run those very files through Python.
#
# Skips: every test that skips for want of something outside the repository (../shared, the
# Gemma 3 model, a reference tool) appends a line to $GGUFKIT_SKIP_LOG, a file made here; at the
# end (pass or fail) they are printed, then one line: `SKIPPED n tests: need (count), ...`.
# With GGUFKIT_REQUIRE=need,need... (.ci/run sets it to what it set up) those skips fail instead
# (crates/ggufkit-testkit/src/skip.rs, python/tests/conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
# each step says when it starts, in minutes since this script began
step() { printf '== %s  [%d:%02d]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

venv=${GGUFKIT_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2" numpy pytest

cases=$(mktemp -d)
GGUFKIT_SKIP_LOG=$(mktemp)
export GGUFKIT_SKIP_LOG
# what skipped and why, then one summary line, however the run ends
report_skips() {
  local rc=$?
  if [ -s "$GGUFKIT_SKIP_LOG" ]; then
    echo "== skipped (need, test, why)"
    sort "$GGUFKIT_SKIP_LOG" | sed 's/\t/ | /g'
    echo "SKIPPED $(wc -l <"$GGUFKIT_SKIP_LOG") tests: $(cut -f1 "$GGUFKIT_SKIP_LOG" | sort | uniq -c \
      | awk '{printf "%s%s (%d)", sep, $2, $1; sep=", "}'; echo) (required by GGUFKIT_REQUIRE: ${GGUFKIT_REQUIRE:-none})"
  else
    echo "SKIPPED 0 tests (required by GGUFKIT_REQUIRE: ${GGUFKIT_REQUIRE:-none})"
  fi
  rm -rf "$cases" "$GGUFKIT_SKIP_LOG"
  return $rc
}
trap report_skips EXIT

step "cargo test --workspace"
GGUFKIT_CASES_DIR="$cases" cargo test --workspace

step "the gguf CLI the Python tests compare against"
cargo build -q -p gguf-cli
target=${CARGO_TARGET_DIR:-$repo/target}

step "the Python package (maturin develop into $venv)"
(cd python && VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" maturin develop --quiet)

step "pytest"
(cd python && GGUFKIT_CASES_DIR="$cases" GGUF_BIN="$target/debug/gguf" "$venv/bin/python" -m pytest -q -rs "$@")

step "the WebAssembly package (scripts/build_wasm.sh) and its Node tests"
# skipped, and said, without node or the wasm toolchain (build_wasm.sh exits 2); a failure when
# GGUFKIT_REQUIRE names wasm (.ci/run does when it set the toolchain up)
wasm_skip() {
  printf 'wasm\tnode-tests\t%s\n' "$1" >>"$GGUFKIT_SKIP_LOG"
  echo "SKIPPED the WebAssembly package's tests: [wasm] $1"
  case ",${GGUFKIT_REQUIRE:-}," in *,wasm,*|*,all,*) echo "GGUFKIT_REQUIRE names wasm" >&2; exit 1;; esac
}
if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0] >= 20')" != true ]; then
  wasm_skip "node 20 or later is not installed"
else
  rc=0
  # a package already built (.ci/run builds it) is used as it is
  if [ -n "${GGUFKIT_WASM_PKG:-}" ] && [ -f "$GGUFKIT_WASM_PKG/index.js" ]; then
    pkg_out="pkg=$GGUFKIT_WASM_PKG"
  else
    pkg_out=$(bash scripts/build_wasm.sh "$target/wasm-pkg") || rc=$?
  fi
  # the slim build (no tokenizer, no chat rendering): its own test, slim.test.mjs
  if [ $rc -eq 0 ]; then
    if [ -n "${GGUFKIT_WASM_SLIM_PKG:-}" ] && [ -f "$GGUFKIT_WASM_SLIM_PKG/index.js" ]; then
      slim_out="pkg=$GGUFKIT_WASM_SLIM_PKG"
    else
      slim_out=$(bash scripts/build_wasm.sh --slim "$target/wasm-pkg-slim") || rc=$?
    fi
  fi
  if [ $rc -eq 2 ]; then
    wasm_skip "the wasm toolchain (wasm32 target, wasm-bindgen-cli) cannot be installed"
  elif [ $rc -ne 0 ]; then
    exit $rc
  else
    GGUFKIT_WASM_PKG=$(printf '%s\n' "$pkg_out" | sed -n 's/^pkg=//p') GGUFKIT_CASES_DIR="$cases" \
      GGUFKIT_WASM_SLIM_PKG=$(printf '%s\n' "$slim_out" | sed -n 's/^pkg=//p') \
      GGUF_BIN="$target/debug/gguf" node --test crates/ggufkit-wasm/node-tests/
  fi
fi

step "the static page (web/) in headless Chromium (scripts/test_web.sh)"
# the package the Node tests ran on (.ci/run's, else the one built above); else test_web.sh builds it
web_pkg=${GGUFKIT_WASM_PKG:-$target/wasm-pkg}
if [ -f "$web_pkg/ggufkit_wasm_bg.wasm" ]; then
  GGUF_BIN="$target/debug/gguf" bash scripts/test_web.sh "$web_pkg"
else
  GGUF_BIN="$target/debug/gguf" bash scripts/test_web.sh
fi
