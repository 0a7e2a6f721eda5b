import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { TRANSITIONS } from '@htm/contracts/marketplace';

/**
 * #50: the job transition table is the one list of what each status change causes. The event of
 * each row is built by applyTransition (services/jobs/src/domain/job-state.ts) and nowhere else:
 * every other `createEvent(...)` in the services and packages names its event with a string
 * literal (so this check sees it), and that literal is never an event of the table.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOME = 'services/jobs/src/domain/job-state.ts';
/**
 * The tests' event builder (`testEvent`: a test publishes any event as its owner would). Only
 * tests import it: checked below.
 */
const TEST_BUILDER = 'packages/events/src/testing.ts';
const TABLE_EVENTS = new Set(Object.values(TRANSITIONS).map((t) => t.event));
const TABLE_WEBHOOKS = new Set(
  Object.values(TRANSITIONS).flatMap((t) => (t.webhook ? [t.webhook] : [])),
);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory())
      return ['node_modules', 'migrations', 'dist'].includes(name) ? [] : sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')
      ? [p]
      : [];
  });
}

interface Built {
  file: string;
  line: number;
  /** The event's name when written as a literal; undefined when computed. */
  event: string | undefined;
  /** The enclosing function's name. */
  inside: string | undefined;
}

/** Every call of createEvent in a source text. */
export function eventsBuilt(file: string, text: string): Built[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Built[] = [];
  const visit = (node: ts.Node, inside: string | undefined) => {
    let fn = inside;
    if (ts.isFunctionDeclaration(node) && node.name) fn = node.name.text;
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : undefined;
      if (name === 'createEvent') {
        const first = node.arguments[0];
        out.push({
          file,
          line: src.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          event: first && ts.isStringLiteralLike(first) ? first.text : undefined,
          inside: fn,
        });
      }
    }
    node.forEachChild((child) => visit(child, fn));
  };
  visit(src, undefined);
  return out;
}

/** What breaks the rule: a table event built outside applyTransition, or a createEvent this check cannot read. */
export function violations(built: Built[]): string[] {
  return built
    .filter((b) =>
      (b.file === HOME && b.inside === 'applyTransition') ||
      (b.file === TEST_BUILDER && b.inside === 'testEvent')
        ? false
        : b.event === undefined || TABLE_EVENTS.has(b.event as never),
    )
    .map(
      (b) =>
        `${b.file}:${b.line} ${b.event ? `builds ${b.event}` : 'builds an event whose name is not a literal'}${b.inside ? ` in ${b.inside}` : ''}`,
    );
}

/** Every string literal of a source text that names a webhook of the transition table, with its line. */
export function tableWebhooksNamed(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) && TABLE_WEBHOOKS.has(node.text as never))
      out.push(
        `${file}:${src.getLineAndCharacterOfPosition(node.getStart()).line + 1} names ${node.text}`,
      );
    node.forEachChild(visit);
  };
  visit(src);
  return out;
}

