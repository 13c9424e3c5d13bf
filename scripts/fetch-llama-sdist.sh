#!/usr/bin/env bash
# fetch-llama-sdist.sh DIR: puts the llama-cpp-python sdist that ../shared/tools/llama-quantize.sh
# builds from (its pinned version) into DIR, fetched by the URL PyPI's simple index gives.
# `pip download --no-binary :all:` would build CMake from source just to read the sdist's
# metadata (15 minutes and more on two cores); this takes seconds. Idempotent.
set -euo pipefail
DIR=${1:?usage: fetch-llama-sdist.sh DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
LQ=${LLAMA_QUANTIZE_SH:-$HERE/../../shared/tools/llama-quantize.sh}
VERSION=$(sed -n 's/^LLAMA_CPP_PYTHON_VERSION=//p' "$LQ")
[[ -n "$VERSION" ]] || { echo "fetch-llama-sdist.sh: no version in $LQ" >&2; exit 1; }
FILE="$DIR/llama_cpp_python-$VERSION.tar.gz"
[[ -s "$FILE" ]] && exit 0
mkdir -p "$DIR"
python3 - "$VERSION" "$FILE" <<'PY'
import json, os, sys, urllib.request
version, out = sys.argv[1], sys.argv[2]
# the simple index (PEP 691 JSON), which is what package registries and their mirrors serve
req = urllib.request.Request("https://pypi.org/simple/llama-cpp-python/",
                             headers={"Accept": "application/vnd.pypi.simple.v1+json"})
index = json.load(urllib.request.urlopen(req, timeout=60))
name = f"llama_cpp_python-{version}.tar.gz"
sdist = next(f for f in index["files"] if f["filename"] == name)
tmp = out + ".part"
with urllib.request.urlopen(sdist["url"], timeout=600) as r, open(tmp, "wb") as f:
    while chunk := r.read(1 << 20):
        f.write(chunk)
import hashlib
with open(tmp, "rb") as f:
    digest = hashlib.sha256(f.read()).hexdigest()
if digest != sdist["hashes"]["sha256"]:
    os.remove(tmp)
    sys.exit(f"fetch-llama-sdist.sh: sha256 {digest} is not PyPI's {sdist['hashes']['sha256']}")
os.replace(tmp, out)
PY
