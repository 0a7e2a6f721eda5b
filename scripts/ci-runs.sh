#!/usr/bin/env bash
# Runs the clean-clone CI several times in a row (issue #36: "a green run must not depend on a
# quiet machine"): each run clones the repository fresh and runs .ci/run there. With --hog N, run N
# runs while two `yes > /dev/null` processes keep both cores busy; they are started just before
# that run and stopped right after it (also when the script is interrupted).
#
#   bash scripts/ci-runs.sh [--runs 3] [--hog 3] [--from /path/or/url/of/repo]
#
# Prints one line per run (passed / failed / seconds / load average) and exits non-zero when any
# run failed. Each run's whole output is kept in $CI_RUNS_DIR (default /tmp/ci-runs), and a failed
# run's test-results/ (screenshots, logs) beside it.
set -uo pipefail
runs=3
hog=0
from="$(cd "$(dirname "$0")/.." && pwd)"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --hog) hog=$2; shift 2 ;;
    --from) from=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
out=${CI_RUNS_DIR:-/tmp/ci-runs}
mkdir -p "$out"
hogs=()
stop_hogs() {
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
  hogs=()
}
trap stop_hogs EXIT INT TERM

failed=0
summary=()
for n in $(seq 1 "$runs"); do
  dir=$(mktemp -d /tmp/ci-clone-XXXXXX)
  git clone -q "$from" "$dir"
  rev=$(git -C "$dir" rev-parse --short HEAD)
  if [ "$n" = "$hog" ]; then
    for _ in 1 2; do yes >/dev/null & hogs+=($!); done
    note="under two 'yes' CPU hogs"
  else
    note="machine as it is"
  fi
  echo "[ci-runs] run $n of $runs at $rev ($note), log $out/run-$n.log"
  started=$(date +%s)
  (cd "$dir" && bash .ci/run) >"$out/run-$n.log" 2>&1
  rc=$?
  took=$(($(date +%s) - started))
  stop_hogs
  totals=$(tail -1 "$out/run-$n.log")
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  line="run $n ($note): $totals, exit $rc, ${took} s, load at the end $load"
  echo "[ci-runs] $line"
  summary+=("$line")
  if [ "$rc" != 0 ]; then
    failed=1
    # What a failed run's tests left (screenshots, cluster logs) outlives its clone.
    [ -d "$dir/test-results" ] && cp -r "$dir/test-results" "$out/run-$n-test-results"
  fi
  rm -rf "$dir"
done
echo "[ci-runs] summary:"
printf '  %s\n' "${summary[@]}"
exit $failed
