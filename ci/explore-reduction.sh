#!/usr/bin/env bash
# The sleep-set reduction of `sincro explore` changes no verdict: every variant of every
# algorithm is explored with and without it (`--no-sleep-sets`) on its generated scenario,
# and wherever neither search is stopped by a bound the two must agree on the exit code,
# the first counterexample (its length and property: the search is breadth first) and the
# kinds of verdicts of the complete paths. A reduction that drops an order it should keep
# shows here as a violation, a shorter counterexample or a verdict found without it only.
#
# Usage: ci/explore-reduction.sh SINCRO_BINARY [SEED ...]   (seeds: 0 by default)
set -uo pipefail
bin=${1:?usage: ci/explore-reduction.sh SINCRO_BINARY [SEED ...]}
shift
seeds=("${@:-0}")
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# What a search says, reduced to what must not depend on the reduction: its exit code, the
# counterexample line's length and property, and the verdict kinds of its complete paths.
verdict() {
  local text=$1 code=$2
  local cex kinds
  cex=$(grep -oE 'VIOLATION after [0-9]+ choices: VIOLATION \([A-Za-z]+\): [a-z_:]+' <<<"$text" | head -1)
  kinds=$(grep -oE 'complete paths \([^)]*\)' <<<"$text" | head -1 | sed -E 's/[0-9]+ //g')
  echo "exit $code | $cex | $kinds"
}

compared=0 bounded=0 failed=0
while read -r alg variant; do
  for seed in "${seeds[@]}"; do
    args=(explore -a "$alg" --variant "$variant" --seed "$seed" --max-states 100000
          --time 120s --out "$out")
    with=$("$bin" "${args[@]}" 2>&1); with_code=$?
    without=$("$bin" "${args[@]}" --no-sleep-sets 2>&1); without_code=$?
    if grep -q 'stopped by the' <<<"$with$without"; then
      bounded=$((bounded + 1))
      continue
    fi
    compared=$((compared + 1))
    a=$(verdict "$with" "$with_code")
    b=$(verdict "$without" "$without_code")
    if [ "$a" != "$b" ]; then
      failed=$((failed + 1))
      echo "DIFFERENT: $alg / $variant, seed $seed"
      echo "  with sleep sets:    $a"
      echo "  without sleep sets: $b"
      echo "  replay: $bin ${args[*]} [--no-sleep-sets]"
    fi
  done
done < <("$bin" list | awk '/^[a-z]+\.[a-z0-9-]+  -/ { alg = $1 } /^    variant / { print alg, $2 }')

echo "explore with and without sleep sets: $compared searches compared, $failed different," \
  "$bounded left out (a bound stopped one of the two)"
if [ "$compared" -eq 0 ]; then
  echo "no search finished within its bounds: nothing was compared"
  exit 1
fi
[ "$failed" -eq 0 ]
