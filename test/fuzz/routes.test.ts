/**
 * Property-based fuzzing of every route of the operation catalogue (packages/contracts
 * OPERATIONS) through the gateway, as anonymous, poster, tester and admin, with generated
 * invalid and edge-case bodies, query strings, path ids and headers:
 *   - never a 5xx, never a stack trace or internal error text in the body;
 *   - every 4xx is the JSON error shape {detail, code};
 *   - a 4xx changes no row in any service's schema (a checksum of every table, before/after).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { OPERATIONS, type Operation } from '@htm/contracts/routes';
import express from 'express';
import { checkResponses, listen, responseMismatches, type RunningServer } from '@htm/service-kit';
import {
  postAndPay,
  signInAdmin,
  signInPoster,
  signInTester,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from '../support/stack.js';

let stack: Stack;
const actors: Record<string, Actor | undefined> = {};
const real: { jobId?: string; sessionId?: string; testerId?: string; posterId?: string } = {};
let tables: string[] = [];
const tally = { cases: 0, byStatus: new Map<number, number>(), validation: 0 };
let github: RunningServer | undefined;
// CI replays one fixed seed (a red build must be reproducible); elsewhere each run explores new
// cases. FUZZ_SEED replays any run, FUZZ_RUNS sets the cases per caller.
const SEED = Number(process.env.FUZZ_SEED ?? (process.env.CI ? 20261122 : Date.now() % 2 ** 31));

beforeAll(async () => {
  // The privacy sweep builds a requested data export in the background: often, so settled() can wait for it.
  // A generated request that succeeds must still answer as its operation declares.
  checkResponses();
  // Connecting GitHub asks GitHub first: here a stand-in that refuses every token (400 to the poster).
  github = await listen(
    express().use((_req, res) => void res.status(401).json({ message: 'Bad credentials' })),
    0,
  );
  stack = await startStack({
    label: 'fuzz',
    withWorker: false,
    env: { PRIVACY_SWEEP_MS: '100', GITHUB_API_URL: github.url },
  });
  actors.admin = await signInAdmin(stack);
  actors.poster = await signInPoster(stack, 'fuzz.poster@gmail.com');
  actors.tester = await signInTester(stack, 'fuzz.tester@gmail.com', { admin: actors.admin });
  actors.anonymous = undefined;
  const { jobId, sessionId } = await postAndPay(stack, actors.poster);
  Object.assign(real, { jobId, sessionId, testerId: actors.tester.id, posterId: actors.poster.id });
  // The paid job's health check (no browser here: it ends at once) reaches jobs' projection in the
  // background; wait for it so it is not taken for a change made by a generated request.
  await waitFor(
    async () =>
      (
        await stack.sql<{ n: number }>(
          'SELECT count(*)::int AS n FROM jobs.site_checks WHERE job_id = $1',
          [jobId],
        )
      )[0].n > 0,
    "the paid job's health check in jobs",
    120_000,
  );
  tables = (
    await stack.sql<{ t: string }>(
      `SELECT format('%I.%I', table_schema, table_name) AS t FROM information_schema.tables
       WHERE table_schema IN ('identity', 'jobs', 'payments', 'admin') AND table_type = 'BASE TABLE' AND table_name NOT LIKE '__drizzle%'
       ORDER BY 1`,
    )
  ).map((r) => r.t);
}, 180_000); // starting a stack on a busy machine can take over a minute
afterAll(async () => {
  await github?.close();
  const statuses = [...tally.byStatus.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([s, n]) => `${s}x${n}`)
    .join(' ');
  console.log(
    `fuzz (seed ${SEED}): ${tally.cases} generated requests over ${OPERATIONS.length} operations and ${tables.length} tables; statuses ${statuses}`,
  );
  await stack?.stop();
});

/** One checksum per table of every service schema (row contents, order-independent). */
async function checksum(): Promise<Record<string, string>> {
  const sql = tables
    .map(
      (t) =>
        `SELECT '${t}' AS t, count(*)::text || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') AS c FROM ${t} x`,
    )
    .join(' UNION ALL ');
  const rows = await stack.sql<{ t: string; c: string }>(sql);
  return Object.fromEntries(rows.map((r) => [r.t, r.c]));
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** After a success, let its events settle (consumers, projections) before the next baseline. */
async function settled(): Promise<Record<string, string>> {
  let prev = await checksum();
  for (let i = 0; i < 40; i++) {
    await sleep(120);
    const next = await checksum();
    // A data export asked for is built by identity's sweep a moment later: not settled until it is.
    const building = await stack.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM identity.data_exports WHERE status IN ('pending', 'building')",
    );
    if (JSON.stringify(next) === JSON.stringify(prev) && building[0].n === 0) return next;
    prev = next;
  }
  return prev;
}

