/**
 * The pre-deploy check of an independent deploy: runs the cluster with payments at this commit and
 * every other process at the previous release, then the reverse, through the whole flow
 * (test/mixed-versions/mixed-versions.test.ts). deploy/README.md, "Mixed versions".
 *
 *   npm run test:mixed-versions                 # previous release = the `release` tag, else HEAD~1
 *   npm run test:mixed-versions -- --ref=v1.4.0 # any git ref
 *
 * The previous release's files are unpacked into a temporary folder ($TMPDIR/htm-release-<sha>) and its
 * service bundles built there once; later runs against the same commit reuse them (the cache).
 * Its node_modules are hard links of this checkout's when both lock files are the same, else
 * `npm ci` installs them. Needs DATABASE_URL (PostgreSQL) and REDIS_URL like the cluster test.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg: string) => process.stdout.write(`[mixed-versions] ${msg}\n`);
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

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

/** Hard-links node_modules (root and workspaces) from this checkout into the worktree. */
function linkNodeModules(dir: string): void {
  const dirs = [
    '.',
    'web',
    ...['services', 'packages'].flatMap((d) =>
      readdirSync(path.join(root, d)).map((x) => `${d}/${x}`),
    ),
  ];
  for (const d of dirs) {
    const from = path.join(root, d, 'node_modules');
    const to = path.join(dir, d, 'node_modules');
    if (existsSync(from) && !existsSync(to) && existsSync(path.join(dir, d)))
      execFileSync('cp', ['-al', from, to]);
  }
}

/** The previous release's bundles (built once per commit): the dist/ folder. */
export function previousBundles(ref: string): { dir: string; sha: string } {
  const sha = git('rev-parse', `${ref}^{commit}`);
  const dir = path.join(os.tmpdir(), `htm-release-${sha.slice(0, 12)}`);
  const marker = path.join(dir, 'dist', '.built');
  if (existsSync(marker)) {
    say(`reusing the bundles of ${ref} (${sha.slice(0, 12)}) in ${dir}/dist`);
    return { dir: path.join(dir, 'dist'), sha };
  }
  if (!existsSync(path.join(dir, 'package.json'))) {
    // A plain copy of that commit's files (git archive): no worktree registered in the repository.
    say(`checking out ${ref} (${sha.slice(0, 12)}) into ${dir}`);
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive --format=tar ${sha} | tar -x -C "${dir}"`], {
      cwd: root,
    });
  }
  const sameLock =
    readFileSync(path.join(root, 'package-lock.json'), 'utf8') ===
    readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
  if (sameLock) linkNodeModules(dir);
  else {
    say('its package-lock.json differs: npm ci');
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('npm ci of the previous release failed');
  }
  say('building its service bundles');
  const b = spawnSync('npx', ['tsx', 'scripts/build-services.ts'], { cwd: dir, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('building the previous release failed');
  writeFileSync(marker, `${sha}\n`);
  return { dir: path.join(dir, 'dist'), sha };
}

function main() {
  const started = Date.now();
  const ref = refOf(process.argv.slice(2));
  const prev = previousBundles(ref);
  say(`previous release ready after ${Math.round((Date.now() - started) / 1000)} s`);
  const env = {
    ...process.env,
    MIXED_PREVIOUS_DIST: prev.dir,
    MIXED_PREVIOUS_REF: `${ref} (${prev.sha.slice(0, 12)})`,
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
