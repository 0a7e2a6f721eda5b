/**
 * Generated files stay in step with their sources: docs/events.md with the event catalogue and
 * .env.example with the services' config schemas. Each is regenerated in memory and compared.
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { catalogue, EVENT_TYPES } from '@htm/events';
import { renderEventsDoc, EVENTS_DOC } from '../../scripts/events-docs.js';
import { collectKeys, renderEnvExample } from '../../scripts/env-example.js';
import { ROOT } from './helpers.js';

describe('docs/events.md', () => {
  it('is what `npm run docs:events` generates from the catalogue (run it when this fails)', async () => {
    expect(readFileSync(EVENTS_DOC, 'utf8')).toBe(await renderEventsDoc());
  });

  it('describes every event type with its source, version and data schema', async () => {
    const doc = await renderEventsDoc();
    for (const t of EVENT_TYPES) {
      const section = doc.slice(doc.indexOf(`\n### ${t}\n`));
      expect(section.length).toBeGreaterThan(0);
      expect(section).toContain(`- source: \`${catalogue[t].source}\``);
      expect(section).toContain(`- version: ${catalogue[t].version}`);
      expect(section).toContain(`- Kafka topic: \`<prefix>events.${catalogue[t].source}\``);
      for (const field of Object.keys((catalogue[t].data as unknown as { shape: object }).shape))
        expect(section.split('\n### ')[1]).toContain(`"${field}"`);
    }
  });

  it('would notice a changed catalogue (the staleness check can fail)', async () => {
    const before = await renderEventsDoc();
    const def = catalogue.LeadReceived as { description: string };
    const saved = def.description;
    try {
      def.description = `${saved} (changed)`;
      expect(await renderEventsDoc()).not.toBe(before);
    } finally {
      def.description = saved;
    }
  });
});

describe('.env.example', () => {
  it('is what `npm run env:example` generates from the config schemas (run it when this fails)', async () => {
    expect(readFileSync(path.join(ROOT, '.env.example'), 'utf8')).toBe(await renderEnvExample());
  });

  it('documents every key of every service', async () => {
    const text = readFileSync(path.join(ROOT, '.env.example'), 'utf8');
    const keys = await collectKeys();
    expect(keys.length).toBeGreaterThan(40);
    for (const k of keys) expect(text).toMatch(new RegExp(`^#${k.key}=`, 'm'));
  });
});

describe('docs/operations.md', () => {
  const text = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  it('names the metrics to watch and has the runbooks', () => {
    for (const m of [
      'http_requests_total',
      'http_request_duration_seconds',
      'outbox_backlog',
      'event_consumer_lag',
      'BullMQ',
    ])
      expect(text).toContain(m);
    for (const h of [
      '### Stuck outbox',
      '### Dead letters',
      '### Redis restart',
      '### Stripe webhook backlog',
      '### Rotating the JWT signing key',
      '### Rotating service-token keys',
      '## Security settings',
    ])
      expect(text).toContain(h);
  });

  it('names only metrics the code defines', () => {
    const code = ['packages/service-kit/src/metrics.ts', 'packages/events/src/service-host.ts']
      .map((f) => readFileSync(path.join(ROOT, f), 'utf8'))
      .join('\n');
    for (const m of [
      'http_requests_total',
      'http_request_duration_seconds',
      'outbox_backlog',
      'event_consumer_lag',
    ])
      expect(code).toContain(`'${m}'`);
  });
});
