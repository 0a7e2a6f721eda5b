// Jest's test order for `npm test`: longest test files first, so the workers of a run finish
// together instead of one worker starting the slowest file (the cluster, a browser file) last.
//
// Jest's own sequencer already sorts by the last run's durations, but it keys them by absolute path
// in its cache folder (under /tmp, keyed by the checkout's folder): CI's fresh clone in a new folder
// never finds them and falls back to file size, a poor guide here (a short file that starts the
// whole product outlasts a long file of pure unit tests). This one keys durations by the path
// inside the repository and reads, newest first:
//   1. $HTM_TEST_CACHE/durations.json (default ~/.cache/htm-jest): what the last runs on this
//      machine measured (written after every run, per file that ran and did not fail early);
//   2. test/durations.json (committed): one full run's figures, for a machine's first run (taken
//      at load 20-40 beside other work, browser files halved for their PostgreSQL products since:
//      only the order they give matters).
// A file found in neither (a new test) counts as slow (60 s): a new file often starts a product,
// and starting it early costs nothing when it is quick after all.
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS module, as jest.config.cjs */
const Sequencer = require('@jest/test-sequencer').default;
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
/* eslint-enable @typescript-eslint/no-require-imports */

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE_DIR = process.env.HTM_TEST_CACHE || path.join(os.homedir(), '.cache', 'htm-jest');
const CACHE_FILE = path.join(CACHE_DIR, 'durations.json');
const COMMITTED = path.join(ROOT, 'test', 'durations.json');
const UNKNOWN_MS = 60_000;

const rel = (p) => path.relative(ROOT, p).split(path.sep).join('/');
const readJson = (file) => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
};

class DurationSequencer extends Sequencer {
  durations() {
    return (this._durations ??= { ...readJson(COMMITTED), ...readJson(CACHE_FILE) });
  }

  sort(tests) {
    const known = this.durations();
    const ms = (t) => known[rel(t.path)] ?? UNKNOWN_MS;
    // Jest reads test.duration too (a few fast files run in band): only what was measured.
    for (const t of tests) t.duration = known[rel(t.path)];
    return [...tests].sort((a, b) => ms(b) - ms(a) || (a.path < b.path ? -1 : 1));
  }

  cacheResults(tests, results) {
    super.cacheResults(tests, results);
    const next = readJson(CACHE_FILE);
    for (const r of results.testResults) {
      if (r.skipped || r.testExecError) continue;
      const ms = r.perfStats.runtime ?? r.perfStats.end - r.perfStats.start;
      if (ms > 0) next[rel(r.testFilePath)] = Math.round(ms);
    }
    try {
      fs.mkdirSync(CACHE_DIR, { recursive: true });
      const tmp = `${CACHE_FILE}.${process.pid}`;
      fs.writeFileSync(tmp, `${JSON.stringify(sortKeys(next), null, 1)}\n`);
      fs.renameSync(tmp, CACHE_FILE);
    } catch {
      /* a read-only home: the order only falls back to test/durations.json */
    }
  }
}

function sortKeys(o) {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}

module.exports = DurationSequencer;
