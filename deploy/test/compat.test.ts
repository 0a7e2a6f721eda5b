/**
 * Compatibility in CI (issue #37): the committed snapshots in compat/ match the code, a breaking
 * event or API change fails with a message naming the field or route (fixtures below show each
 * kind caught, and additive changes passing), and a type with two versions is read in both.
 */
import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { catalogue, createEvent, parseEnvelope, type EventDefinition } from '@htm/events';
import {
  baseRef,
  breakingChanges,
  buildEventsSnapshot,
  eventProblems,
  explain,
  httpProblems,
  readAccepted,
  readSnapshot,
  snapshotAtRef,
  snapshotStatus,
  SNAPSHOTS,
  unaccepted,
} from '../../scripts/compat.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON fixtures edited freely

const events = readSnapshot('events.schema.json')!;
const publicApi = readSnapshot('openapi.json')!;

/** A copy of the committed events snapshot with one change made to it. */
function eventsWith(change: (e: Json) => void): Json {
  const copy = structuredClone(events) as Json;
  change(copy.events);
  return copy;
}
const messages = (after: Json) => eventProblems(events, after).map((p) => p.message);

describe('committed snapshots', () => {
  it.each(SNAPSHOTS)(
    'compat/%s is what `npm run compat:snapshot` generates from the code',
    (name) => {
      const status = snapshotStatus(name);
      if (status.stale) throw new Error(explain(status));
      expect(status.stale).toBe(false);
    },
  );

  it('holds every event type with its source, key and data schema, and the public and internal routes', () => {
    expect(Object.keys(events.events as Json)).toEqual(Object.keys(catalogue));
    expect((events.events as Json).JobClaimed['1']).toMatchObject({
      source: 'jobs',
      key: '`jobId`',
    });
    expect(Object.keys((publicApi.paths as Json)['/api/jobs'])).toEqual(
      expect.arrayContaining(['get', 'post']),
    );
    expect(Object.keys(readSnapshot('internal-openapi.json')!.paths as Json).sort()).toEqual(
      [
        '/internal/checkout-sessions',
        '/internal/jobs/clear',
        '/internal/jobs/clear-preview',
        '/internal/jwks',
        // Answered by every service to identity (packages/service-kit privacy-routes.ts).
        '/internal/privacy/erasures/{eventId}',
        '/internal/privacy/users/{userId}/blockers',
        '/internal/privacy/users/{userId}/export',
        '/internal/privacy/users/{userId}/files/{fileId}',
      ].sort(),
    );
  });

  it('has no breaking change since the base ref (release tag, else HEAD~1) that no commit marked intended', () => {
    const ref = baseRef();
    const accepted = readAccepted();
    for (const name of SNAPSHOTS) {
      const before = ref ? snapshotAtRef(ref, name) : undefined;
      if (!before) continue; // the snapshot is new in this commit
      const open = unaccepted(breakingChanges(name, before, readSnapshot(name)!), accepted);
      expect(open.map((c) => c.message)).toEqual([]);
    }
  });
});

