#!/usr/bin/env bash
# Builds the static page (web/) into a folder that works offline from file:// and from any static
# host:
#
#   scripts/build_web.sh [OUT] [PKG]     (default OUT: target/web; PKG: a folder build_wasm.sh made,
#                                          default: build it into OUT/../wasm-pkg)
#
# web/ holds the page's own files (index.html, app.js, style.css; no build step of their own). A
# page opened from file:// can neither load module scripts by URL nor fetch a .wasm in Chromium,
# so this writes OUT/ggufkit-bundle.js, a classic script that sets GGUFKIT_BUNDLE: the package's
# ES modules as text (the snippets wasm-bindgen wrote, its glue, index.js; app.js imports them from
# blob: URLs) and the .wasm as base64. Prints `web=OUT/index.html`.
#
# Exit 2 (reason on stderr) when the WebAssembly package cannot be built (build_wasm.sh's exit 2).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
out=${1:-$target/web}
pkg=${2:-}
if [ -z "$pkg" ]; then
  rc=0
  pkg_out=$(bash scripts/build_wasm.sh "$target/wasm-pkg") || rc=$?
  [ $rc -eq 0 ] || exit $rc
  pkg=$(printf '%s\n' "$pkg_out" | sed -n 's/^pkg=//p')
fi
[ -f "$pkg/ggufkit_wasm_bg.wasm" ] || { echo "build_web.sh: $pkg holds no ggufkit_wasm_bg.wasm" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
cp web/index.html web/app.js web/style.css "$out/"
python3 - "$pkg" "$out/ggufkit-bundle.js" <<'PY'
import base64, json, pathlib, sys
pkg, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
# modules in an order where each imports only earlier ones: snippets, the glue, the entry
modules = [p for p in sorted((pkg / "snippets").rglob("*.js"))] if (pkg / "snippets").exists() else []
modules += [pkg / "ggufkit_wasm.js", pkg / "index.js"]
entries = []
for p in modules:
    text = p.read_text(encoding="utf-8")
    if p.name == "index.js":
        # the entry loads the .wasm beside it on import: there is none beside a blob: URL (and a
        # blob: URL is no base for a relative one); the page passes the bytes to load() instead
        beside = 'new URL("./ggufkit_wasm_bg.wasm", import.meta.url)'
        if beside not in text:
            sys.exit(f"build_web.sh: {p} no longer has {beside!r}: update scripts/build_web.sh")
        text = text.replace(beside, 'new URL("data:application/wasm;base64,")')
    entries.append(["./" + p.relative_to(pkg).as_posix(), text])
wasm = base64.b64encode((pkg / "ggufkit_wasm_bg.wasm").read_bytes()).decode("ascii")
dest.write_text(
    "// Written by scripts/build_web.sh: the ggufkit-wasm package for web/app.js (ES modules as text,\n"
    "// the .wasm as base64), so that the page works from file:// too. Do not edit.\n"
    "globalThis.GGUFKIT_BUNDLE = " + json.dumps({"modules": entries, "wasm": wasm}) + ";\n",
    encoding="utf-8",
)
PY
echo "web: $(du -sb "$out" | cut -f1) bytes in $out (ggufkit-bundle.js $(stat -c %s "$out/ggufkit-bundle.js"))" >&2
echo "web=$out/index.html"
