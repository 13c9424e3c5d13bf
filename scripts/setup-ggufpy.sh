#!/usr/bin/env bash
# Installs gguf-py (PyPI `gguf`, the llama.cpp project's Python reader) and numpy into a venv,
# idempotently, for the differential tests; prints the venv's python.
#
# usage: scripts/setup-ggufpy.sh [VENV_DIR]     (default: $GGUFPY_VENV or <tmp>/ggufpy)
# The tests find it through GGUFPY_PYTHON=<printed path>, or the default location.
set -euo pipefail
venv="${1:-${GGUFPY_VENV:-${TMPDIR:-/tmp}/ggufpy}}"
version="${GGUFPY_VERSION:-0.19.0}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" - "$version" >/dev/null 2>&1 <<'PY'
import sys, importlib.metadata as m
sys.exit(m.version("gguf") != sys.argv[1])
PY
then
  "$venv/bin/pip" install --quiet --disable-pip-version-check "gguf==$version" numpy >&2
fi
"$venv/bin/python" -c 'import gguf, numpy' >&2
echo "$venv/bin/python"