describe('event changes without a new version (fixtures)', () => {
  it.each<[string, (e: Json) => void, string]>([
    [
      'a removed field',
      (e) => delete e.LeadReceived['1'].data.properties.email,
      'LeadReceived v1: field `email` was removed or renamed',
    ],
    [
      'a renamed field',
      (e) => {
        const d = e.FeedbackReceived['1'].data;
        d.properties.page_url = d.properties.pageUrl;
        delete d.properties.pageUrl;
      },
      'FeedbackReceived v1: field `pageUrl` was removed or renamed',
    ],
    [
      'a narrowed enum',
      (e) => e.JobClaimed['1'].data.properties.by.enum.pop(),
      'JobClaimed v1: field `by` lost the value(s) ["admin"]',
    ],
    [
      'a field no longer nullable',
      (e) => (e.FeedbackReceived['1'].data.properties.pageUrl = { type: 'string' }),
      'FeedbackReceived v1: field `pageUrl` is no longer nullable',
    ],
    [
      'a changed type',
      (e) => (e.JobPaid['1'].data.properties.amountCents = { type: 'string' }),
      'JobPaid v1: field `amountCents` changed type: integer',
    ],
    [
      'a nested field removed',
      (e) => delete e.ClientTelemetry['1'].data.properties.events.items.properties.at,
      'ClientTelemetry v1: field `events[].at` was removed or renamed',
    ],
    [
      'a new required field',
      (e) => {
        const d = e.LeadReceived['1'].data;
        d.properties.source = { type: 'string' };
        d.required.push('source');
      },
      'LeadReceived v1: new required field `source`',
    ],
    [
      'an optional field made required',
      (e) => e.WorkSubmitted['1'].data.required.push('hasRecording'),
      'WorkSubmitted v1: field `hasRecording` became required',
    ],
    [
      'a changed key',
      (e) => (e.JobClaimed['1'].key = '`testerId`'),
      'JobClaimed v1: key (subject) changed from `jobId` to `testerId`',
    ],
    [
      'a type moved to another stream',
      (e) => (e.LeadReceived['1'].source = 'jobs'),
      'LeadReceived v1: source changed from admin to jobs',
    ],
    [
      'a removed type',
      (e) => delete e.LeadReceived,
      'LeadReceived v1: was removed or renamed while consumers may still read it',
    ],
  ])('%s fails, naming the field', (_what, change, expected) => {
    expect(messages(eventsWith(change)).join('\n')).toContain(expected);
  });

  it('a widened enum fails too (consumers not yet upgraded refuse the new value)', () => {
    const after = eventsWith((e) =>
      e.CheckoutCancelled['1'].data.properties.reason.enum.push('refunded'),
    );
    expect(messages(after)).toEqual([
      expect.stringContaining('CheckoutCancelled v1: field `reason` has new value(s) ["refunded"]'),
    ]);
  });

  it.each<[string, (e: Json) => void]>([
    [
      'a new optional field',
      (e) => (e.LeadReceived['1'].data.properties.source = { type: 'string' }),
    ],
    [
      'a new optional nested field',
      (e) =>
        (e.ClientTelemetry['1'].data.properties.events.items.properties.page = { type: 'string' }),
    ],
    [
      'a new event type',
      (e) =>
        (e.LeadQualified = {
          1: {
            source: 'admin',
            key: '`leadId`',
            data: {
              type: 'object',
              properties: { leadId: { type: 'string' } },
              required: ['leadId'],
            },
          },
        }),
    ],
    [
      'a changed description',
      (e) => (e.JobPaid['1'].data.properties.amountCents.description = 'cents'),
    ],
    [
      'a new version beside the old one',
      (e) =>
        (e.LeadReceived['2'] = {
          source: 'admin',
          key: '`leadId`',
          data: {
            type: 'object',
            properties: { leadId: { type: 'string' } },
            required: ['leadId'],
          },
        }),
    ],
  ])('%s passes', (_what, change) => {
    expect(messages(eventsWith(change))).toEqual([]);
  });

  it('an old version may leave the catalogue only after its stated deprecation window', () => {
    const before = eventsWith(
      (e) =>
        (e.LeadReceived['0'] = {
          ...structuredClone(e.LeadReceived['1']),
          deprecatedUntil: '2026-12-31',
        }),
    );
    expect(eventProblems(before, events, new Date('2026-12-01')).map((p) => p.message)).toEqual([
      expect.stringContaining(
        'LeadReceived v0: was removed or renamed while consumers may still read it: its deprecation window lasts until 2026-12-31',
      ),
    ]);
    expect(eventProblems(before, events, new Date('2027-01-01'))).toEqual([]);
  });

  it('says which command to run, and an intended change passes once marked', () => {
    const after = eventsWith((e) => delete e.LeadReceived['1'].data.properties.email);
    const changes = eventProblems(events, after);
    const text = explain({
      name: 'events.schema.json',
      current: '',
      generated: '',
      stale: true,
      breaking: changes,
    });
    expect(text).toContain('npm run compat:snapshot -- --accept-breaking');
    expect(
      unaccepted(changes, [
        {
          ...changes[0],
          reason: 'leads moved to the CRM; analytics told',
          acceptedAt: '2026-11-26',
        },
      ]),
    ).toEqual([]);
    const stale = explain({
      name: 'events.schema.json',
      current: '',
      generated: '',
      stale: true,
      breaking: [],
    });
    expect(stale).toContain('run `npm run compat:snapshot`');
  });
});

