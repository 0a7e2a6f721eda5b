/**
 * The pre-deploy check of an independent deploy: runs the cluster with payments at this commit and
 * every other process at the previous release, then the reverse, through the whole flow
 * (test/mixed-versions/mixed-versions.test.ts). deploy/README.md, "Mixed versions".
 *
 *   npm run test:mixed-versions                 # previous release = the `release` tag, else HEAD~1
 *   npm run test:mixed-versions -- --ref=v1.4.0 # any git ref
 *   tsx scripts/mixed-versions.ts --prepare [--if-cached] [--no-install]
 *                                               # only make the previous release ready (npm test
 *                                               # does this, see scripts/test.mjs); prints its
 *                                               # folder as JSON on the last line
 *
 * The previous release's files are unpacked into a cache folder,
 * ${HTM_MIXED_CACHE:-~/.cache/htm-mixed-versions}/<sha>, and its service bundles built there once;
 * later runs against the same commit reuse them (also from another clone: CI's fresh clones on
 * this machine share it). The two most recently used releases are kept. Its node_modules are hard
 * links of this checkout's when both lock files are the same, else `npm ci` installs them.
 * Needs DATABASE_URL (PostgreSQL) and REDIS_URL like the cluster test.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg: string) => process.stdout.write(`[mixed-versions] ${msg}\n`);
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
/** Where prepared releases are kept, one folder per commit. */
export const CACHE_ROOT =
  process.env.HTM_MIXED_CACHE ?? path.join(os.homedir(), '.cache', 'htm-mixed-versions');
const KEEP = 2;

function refOf(argv: string[]): string {
  const given = argv.find((a) => a.startsWith('--ref='))?.slice('--ref='.length);
  if (given) return given;
  try {
    git('rev-parse', '--verify', '--quiet', 'release^{commit}');
    return 'release';
  } catch {
    return 'HEAD~1';
  }
}

/**
 * Hard-links node_modules (root and workspaces) from this checkout into the release's folder;
 * false when that fails (another file system).
 */
function linkNodeModules(dir: string): boolean {
  const dirs = [
    '.',
    'web',
    ...['services', 'packages'].flatMap((d) =>
      readdirSync(path.join(root, d)).map((x) => `${d}/${x}`),
    ),
  ];
  try {
    for (const d of dirs) {
      const from = path.join(root, d, 'node_modules');
      const to = path.join(dir, d, 'node_modules');
      if (existsSync(from) && !existsSync(to) && existsSync(path.join(dir, d)))
        execFileSync('cp', ['-al', from, to], { stdio: ['ignore', 'ignore', 'pipe'] });
    }
    return true;
  } catch {
    for (const d of dirs)
      rmSync(path.join(dir, d, 'node_modules'), { recursive: true, force: true });
    return false;
  }
}

export type Prepared =
  | { ready: true; dir: string; sha: string; label: string; cached: boolean }
  | { ready: false; reason: string };

/**
 * The previous release's bundles (its dist/ folder), built once per commit into CACHE_ROOT.
 * build=false: only a cached one (else not ready); install=false: not when its lock file differs
 * from this checkout's (that needs `npm ci`, minutes).
 */