/** What a repository of the jobs service must not import: HTTP errors, the domain, the routes. */
export function repositoryImportProblems(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  for (const statement of src.statements) {
    if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
    const from = statement.moduleSpecifier;
    if (!from || !ts.isStringLiteral(from)) continue;
    const names = statement.getText(src);
    if (/^\.\.?\/(\.\.\/)*(domain|http)(\/|$)/.test(from.text))
      out.push(`${file} imports ${from.text}`);
    else if (from.text === '@htm/service-kit/errors' || /\bAppError\b/.test(names))
      out.push(`${file} imports HTTP errors (${from.text})`);
  }
  if (/\bAppError\b|\bstatusCode\b/.test(text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
    out.push(`${file} builds an HTTP error`);
  return out;
}

const repoSources = () =>
  ['services', 'packages'].flatMap((top) =>
    readdirSync(path.join(ROOT, top)).flatMap((pkg) => {
      const dir = path.join(ROOT, top, pkg, 'src');
      return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? sources(dir) : [];
    }),
  );

describe('the transition table lists every effect', () => {
  it('builds the events of the transition table in applyTransition only', () => {
    const built = repoSources().flatMap((f) =>
      eventsBuilt(path.relative(ROOT, f), readFileSync(f, 'utf8')),
    );
    expect(violations(built)).toEqual([]);
    // The check reads real code: the other events are found where they are built.
    expect(built.filter((b) => b.event === 'TesterStrikeRecorded').length).toBeGreaterThan(0);
    expect(
      built.filter((b) => b.file === HOME && b.inside === 'applyTransition').length,
    ).toBeGreaterThan(0);
  });

  it("leaves the tests' event builder to the tests: no service or package source imports it", () => {
    const importers = repoSources()
      .filter((f) => !f.endsWith(`${path.sep}testing.ts`))
      .filter((f) =>
        /from '@htm\/events\/testing'|from '\.\/testing\.js'/.test(readFileSync(f, 'utf8')),
      )
      .map((f) => path.relative(ROOT, f));
    expect(importers).toEqual([]);
    expect(existsSync(path.join(ROOT, TEST_BUILDER))).toBe(true);
  });

  it("names the table's webhooks in the table only (no copy of it in a service)", () => {
    // The transition module builds each row's effects (EVENT_DATA, WEBHOOK_DATA): it may name them.
    const named = repoSources()
      .filter((f) => f.includes(`${path.sep}services${path.sep}`) && !f.endsWith(HOME))
      .flatMap((f) => tableWebhooksNamed(path.relative(ROOT, f), readFileSync(f, 'utf8')));
    expect(named).toEqual([]);
    // The check reads real code: the table itself names them.
    expect(TABLE_WEBHOOKS.size).toBeGreaterThanOrEqual(4);
    const copy = `export const WEBHOOK_OF_EVENT = { JobClaimed: { type: 'job.claimed' } };`;
    expect(tableWebhooksNamed('services/jobs/src/domain/webhooks.ts', copy)).toEqual([
      'services/jobs/src/domain/webhooks.ts:1 names job.claimed',
    ]);
  });

  it('keeps the repositories free of HTTP errors and of domain and route types', () => {
    const dir = path.join(ROOT, 'services/jobs/src/db');
    const files = sources(dir);
    expect(files.some((f) => f.endsWith('job.repository.ts'))).toBe(true);
    expect(
      files.flatMap((f) =>
        repositoryImportProblems(path.relative(ROOT, f), readFileSync(f, 'utf8')),
      ),
    ).toEqual([]);
    const bad = [
      `import type { TesterStanding } from '../domain/job-state.js';`,
      `import { AppError } from '@htm/service-kit';`,
      `export function claim() { throw AppError.conflict('taken', 'job_taken'); }`,
    ].join('\n');
    expect(repositoryImportProblems('db/x.repository.ts', bad)).toEqual([
      'db/x.repository.ts imports ../domain/job-state.js',
      'db/x.repository.ts imports HTTP errors (@htm/service-kit)',
      'db/x.repository.ts builds an HTTP error',
    ]);
  });

  it('fails on a table event built by hand elsewhere, and on a name it cannot read', () => {
    const handBuilt = `
      import { createEvent } from '@htm/events';
      export async function acceptByHand(tx, deps, row) {
        await deps.events.record(tx, createEvent('SubmissionAccepted', row.id, { jobId: row.id }));
      }
      export function sneaky(type) { return createEvent(type, 's', {}); }
      export const fine = () => createEvent('TesterStrikeRecorded', 't', {});`;
    expect(violations(eventsBuilt('services/jobs/src/domain/bad.ts', handBuilt))).toEqual([
      'services/jobs/src/domain/bad.ts:4 builds SubmissionAccepted in acceptByHand',
      'services/jobs/src/domain/bad.ts:6 builds an event whose name is not a literal in sneaky',
    ]);
    // The same call inside job-state.ts but outside applyTransition is refused too.
    expect(
      violations(
        eventsBuilt(
          HOME,
          `export function claimByHand() { return createEvent('JobClaimed', 'j', {}); }`,
        ),
      ),
    ).toEqual([`${HOME}:1 builds JobClaimed in claimByHand`]);
  });
});
