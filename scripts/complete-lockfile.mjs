#!/usr/bin/env node
/**
 * The npm registry this project is built against serves only the Linux builds of some native
 * packages (@swc/core-*, @unrs/resolver-binding-*), so `npm install` leaves the other platforms'
 * optional packages out of package-lock.json, and `npm ci` then refuses the lock as out of sync.
 * This adds each missing optional platform package back as a lock entry with its version and
 * os/cpu (so npm skips it on other platforms, as it would have recorded). It never changes a
 * version and does nothing when the lock is complete. Run after `npm install`; .ci/run runs it.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  const libc = parts.some((p) => p.startsWith('musl'))
    ? ['musl']
    : os === 'linux' && parts.some((p) => p.startsWith('gnu'))
      ? ['glibc']
      : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

const file = process.argv[2] ?? 'package-lock.json';
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
const added = [];
for (const [key, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const at = `node_modules/${dep}`;
    if (pkgs[at] || pkgs[`${key}/node_modules/${dep}`]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue; // only exact platform binaries
    pkgs[at] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platform };
    added.push(`${dep}@${version}`);
  }
}
if (added.length) {
  lock.packages = Object.fromEntries(
    Object.entries(pkgs).sort(([a], [b]) =>
      a === '' ? -1 : b === '' ? 1 : a.localeCompare(b, 'en'),
    ),
  );
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
}
console.log(
  added.length
    ? `complete-lockfile: added ${added.length} optional platform packages: ${added.join(', ')}`
    : 'complete-lockfile: lock is complete',
);
