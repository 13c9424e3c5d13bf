#!/usr/bin/env bash
# Builds the WebAssembly package (crates/ggufkit-wasm) into an npm package folder:
#
#   scripts/build_wasm.sh [--slim] [OUT]   (default OUT: target/wasm-pkg, target/wasm-pkg-slim)
#
# --slim: without the crate's default features `tokenizer` and `chat` (llama.cpp's tokenizer with
# its Unicode tables and pre-tokenizer regexes, the chat templates' rendering): the header, its
# JSON, validation, audit, layout and edits only; `features()` says which build it is.
#
# cargo build --release --target wasm32-unknown-unknown, size-optimised (opt-level z, but 3 for the
# bindings' own few functions, whose loops hand every metadata value over; WebAssembly SIMD
# (simd128: Chrome 91, Firefox 89, Safari 16.4, Node 16.4 and later), with which the parser's
# UTF-8 check of every string and the UTF-16 hand-over are vectorised; fat LTO,
# one codegen unit, panic=abort: a panic is a trap either way, and the library promises none on
# input); then wasm-bindgen --target web (an ES module that loads its .wasm with fetch, or from
# bytes given to it, so it runs in Node 20 and in browsers), then wasm-opt -Oz when binaryen is
# there. The tools are cached outside the clone, in ${GGUFKIT_WASM_TOOLS:-~/.cache/ggufkit/wasm-tools}:
# wasm-bindgen-cli at exactly the crate's wasm-bindgen version (cargo install, about 6 minutes the
# first time), wasm-opt from npm's binaryen at a pinned version (else one on $PATH). Prints `pkg=OUT` and the sizes of the .wasm (raw, gzip, brotli) at the end.
#
# Exit 2 (with the reason on stderr) when the toolchain cannot be had: the wasm32 target or
# wasm-bindgen-cli; callers skip their wasm tests then and say so.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
slim=
if [ "${1:-}" = --slim ]; then slim=1; shift; fi
out=${1:-$repo/target/wasm-pkg${slim:+-slim}}
tools=${GGUFKIT_WASM_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/ggufkit/wasm-tools}
crate=crates/ggufkit-wasm

# the wasm-bindgen version the crate pins (`wasm-bindgen = "=X"`): the CLI must be that one
version=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)"/\1/p' $crate/Cargo.toml)
[ -n "$version" ] || { echo "build_wasm.sh: no pinned wasm-bindgen version in $crate/Cargo.toml" >&2; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown >&2 \
    || { echo "build_wasm.sh: the wasm32-unknown-unknown target cannot be installed" >&2; exit 2; }
fi

bindgen=$tools/bin/wasm-bindgen
if [ ! -x "$bindgen" ] || [ "$("$bindgen" --version | awk '{print $2}')" != "$version" ]; then
  echo "== cargo install wasm-bindgen-cli $version into $tools (once)" >&2
  cargo install --quiet wasm-bindgen-cli --version "$version" --root "$tools" >&2 \
    || { echo "build_wasm.sh: wasm-bindgen-cli $version cannot be installed" >&2; exit 2; }
fi

features=()
[ -n "$slim" ] && features=(--no-default-features)
echo "== cargo build --release --target wasm32-unknown-unknown -p ggufkit-wasm ${features[*]:-}" >&2
CARGO_PROFILE_RELEASE_OPT_LEVEL=z \
CARGO_PROFILE_RELEASE_LTO=fat \
CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
CARGO_PROFILE_RELEASE_PANIC=abort \
CARGO_PROFILE_RELEASE_DEBUG=0 \
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-C target-feature=+simd128" \
  cargo build --config 'profile.release.package.ggufkit-wasm.opt-level=3' --quiet --release --target wasm32-unknown-unknown -p ggufkit-wasm ${features[@]+"${features[@]}"} >&2
target=${CARGO_TARGET_DIR:-$repo/target}
wasm=$target/wasm32-unknown-unknown/release/ggufkit_wasm.wasm

rm -rf "$out"
mkdir -p "$out"
"$bindgen" --target web --out-dir "$out" --out-name ggufkit_wasm "$wasm" >&2

# wasm-opt from npm's binaryen, pinned and cached in $tools (Debian's binaryen 108 cannot read what
# rustc 1.9x emits); else one on $PATH; a wasm-opt that fails leaves the .wasm as it was
binaryen=132.0.0
opt=$tools/node_modules/.bin/wasm-opt
if [ ! -x "$opt" ] && command -v npm >/dev/null; then
  (cd "$tools" && { [ -f package.json ] || echo '{"private": true}' >package.json; } \
    && npm install --silent --no-audit --no-fund "binaryen@$binaryen" >&2) || true
fi
[ -x "$opt" ] || opt=$(command -v wasm-opt || true)
if [ -n "$opt" ]; then
  # the features rustc's wasm32 target emits by default, and SIMD
  if "$opt" -Oz --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-reference-types --enable-multivalue --enable-simd \
    "$out/ggufkit_wasm_bg.wasm" -o "$out/ggufkit_wasm_bg.wasm.opt" >&2; then
    mv "$out/ggufkit_wasm_bg.wasm.opt" "$out/ggufkit_wasm_bg.wasm"
  else
    echo "build_wasm.sh: $opt failed: the .wasm is left as wasm-bindgen wrote it" >&2
    rm -f "$out/ggufkit_wasm_bg.wasm.opt"
    opt=
  fi
else
  echo "build_wasm.sh: no wasm-opt (binaryen): the .wasm is not size-optimised further" >&2
fi

cp $crate/js/index.js $crate/js/index.d.ts $crate/js/package.json $crate/README.md "$out/"
rm -f "$out/.gitignore"

w=$out/ggufkit_wasm_bg.wasm
raw=$(stat -c %s "$w")
gz=$(gzip -9 -c "$w" | wc -c)
br=$(node -e 'const z=require("zlib"),fs=require("fs");const b=fs.readFileSync(process.argv[1]);
console.log(z.brotliCompressSync(b,{params:{[z.constants.BROTLI_PARAM_QUALITY]:11}}).length)' "$w" 2>/dev/null || echo n/a)
echo "wasm${slim:+ (slim)}: $raw bytes raw, $gz gzip -9, $br brotli -q 11 (wasm-opt: ${opt:-none})" >&2
echo "pkg=$out"
