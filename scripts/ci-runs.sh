#!/usr/bin/env bash
# Runs the clean-clone CI several times in a row (issue #36: "a green run must not depend on a
# quiet machine"): each run clones the repository fresh and runs .ci/run there. With --hog N, run N
# runs while two `yes > /dev/null` processes keep both cores busy; they are started just before
# that run and stopped right after it (also when the script is interrupted).
#
#   bash scripts/ci-runs.sh [--runs 3] [--hog 3] [--from /path/or/url/of/repo]
#
# Prints one line per run (passed / failed / seconds / load average, then its phases and its ten
# slowest test files) and, at the end, the series: each run's line and the ten files slowest over
# the series (median of their times). Exits non-zero when any run failed. Each run's whole output
# and its jest.json are kept in $CI_RUNS_DIR (default /tmp/ci-runs), and a failed run's
# test-results/ (screenshots, logs) beside it.
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
  for what in '^\[ci\] phases: ' '^\[test\] ten slowest files' '^\[test\] [0-9]+ files used'; do
    grep -E "$what" "$out/run-$n.log" | tail -1 | sed 's/^/[ci-runs]   /'
  done
  [ -f "$dir/test-results/jest.json" ] && cp "$dir/test-results/jest.json" "$out/run-$n-jest.json"
  if [ "$rc" != 0 ]; then
    failed=1
    # What a failed run's tests left (screenshots, cluster logs) outlives its clone.
    [ -d "$dir/test-results" ] && cp -r "$dir/test-results" "$out/run-$n-test-results"
  fi
  rm -rf "$dir"
done
echo "[ci-runs] summary:"
printf '  %s\n' "${summary[@]}"
# The files slowest over the series: the median of each file's time in the runs that ran it.
node -e '
  const fs = require("fs");
  const times = new Map();
  for (const f of process.argv.slice(1)) {
    if (!fs.existsSync(f)) continue;
    for (const t of JSON.parse(fs.readFileSync(f, "utf8")).testResults) {
      if (!t.startTime || !t.endTime) continue;
      const name = t.name.replace(/^.*?\/(?=(test|web|services|packages|deploy)\/)/, "");
      times.set(name, [...(times.get(name) ?? []), (t.endTime - t.startTime) / 1000]);
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
  const top = [...times].map(([f, a]) => [f, median(a), a]).sort((x, y) => y[1] - x[1]).slice(0, 10);
  if (top.length) console.log("[ci-runs] slowest files over the series (median s; each run):");
  for (const [f, m, a] of top) console.log(`  ${f} ${m.toFixed(0)} (${a.map((s) => s.toFixed(0)).join(", ")})`);
' $(seq -f "$out/run-%g-jest.json" 1 "$runs") || true
exit $failed