// ------------------------------------------------------------------------------------------
// Generators
// ------------------------------------------------------------------------------------------
const nasty = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  '%',
  '%00',
  '..',
  '../../etc/passwd',
  "' OR 1=1 --",
  '"; DROP TABLE jobs.jobs; --',
  '<script>alert(1)</script>',
  '${7*7}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '9999999999999999999999',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '😀🎉',
  'é'.repeat(3),
  'x'.repeat(5000),
  'a@b',
  'tester@gmail.com',
  'https://example.com',
  'javascript:alert(1)',
);
const str = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 3, arbitrary: nasty },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 2001, maxLength: 6000 }) },
);
const leaf = fc.oneof(
  str,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1, '1', 0, -1, 1.5, 169, 2 ** 53, Number.MAX_SAFE_INTEGER),
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(str, fc.constantFrom('__proto__', 'constructor')), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;

/** The keys a zod object schema (possibly wrapped in transforms/pipes/refinements) accepts. */
function keysOf(schema: unknown): string[] {
  let s = schema as
    | {
        shape?: Record<string, unknown>;
        _zod?: { def?: { in?: unknown; innerType?: unknown; schema?: unknown } };
      }
    | undefined;
  for (let i = 0; i < 5 && s; i++) {
    if (s.shape && typeof s.shape === 'object') return Object.keys(s.shape);
    const def = s._zod?.def;
    s = (def?.in ?? def?.innerType ?? def?.schema) as typeof s;
  }
  return [];
}

/** Bodies: objects over the schema's own keys with wrong or edge values, plus non-objects and junk. */
function bodyArb(op: Operation): fc.Arbitrary<{ raw: string; contentType: string }> {
  const keys = keysOf(op.body);
  const objectWithKeys = keys.length
    ? fc
        .record(Object.fromEntries(keys.map((k) => [k, jsonValue])), { requiredKeys: [] })
        .chain((o) =>
          fc.dictionary(str, jsonValue, { maxKeys: 2 }).map((extra) => ({ ...extra, ...o })),
        )
    : fc.dictionary(str, jsonValue, { maxKeys: 4 });
  const json = fc.oneof(
    { weight: 6, arbitrary: objectWithKeys },
    { weight: 1, arbitrary: jsonValue },
  );
  return fc.oneof(
    {
      weight: 8,
      arbitrary: json.map((v) => ({
        raw: JSON.stringify(v) ?? 'null',
        contentType: 'application/json',
      })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(
          fc.constantFrom(
            '{',
            '{"a":',
            '[1,2',
            'nul',
            '{"title": "x",}',
            '\u0000',
            '{"__proto__": {"admin": true}}',
            '"just a string"',
            '{'.repeat(2000) + '}'.repeat(2000),
          ),
          fc.constantFrom('application/json', 'application/json; charset=utf-8'),
        )
        .map(([raw, contentType]) => ({ raw, contentType })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          str,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data; boundary=xyz',
            'application/xml',
            'application/json; charset=utf-16',
            'application/json; charset=bogus',
          ),
        )
        .map(([raw, contentType]) => ({ raw, contentType })),
    },
  );
}

