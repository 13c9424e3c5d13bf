#!/usr/bin/env bash
# The page's browser test (tests/web): builds the page (scripts/build_web.sh), sets up Playwright
# for Python in a venv outside the clone, and runs the test with Debian's Chromium, headless.
#
#   scripts/test_web.sh [PKG]     (PKG: a folder build_wasm.sh made; default: build it)
#
# The venv is $GGUFKIT_WEB_VENV, else ${XDG_CACHE_HOME:-~/.cache}/ggufkit/web-venv (pip: playwright,
# pytest; never `playwright install`: the browser is $GGUFKIT_CHROMIUM, default /usr/bin/chromium,
# installed with apt-get when missing and possible). Screenshots go to $GGUFKIT_WEB_ARTIFACTS
# (default /tmp/ggufkit-web-artifacts). axe-core (npm, pinned) goes to $GGUFKIT_WEB_TOOLS, default
# ~/.cache/ggufkit/web-tools, for the accessibility audit. Where something cannot be had it prints SKIPPED and why,
# logs it to $GGUFKIT_SKIP_LOG, and fails when GGUFKIT_REQUIRE names `web` (or all).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
pkg=${1:-}

# skip [NEED] WHY: NEED (default web) is what is missing, as GGUFKIT_REQUIRE names it
skip() {
  local need=web
  [ $# -gt 1 ] && { need=$1; shift; }
  [ -n "${GGUFKIT_SKIP_LOG:-}" ] && printf '%s\ttests/web\t%s\n' "$need" "$1" >>"$GGUFKIT_SKIP_LOG"
  echo "SKIPPED the page's browser test: [$need] $1"
  case ",${GGUFKIT_REQUIRE:-}," in *,$need,*|*,all,*) echo "GGUFKIT_REQUIRE names $need" >&2; exit 1;; esac
  exit 0
}

chromium=${GGUFKIT_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ] && [ "$chromium" = /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== apt-get install chromium (once)" >&2
  apt-get install -y -qq chromium >&2 || true
fi
[ -x "$chromium" ] || skip "no chromium at $chromium (apt-get install chromium)"

venv=${GGUFKIT_WEB_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/web-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import playwright, pytest' 2>/dev/null; then
  echo "== the browser test's venv: $venv (pip install playwright pytest, once)" >&2
  { python3 -m venv "$venv" && "$venv/bin/python" -m pip install --quiet --disable-pip-version-check playwright pytest >&2; } \
    || skip "playwright for Python cannot be installed into $venv"
fi

# axe-core (npm) for the accessibility audit, cached beside the venv; without npm the audit
# test skips (said, and a failure when GGUFKIT_REQUIRE names axe)
axe_version=4.14.1
tools=${GGUFKIT_WEB_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/web-tools}
export GGUFKIT_AXE=$tools/node_modules/axe-core/axe.min.js
if [ ! -f "$GGUFKIT_AXE" ] || ! grep -q "\"version\": \"$axe_version\"" "$tools/node_modules/axe-core/package.json" 2>/dev/null; then
  if command -v npm >/dev/null; then
    echo "== npm install axe-core@$axe_version into $tools (once)" >&2
    mkdir -p "$tools"
    (cd "$tools" && { [ -f package.json ] || echo '{"private": true}' >package.json; } \
      && npm install --silent --no-audit --no-fund "axe-core@$axe_version" >&2) || true
  fi
fi

site=$target/web
rc=0
bash scripts/build_web.sh "$site" ${pkg:+"$pkg"} >/dev/null || rc=$?
[ $rc -eq 2 ] && skip wasm "the WebAssembly package cannot be built (scripts/build_wasm.sh exited 2)"
[ $rc -eq 0 ] || exit $rc

[ -x "${GGUF_BIN:-}" ] || { cargo build -q -p gguf-cli; GGUF_BIN=$target/debug/gguf; }
GGUFKIT_WEB_DIR=$site GGUF_BIN=$GGUF_BIN GGUFKIT_CHROMIUM=$chromium \
  "$venv/bin/python" -m pytest -q -rs -s -p no:cacheprovider tests/web
