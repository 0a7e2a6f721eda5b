/**
 * Benches run alone (live-scale, event-pipeline, soak) write their figures into bench/RESULTS.md
 * between markers of their own, with the machine's load and the commit, replacing their previous
 * section; `npm run bench` (run.ts) keeps these sections when it rewrites the file.
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { figures, notes } from './support.js';

export const RESULTS = fileURLToPath(new URL('./RESULTS.md', import.meta.url));

const sh = (c: string) => {
  try {
    return execSync(c, { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

const begin = (name: string) => `<!-- alone:${name} -->`;
const end = (name: string) => `<!-- /alone:${name} -->`;

/** Every section written by a bench run alone, markers included (for run.ts to keep). */
export function aloneSections(md: string): string[] {
  return [...md.matchAll(/<!-- alone:([\w-]+) -->[\s\S]*?<!-- \/alone:\1 -->/g)].map((m) => m[0]);
}

/** Writes (or replaces) the section of `name` with this process's figures and notes. */
export function writeAloneSection(
  name: string,
  started: Date,
  intro = '',
  extra = '',
  section = name,
  command = `npx tsx bench/${name}.ts`,
): void {
  const rows = figures
    .filter((f) => f.bench === name)
    .map(
      (f) =>
        `| ${f.name} | ${f.value} | ${f.target ? `${f.target} ${f.ok ? '(met)' : '(**not met**)'}` : ''} |`,
    );
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  const text = [
    begin(section),
    `### ${section} (run alone: \`${command}\`)`,
    '',
    `${started.toISOString()}, took ${Math.round((Date.now() - started.getTime()) / 1000)} s, git ${sh('git rev-parse --short HEAD')}, ${os.cpus().length} cores, load average at the end ${load}.`,
    intro ? `\n${intro}\n` : '',
    '| figure | value | target |',
    '|---|---|---|',
    ...rows,
    ...notes
      .filter((n) => n.bench === name)
      .map((n) => `\n${n.title}:\n\n\`\`\`\n${n.text}\n\`\`\``),
    extra ? `\n${extra}` : '',
    end(section),
  ].join('\n');
  const md = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '# Benchmark results\n';
  const re = new RegExp(`${begin(section)}[\\s\\S]*?${end(section).replace(/[/]/g, '\\/')}`);
  writeFileSync(RESULTS, re.test(md) ? md.replace(re, () => text) : `${md.trimEnd()}\n\n${text}\n`);
  console.log(`${name}: figures written to ${RESULTS}`);
}
