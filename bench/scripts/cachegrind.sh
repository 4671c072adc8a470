#!/usr/bin/env bash
# Estimated cycles per call for each load-bench contestant, from cachegrind's cache simulation:
# instructions count, but so do the cache misses they cause, which instruction counts miss and
# these VMs cannot count in hardware. Each contestant runs twice with a different number of calls
# per caller; the difference over the difference in calls is one call's cost, start-up cancelled.
# Cachegrind sums every thread, so each figure holds the server's work for the call too (the same
# request for every contestant; callgrind.sh puts it at about 20,300 instructions).
#
# The estimate is the usual one: Ir + 10 × L1 misses + 100 × last-level misses.
#
#   bash bench/scripts/cachegrind.sh            # all four contestants
#   bash bench/scripts/cachegrind.sh 1 2        # raw reqwest and remcall
#   ARGS=--outsider bash bench/scripts/cachegrind.sh 1 2 4   # the outsider's configuration
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
cargo build --release -q -p remcall-bench --bin load
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
callers=${CALLERS:-64}
# The same number of calls in all, whatever the callers (CALLERS=1: each call's own cost).
few=$(( 1280 / callers )) many=$(( 7680 / callers ))
names=("raw reqwest" "remcall" "reqwest-middleware + reqwest-retry" "tower stack")
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(1 2 3 4)
declare -A ir l1 ll cycles
for n in "${which[@]}"; do
  for calls in $few $many; do
    valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$out/cg.$n.$calls" \
      target/release/load --rounds 1 --only "$n" --calls "$calls" --callers "$callers" ${ARGS:-} >/dev/null 2>&1
  done
  # The summary line's events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw.
  per_call() {
    paste <(grep '^summary' "$out/cg.$n.$many" | cut -d' ' -f2-| tr ' ' '\n') \
          <(grep '^summary' "$out/cg.$n.$few" | cut -d' ' -f2- | tr ' ' '\n') |
      awk -v calls=$(( (many - few) * callers )) '{ printf "%.1f\n", ($1 - $2) / calls }'
  }
  mapfile -t e < <(per_call)
  ir[$n]=${e[0]}
  l1[$n]=$(awk "BEGIN{print ${e[1]} + ${e[4]} + ${e[7]}}")
  ll[$n]=$(awk "BEGIN{print ${e[2]} + ${e[5]} + ${e[8]}}")
  cycles[$n]=$(awk "BEGIN{printf \"%.0f\", ${ir[$n]} + 10 * ${l1[$n]} + 100 * ${ll[$n]}}")
done
echo "| contestant | instructions/call | L1 misses/call | LL misses/call | est. cycles/call | ×reqwest |"
echo "| --- | --- | --- | --- | --- | --- |"
for n in "${which[@]}"; do
  ratio=""
  [ -n "${cycles[1]:-}" ] && ratio=$(awk "BEGIN{printf \"%.3f\", ${cycles[$n]}/${cycles[1]}}")
  echo "| ${names[$((n-1))]} | ${ir[$n]} | ${l1[$n]} | ${ll[$n]} | ${cycles[$n]} | $ratio |"
done
