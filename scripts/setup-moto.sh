#!/usr/bin/env bash
# Installs moto's S3-compatible server (PyPI: moto[server]) in a virtualenv, idempotently, for the
# S3 tests of the remote reader (crates/ggufkit/tests/remote_s3.rs). Prints the server's path.
# Usage: scripts/setup-moto.sh            (venv in $GGUF_MOTO_VENV, default /tmp/ggufkit-moto-venv)
# The tests find it there (or through GGUF_MOTO_SERVER=/path/to/moto_server) and skip, saying
# so, when it is missing. The tests start and stop the server themselves on 127.0.0.1.
set -euo pipefail
venv=${GGUF_MOTO_VENV:-/tmp/ggufkit-moto-venv}
server="$venv/bin/moto_server"
if [[ -x $server ]] && "$venv/bin/python" -c 'import moto.server, flask' 2>/dev/null; then
  echo "$server"; exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'moto[server]>=5,<6'
[[ -x $server ]] || { echo "moto_server missing after install" >&2; exit 1; }
echo "$server"