function queryArb(op: Operation): fc.Arbitrary<string> {
  const keys = [
    ...keysOf(op.query),
    'q',
    'page',
    'export',
    'limit',
    'cursor',
    'status',
    'download',
    'sig',
    'exp',
  ];
  const value = fc.oneof(
    str,
    fc.integer().map(String),
    fc.constantFrom(
      '',
      '-1',
      '0',
      '101',
      '1.5',
      'csv',
      'true',
      '1e3',
      'MjAyNi0wMS0wMXx4',
      '2026-01-01T00:00:00Z|x',
    ),
  );
  return fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...keys), str), value), { maxLength: 4 })
    .chain((pairs) =>
      fc.constantFrom('encoded', 'raw', 'none').map((mode) => {
        if (mode === 'none' || !pairs.length) return '';
        if (mode === 'encoded')
          return (
            '?' +
            pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
          );
        // Raw (badly escaped) query strings, as hand-made URLs have them.
        return (
          '?' +
          pairs.map(([k, v]) => `${k.replace(/[#\s]/g, '')}=${v.replace(/[#\s]/g, '')}`).join('&')
        );
      }),
    );
}

const segment = fc.oneof(
  fc.constant('REAL'),
  fc.uuid().map(String),
  nasty.map((s) => encodeURIComponent(s)),
  fc.constantFrom('%E0%A4%A', '%ZZ', '%2e%2e', '%2F', 'a%00b', '..'),
  fc.string({ minLength: 1, maxLength: 30 }).map((s) => encodeURIComponent(s)),
);

function pathOf(op: Operation, segs: string[]): string {
  let i = 0;
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const s = segs[i++ % segs.length];
    if (s !== 'REAL') return s;
    if (name === 'session_id') return real.sessionId!;
    if (name === 'testerId' || (name === 'id' && op.path.includes('approve-tester')))
      return real.testerId!;
    return real.jobId!;
  });
}

const headerArb = fc.record(
  {
    authorization: fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Bearer abc.def.ghi',
      'Basic YWRtaW46YWRtaW4=',
      'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
      'bearer  x',
    ),
    'x-correlation-id': fc.oneof(
      str.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
      fc.constant('x'.repeat(300)),
    ),
    'x-xsrf-token': str.map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    cookie: fc.constantFrom(
      'refresh_token=abc',
      'XSRF-TOKEN=a; refresh_token=b',
      '=;;=',
      'refresh_token=' + 'x'.repeat(4000),
    ),
    origin: fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1'),
    accept: fc.constantFrom('text/html', 'application/xml', '*/*', ''),
    'stripe-signature': fc.constantFrom('t=1,v1=abc', '', 't=abc,v1=', 'garbage'),
  },
  { requiredKeys: [] },
);

// Mostly ordinary headers (so requests reach validation); sometimes hostile ones.
const headersArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant({} as Record<string, string>) },
  { weight: 1, arbitrary: headerArb as fc.Arbitrary<Record<string, string>> },
);

const caseArb = fc
  .record({
    op: fc.constantFrom(...OPERATIONS),
    segs: fc.array(segment, { minLength: 2, maxLength: 2 }),
    query: fc.constant(''),
    headers: headersArb,
    sendBody: fc.boolean(),
    seed: fc.integer(),
  })
  .chain((c) =>
    fc.record({
      op: fc.constant(c.op),
      segs: fc.constant(c.segs),
      headers: fc.constant(c.headers),
      query: c.op.query || c.op.method === 'get' ? queryArb(c.op) : fc.constant(''),
      body:
        c.op.method === 'get'
          ? fc.constant(undefined)
          : c.op.body || c.sendBody
            ? bodyArb(c.op).map((b) => b as { raw: string; contentType: string } | undefined)
            : fc.constant(undefined),
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant(c.op.method.toUpperCase()) },
        { weight: 1, arbitrary: fc.constantFrom('PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH') },
      ),
    }),
  );

// ------------------------------------------------------------------------------------------
// The property
// ------------------------------------------------------------------------------------------
const STACK_FRAME = /\n\s+at \S|\bat \S+ \((?:file:|node:|\/)[^)]*:\d+:\d+\)|node_modules|\/work\//;
const INTERNALS =
  /\b(?:TypeError|ReferenceError|SyntaxError|RangeError|ZodError|DrizzleError|PostgresError|QueryFailedError)\b|Error: |ECONNREFUSED|duplicate key value|violates (?:unique|check|foreign key|not-null)|relation "|syntax error at|invalid input syntax/;

