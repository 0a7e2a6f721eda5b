import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * #18: no import circle inside any service, package or the web app (type-only imports included:
 * a circle of types is still two files that cannot be read one without the other).
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory())
      return name === 'node_modules' || name === 'migrations' ? [] : sources(p);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')
      ? [p]
      : [];
  });
}

function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec).replace(/\.js$/, '');
  return [
    `${base}.ts`,
    `${base}.tsx`,
    path.join(base, 'index.ts'),
    path.join(base, 'index.tsx'),
  ].find((p) => existsSync(p));
}

/** Every circle in the relative-import graph of `dir`, each as the list of files around it. */
export function importCircles(dir: string): string[][] {
  const graph = new Map<string, string[]>();
  for (const file of sources(dir)) {
    const text = readFileSync(file, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(file, m[1] ?? m[2]);
      if (target) deps.push(target);
    }
    graph.set(file, deps);
  }
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of graph.get(f) ?? []) {
      if (state.get(d) === 'open')
        circles.push(stack.slice(stack.indexOf(d)).map((x) => path.relative(ROOT, x)));
      else if (!state.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return circles;
}

const roots = [
  ...readdirSync(path.join(ROOT, 'services')).map((s) => `services/${s}/src`),
  ...readdirSync(path.join(ROOT, 'packages')).map((p) => `packages/${p}/src`),
  'web/src',
].filter((d) => existsSync(path.join(ROOT, d)));

describe('the import graph', () => {
  it.each(roots)('has no circle in %s', (dir) => {
    expect(importCircles(path.join(ROOT, dir))).toEqual([]);
  });

  it('finds a circle when there is one (two files importing each other)', () => {
    const fixture = path.join(ROOT, 'test/fixtures/import-circle');
    expect(importCircles(fixture)).toEqual([
      ['test/fixtures/import-circle/a.ts', 'test/fixtures/import-circle/b.ts'],
    ]);
  });
});
