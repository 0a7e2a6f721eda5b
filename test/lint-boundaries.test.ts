/**
 * The import boundaries in eslint.config.js (issue #18): `npm run lint` fails when a service
 * imports another service, when a web feature imports another feature, when the shared web
 * folders import a feature, when a service file other than main.ts imports app.ts, and when a
 * service's domain code imports drizzle-orm, express, a provider SDK, a driver, a queue or http/,
 * and when the bench or a root test reaches past a service's entry and ./testing.
 * Each rule is shown failing on a deliberate bad import (and staying
 * quiet on the good imports next to it), through ESLint's Node API with the repository's config.
 */
import { describe, expect, it } from '@jest/globals';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('..', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The no-restricted-imports messages ESLint reports for `import { x } from '<source>'` in filePath. */
async function boundaryErrors(filePath: string, source: string): Promise<string[]> {
  const code = `import { x } from '${source}';\nexport { x };\n`;
  const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('service boundaries', () => {
  it('refuses a service importing another service by package name', async () => {
    const errors = await boundaryErrors('services/jobs/src/domain/bad.ts', '@htm/payments');
    expect(errors).toEqual([expect.stringContaining('A service must not import another service')]);
    expect(
      await boundaryErrors('services/admin/src/http/bad.ts', '@htm/identity/testing'),
    ).toHaveLength(1);
  });

  it('refuses a service reaching into another service by relative path', async () => {
    expect(
      await boundaryErrors(
        'services/jobs/src/domain/bad.ts',
        '../../../payments/src/domain/earnings.js',
      ),
    ).toEqual([expect.stringContaining('A service must not import another service')]);
    expect(
      await boundaryErrors('services/jobs/test/bad.test.ts', '../../identity/src/testing.js'),
    ).toHaveLength(1);
  });

  it('refuses app.ts imported anywhere in a service but main.ts (the Deps type lives in deps.ts)', async () => {
    expect(await boundaryErrors('services/payments/src/domain/bad.ts', '../app.js')).toEqual([
      expect.stringContaining('Only main.ts imports app.ts'),
    ]);
    expect(await boundaryErrors('services/admin/src/bad.ts', './app.js')).toHaveLength(1);
    expect(await boundaryErrors('services/payments/src/main.ts', './app.js')).toEqual([]);
    expect(await boundaryErrors('services/payments/src/domain/good.ts', '../deps.js')).toEqual([]);
  });

  it('lets a service import its own files and the shared packages', async () => {
    expect(
      await boundaryErrors('services/jobs/src/domain/good.ts', '../db/job.repository.js'),
    ).toEqual([]);
    expect(await boundaryErrors('services/jobs/src/domain/good.ts', '@htm/contracts')).toEqual([]);
    expect(await boundaryErrors('services/jobs/src/domain/good.ts', '@htm/service-kit')).toEqual(
      [],
    );
  });
});

describe('domain boundaries', () => {
  /** Every no-restricted-imports message ESLint reports for `code` in filePath. */
  async function errorsIn(filePath: string, code: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: `${root}${filePath}` });
    return result!.messages
      .filter((m) => m.ruleId === 'no-restricted-imports')
      .map((m) => m.message);
  }

  it('refuses a domain file importing drizzle-orm and express', async () => {
    const code = [
      "import { and, eq } from 'drizzle-orm';",
      "import type { Request } from 'express';",
      'export const bad = (req: Request) => and(eq(req.body, 1));',
      '',
    ].join('\n');
    const errors = await errorsIn('services/admin/src/domain/bad.ts', code);
    expect(errors).toEqual([
      expect.stringMatching(/^'drizzle-orm' import is restricted.*Domain code is pure rules/),
      expect.stringMatching(/^'express' import is restricted.*Domain code is pure rules/),
    ]);
  });

  it('refuses drizzle subpaths, provider SDKs, drivers, queues, http/ and app.ts in domain code', async () => {
    for (const source of [
      'drizzle-orm/pg-core',
      'stripe',
      'sharp',
      '@octokit/rest',
      'jira.js',
      'pg',
      'ioredis',
      'bullmq',
      'express',
    ]) {
      expect([source, await boundaryErrors('services/jobs/src/domain/bad.ts', source)]).toEqual([
        source,
        [expect.stringContaining('Domain code is pure rules')],
      ]);
    }
    expect(await boundaryErrors('services/admin/src/domain/bad.ts', '../http/views.js')).toEqual([
      expect.stringContaining('Domain code must not import http/'),
    ]);
    expect(
      await boundaryErrors('services/admin/src/domain/nested/bad.ts', '../../http/views.js'),
    ).toHaveLength(1);
    // The service and app.ts rules still hold in domain files.
    expect(await boundaryErrors('services/admin/src/domain/bad.ts', '../app.js')).toEqual([
      expect.stringContaining('Only main.ts imports app.ts'),
    ]);
    expect(await boundaryErrors('services/admin/src/domain/bad.ts', '@htm/jobs')).toEqual([
      expect.stringContaining('A service must not import another service'),
    ]);
  });

  it('lets domain code call its repositories, its own rules and the shared packages', async () => {
    expect(
      await boundaryErrors('services/admin/src/domain/good.ts', '../db/waitlist.repository.js'),
    ).toEqual([]);
    expect(await boundaryErrors('services/admin/src/domain/good.ts', './csv-cell.js')).toEqual([]);
    expect(await boundaryErrors('services/admin/src/domain/good.ts', '@htm/contracts')).toEqual([]);
    expect(await boundaryErrors('services/admin/src/domain/good.ts', '@htm/events')).toEqual([]);
    // drizzle is fine outside domain/: the repositories are where SQL lives.
    expect(await boundaryErrors('services/admin/src/db/good.repository.ts', 'drizzle-orm')).toEqual(
      [],
    );
    expect(await boundaryErrors('services/admin/src/http/good.routes.ts', 'express')).toEqual([]);
  });
});