export function prepare(ref: string, opts: { build?: boolean; install?: boolean } = {}): Prepared {
  let sha: string;
  try {
    sha = git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    return { ready: false, reason: `${ref} is not a commit of this clone (a shallow clone?)` };
  }
  const label = `${ref} (${sha.slice(0, 12)})`;
  const dir = path.join(CACHE_ROOT, sha.slice(0, 12));
  const marker = path.join(dir, 'dist', '.built');
  if (existsSync(marker)) {
    const now = new Date();
    utimesSync(marker, now, now); // most recently used: kept by prune()
    say(`reusing the bundles of ${label} in ${dir}/dist`);
    return { ready: true, dir: path.join(dir, 'dist'), sha, label, cached: true };
  }
  if (opts.build === false) return { ready: false, reason: `${label} is not prepared in ${dir}` };
  const theirLock = execFileSync('git', ['show', `${sha}:package-lock.json`], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const sameLock = theirLock === readFileSync(path.join(root, 'package-lock.json'), 'utf8');
  if (!sameLock && opts.install === false)
    return { ready: false, reason: `${label}'s package-lock.json differs (it needs npm ci)` };
  // Everything happens in a staging folder renamed into place at the end: a run stopped halfway
  // leaves nothing that looks prepared.
  const staging = `${dir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    // A plain copy of that commit's files (git archive): no worktree registered in the repository.
    say(`checking out ${label} into ${staging}`);
    execFileSync('sh', ['-c', `git archive --format=tar ${sha} | tar -x -C "${staging}"`], {
      cwd: root,
    });
    if (!(sameLock && linkNodeModules(staging))) {
      say(sameLock ? 'hard links failed: npm ci' : 'its package-lock.json differs: npm ci');
      const r = spawnSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
        cwd: staging,
        stdio: 'inherit',
      });
      if (r.status !== 0) throw new Error('npm ci of the previous release failed');
    }
    say('building its service bundles');
    const b = spawnSync('npx', ['tsx', 'scripts/build-services.ts'], {
      cwd: staging,
      stdio: 'inherit',
    });
    if (b.status !== 0) throw new Error('building the previous release failed');
    writeFileSync(path.join(staging, 'dist', '.built'), `${sha}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  prune();
  return { ready: true, dir: path.join(dir, 'dist'), sha, label, cached: false };
}

/** Keeps the KEEP most recently used prepared releases (and no leftovers of stopped runs). */
function prune(): void {
  const used = (d: string) => {
    try {
      return statSync(path.join(CACHE_ROOT, d, 'dist', '.built')).mtimeMs;
    } catch {
      return 0;
    }
  };
  const entries = readdirSync(CACHE_ROOT)
    .filter((d) => !d.includes('.partial-') || !existsSync(`/proc/${d.split('.partial-')[1]}`))
    .sort((a, b) => used(b) - used(a));
  for (const d of entries.filter((d) => d.includes('.partial-') || used(d) === 0))
    rmSync(path.join(CACHE_ROOT, d), { recursive: true, force: true });
  for (const d of entries.filter((d) => used(d) > 0).slice(KEEP))
    rmSync(path.join(CACHE_ROOT, d), { recursive: true, force: true });
}

function main() {
  const started = Date.now();
  const argv = process.argv.slice(2);
  const ref = refOf(argv);
  if (argv.includes('--prepare')) {
    // For scripts/test.mjs: never throws; the last line is the JSON it reads.
    let prepared: Prepared;
    try {
      prepared = prepare(ref, {
        build: !argv.includes('--if-cached'),
        install: !argv.includes('--no-install'),
      });
    } catch (err) {
      prepared = { ready: false, reason: (err as Error).message };
    }
    if (prepared.ready)
      say(`previous release ready after ${Math.round((Date.now() - started) / 1000)} s`);
    process.stdout.write(`${JSON.stringify(prepared)}\n`);
    return;
  }
  const prev = prepare(ref);
  if (!prev.ready) throw new Error(prev.reason);
  say(`previous release ready after ${Math.round((Date.now() - started) / 1000)} s`);
  const env = {
    ...process.env,
    MIXED_PREVIOUS_DIST: prev.dir,
    MIXED_PREVIOUS_REF: prev.label,
    NODE_OPTIONS:
      `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings`.trim(),
  };
  const r = spawnSync(
    'npx',
    ['jest', 'test/mixed-versions', '--maxWorkers=1', '--testTimeout=600000'],
    { cwd: root, stdio: 'inherit', env },
  );
  say(`done in ${Math.round((Date.now() - started) / 1000)} s`);
  process.exit(r.status ?? 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
