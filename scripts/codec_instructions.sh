#!/usr/bin/env bash
# Instruction counts of every codec at two revisions, per type, under callgrind: one
# dequantization and one quantization of the codec benchmark's 1 Mi-element signal
# (`ggufkit_bench::codec_input`; importance weights for the types that require them), the
# counted call alone (`--toggle-collect`), after an uncounted warm-up call that builds the
# lattice quantizers' tables. Instruction counts do not depend on what else the machine runs,
# so two revisions compare to within a fraction of a percent where timings swing by tens.
#
#   scripts/codec_instructions.sh REV_BEFORE [REV_AFTER] [TYPE...]
#
# REV_AFTER defaults to the work tree. Each revision is checked out in a temporary worktree and
# built in release beside a small driver (not committed: written here). Prints one line per type
# and direction: the two counts, their ratio, and whether the outputs' checksums agree.
set -euo pipefail
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
before=${1:?usage: $0 REV_BEFORE [REV_AFTER] [TYPE...]}
after=${2:-}
shift $(( $# >= 2 ? 2 : 1 ))
types=("$@")
[ ${#types[@]} -gt 0 ] || types=(f16 bf16 q4_0 q4_1 q5_0 q5_1 q8_0 q2_K q3_K q4_K q5_K q6_K q8_K
  iq2_xxs iq2_xs iq3_xxs iq1_s iq4_nl iq3_s iq2_s iq4_xs iq1_m tq1_0 tq2_0 mxfp4)
command -v valgrind >/dev/null || { echo "SKIPPED: valgrind is not installed"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/codec-instructions.XXXXXX")
trap 'git -C "$repo" worktree remove --force "$work/src-before" 2>/dev/null || true
      git -C "$repo" worktree remove --force "$work/src-after" 2>/dev/null || true
      rm -rf "$work"' EXIT

driver() { # $1 = name, $2 = source tree
  mkdir -p "$work/$1/src"
  cat > "$work/$1/Cargo.toml" <<TOML
[package]
name = "codec-count"
version = "0.0.0"
edition = "2021"
[dependencies]
ggufkit = { path = "$2/crates/ggufkit", default-features = false }
ggufkit-bench = { path = "$2/crates/ggufkit-bench" }
[profile.release]
debug = "line-tables-only"
[workspace]
TOML
  cat > "$work/$1/src/main.rs" <<'RUST'
use ggufkit::{quant, Endian, GgmlType};
use ggufkit_bench::codec_input::{importance, signal, ROW};

fn quantize(ty: GgmlType, src: &[f32], imp: Option<&[f32]>, out: &mut [u8]) {
    quant::quantize_rows(ty, src, ROW, imp, out).expect("quantize");
}
#[inline(never)]
fn warm_up(ty: GgmlType, src: &[f32], imp: Option<&[f32]>, out: &mut [u8]) {
    quantize(ty, src, imp, out)
}
#[inline(never)]
fn quantize_once(ty: GgmlType, src: &[f32], imp: Option<&[f32]>, out: &mut [u8]) {
    quantize(ty, src, imp, out)
}
#[inline(never)]
fn dequantize_once(ty: GgmlType, data: &[u8], out: &mut [f32]) {
    quant::dequantize(ty, data, Endian::Little, out).expect("dequantize");
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ty: GgmlType = args[1].parse().expect("a type name");
    let n = 1 << 20;
    let src = signal(n, 1);
    let needs = matches!(args[1].to_lowercase().as_str(), "iq2_xxs" | "iq2_xs" | "iq1_s" | "iq1_m");
    let imp = needs.then(importance);
    let mut q = vec![0u8; (n as u64 / ty.block_size() * ty.type_size()) as usize];
    warm_up(ty, &src, imp.as_deref(), &mut q);
    let mut out = vec![0f32; n];
    if args[2] == "q" {
        quantize_once(ty, &src, imp.as_deref(), &mut q);
    } else {
        dequantize_once(ty, &q, &mut out);
    }
    let sum: u64 = q.iter().map(|&b| u64::from(b)).sum::<u64>()
        + out.iter().map(|x| u64::from(x.to_bits())).sum::<u64>();
    println!("{sum}");
}
RUST
  (cd "$work/$1" && CARGO_TARGET_DIR="$work/target-$1" cargo build --quiet --release)
}

git -C "$repo" worktree add --quiet --detach "$work/src-before" "$before"
driver before "$work/src-before"
if [ -n "$after" ]; then
  git -C "$repo" worktree add --quiet --detach "$work/src-after" "$after"
  driver after "$work/src-after"
else
  driver after "$repo"
fi

count() { # $1 = side, $2 = type, $3 = d|q
  local fn; fn=$([ "$3" = d ] && echo dequantize_once || echo quantize_once)
  valgrind --tool=callgrind --callgrind-out-file="$work/cg" --toggle-collect="*${fn}*" \
    "$work/target-$1/release/codec-count" "$2" "$3" > "$work/sum-$1" 2>/dev/null
  awk '/^(summary|totals):/ {print $2; exit}' "$work/cg"
}
printf '%-8s %-3s %15s %15s %7s %s\n' type op before after ratio outputs
for ty in "${types[@]}"; do
  for op in d q; do
    a=$(count before "$ty" "$op"); b=$(count after "$ty" "$op")
    same=$(cmp -s "$work/sum-before" "$work/sum-after" && echo same || echo DIFFER)
    printf '%-8s %-3s %15s %15s %7s %s\n' "$ty" "$op" "$a" "$b" \
      "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')" "$same"
  done
done
