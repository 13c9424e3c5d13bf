#!/usr/bin/env bash
# Every output of the `gguf` commands that read a file, from two builds, compared byte for byte on
# a folder of GGUF files (default ../shared/corpus): stdout, stderr and the exit code of info,
# dump, validate, audit, layout, tensors, hash and recipe in every form, and the files `meta set`
# writes (a well-known key and a new key of each kind). Prints one line per difference and a
# count; exits 1 when anything differs.
#
#   scripts/compare_outputs.sh OLD_GGUF NEW_GGUF [DIR]
set -uo pipefail
old=${1:?usage: compare_outputs.sh OLD_GGUF NEW_GGUF [DIR]}
new=${2:?usage: compare_outputs.sh OLD_GGUF NEW_GGUF [DIR]}
dir=${3:-$(dirname "$0")/../../shared/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

commands=(
  "info" "info --json" "info --context 4096 --json"
  "dump" "dump --json" "dump --markdown"
  "validate" "validate --json"
  "audit" "audit --json" "audit --sarif" "audit --severity note"
  "layout" "layout --json"
  "tensors" "tensors --json"
  "hash" "recipe"
)
# meta set: a well-known key (its type from the table), new keys typed by their text
sets=(
  "general.alignment 64" "general.name renamed" "tokenizer.ggml.bos_token_id 7"
  "x.new.int 42" "x.new.float 1.5" "x.new.bool true" "x.new.text hello" "x.new.array [1,2,3]"
  "x.new.strings [\"a\",\"b\"]"
)
files=0
diffs=0
run() { # bin out args...
  local bin=$1 out=$2
  shift 2
  "$bin" "$@" >"$out.stdout" 2>"$out.stderr"
  echo $? >"$out.rc"
}
while IFS= read -r -d '' f; do
  files=$((files + 1))
  for c in "${commands[@]}"; do
    # shellcheck disable=SC2086
    run "$old" "$work/old" $c "$f"
    # shellcheck disable=SC2086
    run "$new" "$work/new" $c "$f"
    for part in stdout stderr rc; do
      if ! cmp -s "$work/old.$part" "$work/new.$part"; then
        echo "DIFF $part: gguf $c $f"
        diffs=$((diffs + 1))
      fi
    done
  done
  for s in "${sets[@]}"; do
    key=${s%% *}
    value=${s#* }
    run "$old" "$work/old" meta set -o "$work/old.gguf" "$f" "$key" "$value"
    run "$new" "$work/new" meta set -o "$work/new.gguf" "$f" "$key" "$value"
    for part in stdout stderr rc; do
      sed -i "s#$work/old#WORK#g; s#$work/new#WORK#g" "$work/old.$part" "$work/new.$part"
      if ! cmp -s "$work/old.$part" "$work/new.$part"; then
        echo "DIFF $part: gguf meta set $key $value $f"
        diffs=$((diffs + 1))
      fi
    done
    if [ -e "$work/old.gguf" ] || [ -e "$work/new.gguf" ]; then
      if ! cmp -s "$work/old.gguf" "$work/new.gguf"; then
        echo "DIFF written file: gguf meta set $key $value $f"
        diffs=$((diffs + 1))
      fi
    fi
    rm -f "$work/old.gguf" "$work/new.gguf"
  done
done < <(find "$dir" -name '*.gguf' -print0 | sort -z)
echo "compared ${#commands[@]} commands and ${#sets[@]} meta sets on $files files: $diffs differences"
[ "$diffs" -eq 0 ]
