/**
 * One trace per request: a Pay click on the local checkout, followed through the gateway, the
 * payments service (the page's POST and the webhook it sends), the outbox relay and the jobs
 * service's JobPaid handler, as spans of one trace in an in-memory exporter. The whole product
 * runs here (test/support/stack.ts), once with events on Redis Streams and once on Kafka (every
 * service's outbox relay and consumers over the wire to librdkafka's mock broker).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  InMemorySpanExporter,
  SpanKind,
  startTracing,
  type ReadableSpan,
  type TracingHandle,
} from '@htm/service-kit/tracing';
import { startKafkaMock, type KafkaMock } from './support/kafka-mock.js';
import {
  client,
  JOB,
  signInPoster,
  startStack,
  waitFor,
  type Actor,
  type Stack,
} from './support/stack.js';

const exporter = new InMemorySpanExporter();
let tracing: TracingHandle;
let stack: Stack;
let poster: Actor;
let kafka: KafkaMock | undefined;

beforeAll(() => {
  tracing = startTracing({ serviceName: 'htm-test', exporter, simple: true });
});
afterAll(async () => {
  await tracing?.shutdown();
});

const transports: Array<{ bus: string; env: () => Promise<Record<string, string>> }> = [
  { bus: 'Redis Streams', env: async () => ({ EVENT_BUS: 'redis' }) },
  {
    bus: 'Kafka',
    env: async () => {
      kafka = await startKafkaMock();
      // Short fetch waits and quick groups: the mock answers a fetch only after its full MaxWait.
      return {
        EVENT_BUS: 'kafka',
        KAFKA_BROKERS: kafka.brokers,
        KAFKA_MAX_WAIT_MS: '250',
        KAFKA_SESSION_TIMEOUT_MS: '6000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '500',
      };
    },
  },
];

const scope = (s: ReadableSpan) => s.instrumentationScope.name;
const parentId = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const traceOf = (s: ReadableSpan) => s.spanContext().traceId;

/** Posts a job, then pays it as the browser's form would; answers the job id and the pay request's trace id. */
async function postAndPay(headers: Record<string, string> = {}) {
  const posted = await client(stack, poster.token).post('/api/jobs', JOB);
  expect(posted.status).toBe(201);
  const pay = await fetch(`${stack.url}${posted.body.checkout_url}/pay`, {
    method: 'POST',
    redirect: 'manual',
    headers,
  });
  expect(pay.status).toBe(303);
  const jobId = posted.body.job.id;
  const gateway = await waitFor(
    () =>
      exporter
        .getFinishedSpans()
        .find(
          (s) =>
            scope(s) === 'htm.gateway' &&
            s.kind === SpanKind.SERVER &&
            String(s.attributes['url.path']).endsWith(`/${posted.body.session_id}/pay`),
        ),
    "the gateway's span of the pay request",
  );
  return { jobId, gateway };
}

