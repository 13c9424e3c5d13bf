#!/usr/bin/env bash
# Runs the reader's tests under Miri (undefined behaviour, out-of-bounds access, leaks): the
# library's unit tests except the codecs (their SIMD kernels and rayon are outside what Miri
# checks well), and the hostile-file property and case tests with few cases (Miri is ~1000x
# slower than native code). Needs: rustup component add miri rust-src --toolchain nightly.
#
# usage: scripts/miri.sh          (about 15 minutes on 2 cores; memory maps are skipped: Miri cannot map files)
set -euo pipefail
cd "$(dirname "$0")/.."
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-disable-isolation}"
export PROPTEST_CASES="${PROPTEST_CASES:-4}"
export PROPTEST_DISABLE_FAILURE_PERSISTENCE=1
miri=(cargo +nightly miri test -p ggufkit --target-dir target/miri)
"${miri[@]}" --lib -- --skip quant::
"${miri[@]}" --test hostile_props
"${miri[@]}" --test hostile_cases -- bad_magic versions_0_1_4 counts_of_minus_one empty_header \
  bad_key_sizes empty_and_duplicate_keys bad_value_types bool_bytes_and_utf8 over_long_names \
  too_many_dims negative_and_zero_dims dimension_products_past_int64 bad_types_and_blocks \
  bad_offsets duplicate_names data_one_byte_short memory_size_overflow \
  string_and_array_lengths_that_wrap