describe('bench and root tests', () => {
  it('refuse a deep import of a service: only its entry and ./testing are public', async () => {
    expect(
      await boundaryErrors('bench/bad.ts', '../services/jobs/src/db/job.repository.js'),
    ).toEqual([expect.stringContaining('Import a service through its entry')]);
    expect(
      await boundaryErrors('test/resilience/bad.test.ts', '@htm/payments/providers/local.provider'),
    ).toHaveLength(1);
    expect(
      await boundaryErrors('test/bad.test.ts', '../services/notifications/test/support.js'),
    ).toHaveLength(1);
  });

  it('let them import a service entry and its testing entry', async () => {
    expect(await boundaryErrors('bench/good.ts', '@htm/jobs/testing')).toEqual([]);
    expect(await boundaryErrors('test/good.test.ts', '@htm/payments')).toEqual([]);
    expect(await boundaryErrors('test/support/good.ts', '@htm/identity/testing')).toEqual([]);
    expect(await boundaryErrors('test/good.test.ts', '@htm/service-kit/testing')).toEqual([]);
  });
});

describe('web feature boundaries', () => {
  it('refuses a feature importing another feature, from any depth', async () => {
    expect(
      await boundaryErrors(
        'web/src/features/tester/components/bad.tsx',
        '../../poster/api/poster-api',
      ),
    ).toEqual([expect.stringContaining('A web feature must not import another feature')]);
    expect(
      await boundaryErrors('web/src/features/landing/bad.ts', '../poster/api/poster-api'),
    ).toHaveLength(1);
    expect(
      await boundaryErrors(
        'web/src/features/admin/components/bad.tsx',
        '../../../features/tester/file-rules',
      ),
    ).toHaveLength(1);
  });

  it('lets a feature import its own files and the shared folders', async () => {
    expect(
      await boundaryErrors('web/src/features/tester/components/good.tsx', '../api/tester-api'),
    ).toEqual([]);
    expect(
      await boundaryErrors('web/src/features/tester/components/good.tsx', '../../../lib/format'),
    ).toEqual([]);
    expect(
      await boundaryErrors('web/src/features/landing/good.ts', '../../components/button'),
    ).toEqual([]);
  });

  it('refuses lib and components importing a feature, but lets the router (app) do so', async () => {
    expect(await boundaryErrors('web/src/lib/bad.ts', '../features/poster/api/poster-api')).toEqual(
      [expect.stringContaining('must not import a feature')],
    );
    expect(
      await boundaryErrors('web/src/components/bad.tsx', '../features/tester/file-rules'),
    ).toHaveLength(1);
    expect(
      await boundaryErrors('web/src/app/good.tsx', '../features/poster/components/poster-page'),
    ).toEqual([]);
  });
});
