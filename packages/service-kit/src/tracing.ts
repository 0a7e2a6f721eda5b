/**
 * One trace per request (OpenTelemetry, W3C `traceparent`): the gateway starts it (a caller's
 * `traceparent` becomes a link, never the parent: see traceRequests), every service
 * continues it from the incoming header, outgoing calls and events carry it on, consumers pick it
 * up from the event envelope.
 *
 * Off unless switched on: with OTEL_EXPORTER_OTLP_ENDPOINT set, `startTracingFromEnv` registers a
 * tracer provider that batches spans to that OTLP/HTTP endpoint; tests call `startTracing` with
 * their own exporter. While off nothing is registered: `tracingEnabled()` is false, the HTTP layer
 * adds no middleware, and the helpers below return at once (the gateway's hot path pays nothing).
 */
import type { RequestHandler } from 'express';
import {
  ROOT_CONTEXT,
  context,
  propagation,
  trace,
  SpanKind,
  SpanStatusCode,
  type Context,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export { SpanKind, SpanStatusCode, type Span };
/** For tests: collect finished spans in memory (`startTracing({ exporter: new InMemorySpanExporter(), simple: true })`). */
export { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export const TRACEPARENT_HEADER = 'traceparent';

/** What tracing needs of a registered tracer provider (ours, or the Node SDK's: otel-register.ts). */
interface RegisteredProvider {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

// On globalThis, not in a module variable: otel-register.js and main.js are separate bundles in
// the images, each with its own copy of this module, and must see the same provider.
const PROVIDER = Symbol.for('htm.tracing.provider');
const slot = globalThis as { [PROVIDER]?: RegisteredProvider };

/** True once a tracer provider is registered in this process. */
export function tracingEnabled(): boolean {
  return slot[PROVIDER] !== undefined;
}

export interface StartTracingOptions {
  /** `service.name` of every span from this process (one process may host several services). */
  serviceName: string;
  exporter: SpanExporter;
  /** Export each span as it ends (tests) instead of in batches. */
  simple?: boolean;
}

/**
 * Registers the process-wide tracer provider, W3C propagator and AsyncLocalStorage context.
 * The first call wins; later calls return the same handle.
 */
export function startTracing(opts: StartTracingOptions): TracingHandle {
  let registered = slot[PROVIDER];
  if (!registered) {
    const processor: SpanProcessor = opts.simple
      ? new SimpleSpanProcessor(opts.exporter)
      : new BatchSpanProcessor(opts.exporter);
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': opts.serviceName }),
      spanProcessors: [processor],
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
    registered = slot[PROVIDER] = provider;
  }
  return handle(registered);
}

export interface TracingHandle {
  /** Exports what is pending and switches tracing off. */
  shutdown(): Promise<void>;
}

function handle(p: RegisteredProvider): TracingHandle {
  return {
    async shutdown() {
      await p.shutdown();
      if (slot[PROVIDER] === p) {
        trace.disable();
        propagation.disable();
        context.disable();
        slot[PROVIDER] = undefined;
      }
    },
  };
}

/**
 * Called by otel-register.ts once the Node SDK (with auto-instrumentation) has registered itself
 * as the global tracer provider: tracing is then on, and the helpers below use it.
 */
export function adoptTracerProvider(p: RegisteredProvider): void {
  slot[PROVIDER] ??= p;
}

/**
 * The OTLP/HTTP traces URL the environment names, or undefined when tracing is off:
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is the full URL, OTEL_EXPORTER_OTLP_ENDPOINT the base of
 * all signals; OTEL_SDK_DISABLED=true switches it off.
 */
export function otlpTracesUrl(env: Record<string, string | undefined>): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return (
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined)
  );
}

/**
 * Switches tracing on when OTEL_EXPORTER_OTLP_ENDPOINT is set (OTLP over HTTP; the exporter reads
 * the standard OTEL_EXPORTER_OTLP_* variables itself), else leaves it off. Safe to call from every
 * service a process starts. A process started with otel-register.ts (images, `start:cluster`,
 * `npm start`) already has the Node SDK registered with SQL, Redis, HTTP client, express and
 * Kafka spans; this fallback (a process started without it, e.g. `tsx services/x/src/main.ts`)
 * traces requests and events only.
 */
export async function startTracingFromEnv(
  serviceName: string,
  env: Record<string, string | undefined> = process.env,
): Promise<TracingHandle | undefined> {
  const registered = slot[PROVIDER];
  if (registered) return handle(registered);
  const url = otlpTracesUrl(env);
  if (!url) return undefined;
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return startTracing({
    serviceName: env.OTEL_SERVICE_NAME ?? serviceName,
    exporter: new OTLPTraceExporter({ url }),
  });
}

/** Exports the spans still waiting in a batch (call when a service stops); no-op while off. */
export async function flushTracing(): Promise<void> {
  await slot[PROVIDER]?.forceFlush().catch(() => undefined);
}

/** The tracer a service names its spans with (its instrumentation scope). */
export function tracer(service: string): Tracer {
  return trace.getTracer(`htm.${service}`);
}

/** The context a W3C `traceparent` value names (`base`, by default the root context, when it is missing or bad). */
export function contextFromTraceparent(
  traceparent: string | null | undefined,
  base: Context = ROOT_CONTEXT,
): Context {
  if (!traceparent) return base;
  return propagation.extract(base, { [TRACEPARENT_HEADER]: traceparent });
}

/** The `traceparent` of the active span (or of `ctx`), or undefined when tracing is off or no span is active. */
export function currentTraceparent(ctx?: Context): string | undefined {
  if (!slot[PROVIDER]) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(ctx ?? context.active(), carrier);
  return carrier[TRACEPARENT_HEADER];
}

/** The `traceparent` naming `span` (to hand on to whoever continues its trace). */
export function traceparentOfSpan(span: Span): string | undefined {
  return currentTraceparent(trace.setSpan(ROOT_CONTEXT, span));
}

/** Adds `traceparent` for the active span to outgoing HTTP headers (no-op while tracing is off). */
export function injectTraceHeaders<H extends Record<string, string>>(headers: H): H {
  const tp = currentTraceparent();
  if (tp) (headers as Record<string, string>)[TRACEPARENT_HEADER] = tp;
  return headers;
}

/**
 * Runs fn inside a new span (child of `parent`, else of the active context) and ends it when fn
 * settles, recording a thrown error. With tracing off it only calls fn.
 */
export async function inSpan<T>(
  service: string,
  name: string,
  opts: {
    kind?: SpanKind;
    parent?: Context;
    attributes?: Record<string, string | number | boolean>;
  },
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!slot[PROVIDER]) return fn(undefined);
  const parent = opts.parent ?? context.active();
  const span = tracer(service).startSpan(
    name,
    { kind: opts.kind, attributes: opts.attributes },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => fn(span));
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Express middleware: one SERVER span per request, active while the request is handled. The
 * request's `traceparent` header is replaced by this span's, so a proxy that forwards the
 * request's headers (the gateway) makes the upstream's span a child of this one.
 *
 * Inside the product (`edge` false) the span continues the caller's `traceparent`: the caller is
 * the gateway or another service. At the edge (`edge: true`, the gateway) the caller is anyone on
 * the internet: the span starts a new trace, always sampled, and keeps a valid caller
 * `traceparent` only as a span link (`htm.link: caller`). A client can then neither choose our
 * trace ids (to mix its requests into someone else's trace) nor switch our spans off with a
 * sampled-off flag; its `tracestate` is dropped too.
 */
export function traceRequests(service: string, opts: { edge?: boolean } = {}): RequestHandler {
  const t = tracer(service);
  return (req, res, next) => {
    // Probes and scrapes would be most of the traces and tell nothing.
    if (req.path === '/healthz' || req.path === '/readyz' || req.path === '/metrics') return next();
    const caller = propagation.extract(ROOT_CONTEXT, req.headers);
    let parent = caller;
    let links: Link[] | undefined;
    if (opts.edge) {
      parent = ROOT_CONTEXT;
      const remote = trace.getSpanContext(caller);
      if (remote && trace.isSpanContextValid(remote))
        links = [{ context: remote, attributes: { 'htm.link': 'caller' } }];
      delete req.headers.tracestate;
    }
    const span = t.startSpan(
      `${req.method} ${req.path}`,
      {
        kind: SpanKind.SERVER,
        links,
        attributes: {
          'http.request.method': req.method,
          'url.path': req.path,
          'htm.service': service,
          'htm.correlation_id': req.correlationId ?? '',
        },
      },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    const tp = currentTraceparent(ctx);
    if (tp) req.headers[TRACEPARENT_HEADER] = tp;
    else delete req.headers[TRACEPARENT_HEADER];
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (req.route?.path) span.updateName(`${req.method} ${req.baseUrl}${String(req.route.path)}`);
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    res.once('finish', end);
    res.once('close', end);
    context.with(ctx, next);
  };
}
