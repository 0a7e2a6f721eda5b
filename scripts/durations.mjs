#!/usr/bin/env node
// Writes test/durations.json (the committed per-file times the jest sequencer orders a machine's
// first run by, test/support/sequencer.cjs) from the jest.json of whole-suite runs:
//
//   node scripts/durations.mjs /tmp/ci-runs/run-1-jest.json [/tmp/ci-runs/run-2-jest.json ...]
//
// Each file gets the median of its times in the runs given (milliseconds); a file that failed to
// run in every run keeps its old figure. Take the runs of a clean-clone CI series on a quiet
// machine (scripts/ci-runs.sh keeps each run's jest.json): figures taken beside other work put the
// files in another order than CI sees.
import { readFileSync, writeFileSync } from 'node:fs';

const runs = process.argv.slice(2);
if (!runs.length) {
  console.error('usage: node scripts/durations.mjs <jest.json> [<jest.json> ...]');
  process.exit(2);
}
const file = 'test/durations.json';
const old = JSON.parse(readFileSync(file, 'utf8'));
const times = new Map();
for (const run of runs) {
  for (const t of JSON.parse(readFileSync(run, 'utf8')).testResults) {
    if (!t.startTime || !t.endTime || t.testExecError) continue;
    const rel = t.name.replace(/^.*?\/(?=(test|web|services|packages|deploy)\/)/, '');
    times.set(rel, [...(times.get(rel) ?? []), t.endTime - t.startTime]);
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor((a.length - 1) / 2)];
const next = { ...old };
for (const [rel, a] of times) next[rel] = Math.round(median(a));
const sorted = Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(file, `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`${file}: ${times.size} files from ${runs.length} run(s)`);