describe('a type with two versions: consumers read both', () => {
  it('v1 events still in the stream are upgraded; v2 events are read as they are; the snapshot change is additive', () => {
    const def = catalogue.LeadReceived as unknown as EventDefinition;
    const saved = { ...def };
    const v1 = def.data;
    try {
      // LeadReceived v2 adds a required `channel`; v1 stays readable until its deprecation date.
      Object.assign(def, {
        version: 2,
        data: z.object({
          leadId: z.string().min(1),
          email: z.string(),
          channel: z.enum(['form', 'import']),
        }),
        previous: [
          {
            version: 1,
            data: v1,
            deprecatedUntil: '2027-03-01',
            upgrade: (d: { leadId: string; email: string }) => ({ ...d, channel: 'form' }),
          },
        ],
      });
      const fresh = createEvent('LeadReceived', 'lead-2', {
        leadId: 'lead-2',
        email: 'b@example.com',
        channel: 'import',
      } as never);
      expect(fresh.version).toBe(2);
      expect(parseEnvelope(JSON.parse(JSON.stringify(fresh))).data).toEqual({
        leadId: 'lead-2',
        email: 'b@example.com',
        channel: 'import',
      });

      const old = {
        ...fresh,
        id: randomUUID(),
        version: 1,
        subject: 'lead-1',
        data: { leadId: 'lead-1', email: 'a@example.com' },
      };
      expect(parseEnvelope(old).data).toEqual({
        leadId: 'lead-1',
        email: 'a@example.com',
        channel: 'form',
      });
      // A v1 event that does not fit v1 is refused (dead letter), naming the version.
      expect(() => parseEnvelope({ ...old, data: { leadId: 'lead-1' } })).toThrow(
        /LeadReceived v1 data: email/,
      );

      const next = buildEventsSnapshot();
      expect(Object.keys((next.events as Json).LeadReceived)).toEqual(['1', '2']);
      expect((next.events as Json).LeadReceived['1'].deprecatedUntil).toBe('2027-03-01');
      expect(eventProblems(events, next)).toEqual([]);
    } finally {
      for (const k of ['version', 'data', 'previous'] as const)
        (def as unknown as Json)[k] = (saved as unknown as Json)[k];
      if (!('previous' in saved)) delete (def as unknown as Json).previous;
    }
    expect(catalogue.LeadReceived.version).toBe(1);
  });
});

describe('API changes (fixtures on the public OpenAPI document)', () => {
  // A few routes of the real document (diffing all of it takes seconds per case).
  const keep = [
    '/api/auth/session',
    '/api/auth/logout-all',
    '/api/admin/testers',
    '/api/users/init',
    '/api/tester/my-earnings',
    '/api/jobs',
  ];
  const small: Json = {
    ...publicApi,
    paths: Object.fromEntries(keep.map((p) => [p, (publicApi.paths as Json)[p]])),
  };
  const apiWith = (change: (d: Json) => void): Json => {
    const copy = structuredClone(small);
    change(copy.paths);
    return copy;
  };
  const body = (d: Json, p: string, m = 'post') =>
    d[p][m].requestBody.content['application/json'].schema;
  const ok = (d: Json, p: string, m = 'get') =>
    d[p][m].responses['200'].content['application/json'].schema;

  it.each<[string, (d: Json) => void, string]>([
    ['a removed route', (d) => delete d['/api/auth/session'], 'POST /api/auth/session'],
    [
      'a removed response field',
      (d) => delete ok(d, '/api/auth/logout-all', 'post').properties.ended,
      'POST /api/auth/logout-all',
    ],
    [
      'a removed enum value',
      (d) => body(d, '/api/users/init').properties.country.enum.pop(),
      'POST /api/users/init',
    ],
    [
      'a narrowed type',
      (d) => (body(d, '/api/auth/session').properties.session_id.maxLength = 10),
      'POST /api/auth/session',
    ],
    [
      'a new required body field',
      (d) => {
        body(d, '/api/auth/session').properties.device = { type: 'string' };
        body(d, '/api/auth/session').required.push('device');
      },
      'POST /api/auth/session',
    ],
    [
      'a new required query parameter',
      (d) =>
        (d['/api/tester/my-earnings'].get.parameters = [
          { name: 'month', in: 'query', required: true, schema: { type: 'string' } },
        ]),
      'GET /api/tester/my-earnings',
    ],
    [
      'an optional query parameter made required',
      (d) => (d['/api/admin/testers'].get.parameters[0].required = true),
      'GET /api/admin/testers',
    ],
  ])('%s fails, naming the route', (_what, change, route) => {
    const found = httpProblems('openapi.json', small, apiWith(change));
    expect(found.length).toBeGreaterThan(0);
    expect(found.map((c) => c.message).join('\n')).toContain(route);
    // Marked intended, it passes.
    expect(
      unaccepted(
        found,
        found.map((c) => ({ ...c, reason: 'intended', acceptedAt: '2026-11-26' })),
      ),
    ).toEqual([]);
  });

  it.each<[string, (d: Json) => void]>([
    [
      'a new route',
      (d) =>
        (d['/api/jobs/{id}/notes'] = {
          get: { summary: 'Notes', responses: { 200: { description: 'Notes' } } },
        }),
    ],
    [
      'a new optional body field',
      (d) => (body(d, '/api/auth/session').properties.device = { type: 'string' }),
    ],
    [
      'a new response field',
      (d) => (ok(d, '/api/auth/logout-all', 'post').properties.at = { type: 'string' }),
    ],
    [
      'a new optional query parameter',
      (d) =>
        d['/api/admin/testers'].get.parameters.push({
          name: 'q',
          in: 'query',
          required: false,
          schema: { type: 'string' },
        }),
    ],
    [
      'a new enum value in a request',
      (d) => body(d, '/api/users/init').properties.country.enum.push('MX'),
    ],
  ])('%s passes', (_what, change) => {
    expect(httpProblems('openapi.json', small, apiWith(change))).toEqual([]);
  });
});
