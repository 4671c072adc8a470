#!/usr/bin/env bash
# Instructions per call for each load-bench contestant, under callgrind (deterministic, unlike
# CPU time on a shared machine). Each contestant runs twice with a different number of calls per
# caller; the difference over the difference in calls is the cost of one call on the client
# thread, with start-up (root certificates, client building) cancelled out.
#
#   bash bench/scripts/callgrind.sh            # all four contestants
#   bash bench/scripts/callgrind.sh 2          # remcall only
#   KEEP=/tmp/cg bash bench/scripts/callgrind.sh   # keep the profiles for callgrind_annotate
#   LOAD=/tmp/load-before bash bench/scripts/callgrind.sh 1 2   # another build of the load bench
#   CALLERS=1 bash bench/scripts/callgrind.sh 1 2   # one caller: each call's own cost
#   ARGS=--outsider bash bench/scripts/callgrind.sh 1 2 4   # the outsider's configuration
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "valgrind is not installed" >&2; exit 1; }
[ -n "${LOAD:-}" ] || CARGO_PROFILE_RELEASE_DEBUG=true cargo build --release -q -p remcall-bench --bin load
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
callers=${CALLERS:-64}
# The same number of calls in all, whatever the callers.
few=$(( 1280 / callers )) many=$(( 7680 / callers ))
names=("raw reqwest" "remcall" "reqwest-middleware + reqwest-retry" "tower stack")
which=("$@")
[ ${#which[@]} -gt 0 ] || which=(1 2 3 4)
declare -A client server
for n in "${which[@]}"; do
  for calls in $few $many; do
    rm -f "$out"/cg.$n.$calls.*
    valgrind --tool=callgrind --separate-threads=yes \
      --callgrind-out-file="$out/cg.$n.$calls.%p" \
      ${LOAD:-target/release/load} --rounds 1 --only "$n" --calls "$calls" --callers "$callers" ${ARGS:-} >/dev/null 2>&1
  done
  total() { grep '^summary' "$out"/cg.$n.$1.*-0$2 | awk '{print $2}'; }
  # Thread 1 is the client runtime (main); thread 2 the server.
  client[$n]=$(( ($(total $many 1) - $(total $few 1)) / ((many - few) * callers) ))
  server[$n]=$(( ($(total $many 2) - $(total $few 2)) / ((many - few) * callers) ))
done
echo "| contestant | client instructions/call | ×reqwest | server instructions/call |"
echo "| --- | --- | --- | --- |"
for n in "${which[@]}"; do
  ratio=""
  [ -n "${client[1]:-}" ] && ratio=$(awk "BEGIN{printf \"%.3f\", ${client[$n]}/${client[1]}}")
  echo "| ${names[$((n-1))]} | ${client[$n]} | $ratio | ${server[$n]} |"
done
[ -n "${KEEP:-}" ] || rm -rf "$out"
