import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * #50 part 3: each service's README draws its src/ tree and traces its main behaviours file by
 * file. This holds both to the code: every source file is named in its folder's part of the tree
 * and every file named there exists; a trace's steps each open one file that exists, and the
 * count in its heading is the number of files its steps open. The traces the issue sets targets
 * for stay within them.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = readdirSync(path.join(ROOT, 'services')).filter((s) =>
  existsSync(path.join(ROOT, 'services', s, 'README.md')),
);
const readme = (service: string) =>
  readFileSync(path.join(ROOT, 'services', service, 'README.md'), 'utf8');

/** Source files under src/, relative to it: no tests, no migrations, no data files. */
function sourceFiles(dir: string, rel = ''): string[] {
  return readdirSync(path.join(dir, rel)).flatMap((name) => {
    const p = rel ? `${rel}/${name}` : name;
    if (statSync(path.join(dir, p)).isDirectory())
      return name === 'migrations' ? [] : sourceFiles(dir, p);
    return /\.(ts|tsx|mjs|js)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

/** File names in a piece of text: `jobs.routes.ts`, `review/accept.ts`, `src/providers/x.ts`. */
const FILE_NAME = /(?<![\w*./@-])((?:[\w-]+\/)*[\w.-]*[\w-]\.(?:ts|tsx|mjs|js))(?![\w/])/g;

interface Tree {
  /** Files named in each part of the tree, resolved to paths under src/. */
  named: Map<string, Set<string>>;
}

/** The fenced block that starts with `src/`: its entries (2 spaces in) and what each part names. */
export function parseTree(text: string): Tree | undefined {
  const block = text.match(/^```\n(src\/\n[\s\S]*?)^```/m)?.[1];
  if (!block) return undefined;
  const named = new Map<string, Set<string>>();
  let part = '';
  for (const line of block.split('\n').slice(1)) {
    const entry = line.match(/^ {2}(\S+)(.*)$/);
    let rest = line;
    if (entry) {
      const [, name, after] = entry;
      part = name.endsWith('/') ? name : '';
      if (!part) named.set(name, new Set([name]));
      rest = after;
    }
    const names = named.get(part) ?? new Set<string>();
    named.set(part, names);
    for (const [, file] of rest.matchAll(FILE_NAME)) {
      if (/^(services|packages|web|test|bench|scripts)\//.test(file)) continue;
      names.add(file.startsWith('src/') ? file.slice(4) : `${part}${file}`);
    }
  }
  return { named };
}

/** Where each source file should be named: its top folder's part, or its own entry at the top. */
const partOf = (file: string) => (file.includes('/') ? `${file.split('/')[0]}/` : file);

export function treeProblems(text: string, files: string[], exists: (f: string) => boolean) {
  const tree = parseTree(text);
  if (!tree) return ['no src/ tree'];
  const problems: string[] = [];
  for (const file of files)
    if (!tree.named.get(partOf(file))?.has(file)) problems.push(`${file} is not named in the tree`);
  for (const names of tree.named.values())
    for (const name of names)
      if (!exists(name)) problems.push(`${name} is named in the tree but is not a file`);
  return problems;
}

export interface Trace {
  title: string;
  /** The count its heading states. */
  stated: number;
  /** The file each step opens, in order (repeats removed). */
  files: string[];
  problems: string[];
}

/** Every `### Tracing "..." (N files ...)` section: numbered steps, each opening with its file in backticks. */
export function parseTraces(text: string): Trace[] {
  const traces: Trace[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const head = line.match(/^#{2,4} Tracing "([^"]+)" \((\d+) files?\b/);
    if (!head) return;
    const trace: Trace = { title: head[1], stated: Number(head[2]), files: [], problems: [] };
    for (const step of lines.slice(i + 1)) {
      if (/^#/.test(step)) break;
      const numbered = step.match(/^(\d+)\. (.*)$/);
      if (!numbered) continue;
      const file = numbered[2].match(/^`([^`]+\.(?:ts|tsx|mjs|js))`/)?.[1];
      if (!file) trace.problems.push(`step ${numbered[1]} does not open with a file`);
      else if (!trace.files.includes(file)) trace.files.push(file);
    }
    if (trace.files.length !== trace.stated)
      trace.problems.push(`says ${trace.stated} files, its steps open ${trace.files.length}`);
    traces.push(trace);
  });
  return traces;
}

/** A trace's file from the service's folder (`src/...`) or from the repository's root. */
const tracePath = (service: string, file: string) =>
  file.startsWith('src/') ? path.join(ROOT, 'services', service, file) : path.join(ROOT, file);

/** The targets: files to open, end to end, for four behaviours of the jobs service. */
const TARGETS: { service: string; title: RegExp; max: number }[] = [
  { service: 'jobs', title: /claims a job/, max: 10 },
  { service: 'jobs', title: /acceptance becomes the tester's earning/, max: 12 },
  { service: 'jobs', title: /auto-accept/, max: 8 },
  { service: 'jobs', title: /webhook/, max: 8 },
];

describe('service READMEs', () => {
  it.each(SERVICES)('%s: the tree names every source file, and only files that exist', (s) => {
    const src = path.join(ROOT, 'services', s, 'src');
    const exists = (f: string) =>
      existsSync(path.join(src, f)) && statSync(path.join(src, f)).isFile();
    expect(treeProblems(readme(s), sourceFiles(src), exists)).toEqual([]);
  });

  it.each(SERVICES)('%s: every trace opens the files it counts, and they exist', (s) => {
    const traces = parseTraces(readme(s));
    expect(traces.length).toBeGreaterThan(0);
    const problems = traces.flatMap((t) => [
      ...t.problems.map((p) => `"${t.title}": ${p}`),
      ...t.files
        .filter((f) => !existsSync(tracePath(s, f)))
        .map((f) => `"${t.title}": ${f} does not exist`),
    ]);
    expect(problems).toEqual([]);
  });

  it.each(TARGETS)('$service: the trace matching $title opens at most $max files', (target) => {
    const matching = parseTraces(readme(target.service)).filter((t) => target.title.test(t.title));
    expect(matching.map((t) => t.title)).toHaveLength(1);
    expect(matching[0].files.length).toBeLessThanOrEqual(target.max);
  });

  it('finds what is missing, stale or miscounted', () => {
    const text = [
      '```',
      'src/',
      '  main.ts          the process',
      '  http/            jobs.routes.ts (see src/domain/gone.ts), views.ts',
      '  domain/          claim-job.ts, review/accept.ts; db/*.repository.ts is elsewhere',
      '```',
      '### Tracing "a thing" (3 files from here to there)',
      '1. `src/http/jobs.routes.ts`: the route.',
      '2. `src/domain/claim-job.ts`: the use case, then `src/http/jobs.routes.ts` again.',
      '3. `src/http/jobs.routes.ts`: the answer.',
      '4. the database.',
    ].join('\n');
    const files = ['main.ts', 'http/jobs.routes.ts', 'domain/claim-job.ts', 'domain/new.ts'];
    const exists = (f: string) => [...files, 'domain/review/accept.ts'].includes(f);
    expect(treeProblems(text, files, exists)).toEqual([
      'domain/new.ts is not named in the tree',
      'domain/gone.ts is named in the tree but is not a file',
      'http/views.ts is named in the tree but is not a file',
    ]);
    expect(parseTraces(text)).toEqual([
      {
        title: 'a thing',
        stated: 3,
        files: ['src/http/jobs.routes.ts', 'src/domain/claim-job.ts'],
        problems: ['step 4 does not open with a file', 'says 3 files, its steps open 2'],
      },
    ]);
  });
});
