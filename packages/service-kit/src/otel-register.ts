/**
 * OpenTelemetry's Node SDK with auto-instrumentation, loaded before the application so its
 * modules can be hooked: `node --import ./otel-register.js main.js` in the images (the Dockerfile
 * and `start:cluster` do it), `node --import tsx --import .../otel-register.ts scripts/start.ts`
 * for `npm start`. Does nothing (imports nothing) unless an OTLP endpoint is configured, so a
 * process without tracing pays one tiny module.
 *
 * Spans it adds under the request spans of tracing.ts: every SQL statement (pg), every Redis
 * command (ioredis), express's middleware and handlers, outgoing HTTP calls (the gateway's proxy
 * hop) and Kafka produce/consume (kafkajs). Incoming HTTP requests stay with tracing.ts's
 * `traceRequests`, which starts a new trace at the edge (a caller's `traceparent` only becomes a
 * link): the http instrumentation's own server spans would continue the caller's trace.
 * SQL and Redis calls outside a request (outbox polling, stream reads) make no spans of their own.
 */
import { register } from 'node:module';
import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import { adoptTracerProvider, otlpTracesUrl } from './tracing.js';

/** Starts the SDK when the environment names an OTLP endpoint; answers whether it did. */
export async function startAutoInstrumentation(
  env: Record<string, string | undefined> = process.env,
): Promise<boolean> {
  const url = otlpTracesUrl(env);
  if (!url) return false;
  // ESM modules are hooked through import-in-the-middle's loader, CommonJS ones through
  // require-in-the-middle. The loader wraps only the modules an instrumentation asks for (the
  // message channel): wrapping every module breaks `export *` re-exports under tsx.
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const [
    { NodeSDK },
    { OTLPTraceExporter },
    { HttpInstrumentation },
    { ExpressInstrumentation },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { KafkaJsInstrumentation },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/instrumentation-kafkajs'),
  ]);
  const sdk = new NodeSDK({
    // One process may host several services (npm start): `htm.service` on each span tells them apart.
    // The bundles' build names the service (process.env.HTM_SERVICE_NAME is replaced at build time).
    serviceName: env.OTEL_SERVICE_NAME ?? process.env.HTM_SERVICE_NAME ?? 'htm',
    traceExporter: new OTLPTraceExporter({ url }),
    // Traces only: metrics are Prometheus' (/metrics), logs pino's.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
      new ExpressInstrumentation(),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new KafkaJsInstrumentation(),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  adoptTracerProvider({
    // NodeSDK has no flush of its own: its tracer provider is the global one.
    forceFlush: async () => {
      const global = trace.getTracerProvider();
      const p = (global instanceof ProxyTracerProvider ? global.getDelegate() : global) as {
        forceFlush?: () => Promise<void>;
      };
      await p.forceFlush?.();
    },
    shutdown: () => sdk.shutdown(),
  });
  return true;
}

await startAutoInstrumentation();