describe.each(transports)('tracing a pay request, events on $bus', ({ env }) => {
  beforeAll(async () => {
    stack = await startStack({ label: 'trace', env: await env() });
    poster = await signInPoster(stack, 'trace.poster@gmail.com');
  }, 600_000); // the Kafka run may first build librdkafka (test/support/kafka-mock.ts)
  afterAll(async () => {
    await stack?.stop();
    await kafka?.stop();
    kafka = undefined;
  });

  it('records the pay request as one trace: gateway -> payments -> webhook -> outbox relay -> jobs JobPaid handler', async () => {
    const { jobId, gateway } = await postAndPay();
    const traceId = traceOf(gateway);
    const handled = await waitFor(
      () =>
        exporter
          .getFinishedSpans()
          .find(
            (s) => traceOf(s) === traceId && scope(s) === 'htm.jobs' && s.name === 'handle JobPaid',
          ),
      "jobs' JobPaid handler span in the pay request's trace",
    );
    const spans = exporter.getFinishedSpans().filter((s) => traceOf(s) === traceId);
    const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
    // Walk from the JobPaid handler up to the root: each step is the parent of the one before.
    const chain: ReadableSpan[] = [handled];
    for (let s = handled; parentId(s);) {
      const parent = byId.get(parentId(s)!);
      if (!parent)
        throw new Error(`span ${s.name} (${scope(s)}) has a parent outside the exported trace`);
      chain.unshift(parent);
      s = parent;
    }
    expect(chain.map((s) => [scope(s), s.kind, s.name])).toEqual([
      [
        'htm.gateway',
        SpanKind.SERVER,
        expect.stringMatching(/^POST \/api\/payments\/local\/checkout\/.+\/pay$/),
      ],
      ['htm.payments', SpanKind.SERVER, 'POST /api/payments/local/checkout/:session_id/pay'],
      ['htm.payments', SpanKind.SERVER, 'POST /api/payments/webhook'],
      ['htm.payments', SpanKind.PRODUCER, 'publish JobPaid'],
      ['htm.jobs', SpanKind.CONSUMER, 'handle JobPaid'],
    ]);
    expect(chain[0]).toBe(gateway);
    expect(parentId(gateway)).toBeUndefined();
    expect(chain[1]!.attributes['http.response.status_code']).toBe(303);
    expect(handled.attributes['messaging.message.id']).toBe(
      chain[3]!.attributes['messaging.message.id'],
    );

    // The trace context travelled inside the stored event, and the job really is paid.
    const [row] = await stack.sql<{ envelope: { traceparent?: string } }>(
      "SELECT envelope FROM payments.outbox WHERE type = 'JobPaid' AND subject = $1",
      [jobId],
    );
    expect(row?.envelope.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    const jobs = await client(stack, poster.token).get('/api/jobs');
    expect(jobs.body.jobs.find((j) => j.id === jobId)?.payment_status).toBe('paid');
  });

  it('follows posting a job from the gateway through jobs into the internal call to payments', async () => {
    exporter.reset();
    const posted = await client(stack, poster.token).post('/api/jobs', JOB);
    expect(posted.status).toBe(201);
    const spans = () => exporter.getFinishedSpans();
    const gateway = await waitFor(
      () => spans().find((s) => scope(s) === 'htm.gateway' && s.name === 'POST /api/jobs'),
      "the gateway's span of POST /api/jobs",
    );
    const traceId = traceOf(gateway);
    const jobs = spans().find(
      (s) => traceOf(s) === traceId && scope(s) === 'htm.jobs' && s.kind === SpanKind.SERVER,
    );
    const payments = spans().find(
      (s) => traceOf(s) === traceId && scope(s) === 'htm.payments' && s.kind === SpanKind.SERVER,
    );
    expect(jobs?.name).toBe('POST /api/jobs');
    expect(parentId(jobs!)).toBe(gateway.spanContext().spanId);
    expect(payments?.name).toBe('POST /internal/checkout-sessions');
    expect(parentId(payments!)).toBe(jobs!.spanContext().spanId);
    // The JobCreated event written while posting carries the same trace.
    const [row] = await stack.sql<{ envelope: { traceparent?: string } }>(
      "SELECT envelope FROM jobs.outbox WHERE type = 'JobCreated' AND subject = $1",
      [posted.body.job.id],
    );
    expect(row?.envelope.traceparent?.split('-')[1]).toBe(traceId);
  });

  it("starts a new trace at the gateway and keeps the caller's traceparent only as a link", async () => {
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const { gateway } = await postAndPay({
      traceparent: `00-${callerTrace}-${callerSpan}-01`,
      tracestate: 'evil=1',
    });
    expect(traceOf(gateway)).not.toBe(callerTrace);
    expect(parentId(gateway)).toBeUndefined();
    expect(
      gateway.links.map((l) => [l.context.traceId, l.context.spanId, l.attributes?.['htm.link']]),
    ).toEqual([[callerTrace, callerSpan, 'caller']]);
    // The rest of the request (payments, the webhook, jobs' JobPaid handler) follows our trace.
    await waitFor(
      () =>
        exporter
          .getFinishedSpans()
          .some((s) => traceOf(s) === traceOf(gateway) && s.name === 'handle JobPaid'),
      "the JobPaid handler in the gateway's new trace",
    );
    expect(exporter.getFinishedSpans().some((s) => traceOf(s) === callerTrace)).toBe(false);
  });

  it('records the spans of a request whose caller sent a sampled-off traceparent', async () => {
    const callerTrace = '0af7651916cd43dd8448eb211c80319c';
    const { gateway } = await postAndPay({ traceparent: `00-${callerTrace}-b7ad6b7169203331-00` });
    expect(gateway.spanContext().traceFlags & 1).toBe(1);
    expect(gateway.links[0]?.context.traceId).toBe(callerTrace);
    await waitFor(
      () =>
        exporter
          .getFinishedSpans()
          .some(
            (s) =>
              traceOf(s) === traceOf(gateway) &&
              scope(s) === 'htm.payments' &&
              s.kind === SpanKind.SERVER,
          ),
      "payments' span of the pay request in the gateway's trace",
    );
  });
});
