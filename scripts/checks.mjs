#!/usr/bin/env node
// The developer's fast checks, each part started at once beside the others so both cores stay busy:
//
//   node scripts/checks.mjs lint        eslint and prettier --check          (npm run lint)
//   node scripts/checks.mjs typecheck   tsc of the services/tests and of web (npm run typecheck)
//   node scripts/checks.mjs unit        the pure tests (jest.unit.config.cjs)
//   node scripts/checks.mjs lint typecheck unit                             (npm run check)
//
// eslint, prettier and tsc keep caches under node_modules/.cache, so a second run checks only what
// changed (a clean clone, as CI's, checks everything). Each part's output is printed whole when it
// ends, then one line per part with its time and result; exits non-zero when any part failed.
import { spawn } from 'node:child_process';

const CACHE = 'node_modules/.cache';
const PARTS = {
  lint: [
    [
      'eslint',
      ['eslint', '--cache', `--cache-location=${CACHE}/eslint/`, '--cache-strategy=content', '.'],
    ],
    [
      'prettier',
      [
        'prettier',
        '--check',
        '--cache',
        `--cache-location=${CACHE}/prettier/cache.json`,
        '--cache-strategy=content',
        '.',
      ],
    ],
  ],
  typecheck: [
    [
      'tsc',
      [
        'tsc',
        '-p',
        'tsconfig.json',
        '--noEmit',
        '--incremental',
        '--tsBuildInfoFile',
        `${CACHE}/tsc/root.tsbuildinfo`,
      ],
    ],
    [
      'tsc web',
      [
        'tsc',
        '-p',
        'web/tsconfig.json',
        '--noEmit',
        '--incremental',
        '--tsBuildInfoFile',
        `${CACHE}/tsc/web.tsbuildinfo`,
      ],
    ],
  ],
  unit: [['unit tests', ['npm', 'run', '--silent', 'test:unit']]],
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !PARTS[w]);
if (!wanted.length || unknown.length) {
  console.error(`usage: node scripts/checks.mjs ${Object.keys(PARTS).join('|')} [...]`);
  process.exit(2);
}

const startedAt = Date.now();
const secs = (from) => ((Date.now() - from) / 1000).toFixed(1);

// The parts write to pipes: colours only when this runs in a terminal (CI logs stay plain text).
const colour = { ...process.env };
if (process.stdout.isTTY) colour.FORCE_COLOR ??= '1';
else {
  delete colour.FORCE_COLOR;
  colour.NO_COLOR = '1';
}

function run([name, [cmd, ...args]]) {
  const started = Date.now();
  // eslint, prettier and tsc from node_modules/.bin; npm as it is.
  const bin = cmd === 'npm' ? 'npm' : `node_modules/.bin/${cmd}`;
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: colour,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const done = (code, why) => {
      const line = `[check] ${name}: ${code === 0 ? 'ok' : `FAILED (${why})`} in ${secs(started)} s`;
      if (out.trim()) process.stdout.write(`[check] --- ${name} ---\n${out.trimEnd()}\n`);
      console.log(line);
      resolve({ name, ok: code === 0, line });
    };
    child.once('error', (err) => done(1, err.message));
    child.once('exit', (code, signal) => done(code, signal ?? `exit ${code}`));
  });
}

const results = await Promise.all(wanted.flatMap((w) => PARTS[w]).map(run));
const failed = results.filter((r) => !r.ok);
console.log(
  `[check] ${wanted.join(' + ')}: ${failed.length ? `${failed.map((r) => r.name).join(', ')} FAILED` : 'all ok'} in ${secs(startedAt)} s`,
);
process.exit(failed.length ? 1 : 0);