/** Links people open in a browser: asked for HTML, they answer a page (also for a bad or dead link). */
const PAGES = new Set([
  'GET /r/{token}',
  'GET /api/notifications/unsubscribe',
  'POST /api/notifications/unsubscribe',
]);
const asksForPage = (c: { op: Operation; headers: Record<string, string>; method: string }) =>
  PAGES.has(`${c.method} ${c.op.path}`) && /text\/html/.test(c.headers.accept ?? '');

async function runCase(
  actorName: string,
  c: {
    op: Operation;
    segs: string[];
    headers: Record<string, string>;
    query: string;
    body?: { raw: string; contentType: string };
    method: string;
  },
  baseline: { sums: Record<string, string> },
) {
  const actor = actors[actorName];
  const url = `${stack.url}${pathOf(c.op, c.segs)}${c.query}`;
  const headers: Record<string, string> = { ...c.headers };
  // Usually the actor's own token; sometimes the generated (malformed) one.
  if (actor && (!headers.authorization || c.segs[0].length % 3 !== 0))
    headers.authorization = `Bearer ${actor.token}`;
  if (c.body) headers['content-type'] = c.body.contentType;
  let res: Response;
  try {
    res = await fetch(url, {
      method: c.method,
      headers,
      body: c.body && c.method !== 'HEAD' && c.method !== 'GET' ? c.body.raw : undefined,
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    // A URL fetch itself refuses to send (bad characters) is not a server answer.
    if (
      err instanceof TypeError &&
      /URL|header|ByteString|Headers/i.test(`${err.message} ${(err.cause as Error)?.message ?? ''}`)
    )
      return;
    throw err;
  }
  const text = await res.text();
  tally.cases++;
  tally.byStatus.set(res.status, (tally.byStatus.get(res.status) ?? 0) + 1);
  if (res.status === 400 || res.status === 413 || res.status === 415) tally.validation++;
  const where = `${actorName} ${c.method} ${url.slice(stack.url.length, stack.url.length + 200)} -> ${res.status} ${text.slice(0, 300)}`;
  if (res.status >= 500) throw new Error(`5xx: ${where}`);
  if (STACK_FRAME.test(text)) throw new Error(`stack trace in the body: ${where}`);
  if (res.status >= 400) {
    if (INTERNALS.test(text)) throw new Error(`internal error text in a ${res.status}: ${where}`);
    if (asksForPage(c)) {
      if (!/^<!doctype html>/i.test(text))
        throw new Error(`a ${res.status} page that is not HTML: ${where}`);
    } else if (c.method !== 'HEAD') {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`a ${res.status} that is not JSON: ${where}`);
      }
      const b = body as { detail?: unknown; code?: unknown };
      if (
        typeof b?.detail !== 'string' ||
        typeof b?.code !== 'string' ||
        !b.detail ||
        !/^[a-z0-9_]+$/.test(b.code)
      )
        throw new Error(`a ${res.status} without {detail, code}: ${where}`);
    }
    const after = await checksum();
    const changed = Object.keys(after).filter((t) => after[t] !== baseline.sums[t]);
    if (changed.length) {
      baseline.sums = await settled();
      throw new Error(`a ${res.status} changed ${changed.join(', ')}: ${where}`);
    }
  } else {
    baseline.sums = await settled();
  }
}

describe('fuzzing every route through the gateway', () => {
  for (const actorName of ['anonymous', 'poster', 'tester', 'admin']) {
    it(`never answers a 5xx, a stack trace, a non-JSON 4xx or a 4xx that changed a row, as ${actorName}`, async () => {
      const baseline = { sums: await settled() };
      const before = tally.validation;
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          await runCase(actorName, c, baseline);
        }),
        {
          numRuns: Number(process.env.FUZZ_RUNS ?? 150),
          seed: SEED,
          endOnFailure: true,
          verbose: 1,
        },
      );
      // The generators must get past authentication into validation for the property to mean something.
      if (actorName !== 'anonymous') expect(tally.validation - before).toBeGreaterThan(10);
    }, 120_000);
  }
  it('answered every generated request that succeeded as its operation declares', () => {
    expect(responseMismatches).toEqual([]);
  });
});
